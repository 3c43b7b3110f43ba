#!/bin/sh
# clang_ubsan.sh ROOT BUILT_TABLE_C SPEC_DIR - the mustache engine under
# clang's UndefinedBehaviorSanitizer (which sees more than gcc's, e.g.
# pointer arithmetic on NULL): builds the spec runner and the unit tests
# with clang -fsanitize=undefined -fno-sanitize-recover=all and runs both.
# Skipped (exit 77) when clang is not installed.
set -u
root=$1
table=$2
spec=$3
command -v clang >/dev/null 2>&1 || {
    echo "clang_ubsan: SKIPPED: clang not found"
    exit 77
}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
flags="-std=c11 -D_POSIX_C_SOURCE=200809L -g -O1 -fsanitize=undefined
       -fno-sanitize-recover=all -I $root -I $root/templates -I $root/base
       $(pkg-config --cflags jansson cmocka)"
libs="$(pkg-config --libs jansson cmocka)"
srcs="$(ls "$root"/templates/mustache*.c) $root/templates/loader.c
      $root/templates/builtin.c $table $(ls "$root"/base/*.c)"
fail=0
# shellcheck disable=SC2086
clang $flags -o "$tmp/spec" "$root/tests/templates/test_spec.c" $srcs $libs &&
    clang $flags -o "$tmp/unit" "$root/tests/templates/test_mustache.c" \
        $srcs $libs || exit 1
UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 "$tmp/spec" "$spec" \
    >"$tmp/spec.log" 2>&1 || {
    cat "$tmp/spec.log"
    fail=1
}
UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 "$tmp/unit" \
    >"$tmp/unit.log" 2>&1 || {
    cat "$tmp/unit.log"
    fail=1
}
[ "$fail" -eq 0 ] && echo "clang_ubsan: spec and unit tests clean"
exit "$fail"
