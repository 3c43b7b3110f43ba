#!/bin/sh
# tests/import/weights.sh PLANWRAP SRC_DIR WORK_DIR CC - `planwrap import
# --weights`: the bytes of every const (raw_data, typed fields, external
# data, Constant nodes, a folded value) at their aligned offsets
# (weights.py verify); the same bytes twice; the refusals leave no file;
# and a torch MLP imported with --weights, generated and compiled, gives
# with its embedded weights the output of the caller's pointers and of
# torch (weights_main.c).  Exit 77 (skipped) without python3-torch or
# python3-onnx.
set -u
pw=$1 src=$2 work=$3 cc=$4
here=$src/tests/import
rm -rf "$work" && mkdir -p "$work/sub"
/usr/bin/python3 "$here/weights.py" make "$work"
case $? in
0) ;;
3) echo "skipped: python3-torch or python3-onnx is missing"; exit 77 ;;
*) echo "weights.py make failed"; exit 1 ;;
esac
fail=0
bad() { echo "FAIL: $*"; fail=1; }
cd "$work" || exit 1
for m in types ext lin; do
    "$pw" import $m.onnx --weights w/$m.bin -o sub/$m.pw 2>/dev/null &&
        bad "$m: a --weights folder that does not exist was accepted"
    [ -e sub/$m.pw ] && bad "$m: the IR was written without its weights"
    mkdir w
    "$pw" import $m.onnx --weights w/$m.bin -o sub/$m.pw || bad "$m: import"
    grep -q "data=\"../w/$m.bin\" at=" sub/$m.pw ||
        bad "$m: data= is not relative to the IR's folder"
    /usr/bin/python3 "$here/weights.py" verify $m.onnx sub/$m.pw ||
        bad "$m: the weights file"
    "$pw" check sub/$m.pw || bad "$m: check"
    cp w/$m.bin $m.bin.1 && cp sub/$m.pw $m.pw.1
    "$pw" import $m.onnx --weights w/$m.bin -o sub/$m.pw &&
        cmp -s w/$m.bin $m.bin.1 && cmp -s sub/$m.pw $m.pw.1 ||
        bad "$m: a second import differs"
    mv w w_$m
done
cmp -s w_types/types.bin w_ext/ext.bin || bad "external data gives other bytes"
# Refusals: nothing written, the old files kept, no temporary file left.
echo old >old.pw && echo old >old.bin
for args in "ext_outside.onnx" "- --input nope=1" "types.onnx --input nope=1"; do
    # shellcheck disable=SC2086
    "$pw" import $args --weights old.bin -o old.pw <ext.onnx 2>err.txt &&
        bad "$args: accepted"
    [ "$(cat old.pw old.bin)" = "old
old" ] || bad "$args: an old file was overwritten"
    cat err.txt
done
"$pw" import - --weights stdin.bin -o stdin.pw <ext.onnx 2>err.txt &&
    bad "external data from standard input was accepted"
grep -q "read the model from a file" err.txt || bad "stdin: $(cat err.txt)"
"$pw" import types.onnx --weights types.onnx -o x.pw 2>err.txt &&
    bad "--weights over the model was accepted"
grep -q "is the model" err.txt || bad "--weights MODEL: $(cat err.txt)"
ls ./*.tmp.* w_*/*.tmp.* sub/*.tmp.* 2>/dev/null && bad "temporary files left"
# The run: embedded weights, caller pointers, torch.
"$pw" import lin.onnx --weights lin.bin -o lin.pw && "$pw" gen lin.pw -o gen ||
    bad "gen lin"
$cc -std=c11 -O1 -Wall -Wextra -Werror -pedantic -I gen -I . \
    -I "$src/runtime" gen/lin.c gen/lin_weights.c "$src/runtime/planwrap_rt.c" \
    "$here/weights_main.c" -lm -o lin.exe || bad "compile lin"
./lin.exe || bad "lin with embedded weights"
exit $fail
