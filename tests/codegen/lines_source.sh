#!/bin/sh
# lines_source.sh PLANWRAP ROOT - the IR line numbers that `plan --emit
# lines` and plan-json's start_line/end_line print point at the statements
# they name: for every "line N: KW NAME" of the lines output, line N of the
# model starts with KW and holds NAME; every start_line / end_line of
# plan-json is a line listed by `--emit lines`, and start_line is the line
# of the buffer's own alloc.  Models: the real ones and the example (whose
# comment and blank lines make line numbers differ from statement
# indices).
set -u
pw=$1
root=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
for model in "$root"/tests/data/models/*.pw "$root"/examples/lenet.pw; do
    name=$(basename "$model")
    if ! "$pw" plan --emit lines "$model" >"$tmp/lines"; then
        echo "FAIL: $name: plan --emit lines failed"
        fail=1
        continue
    fi
    # KW NAME on source line N, as the lines output says
    bad=$(awk -v src="$model" '
        BEGIN { while ((getline l < src) > 0) text[++n] = l }
        {
            if ($1 != "line") { print "no line prefix: " $0; next }
            ln = $2; sub(/:$/, "", ln)
            kw = $3; nm = $4; sub(/\(.*/, "", nm)
            s = text[ln]; sub(/^[ \t]+/, "", s)
            if (index(s, kw) != 1 || (nm != "" && nm != "#" &&
                index(s, nm) == 0))
                print "line " ln " is not \"" kw " " nm "\": " text[ln]
        }' "$tmp/lines")
    if [ -n "$bad" ]; then
        echo "FAIL: $name:"
        echo "$bad" | head -5
        fail=1
    fi
    # plan-json: each buffer's start_line is its alloc line in the lines
    # output, and end_line is a listed line.
    "$pw" plan --emit plan-json "$model" >"$tmp/json" || fail=1
    bad=$(awk '
        FNR == NR {
            n = $2; sub(/:$/, "", n)
            listed[n] = 1
            if ($3 == "alloc") alloc[$4] = n
            next
        }
        /"name":/ { nm = $2; gsub(/[",]/, "", nm) }
        /"start_line":/ { sl = $2; sub(/,$/, "", sl)
            if (sl != alloc[nm])
                print nm ": start_line " sl ", alloc on line " alloc[nm] }
        /"end_line":/ { el = $2; sub(/,$/, "", el)
            if (!(el in listed) || el + 0 < sl + 0)
                print nm ": end_line " el }
        ' "$tmp/lines" "$tmp/json")
    if [ -n "$bad" ]; then
        echo "FAIL: $name: plan-json"
        echo "$bad" | head -5
        fail=1
    fi
done
[ $fail -eq 0 ] && echo "lines_source: ok"
exit $fail
