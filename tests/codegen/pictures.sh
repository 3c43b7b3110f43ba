#!/bin/sh
# pictures.sh PLANWRAP ROOT - `plan --emit svg|html`: every SVG is
# well-formed XML (xmllint) and renders (rsvg-convert), the same input
# gives the same bytes (twice, and from another directory), the HTML page
# is self-contained (no script or style from elsewhere, no URL besides the
# SVG namespace), and a 10,000-storage program stays linear in size.
set -u
pw=$1
root=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
for tool in xmllint rsvg-convert; do
    if ! command -v $tool >/dev/null; then
        echo "FAIL: $tool is missing (tools/install-deps.sh installs it)"
        exit 1
    fi
done
check_svg() { # check_svg FILE WHAT
    if ! xmllint --noout "$1" 2>"$tmp/xml.err"; then
        echo "FAIL: $2: not well-formed"; head -5 "$tmp/xml.err"; fail=1
    fi
    if ! rsvg-convert -o "$tmp/x.png" "$1" 2>"$tmp/rsvg.err" ||
        [ ! -s "$tmp/x.png" ]; then
        echo "FAIL: $2: rsvg-convert cannot render it"
        head -5 "$tmp/rsvg.err"; fail=1
    fi
}
for model in "$root"/tests/data/models/*.pw "$root"/tests/codegen/models/*.pw \
             "$root"/tests/codegen/corpus/*.pw; do
    name=$(basename "$model")
    for args in "" "--memory-pool combined" "--compare-algos naive,reuse,tree,bestfit"; do
        # shellcheck disable=SC2086
        "$pw" plan --emit svg $args "$model" -o "$tmp/a.svg" || {
            echo "FAIL: $name $args: plan --emit svg failed"; fail=1; continue; }
        check_svg "$tmp/a.svg" "$name $args"
        mkdir -p "$tmp/e/d" && cp "$model" "$tmp/e/d/"
        # shellcheck disable=SC2086
        (cd "$tmp/e" && "$pw" plan --emit svg $args "d/$name" -o "$tmp/b.svg")
        if ! cmp -s "$tmp/a.svg" "$tmp/b.svg"; then
            echo "FAIL: $name $args: the SVG differs between runs"; fail=1
        fi
    done
    "$pw" plan --emit html "$model" -o "$tmp/a.html" || {
        echo "FAIL: $name: plan --emit html failed"; fail=1; continue; }
    if grep -n 'src=\|href=\|@import\|url(' "$tmp/a.html" ||
        grep -o 'https\?://[^"]*' "$tmp/a.html" | grep -v '^http://www.w3.org/2000/svg$'; then
        echo "FAIL: $name: the HTML page refers to something outside itself"
        fail=1
    fi
    # the SVG inside the page is well-formed too
    sed -n '/^<svg /,/^<\/svg>/p' "$tmp/a.html" >"$tmp/in.svg"
    check_svg "$tmp/in.svg" "$name (html)"
    grep -q '<table id="bufs">' "$tmp/a.html" || {
        echo "FAIL: $name: no table of buffers"; fail=1; }
done

# the pictures in docs/ are what planwrap draws today
"$pw" plan --emit svg "$root/tests/data/models/resnet34.pw" -o "$tmp/r.svg"
"$pw" plan --emit svg --compare-algos naive,reuse,bestfit \
    "$root/tests/data/models/alexnet.pw" -o "$tmp/a.svg"
for pic in r:resnet34 a:alexnet-algos; do
    if ! cmp -s "$tmp/${pic%%:*}.svg" "$root/docs/images/${pic#*:}.svg"; then
        echo "FAIL: docs/images/${pic#*:}.svg is out of date (see docs/pictures.md)"
        fail=1
    fi
done

# size linear in storages: 10,000 storages against 1,000 of the same kind
gen() { # gen N FILE
    awk -v n="$1" 'BEGIN {
        print "model big"; live = 0
        for (i = 0; i < n; i++) {
            printf "alloc b%d f32[%d]\n", i, 16 * (1 + (i * 7) % 13)
            printf "call k%d(b%d)\n", i % 5, i
            if (i >= 4) printf "free b%d\n", i - 4
        }
        for (i = n - 4; i < n; i++) printf "free b%d\n", i
    }' >"$2"
}
gen 1000 "$tmp/k1.pw"
gen 10000 "$tmp/k10.pw"
"$pw" plan --emit svg "$tmp/k1.pw" -o "$tmp/k1.svg" || fail=1
"$pw" plan --emit svg "$tmp/k10.pw" -o "$tmp/k10.svg" || fail=1
check_svg "$tmp/k10.svg" "10,000 storages"
s1=$(wc -c <"$tmp/k1.svg")
s10=$(wc -c <"$tmp/k10.svg")
if [ "$s10" -gt $((s1 * 12)) ]; then
    echo "FAIL: 10,000 storages give $s10 bytes, 1,000 give $s1 (not linear)"
    fail=1
fi
if [ $fail -eq 0 ]; then echo "ok (10,000 storages: $s10 bytes, 1,000: $s1)"; fi
exit $fail
