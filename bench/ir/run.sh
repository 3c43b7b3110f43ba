#!/bin/sh
# bench/ir/run.sh BUILD_DIR - parse+check of synthetic IR programs against
# the targets of issue 12 item 7: 10^6 statements in at most 0.5 s and at
# most 400 MiB, on a sparse shape (a traced CNN, about 3 buffers live) and
# a dense one (about 64 live, longer names, 6-argument calls, attributes);
# and the growth exponent of the time from 10^3 to 10^6 statements
# (1.0 = linear).  Time is the CPU time of parse+check (a busy machine
# inflates wall time, not CPU time), best of several runs; memory is the
# peak resident set of the whole process (the input text included).
# PW_BENCH_IR_STATEMENTS=N changes the large size.
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

# best FILE RUNS: the bench_ir line of the run with the least CPU time.
best() {
    b=""
    l=""
    i=0
    while [ "$i" -lt "$2" ]; do
        out=$("$bench" "$1")
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
    small=$(best "$tmp/small.pw" 9)
    line=$(best "$tmp/big.pw" 3)
    echo "ir: $shape program: $n statements, $size bytes"
    echo "ir: $shape: $line"
    t=$(field parse_check_cpu_s "$line")
    w=$(field parse_check_s "$line")
    m=$(field peak_rss_mb "$line")
    t3=$(field parse_check_cpu_s "$small")
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
