#!/bin/sh
# no_malloc.sh PLANWRAP ROOT - no malloc, calloc, realloc or free call in
# any generated C file (MISRA C:2012 rule 21.3), in every memory-pool mode.
set -u
pw=$1
root=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
for model in "$root"/tests/data/models/*.pw "$root"/tests/codegen/models/*.pw; do
    # --target c refuses buffers on a cuda device
    grep -q 'cuda:' "$model" && continue
    for mp in none intermediates outputs combined; do
        d=$tmp/$(basename "$model" .pw)-$mp
        "$pw" gen "$model" --target c --memory-pool $mp -o "$d" || fail=1
    done
done
# The check must be able to fail: it finds a planted call.
printf 'void f(void) { void *q = malloc (4); free(q); }\n' >"$tmp/planted.c"
pat='(^|[^A-Za-z0-9_])(malloc|calloc|realloc|free)[[:space:]]*\('
if ! grep -Eq "$pat" "$tmp/planted.c"; then
    echo "FAIL: the pattern misses a planted malloc"
    fail=1
fi
rm -f "$tmp/planted.c"
if grep -rEn "$pat" "$tmp" --include='*.c' --include='*.h'; then
    echo "FAIL: an allocation call in generated C"
    fail=1
fi
[ $fail -eq 0 ] && echo "no_malloc: ok"
exit $fail
