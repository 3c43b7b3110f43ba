#!/bin/sh
# bench/codegen/stream.sh BUILD_DIR [BEFORE_PLANWRAP] - the streaming view
# (issue 12): `planwrap gen` of 10^4 and 10^5 kernel calls against
# `planwrap check` of the same file, and `plan --emit plan-json` against
# `plan --emit summary` at 3*10^5 calls; `plan --emit view` of 10^4 and
# 10^5 calls (the documented view as JSON text, written from the native
# view data; MB/s and the ratio to gen's time) and `render --data` of the
# 10^4 view (jansson reading it; MB/s and peak per byte of JSON).
# Targets: gen of 10^5 kernels in <= 400 MiB peak RSS and <= 4x the
# wall time of check; memory linear in kernels (the per-kernel figure
# flat from 10^4 to 10^5); plan-json needs little beyond the plan.  Wall
# and CPU times are the best of PW_BENCH_REPS runs (default 5), peak RSS
# the largest.  Every run is timed by bench_rusage (built with the
# benchmarks): wall time from the monotonic clock, CPU time (user +
# system) and peak RSS from wait4's rusage, to the microsecond (where
# /usr/bin/time's 10 ms steps were most of `check` at 10^4).  With
# BEFORE_PLANWRAP (another build, e.g. of an older commit) every figure is
# also measured for it, in this same run: the two builds take turns, run
# by run, so that a change in the machine's load falls on both alike.
set -eu
build=${1:-build/release}
before=${2:-}
reps=${PW_BENCH_REPS:-5}
pw=$build/planwrap
model_exe=$build/bench/codegen/bench_codegen_model
rusage=$build/bench/codegen/bench_rusage
for f in "$pw" "$model_exe" "$rusage"; do
    if [ ! -x "$f" ]; then
        echo "$f not built (cmake --build $build)" >&2
        exit 1
    fi
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# once KEY PW ARGS...: one run of PW ARGS; folds its wall time, peak RSS
# and user + system CPU into $tmp/KEY ("WALL_S PEAK_KB CPU_S": best wall,
# largest peak, best CPU; on a shared machine the CPU ratio says more
# than the wall one).
once() {
    okey=$1
    shift
    rm -rf "$tmp/out"
    "$rusage" "$tmp/t" "$@" >/dev/null 2>"$tmp/err" || {
        cat "$tmp/err" >&2
        return 1
    }
    read -r w m c <"$tmp/t"
    old=""
    if [ -f "$tmp/$okey" ]; then
        old=$(cat "$tmp/$okey")
    fi
    awk -v old="$old" -v w="$w" -v m="$m" -v c="$c" 'BEGIN {
        if (old != "") {
            split(old, o, " ")
            if (o[1] < w) w = o[1]
            if (o[2] > m) m = o[2]
            if (o[3] < c) c = o[3]
        }
        printf "%.6f %d %.6f\n", w, m, c
    }' >"$tmp/$okey.new"
    mv "$tmp/$okey.new" "$tmp/$okey"
}

# measure KEY ARGS...: PW_BENCH_REPS rounds, each running ARGS with the
# build under test and then with BEFORE_PLANWRAP (keys a.KEY, b.KEY).
measure() {
    key=$1
    shift
    i=0
    while [ $i -lt "$reps" ]; do
        once "a.$key" "$pw" "$@"
        if [ -n "$before" ]; then
            once "b.$key" "$before" "$@"
        fi
        i=$((i + 1))
    done
}

for n in 10000 100000; do
    "$model_exe" $n >"$tmp/m$n.pw"
    measure "check$n" check "$tmp/m$n.pw"
    measure "gen$n" gen "$tmp/m$n.pw" -o "$tmp/out"
    measure "view$n" plan "$tmp/m$n.pw" --emit view -o "$tmp/view$n.json"
    wc -c <"$tmp/view$n.json" >"$tmp/viewsize$n"
done
# render --data of the 10^4 view with the built-in C source template
measure render render builtin:c/model.c --data "$tmp/view10000.json" \
    -o "$tmp/r.c"
rsize=$(wc -c <"$tmp/view10000.json")
rm -f "$tmp"/view*.json
"$model_exe" 300000 >"$tmp/big.pw"
measure summary plan "$tmp/big.pw" --emit summary
measure pj plan "$tmp/big.pw" --emit plan-json -o "$tmp/pj"
nbuf=$(grep -c '"start_line"' "$tmp/pj" || true)
pjsize=$(wc -c <"$tmp/pj")

report() { # LABEL KEYPREFIX
    label=$1
    k=$2
    for n in 10000 100000; do
        set -- $(cat "$tmp/$k.check$n")
        cw=$1 cm=$2 cc=$3
        set -- $(cat "$tmp/$k.gen$n")
        gw=$1 gm=$2 gc=$3
        awk -v l="$label" -v n=$n -v cw="$cw" -v cm="$cm" -v gw="$gw" \
            -v gm="$gm" -v cc="$cc" -v gc="$gc" 'BEGIN {
            r = cw > 0 ? gw / cw : 0
            printf "%s gen %6d kernels: wall %.1f ms = %.2fx check (%.1f ms; " \
                   "target <= 4x, ratio %.2f %s), peak %.0f MiB (check %.0f " \
                   "MiB)", l, n, gw * 1e3, r, cw * 1e3, r / 4,
                   (r <= 4 ? "ok" : "OVER TARGET"), gm / 1024, cm / 1024
            if (n == 100000)
                printf " (target <= 400 MiB, ratio %.2f %s)",
                       gm / (400 * 1024), (gm <= 400 * 1024 ? "ok" : "OVER TARGET")
            printf ", %.1f KB per kernel (%.1f KB beyond check)", gm / n,
                   (gm - cm) / n
            if (cc > 0)
                printf "; CPU %.1f ms = %.2fx check (%.1f ms; ratio %.2f)",
                       gc * 1e3, gc / cc, cc * 1e3, gc / cc / 4
            printf "\n"
        }'
    done
    for n in 10000 100000; do
        set -- $(cat "$tmp/$k.gen$n")
        gw=$1
        set -- $(cat "$tmp/$k.view$n")
        awk -v l="$label" -v n=$n -v w="$1" -v m="$2" -v c="$3" -v gw="$gw" \
            -v sz="$(cat "$tmp/viewsize$n")" 'BEGIN {
            printf "%s view %6d kernels: %.0f MB of JSON in %.3f s " \
                   "(%.0f MB/s; CPU %.3f s; %.1fx gen), peak %.0f MiB\n",
                   l, n, sz / 1e6, w, (w > 0 ? sz / 1e6 / w : 0), c,
                   (gw > 0 ? w / gw : 0), m / 1024
        }'
    done
    set -- $(cat "$tmp/$k.render")
    awk -v l="$label" -v w="$1" -v m="$2" -v c="$3" -v sz="$rsize" 'BEGIN {
        printf "%s render --data of the 10000-kernel view (%.0f MB): " \
               "%.3f s (%.0f MB/s; CPU %.3f s), peak %.0f MiB (%.1f bytes " \
               "per byte of JSON)\n", l, sz / 1e6, w,
               (w > 0 ? sz / 1e6 / w : 0), c, m / 1024, m * 1024 / sz
    }'
    set -- $(cat "$tmp/$k.summary")
    sw=$1 sm=$2
    set -- $(cat "$tmp/$k.pj")
    jw=$1 jm=$2
    awk -v l="$label" -v sm="$sm" -v jm="$jm" -v jw="$jw" -v sw="$sw" \
        -v nb="$nbuf" -v sz="$pjsize" 'BEGIN {
        printf "%s plan-json, 300000 kernels (%d buffers, %.0f MB of text): " \
               "peak %.0f MiB, %.0f MiB beyond --emit summary (%.0f MiB); " \
               "wall %.2f s (summary %.2f s)\n", l, nb, sz / 1e6, jm / 1024,
               (jm - sm) / 1024, sm / 1024, jw, sw
    }'
}

echo "stream: best of $reps runs each${before:+, the two builds taking turns}"
report "after: " a
if [ -n "$before" ]; then
    report "before:" b
fi
