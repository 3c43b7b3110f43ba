#!/bin/sh
# oom_csv.sh PLANWRAP - `plan --csv` out of memory: bestfit's large path
# (300,000 buffers, above 131,072) under `ulimit -v` limits rising from
# 8 MB in steps of 4 MB until a run succeeds.  Every failing run must exit
# 1 (never a signal) with one line saying "out of memory", and leave no
# plan-json file and no temporary file; some run must fail in planning,
# reported as "oom.csv: error: out of memory while planning (algorithm
# bestfit)" (the planner returned -1: bestfit's block is most of the
# memory of that phase), not by base_oom ("planwrap: error: out of
# memory"), which is what an arena there would do.  With --verify, some
# run must also fail in the verifier's scratch, reported as "out of
# memory while verifying the plan", never as "internal error: the plan
# does not verify: out of memory" (what plan_verify_problem's own
# allocation gave).  Then the same with --algo naive, whose largest block
# is the lower bound's (plan_lower_bound_status): some run must fail
# there, reported as "out of memory while computing the lower bound",
# never planned with a lower bound of 0.  Skipped
# (77) in a sanitizer build, whose shadow memory cannot run under
# ulimit -v.  OOM_DEBUG=1 prints each limit, its exit status and the
# first line of its stderr.
set -u
pw=$1
case "${PW_SANITIZE:-}" in
ON | on | 1) echo "oom_csv: SKIPPED in a sanitizer build"; exit 77 ;;
esac
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
awk 'BEGIN { print "id,lower,upper,size";
             for (i = 0; i < 300000; i++)
                 printf "%d,%d,%d,%d\n", i, i, i + 1 + i % 40, 64 * (1 + i % 7) }' \
    >"$tmp/oom.csv"
mkdir "$tmp/out"
fail=0
n=0
planning=0
verifying=0
bounding=0
# sweep ALGO [OPTION]: rising limits until a run plans
sweep() {
    limit=8000
    while [ $limit -le 400000 ]; do
        (ulimit -v $limit && exec "$pw" plan --csv --algo "$@" \
            --emit plan-json -o "$tmp/out/plan.json" "$tmp/oom.csv") \
            >"$tmp/stdout" 2>"$tmp/err"
        rc=$?
        [ -n "${OOM_DEBUG:-}" ] && echo "$1 $limit $rc $(head -1 "$tmp/err")"
        [ $rc -eq 0 ] && break
        n=$((n + 1))
        if [ $rc -ne 1 ] || ! grep -q 'out of memory' "$tmp/err" ||
            [ "$(wc -l <"$tmp/err")" -ne 1 ] || [ -s "$tmp/stdout" ]; then
            echo "FAIL: $1: ulimit -v $limit: exit $rc:"
            head -3 "$tmp/err"
            fail=1
        fi
        if [ -n "$(ls -A "$tmp/out")" ]; then
            echo "FAIL: $1: ulimit -v $limit: files left: $(ls -A "$tmp/out")"
            fail=1
            rm -f "$tmp/out"/* "$tmp/out"/.[!.]*
        fi
        if grep -q 'oom\.csv: error: out of memory while planning' "$tmp/err"; then
            planning=$((planning + 1))
        fi
        if grep -q 'oom\.csv: error: out of memory while verifying' "$tmp/err"; then
            verifying=$((verifying + 1))
        fi
        if grep -q 'oom\.csv: error: out of memory while computing the lower bound' \
            "$tmp/err"; then
            bounding=$((bounding + 1))
        fi
        if grep -q 'internal error' "$tmp/err"; then
            echo "FAIL: $1: ulimit -v $limit: $(head -1 "$tmp/err")"
            fail=1
        fi
        limit=$((limit + 4000))
    done
    if [ $rc -ne 0 ]; then
        echo "FAIL: $1: no run succeeded up to ulimit -v $limit"
        fail=1
    elif [ ! -s "$tmp/out/plan.json" ]; then
        echo "FAIL: $1: ulimit -v $limit: exit 0 but no plan-json"
        fail=1
    fi
    rm -f "$tmp/out/plan.json"
}
sweep bestfit --verify
bestfit_limit=$limit
sweep naive
if [ $verifying -eq 0 ]; then
    echo "FAIL: no run ran out of memory while verifying (of $n failing)"
    fail=1
fi
if [ $planning -eq 0 ]; then
    echo "FAIL: no run ran out of memory while planning (of $n failing):"
    echo "      the test proves nothing"
    fail=1
fi
if [ $bounding -eq 0 ]; then
    echo "FAIL: no naive run ran out of memory while computing the lower bound"
    fail=1
fi
[ $fail -eq 0 ] &&
    echo "oom_csv: $n runs out of memory ($planning while planning, $verifying while verifying, $bounding in the lower bound), each exit 1 with one message, no file; ulimit -v $bestfit_limit plans with bestfit, $limit with naive"
exit $fail
