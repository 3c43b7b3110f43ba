#!/bin/sh
# e2e.sh PLANWRAP VIEW_PREP SRC_ROOT WORK_DIR MODEL.pw [OPTION...]
#
# End-to-end differential test of one model.  Renders test kernels and a
# driver from the model's plan view (planwrap plan --emit view, then
# e2e_view_prep, then planwrap render test_kernels.c.mustache and
# test_main.c.mustache), generates C wrappers with every algorithm
# (E2E_ALGOS, default "naive reuse tree bestfit search auto"), builds each one
# with the lifetime tracker and runtime checks off and on, runs them, and
# requires every output to be byte-equal to the naive plan's (without the
# tracker).  The test kernels fill what each call writes from a hash of
# everything it reads and of its index, so a wrong reuse, an overlap or a
# stale read changes the outputs.
#
# With E2E_NEGATIVE=1 it also proves that it can fail: it moves every
# planned buffer of the naive plan to offset 0 and requires the tracked
# build to abort and the untracked build to fail or give other outputs;
# and it moves a storage death before the storage's last read and requires
# the tracked build (whose poison the read sees) to give other outputs.
#
# With E2E_KERNEL_STATUS=1 the wrappers are generated with --kernel-status
# and a kernel that returns non-zero at call 1 must stop every run there.
#
# With E2E_ORDERS="lpmf best ..." the program is also reordered with each
# `--order` (test kernels rendered from the reordered plan view, bestfit,
# tracker on): its outputs must equal the given order's.
#
# E2E_SAN adds sanitizer flags (e.g. -fsanitize=address,undefined) to
# the compilation and link of the generated code, kernels and driver.
#
# The options after MODEL.pw go to both `planwrap plan` and `planwrap gen`.
# CC (default cc) builds the generated code: -std=c11 -O0 (fast to
# compile; the runs are short) -Wall -Wextra -Werror -pedantic -Wcast-align.
set -eu

if [ $# -lt 5 ]; then
    echo "usage: e2e.sh PLANWRAP VIEW_PREP SRC_ROOT WORK_DIR MODEL.pw [GEN_OPTION...]" >&2
    exit 2
fi
pw=$1
prep=$2
root=$3
work=$4
model=$5
shift 5
algos=${E2E_ALGOS:-naive reuse tree bestfit search auto}
case $algos in
naive*) ;; # the reference: its first build
*)
    echo "e2e.sh: E2E_ALGOS must start with naive (the reference)" >&2
    exit 2
    ;;
esac
cc=${CC:-cc}
cflags="-std=c11 -O0 -Wall -Wextra -Werror -pedantic -Wcast-align -D_POSIX_C_SOURCE=200809L ${E2E_SAN:-}"
here=$root/tests/e2e
name=$(basename "$model" .pw)

fail() {
    echo "FAIL ($name): $*" >&2
    exit 1
}

rm -rf "$work"
mkdir -p "$work"

# 1. the view and the rendered test kernels and driver
"$pw" plan --emit view "$@" "$model" >"$work/view.json" ||
    fail "planwrap plan --emit view"
ks=""
gen_extra=""
if [ "${E2E_KERNEL_STATUS:-0}" = 1 ]; then
    ks=--kernel-status
    gen_extra=--kernel-status
fi
"$prep" $ks "$work/view.json" >"$work/view_e2e.json" || fail "e2e_view_prep"
for t in kernels main; do
    "$pw" render --strict --no-escape --data "$work/view_e2e.json" \
        -o "$work/$t.c" "$here/test_$t.c.mustache" ||
        fail "planwrap render test_$t.c.mustache"
done

# 2. the runtime, with and without tracker and checks
mkdir -p "$work/rt0" "$work/rt1"
for src in "$root"/runtime/*.c; do
    b=$(basename "$src" .c)
    # shellcheck disable=SC2086
    $cc $cflags -I "$root/runtime" -c "$src" -o "$work/rt0/$b.o"
    # shellcheck disable=SC2086
    $cc $cflags -DPW_RT_TRACK -DPW_RT_CHECKS -I "$root/runtime" -c "$src" \
        -o "$work/rt1/$b.o"
done
# shellcheck disable=SC2086
$cc $cflags -c "$here/harness.c" -o "$work/harness.o"

# 3. one wrapper per algorithm
build() { # build DIR TAG TRACKFLAGS RT [KERNELS.o]
    d=$1
    # shellcheck disable=SC2086
    $cc $cflags $3 -I "$d" -I "$root/runtime" -c "$d/$name.c" \
        -o "$d/model_$2.o" || return 1
    # shellcheck disable=SC2086
    $cc ${E2E_SAN:-} "$d/model_$2.o" "$d/main.o" "${5:-$work/kernels.o}" "$work/harness.o" \
        "$work/$4"/*.o -o "$d/run_$2" || return 1
}

gen_opts="$*"
ref=""
for algo in $algos; do
    # shellcheck disable=SC2086
    set -- $gen_opts
    d=$work/$algo
    "$pw" gen --target c --algo "$algo" $gen_extra "$@" -o "$d" "$model" ||
        fail "planwrap gen --algo $algo"
    # shellcheck disable=SC2086
    $cc $cflags -I "$d" -I "$root/runtime" -I "$here" -c "$work/main.c" \
        -o "$d/main.o" || fail "compile the driver for $algo"
    if [ ! -f "$work/kernels.o" ]; then
        # shellcheck disable=SC2086
        $cc $cflags -I "$d" -I "$root/runtime" -I "$here" \
            -c "$work/kernels.c" -o "$work/kernels.o" ||
            fail "compile the test kernels"
        kh=$d/${name}_kernels.h
    elif ! cmp -s "$kh" "$d/${name}_kernels.h"; then
        fail "$algo: ${name}_kernels.h differs from the first algorithm's"
    fi
    for track in 0 1; do
        tf=""
        [ $track -eq 1 ] && tf="-DPW_RT_TRACK -DPW_RT_CHECKS"
        build "$d" "t$track" "$tf" "rt$track" || fail "build $algo (track=$track)"
        "$d/run_t$track" "$d/out_t$track.bin" >"$d/run_t$track.txt" 2>&1 || {
            cat "$d/run_t$track.txt" >&2
            fail "run $algo (track=$track)"
        }
        if [ -z "$ref" ]; then
            ref=$d/out_t$track.bin
            echo "reference: $algo track=$track: $(cat "$d/run_t$track.txt")"
        elif cmp -s "$ref" "$d/out_t$track.bin"; then
            echo "ok: $algo track=$track"
        else
            fail "$algo (track=$track): outputs differ from the reference"
        fi
    done
done

# 4. --kernel-status: a non-zero status stops the run at once
if [ -n "$ks" ]; then
    for bin in "$d/run_t0" "$d/run_t1"; do
        PWT_FAIL_AT=1 "$bin" "$work/unused.bin" >"$work/status.txt" 2>&1 || {
            cat "$work/status.txt" >&2
            fail "kernel status: $bin did not stop at call 1"
        }
        echo "ok: $(basename "$bin"): $(cat "$work/status.txt")"
    done
fi

# 5. the test can fail: every buffer at offset 0 must be caught
if [ "${E2E_NEGATIVE:-0}" = 1 ]; then
    # shellcheck disable=SC2086
    set -- $gen_opts
    d=$work/broken
    mkdir -p "$d"
    "$pw" gen --target c --algo naive $gen_extra "$@" -o "$d" "$model" ||
        fail "planwrap gen (broken)"
    sed 's/^#define \([A-Za-z0-9_]*_BUF_[A-Za-z0-9_]*_OFFSET\) [0-9]*u$/#define \1 0u/' \
        "$d/$name.h" >"$d/$name.h.new"
    mv "$d/$name.h.new" "$d/$name.h"
    cmp -s "$d/$name.h" "$work/naive/$name.h" &&
        fail "negative test: no offset macro to break"
    # shellcheck disable=SC2086
    $cc $cflags -I "$d" -I "$root/runtime" -I "$here" -c "$work/main.c" \
        -o "$d/main.o"
    build "$d" t1 "-DPW_RT_TRACK -DPW_RT_CHECKS" rt1 || fail "build broken t1"
    build "$d" t0 "" rt0 || fail "build broken t0"
    if "$d/run_t1" "$d/out_t1.bin" >"$d/run_t1.txt" 2>&1; then
        fail "negative test: the tracker did not catch overlapping buffers"
    fi
    grep -q "overlaps live buffer" "$d/run_t1.txt" ||
        fail "negative test: no overlap message: $(cat "$d/run_t1.txt")"
    echo "ok: negative: the tracker caught it: $(grep -m1 overlaps "$d/run_t1.txt")"
    if "$d/run_t0" "$d/out_t0.bin" >"$d/run_t0.txt" 2>&1; then
        cmp -s "$ref" "$d/out_t0.bin" &&
            fail "negative test: overlapping buffers gave the same outputs"
        echo "ok: negative: without the tracker, the outputs differ"
    else
        echo "ok: negative: without the tracker: $(head -n1 "$d/run_t0.txt")"
    fi
fi
# 6. the tracker's poison shows a stale read: the first storage death of
# the naive wrapper moves before the call just before it (its last user,
# which then reads poisoned bytes): the tracked build's outputs must change
if [ "${E2E_NEGATIVE:-0}" = 1 ]; then
    d=$work/stale
    mkdir -p "$d"
    cp "$work/naive/$name.h" "$work/naive/${name}_kernels.h" "$d/"
    awk '
        { line[NR] = $0 }
        /^ *\/\* line [0-9]+: call / { if (!death) call = NR }
        /PW_TRACK_DEATH\(/ { if (!death) death = NR }
        END {
            for (i = 1; i <= NR; i++) {
                if (i == call && death) print line[death]
                if (i != death) print line[i]
            }
        }' "$work/naive/$name.c" >"$d/$name.c"
    cmp -s "$d/$name.c" "$work/naive/$name.c" &&
        fail "stale-read test: no storage death to move"
    cp "$work/naive/main.o" "$d/main.o"
    build "$d" t1 "-DPW_RT_TRACK -DPW_RT_CHECKS" rt1 || fail "build stale t1"
    if "$d/run_t1" "$d/out_t1.bin" >"$d/run_t1.txt" 2>&1 &&
        cmp -s "$ref" "$d/out_t1.bin"; then
        fail "stale-read test: reading a dead storage gave the same outputs"
    fi
    echo "ok: negative: a read after the storage's death changes the outputs"
fi
# 7. reordered programs: the same outputs as the given order
# run_order DIR ORDER MODEL: builds and runs MODEL reordered by ORDER (test
# kernels from its own view, bestfit, tracker on) into DIR/out_t1.bin.
run_order() {
    d=$1 ord=$2 src=$3
    mkdir -p "$d"
    # shellcheck disable=SC2086
    set -- $gen_opts
    "$pw" plan --emit view --order "$ord" "$@" "$src" >"$d/view.json" ||
        fail "planwrap plan --emit view --order $ord"
    "$prep" $ks "$d/view.json" >"$d/view_e2e.json" || fail "e2e_view_prep ($ord)"
    for t in kernels main; do
        "$pw" render --strict --no-escape --data "$d/view_e2e.json" \
            -o "$d/$t.c" "$here/test_$t.c.mustache" ||
            fail "planwrap render test_$t.c.mustache ($ord)"
    done
    "$pw" gen --target c --algo bestfit --order "$ord" $gen_extra "$@" \
        -o "$d" "$src" || fail "planwrap gen --order $ord"
    for t in main kernels; do
        # shellcheck disable=SC2086
        $cc $cflags -I "$d" -I "$root/runtime" -I "$here" -c "$d/$t.c" \
            -o "$d/$t.o" || fail "compile $t.c for --order $ord"
    done
    build "$d" t1 "-DPW_RT_TRACK -DPW_RT_CHECKS" rt1 "$d/kernels.o" ||
        fail "build --order $ord"
    "$d/run_t1" "$d/out_t1.bin" >"$d/run_t1.txt" 2>&1 || {
        cat "$d/run_t1.txt" >&2
        fail "run --order $ord"
    }
}
for order in ${E2E_ORDERS:-}; do
    run_order "$work/order_$order" "$order" "$model"
    cmp -s "$ref" "$work/order_$order/out_t1.bin" ||
        fail "--order $order: outputs differ from the given order's"
    echo "ok: --order $order"
done
# 8. the order test can fail: the first call moved after the second (with
# the frees between them), which reads what the first writes, still checks
# but must change the outputs
if [ "${E2E_NEGATIVE:-0}" = 1 ] && [ -n "${E2E_ORDERS:-}" ]; then
    mkdir -p "$work/swap_src"
    "$pw" schedule -q --order keep -o "$work/keep.pw" "$model" ||
        fail "planwrap schedule --order keep"
    awk '
        done { print; next }
        /^call / && call == "" { call = $0; next }
        /^free / && call != "" { frees = frees $0 "\n"; next }
        /^call / { print; print call; printf "%s", frees; done = 1; next }
        { print }' "$work/keep.pw" >"$work/swap_src/$name.pw"
    "$pw" check "$work/swap_src/$name.pw" || fail "swapped program does not check"
    run_order "$work/order_swapped" keep "$work/swap_src/$name.pw"
    cmp -s "$ref" "$work/order_swapped/out_t1.bin" &&
        fail "negative test: a broken order gave the same outputs"
    echo "ok: negative: an order that breaks a dependency changes the outputs"
fi
echo "PASS: $name ($algos${E2E_ORDERS:+; orders $E2E_ORDERS})"
