#!/bin/sh
# examples/firmware/run.sh PLANWRAP [WORKDIR] - the firmware example: two
# small models (kws.pw, ad.pw) on an SRAM/DRAM memory map, sharing one
# static arena, with embedded weights.
#
#  1. writes the weight files and plans both models (per-space report);
#  2. generates them with --shared-pools, and each one alone;
#  3. compiles the generated code and the kernels as firmware would
#     (-ffreestanding -fno-builtin, strict warnings, the pools and weights
#     placed in named sections by fw_placement.h), links a host main;
#  4. runs kws, ad, kws on the shared arena and checks the outputs are
#     those of the separate builds, that the embedded weights give the
#     outputs of caller pointers, that the pools landed in .bss, and that
#     under the tracker a model entering while another runs is stopped.
#
# Writes only below WORKDIR (default build/example-firmware).  CC (default
# cc) is honoured.
set -eu
if [ $# -lt 1 ] || [ $# -gt 2 ]; then
    echo "usage: sh examples/firmware/run.sh PATH/TO/planwrap [WORKDIR]" >&2
    exit 2
fi
pw=$1
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
out=${2:-$root/build/example-firmware}
cc=${CC:-cc}
strict="-std=c99 -O2 -Wall -Wextra -Werror -pedantic -Wcast-align"
rt=$root/runtime
rm -rf "$out"
mkdir -p "$out"
step() { printf '\n== %s\n' "$*"; }
fail() {
    echo "FAIL: $*"
    exit 1
}

step "weights (kws.bin, ad.bin) and plans"
$cc -O2 -o "$out/fw_weights" "$here/fw_weights.c"
cp "$here/kws.pw" "$here/ad.pw" "$out/"
"$out/fw_weights" "$out/kws.bin" 808 7
"$out/fw_weights" "$out/ad.bin" 612 11
"$pw" plan "$out/kws.pw"
"$pw" plan "$out/ad.pw"

step "generate: shared pools, and each model alone"
"$pw" gen "$out/kws.pw" "$out/ad.pw" --shared-pools -o "$out/shared"
"$pw" gen "$out/kws.pw" -o "$out/kws"
"$pw" gen "$out/ad.pw" -o "$out/ad"
echo "shared:" $(cd "$out/shared" && ls)
grep -h '_STATIC_BYTES ' "$out/shared"/*.h
if grep -En '\b(malloc|calloc|realloc|free) *\(' "$out/shared"/*.c; then
    fail "allocation call in the generated code"
fi

# compile DIR OBJDIR FLAGS...: every generated .c of DIR and the kernels
compile() {
    dir=$1
    obj=$2
    shift 2
    mkdir -p "$obj"
    for f in "$dir"/*.c; do
        # shellcheck disable=SC2086
        $cc $strict "$@" -I "$dir" -I "$rt" -c "$f" \
            -o "$obj/$(basename "$f" .c).o"
    done
    inc=""
    for k in "$dir"/*_kernels.h; do inc="$inc -include $k"; done
    # shellcheck disable=SC2086
    $cc $strict "$@" $inc -I "$dir" -c "$here/fw_kernels.c" \
        -o "$obj/fw_kernels.o"
}

step "compile as firmware (-ffreestanding -fno-builtin, sections from fw_placement.h)"
fw="-ffreestanding -fno-builtin -include $here/fw_placement.h"
# shellcheck disable=SC2086
compile "$out/shared" "$out/obj_shared" $fw
# shellcheck disable=SC2086
compile "$out/kws" "$out/obj_kws" $fw
# shellcheck disable=SC2086
compile "$out/ad" "$out/obj_ad" $fw
link() { # link NAME MAINFLAGS OBJDIR EXTRA...
    name=$1
    flags=$2
    objs=$3
    shift 3
    # shellcheck disable=SC2086
    $cc $strict $flags -I "$out/shared" -I "$out/kws" "$here/fw_main.c" \
        "$objs"/*.o "$@" -o "$out/$name"
}
link fw_shared "-DFW_KWS -DFW_AD" "$out/obj_shared"
link fw_kws "-DFW_KWS" "$out/obj_kws"
$cc $strict -DFW_AD -I "$out/ad" "$here/fw_main.c" "$out/obj_ad"/*.o \
    -o "$out/fw_ad"
for sym in planwrap_shared_pool_cpu_sram planwrap_shared_pool_cpu_dram; do
    t=$(nm "$out/fw_shared" | awk -v s="$sym" '$3 == s { print $2 }')
    case $t in
    b | B) echo "ok: $sym is in .bss (NOLOAD-like)" ;;
    *) fail "$sym has symbol type '$t', expected .bss" ;;
    esac
done

step "run: kws, ad, kws on the shared arena"
"$out/fw_shared" shared >"$out/shared.txt"
cut -c1-60 "$out/shared.txt"
"$out/fw_kws" kws >"$out/kws.txt"
"$out/fw_ad" ad >"$out/ad.txt"
{
    sed -n 1p "$out/kws.txt"
    cat "$out/ad.txt"
    sed -n 2p "$out/kws.txt"
} >"$out/separate.txt"
cmp -s "$out/shared.txt" "$out/separate.txt" ||
    fail "shared-pool outputs differ from the separate builds'"
echo "ok: identical to the separate builds (kws alone, ad alone)"
"$out/fw_shared" caller "$out/kws.bin" >"$out/caller.txt"
[ "$(sed -n 1p "$out/shared.txt")" = "$(cat "$out/caller.txt")" ] ||
    fail "embedded weights and caller pointers give different outputs"
echo "ok: embedded weights give the outputs of caller pointers"

step "the guard: a model entering while another one runs (PW_RT_TRACK)"
tr="-DPW_RT_CHECKS -DPW_RT_TRACK -include $here/fw_placement.h"
# shellcheck disable=SC2086
compile "$out/shared" "$out/obj_tracked" $tr -DFW_REENTER
link fw_tracked "-DFW_KWS -DFW_AD -DFW_REENTER -DPW_RT_CHECKS -DPW_RT_TRACK" \
    "$out/obj_tracked" \
    "$rt/planwrap_rt.c" "$rt/planwrap_rt_track.c"
"$out/fw_tracked" shared >"$out/tracked.txt"
cmp -s "$out/shared.txt" "$out/tracked.txt" ||
    fail "the tracked build's outputs differ"
echo "ok: with the tracker on, kws, ad, kws give the same outputs"
if "$out/fw_tracked" reenter >/dev/null 2>"$out/reenter.txt"; then
    fail "ad entered while kws ran and nothing stopped it"
fi
grep "entered while" "$out/reenter.txt" ||
    fail "the guard's message is missing: $(cat "$out/reenter.txt")"
echo "ok: stopped"
