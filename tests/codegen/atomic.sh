#!/bin/sh
# atomic.sh PLANWRAP ROOT - gen writes nothing when anything fails: the
# output path is a file, an output file's path is a directory, a template
# fails to render, the input is invalid; existing files stay as they were.
set -u
pw=$1
root=$2
model=$root/tests/codegen/models/tiny.pw
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0

expect_fail() { # DESCRIPTION COMMAND...
    what=$1
    shift
    if "$@" 2>"$tmp/err"; then
        echo "FAIL: $what: exit status 0"
        fail=1
    elif ! grep -q "error" "$tmp/err"; then
        echo "FAIL: $what: no error message"
        cat "$tmp/err"
        fail=1
    fi
}

# 1. -o names a regular file.
printf 'keep\n' >"$tmp/file"
expect_fail "output is a file" "$pw" gen "$model" -o "$tmp/file"
[ "$(cat "$tmp/file")" = keep ] || { echo "FAIL: the file changed"; fail=1; }

# 2. One output name is taken by a directory: no other file is written.
mkdir -p "$tmp/out2/tiny.c"
expect_fail "tiny.c is a directory" "$pw" gen "$model" -o "$tmp/out2"
if [ -e "$tmp/out2/tiny.h" ] || [ -e "$tmp/out2/tiny_kernels.h" ]; then
    echo "FAIL: files were written although tiny.c could not be"
    fail=1
fi

# 3. A template that fails (strict: unknown name) after others rendered.
mkdir -p "$tmp/tpl/c" "$tmp/out3"
printf '{{no_such_name}}\n' >"$tmp/tpl/c/model.c.mustache"
printf 'old\n' >"$tmp/out3/tiny.h"
expect_fail "template error" "$pw" gen "$model" --templates "$tmp/tpl" \
    -o "$tmp/out3"
grep -q "no_such_name" "$tmp/err" || {
    echo "FAIL: the template error does not name the tag"
    cat "$tmp/err"
    fail=1
}
[ "$(cat "$tmp/out3/tiny.h")" = old ] || {
    echo "FAIL: tiny.h was rewritten although a template failed"
    fail=1
}
[ -e "$tmp/out3/tiny.c" ] && { echo "FAIL: tiny.c written"; fail=1; }

# 4. Invalid input: nothing written, not even the directory.
printf 'model bad\nfree nothing\n' >"$tmp/bad.pw"
expect_fail "invalid IR" "$pw" gen "$tmp/bad.pw" -o "$tmp/out4"
[ -e "$tmp/out4" ] && { echo "FAIL: out4 created for invalid input"; fail=1; }

# 5. Bad usage exits 2.
"$pw" gen "$model" --target fortran -o "$tmp/out5" 2>/dev/null
[ $? -eq 2 ] || { echo "FAIL: unknown target: status not 2"; fail=1; }
"$pw" gen "$model" 2>/dev/null
[ $? -eq 2 ] || { echo "FAIL: missing -o: status not 2"; fail=1; }
[ -e "$tmp/out5" ] && { echo "FAIL: out5 created"; fail=1; }

# 6. And the same command succeeds into a fresh, nested directory, leaving
# no temporary file behind.
"$pw" gen "$model" -o "$tmp/new/a/b" || { echo "FAIL: gen failed"; fail=1; }
[ "$(ls "$tmp/new/a/b" | tr '\n' ' ')" = "tiny.c tiny.h tiny_kernels.h " ] || {
    echo "FAIL: unexpected files: $(ls -a "$tmp/new/a/b")"
    fail=1
}
# 7. -o naming a FIFO (or a device such as /dev/null) writes into it: a
# rename would put a regular file in its place and the reader would wait
# forever.
mkfifo "$tmp/fifo"
timeout 10 cat "$tmp/fifo" >"$tmp/fifo.out" &
reader=$!
timeout 10 "$pw" fmt -o "$tmp/fifo" "$model" || {
    echo "FAIL: fmt -o FIFO failed"
    fail=1
}
wait $reader || { echo "FAIL: the FIFO's reader got nothing"; fail=1; }
[ -p "$tmp/fifo" ] || { echo "FAIL: the FIFO was replaced"; fail=1; }
"$pw" fmt "$model" | cmp -s - "$tmp/fifo.out" || {
    echo "FAIL: the FIFO's reader got other bytes than stdout"
    fail=1
}
ls "$tmp" | grep -q 'fifo.tmp' && { echo "FAIL: temporary left"; fail=1; }

[ $fail -eq 0 ] && echo "atomic: ok"
exit $fail
