#!/bin/sh
# tests/import/models.sh PLANWRAP SRC_DIR WORK_DIR
# Builds the hand-made models of make_models.py, imports each and compares
# the IR (or the error) with tests/import/expected/NAME.pw (NAME.err).
# Every imported IR must check clean, plan no larger with the memory
# options than without, and an error must leave the -o file unwritten.
# PW_UPDATE_GOLDEN=1 rewrites the expected files (review the diff).
set -u
pw=$1 src=$2 work=$3
rm -rf "$work" && mkdir -p "$work/models"
/usr/bin/python3 "$src/tests/import/make_models.py" "$work/models"
case $? in
0) ;;
3) echo "skipped: python3-onnx is missing"; exit 0 ;;
*) echo "make_models.py failed"; exit 1 ;;
esac
fail=0
plan_size() { # plan_size FILE.pw: the pool size in bytes (0 when none)
    "$pw" plan "$1" | sed -n 's/^pool cpu: size \([0-9]*\),.*/\1/p' |
        awk '{s += $1} END {print s + 0}'
}
for m in "$work"/models/*.onnx; do
    name=$(basename "$m" .onnx)
    args=""
    [ "$name" = shapes ] && args="--input x=3,2,3,4"
    [ "$name" = err_input_initializer ] && args="--input w=2"
    out="$work/$name.pw"
    # shellcheck disable=SC2086
    (cd "$work/models" && "$pw" import "$name.onnx" $args -o "$out") \
        2>"$work/$name.stderr"
    status=$?
    case $name in
    err_*)
        got="$work/$name.stderr" want="$src/tests/import/expected/$name.err"
        if [ $status -ne 1 ] || [ -e "$out" ]; then
            echo "FAIL $name: status $status (want 1), or $out was written"
            fail=1
        fi ;;
    *)
        got=$out want="$src/tests/import/expected/$name.pw"
        if [ $status -ne 0 ] || ! "$pw" check "$out"; then
            echo "FAIL $name: import status $status or the IR does not check"
            cat "$work/$name.stderr"
            fail=1
            continue
        fi
        # shellcheck disable=SC2086
        (cd "$work/models" && "$pw" import "$name.onnx" $args \
            --no-inplace --no-concat-elim -o "$work/$name.off.pw")
        # One kernel name, one C signature: gen falls back to `void *`
        # when a name's calls pass buffers of different dtypes.
        "$pw" gen "$out" -o "$work/$name.gen" >/dev/null &&
            ! grep -n 'void \*' "$work/$name.gen/${name}_kernels.h" || {
            echo "FAIL $name: a kernel's buffers have no single C type"
            fail=1
        }
        on=$(plan_size "$out") off=$(plan_size "$work/$name.off.pw")
        echo "$name: planned $on bytes with the memory options, $off without"
        if [ "$on" -gt "$off" ]; then
            echo "FAIL $name: the memory options made the plan larger"
            fail=1
        fi ;;
    esac
    if [ "${PW_UPDATE_GOLDEN:-}" = 1 ]; then
        cp "$got" "$want"
    elif ! diff -u "$want" "$got"; then
        echo "FAIL $name: differs from $want"
        fail=1
    fi
done
exit $fail
