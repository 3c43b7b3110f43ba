#!/bin/sh
# bench/ir/run.sh BUILD_DIR - parse+check of synthetic IR programs against
# the targets of issue 12 item 7: 10^6 statements in at most 0.5 s and at
# most 400 MiB, on a sparse shape (a traced CNN, about 3 buffers live) and
# a dense one (about 64 live, longer names, 6-argument calls, attributes);
# and the growth exponent of the time from 10^3 to 10^6 statements
# (1.0 = linear).  Time is the CPU time of parse+check (a busy machine
# inflates wall time, not CPU time), best of several runs; memory is the
# peak resident set of the whole process (the input text included), and
# its split by structure in bytes per statement (bench_ir's B/stmt).
# PW_BENCH_IR_STATEMENTS=N changes the large size.
# PW_BENCH_IR_BASELINE=PATH, the bench_ir of an older build, measures it
# too, in the same run on the same files, runs alternating: a "before"
# line and the ratio after/before.
set -eu
build=${1:-build/release}
gen="$build/bench/ir/gen_ir"
bench="$build/bench/ir/bench_ir"
for b in "$gen" "$bench"; do
    if [ ! -x "$b" ]; then
        echo "bench/ir: $b is missing; build the gen_ir and bench_ir targets" >&2
        exit 1
    fi
done
n=${PW_BENCH_IR_STATEMENTS:-1000000}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/pw-bench-ir.XXXXXX")
trap 'rm -rf "$tmp"' EXIT HUP INT TERM

field() { # field NAME LINE
    printf '%s\n' "$2" | sed "s/.*$1=\([0-9.]*\).*/\1/"
}

base=${PW_BENCH_IR_BASELINE:-}
if [ -n "$base" ] && [ ! -x "$base" ]; then
    echo "bench/ir: PW_BENCH_IR_BASELINE=$base is not an executable" >&2
    exit 1
fi

# best BENCH FILE RUNS: the line of BENCH's run with the least CPU time.
best() {
    b=""
    l=""
    i=0
    while [ "$i" -lt "$3" ]; do
        out=$("$1" "$2")
        t=$(field parse_check_cpu_s "$out")
        if [ -z "$b" ] || awk "BEGIN{exit !($t < $b)}"; then
            b=$t
            l=$out
        fi
        i=$((i + 1))
    done
    printf '%s\n' "$l"
}

for shape in sparse dense; do
    "$gen" 1000 "$shape" >"$tmp/small.pw"
    "$gen" "$n" "$shape" >"$tmp/big.pw"
    size=$(wc -c <"$tmp/big.pw")
    small=$(best "$bench" "$tmp/small.pw" 9)
    if [ -n "$base" ]; then
        # alternating: before, after, before, ... (best of 3 each)
        bl=""
        line=""
        for r in 1 2 3; do
            o=$(best "$base" "$tmp/big.pw" 1)
            a=$(best "$bench" "$tmp/big.pw" 1)
            if [ -z "$bl" ] || awk "BEGIN{exit !($(field parse_check_cpu_s "$o") < $(field parse_check_cpu_s "$bl"))}"; then bl=$o; fi
            if [ -z "$line" ] || awk "BEGIN{exit !($(field parse_check_cpu_s "$a") < $(field parse_check_cpu_s "$line"))}"; then line=$a; fi
        done
    else
        line=$(best "$bench" "$tmp/big.pw" 3)
    fi
    echo "ir: $shape program: $n statements, $size bytes"
    echo "ir: $shape: $line"
    t=$(field parse_check_cpu_s "$line")
    w=$(field parse_check_s "$line")
    m=$(field peak_rss_mb "$line")
    t3=$(field parse_check_cpu_s "$small")
    if [ -n "$base" ]; then
        echo "ir: $shape before: $bl"
        awk -v s="$shape" -v t="$t" -v m="$m" \
            -v bt="$(field parse_check_cpu_s "$bl")" \
            -v bm="$(field peak_rss_mb "$bl")" 'BEGIN {
            printf "ir: %s before %.3f s CPU, %.1f MiB; after/before: time %.2f, memory %.2f\n",
                   s, bt, bm, t / bt, m / bm
        }'
    fi
    awk -v s="$shape" -v n="$n" -v t="$t" -v w="$w" -v m="$m" -v t3="$t3" 'BEGIN {
        printf "ir: %s parse+check %.3f s CPU (wall %.3f s)  target <= 0.5 s    ratio %.2f %s\n",
               s, t, w, t / 0.5, (t <= 0.5 ? "ok" : "OVER TARGET")
        printf "ir: %s peak memory %.1f MiB            target <= 400 MiB  ratio %.2f %s\n",
               s, m, m / 400.0, (m <= 400.0 ? "ok" : "OVER TARGET")
        if (t3 > 0)
            printf "ir: %s growth exponent 10^3 -> %d statements: %.2f (%.5f s -> %.3f s)\n",
                   s, n, log(t / t3) / log(n / 1000), t3, t
    }'
done
