#!/bin/sh
# examples/onnx.sh PLANWRAP - the ONNX example: builds a tiny CNN with
# python3-onnx (examples/onnx_tiny.py; nothing binary is committed),
# imports it with its batch dim bound, plans it and generates C, then
# compiles the wrapper.  Writes only below build/example-onnx/.
set -eu
pw=$1
root=$(cd "$(dirname "$0")/.." && pwd)
out=$root/build/example-onnx
rm -rf "$out" && mkdir -p "$out"
/usr/bin/python3 "$root/examples/onnx_tiny.py" "$out/tiny.onnx"

echo "== planwrap import tiny.onnx --input image=1,3,32,32"
"$pw" import "$out/tiny.onnx" --input image=1,3,32,32 -o "$out/tiny.pw"
cat "$out/tiny.pw"

echo "== planwrap plan tiny.pw (and without the memory options)"
"$pw" plan "$out/tiny.pw"
"$pw" import "$out/tiny.onnx" --input image=1,3,32,32 --no-inplace \
    --no-concat-elim -o "$out/tiny_literal.pw"
"$pw" plan "$out/tiny_literal.pw"

echo "== planwrap gen tiny.pw -o gen/ and compile the wrapper"
"$pw" gen "$out/tiny.pw" -o "$out/gen"
${CC:-cc} -std=c11 -Wall -Wextra -Werror -pedantic -I"$out/gen" \
    -I"$root/runtime" -c "$out/gen/tiny.c" -o "$out/tiny.o"
echo "kernels to write: $out/gen/tiny_kernels.h"
grep -c '^void' "$out/gen/tiny_kernels.h" | sed 's/$/ prototypes/'
