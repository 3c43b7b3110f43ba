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
# The files are written as they render: the failing template's run
# leaves no temporary file, and a DIR it had to create is removed.
[ "$(ls -A "$tmp/out3" | grep -c tmp)" -eq 0 ] || {
    echo "FAIL: temporary files left: $(ls -A "$tmp/out3")"
    fail=1
}
expect_fail "template error, new DIR" "$pw" gen "$model" --templates \
    "$tmp/tpl" -o "$tmp/out3new"
[ -e "$tmp/out3new" ] && { echo "FAIL: out3new left behind"; fail=1; }

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

# 8. A write fails midway (file size limit, like a full disk, on the
# largest file): no file is replaced, no temporary file is left.
lenet=$root/examples/lenet.pw
mkdir -p "$tmp/out7"
for f in lenet.c lenet.h lenet_kernels.h; do echo old >"$tmp/out7/$f"; done
(trap '' XFSZ; ulimit -f 8; exec "$pw" gen "$lenet" -o "$tmp/out7") \
    2>"$tmp/err" && { echo "FAIL: gen succeeded under ulimit -f 8"; fail=1; }
for f in lenet.c lenet.h lenet_kernels.h; do
    [ "$(cat "$tmp/out7/$f")" = old ] || {
        echo "FAIL: $f was replaced although lenet.c could not be written"
        fail=1
    }
done
[ "$(ls -A "$tmp/out7" | grep -c tmp)" -eq 0 ] || {
    echo "FAIL: temporary files left: $(ls -A "$tmp/out7")"
    fail=1
}

# 9. SIGTERM while gen waits for the directory lock (held by this shell
# with flock(1)) after writing its temporaries: they are removed.
if command -v flock >/dev/null 2>&1; then
    mkdir -p "$tmp/out8"
    exec 9<"$tmp/out8" # the lock is this shell's, released below
    flock 9
    "$pw" gen "$model" -o "$tmp/out8" 2>/dev/null &
    gen=$!
    n=0 # wait (at most 20 s) for its three temporary files
    while [ "$(ls -A "$tmp/out8" | grep -c tmp)" -lt 3 ] && [ $n -lt 100 ]; do
        sleep 0.2
        n=$((n + 1))
    done
    ls -A "$tmp/out8" | grep -q tmp || {
        echo "FAIL: gen did not wait for the lock with its temporaries"
        fail=1
    }
    kill -TERM "$gen"
    wait "$gen"
    [ $? -eq 143 ] || { echo "FAIL: gen did not die of SIGTERM"; fail=1; }
    [ -z "$(ls -A "$tmp/out8")" ] || {
        echo "FAIL: after SIGTERM: $(ls -A "$tmp/out8")"
        fail=1
    }
    exec 9<&-
fi

# 10. Concurrent runs of two plans into one directory: at the end the
# three files come from one run (same algorithm in each header line).
mkdir -p "$tmp/out9"
i=0
while [ $i -lt 20 ]; do
    "$pw" gen "$lenet" --algo naive -o "$tmp/out9" &
    "$pw" gen "$lenet" --algo bestfit -o "$tmp/out9" &
    i=$((i + 1))
done
wait
n=$(grep -ho 'algo [a-z]*' "$tmp/out9/lenet.c" "$tmp/out9/lenet.h" \
    "$tmp/out9/lenet_kernels.h" | sort -u | wc -l)
[ "$n" -eq 1 ] || { echo "FAIL: concurrent runs mixed their files"; fail=1; }

[ $fail -eq 0 ] && echo "atomic: ok"
exit $fail
