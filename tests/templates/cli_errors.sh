#!/bin/sh
# tests/templates/cli_errors.sh PLANWRAP - `planwrap render` on bad input
# and bad usage: exit status, the exact diagnostic, and no output file.
# Also how standard input is named when it cannot be read.
set -u
pw=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0

# check NAME WANT_STATUS WANT_STDERR_LINE CMD...
check() {
    name=$1 want=$2 msg=$3
    shift 3
    "$@" >"$tmp/stdout" 2>"$tmp/stderr"
    got=$?
    if [ "$got" != "$want" ]; then
        echo "FAIL $name: exit $got, want $want"; cat "$tmp/stderr"
        fails=$((fails + 1)); return
    fi
    if [ -n "$msg" ] && ! grep -qxF -- "$msg" "$tmp/stderr"; then
        echo "FAIL $name: stderr lacks: $msg"; cat "$tmp/stderr"
        fails=$((fails + 1)); return
    fi
    echo "ok   $name"
}

printf '{"x": "a < b && &y", "people": [{"name": "Ada", "last": false}, {"name": "Linus", "last": true}]}' >"$tmp/d.json"
printf '{"x": 1,\n  "y": }' >"$tmp/bad.json"
printf 'line\n  {{#x}}\n' >"$tmp/unclosed.mustache"
printf '{{x}}|{{nope}}\n' >"$tmp/t.mustache"
printf '{{#people}}\nHello, {{name}}{{^last}},{{/last}}\n{{/people}}\n' >"$tmp/greet.mustache"
mkdir "$tmp/p"
printf '[{{x}}]' >"$tmp/p/part.mustache"
printf 'a{{>part}}b\n' >"$tmp/usep.mustache"

check help 0 "" "$pw" render --help
grep -q "usage: planwrap render" "$tmp/stdout" || { echo "FAIL help text"; fails=$((fails + 1)); }
check no-args 2 "planwrap: error: render needs a TEMPLATE" "$pw" render
check no-data 2 "planwrap: error: render needs --data DATA.json" "$pw" render "$tmp/t.mustache"
check two-templates 2 "planwrap: error: unexpected argument 'b' (render takes one TEMPLATE)" "$pw" render a b --data "$tmp/d.json"
check bad-option 2 "planwrap: error: unknown option '--frobnicate'" "$pw" render --frobnicate
check missing-value 2 "planwrap: error: option '--data' needs a value" "$pw" render "$tmp/t.mustache" --data
check bad-depth 2 "planwrap: error: invalid value 'x' for --max-depth: expected 1 to 10000 (deeper nesting could overflow the stack)" "$pw" render "$tmp/t.mustache" --data "$tmp/d.json" --max-depth x
check deep-depth 2 "planwrap: error: invalid value '60000' for --max-depth: expected 1 to 10000 (deeper nesting could overflow the stack)" "$pw" render "$tmp/t.mustache" --data "$tmp/d.json" --max-depth 60000
check bad-json 1 "$tmp/bad.json:2:8: error: unexpected token near '}'" \
    "$pw" render "$tmp/t.mustache" --data "$tmp/bad.json" -o "$tmp/out1"
check unclosed 1 "$tmp/unclosed.mustache:2:3: error: unclosed section {{#x}}" \
    "$pw" render "$tmp/unclosed.mustache" --data "$tmp/d.json" -o "$tmp/out2"
check strict 1 "$tmp/t.mustache:1:7: error: unknown name 'nope'" \
    "$pw" render "$tmp/t.mustache" --data "$tmp/d.json" --strict -o "$tmp/out3"
check no-template 1 "planwrap: error: cannot read $tmp/none.mustache: No such file or directory" \
    "$pw" render "$tmp/none.mustache" --data "$tmp/d.json" -o "$tmp/out4"
# an unreadable partial (a directory named like one) is an error, not a
# missing partial rendered as nothing; a missing one still is nothing
mkdir -p "$tmp/q/part.mustache"
check unreadable-partial 1 "$tmp/usep.mustache:1:2: error: cannot read partial 'part': Is a directory" \
    "$pw" render "$tmp/usep.mustache" --data "$tmp/d.json" --partials "$tmp/q" -o "$tmp/out5"
mkdir -p "$tmp/empty"
check missing-partial 0 "" "$pw" render "$tmp/usep.mustache" --data "$tmp/d.json" --partials "$tmp/empty"
printf 'ab\n' | cmp -s - "$tmp/stdout" || { echo "FAIL missing partial output"; fails=$((fails + 1)); }
# standard input is "<stdin>" in read errors too (a directory as stdin)
check stdin-template-unreadable 1 "planwrap: error: cannot read <stdin>: Is a directory" \
    sh -c "'$pw' render - --data '$tmp/d.json' -o '$tmp/out6' <'$tmp'"
check stdin-data-unreadable 1 "planwrap: error: cannot read <stdin>: Is a directory" \
    sh -c "'$pw' render '$tmp/t.mustache' --data - -o '$tmp/out7' <'$tmp'"
check stdin-ir-unreadable 1 "planwrap: error: cannot read <stdin>: Is a directory" \
    sh -c "'$pw' check - <'$tmp'"
check no-data-file 1 "planwrap: error: cannot read $tmp/none.json: No such file or directory" \
    "$pw" render "$tmp/t.mustache" --data "$tmp/none.json" -o "$tmp/out8"
for f in out1 out2 out3 out4 out5 out6 out7 out8; do
    if [ -e "$tmp/$f" ]; then echo "FAIL: $f written on error"; fails=$((fails + 1)); fi
done

# successful renders, output checked byte for byte
check escape 0 "" "$pw" render "$tmp/t.mustache" --data "$tmp/d.json" -o "$tmp/o5"
printf 'a &lt; b &amp;&amp; &amp;y|\n' | cmp -s - "$tmp/o5" || { echo "FAIL escape output"; fails=$((fails + 1)); }
check no-escape 0 "" "$pw" render "$tmp/t.mustache" --data "$tmp/d.json" --no-escape -o "$tmp/o6"
printf 'a < b && &y|\n' | cmp -s - "$tmp/o6" || { echo "FAIL no-escape output"; fails=$((fails + 1)); }
check greet 0 "" "$pw" render "$tmp/greet.mustache" --data "$tmp/d.json"
printf 'Hello, Ada,\nHello, Linus\n' | cmp -s - "$tmp/stdout" || { echo "FAIL greet output"; fails=$((fails + 1)); }
check partials 0 "" "$pw" render "$tmp/usep.mustache" --data "$tmp/d.json" --partials "$tmp/p" --no-escape
printf 'a[a < b && &y]b\n' | cmp -s - "$tmp/stdout" || { echo "FAIL partials output"; fails=$((fails + 1)); }
check stdin 0 "" sh -c "printf '{{x}}!' | '$pw' render - --data '$tmp/d.json' -n"
printf 'a < b && &y!' | cmp -s - "$tmp/stdout" || { echo "FAIL stdin output"; fails=$((fails + 1)); }

# builtin:NAME renders the embedded copy of templates/NAME.mustache
src=$(cd "$(dirname "$0")/../.." && pwd)/templates
printf "{}" >"$tmp/empty.json"
check no-builtin 1 "planwrap: error: no built-in template 'nope' (built-ins: c/kernels.h c/model.c c/model.h c/shared.c c/shared.h cuda/kernels.h cuda/model.cu cuda/model.h)" \
    "$pw" render builtin:nope --data "$tmp/empty.json"
check builtin-typo 1 "planwrap: error: no built-in template 'c/model.C'; did you mean 'builtin:c/model.c'?" \
    "$pw" render builtin:c/model.C --data "$tmp/empty.json"
check builtin 0 "" "$pw" render builtin:c/model.h --data "$tmp/empty.json" -o "$tmp/b1"
# --show prints a built-in's source, byte for byte
for t in c/model.c cuda/model.cu; do
    "$pw" render --show "builtin:$t" >"$tmp/shown" &&
        cmp -s "$tmp/shown" "$src/$t.mustache" || {
        echo "FAIL show $t: not the built-in's source"
        fails=$((fails + 1))
    }
done
check show-typo 1 "planwrap: error: no built-in template 'c/model.C'; did you mean 'builtin:c/model.c'?" \
    "$pw" render --show builtin:c/model.C
check builtin-file 0 "" "$pw" render "$src/c/model.h.mustache" --data "$tmp/empty.json" -o "$tmp/b2"
{ [ -s "$tmp/b1" ] && cmp -s "$tmp/b1" "$tmp/b2"; } || { echo "FAIL builtin output"; fails=$((fails + 1)); }

echo "$fails failure(s)"
[ "$fails" -eq 0 ]
