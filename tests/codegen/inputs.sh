#!/bin/sh
# inputs.sh PLANWRAP ROOT - inputs that must not hang or read without end:
# `check /dev/zero` stops at the input size limit (PLANWRAP_MAX_INPUT), a
# FIFO given as a template override or a partial is refused at once (its
# open would wait for a writer), an oversized template is refused.  Every
# run has a timeout: a hang fails the test.
set -u
pw=$1
root=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0

# expect NAME STATUS STDERR-LINE-1 cmd... : exit status and first line
expect() {
    name=$1 status=$2 want=$3
    shift 3
    timeout 20 "$@" >/dev/null 2>"$tmp/err" </dev/null
    rc=$?
    got=$(sed -n 1p "$tmp/err")
    if [ "$rc" -ne "$status" ] || [ "$got" != "$want" ]; then
        echo "FAIL: $name: exit $rc (want $status)"
        echo "  got:  $got"
        echo "  want: $want"
        fail=1
    fi
}

expect dev-zero 1 "planwrap: error: cannot read /dev/zero: larger than 1000000 bytes (the input size limit; set PLANWRAP_MAX_INPUT=BYTES to change it)" \
    env PLANWRAP_MAX_INPUT=1000000 "$pw" check /dev/zero
head -c 2000 /dev/zero | tr '\0' '#' >"$tmp/comment.pw"
expect big-file 1 "planwrap: error: cannot read $tmp/comment.pw: larger than 1000 bytes (the input size limit; set PLANWRAP_MAX_INPUT=BYTES to change it)" \
    env PLANWRAP_MAX_INPUT=1000 "$pw" check "$tmp/comment.pw"

mkdir -p "$tmp/t/c"
mkfifo "$tmp/t/c/model.c.mustache"
expect fifo-template 1 "planwrap: error: cannot read $tmp/t/c/model.c.mustache: not a regular file (a FIFO, socket or device)" \
    "$pw" gen "$root/examples/lenet.pw" -o "$tmp/out" --templates "$tmp/t"
[ -e "$tmp/out/lenet.c" ] && {
    echo "FAIL: fifo-template wrote files"
    fail=1
}

printf '{{>p}}\n' >"$tmp/main.mustache"
echo '{}' >"$tmp/d.json"
mkdir "$tmp/parts"
mkfifo "$tmp/parts/p.mustache"
expect fifo-partial 1 "$tmp/main.mustache:1:1: error: cannot read partial 'p': not a regular file (a FIFO, socket or device)" \
    "$pw" render "$tmp/main.mustache" --data "$tmp/d.json" --partials "$tmp/parts"

mkdir "$tmp/big"
head -c 5000 /dev/zero | tr '\0' 'x' >"$tmp/big/p.mustache"
expect big-partial 1 "$tmp/main.mustache:1:1: error: cannot read partial 'p': larger than the input size limit (PLANWRAP_MAX_INPUT)" \
    env PLANWRAP_MAX_INPUT=1000 "$pw" render "$tmp/main.mustache" --data "$tmp/d.json" --partials "$tmp/big"

# gen into the directory of its input, whose name is an output's: refused
mkdir "$tmp/same"
printf 'model m\nalloc a f32[4]\noutput a\n' >"$tmp/same/m.h"
cp "$tmp/same/m.h" "$tmp/same.orig"
expect gen-own-input 1 "planwrap: error: output $tmp/same/m.h is the input $tmp/same/m.h: it would be overwritten (write the output elsewhere)" \
    "$pw" gen "$tmp/same/m.h" -o "$tmp/same"
cmp -s "$tmp/same/m.h" "$tmp/same.orig" && [ ! -e "$tmp/same/m.c" ] || {
    echo "FAIL: gen-own-input overwrote its input or wrote files"
    fail=1
}

# --shared-pools: the second model's input is also never overwritten
mkdir "$tmp/shared"
printf 'model a\nalloc x f32[4]\noutput x\n' >"$tmp/shared/a.c"
printf 'model b\nalloc y f32[4]\noutput y\n' >"$tmp/shared/b.pw"
cp "$tmp/shared/a.c" "$tmp/shared.orig"
expect gen-shared-own-input 1 "planwrap: error: output $tmp/shared/a.c is the input $tmp/shared/a.c: it would be overwritten (write the output elsewhere)" \
    "$pw" gen "$tmp/shared/b.pw" "$tmp/shared/a.c" --shared-pools -o "$tmp/shared"
cmp -s "$tmp/shared/a.c" "$tmp/shared.orig" && [ ! -e "$tmp/shared/b.c" ] || {
    echo "FAIL: gen-shared-own-input overwrote its input or wrote files"
    fail=1
}

# a const's data= file named like the weights file gen writes beside it
mkdir "$tmp/data"
printf 'model w\nkernel k(in, out)\nconst c f32[4] data="w_weights.c"\nalloc y f32[4]\ncall k(c, y)\noutput y\n' >"$tmp/data/w.pw"
head -c 16 /dev/zero >"$tmp/data/w_weights.c"
expect gen-data-input 1 "planwrap: error: output $tmp/data/w_weights.c is the input $tmp/data/w_weights.c: it would be overwritten (write the output elsewhere)" \
    "$pw" gen "$tmp/data/w.pw" -o "$tmp/data"
[ "$(wc -c <"$tmp/data/w_weights.c")" -eq 16 ] && [ ! -e "$tmp/data/w.c" ] || {
    echo "FAIL: gen-data-input overwrote its data file or wrote files"
    fail=1
}

[ "$fail" -eq 0 ] && echo "inputs: all bounded"
exit "$fail"
