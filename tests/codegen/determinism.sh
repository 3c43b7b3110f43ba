#!/bin/sh
# determinism.sh PLANWRAP ROOT - generating twice gives the same bytes, in
# another directory too (no absolute path, date or address in the output).
set -u
pw=$1
root=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
for model in "$root"/tests/data/models/*.pw "$root"/tests/codegen/models/*.pw; do
    for t in c cuda; do
        # --target c refuses buffers on a cuda device
        [ $t = cuda ] || ! grep -q 'cuda:' "$model" || continue
        "$pw" gen "$model" --target $t -o "$tmp/a" >/dev/null 2>&1 || fail=1
        mkdir -p "$tmp/elsewhere/deeper"
        cp "$model" "$tmp/elsewhere/deeper/"
        (cd "$tmp/elsewhere" &&
            "$pw" gen "deeper/$(basename "$model")" --target $t -o "$tmp/b") \
            >/dev/null 2>&1 || fail=1
        if ! diff -r "$tmp/a" "$tmp/b" >"$tmp/diff"; then
            echo "FAIL: $(basename "$model") ($t) differs between runs"
            head -20 "$tmp/diff"
            fail=1
        fi
        if grep -rn "$tmp\|$root" "$tmp/a" >/dev/null; then
            echo "FAIL: $(basename "$model") ($t) contains an absolute path"
            fail=1
        fi
        rm -rf "$tmp/a" "$tmp/b" "$tmp/elsewhere"
    done
done
# Comments and spacing are not part of the input hash: the same program
# laid out differently (same lines) gives the same bytes.
for model in "$root"/tests/codegen/models/*.pw; do
    m=$(basename "$model")
    mkdir -p "$tmp/re"
    sed 's/^\([a-z]*\) /\1   /; s/$/   # a comment/' "$model" >"$tmp/re/$m"
    t=c
    grep -q 'cuda:' "$model" && t=cuda # --target c refuses cuda buffers
    "$pw" gen "$model" -t $t -o "$tmp/a" >/dev/null 2>&1 || fail=1
    "$pw" gen "$tmp/re/$m" -t $t -o "$tmp/b" >/dev/null 2>&1 || fail=1
    if ! diff -r "$tmp/a" "$tmp/b" >"$tmp/diff"; then
        echo "FAIL: $m: reformatting changed the output"
        head -20 "$tmp/diff"
        fail=1
    fi
    rm -rf "$tmp/a" "$tmp/b" "$tmp/re"
done
[ $fail -eq 0 ] && echo "determinism: ok"
exit $fail
