#!/bin/sh
# examples/run.sh PLANWRAP - the planwrap example (`make run`): plans the
# LeNet example, prints the plan summary (pool size vs lower bound vs
# naive), generates C with the default algorithm and with --algo naive,
# compiles both with the runtime and the reference kernels, runs both and
# checks that their outputs are identical.  A third build of the planned
# wrapper runs with the runtime checks and the lifetime tracker on.
#
# Works from any directory; writes only below build/example/ of the
# repository.  CC (default cc) and CFLAGS (default -O2) are honoured.
set -eu

if [ $# -ne 1 ]; then
    echo "usage: sh examples/run.sh PATH/TO/planwrap" >&2
    exit 2
fi
pw=$1
root=$(cd "$(dirname "$0")/.." && pwd)
case $pw in
/*) ;;
*) pw=$(pwd)/$pw ;;
esac
if [ ! -x "$pw" ]; then
    echo "run.sh: error: $pw is not an executable (build it first: make build)" >&2
    exit 2
fi
cc=${CC:-cc}
cflags=${CFLAGS:--O2}
model=$root/examples/lenet.pw
out=$root/build/example
rm -rf "$out"
mkdir -p "$out"

step() { printf '\n== %s\n' "$*"; }

step "plan: $("$pw" --version) on examples/lenet.pw"
"$pw" plan --emit summary "$model"

step "generate C: default algorithm and --algo naive"
"$pw" gen --target c -o "$out/planned" "$model"
"$pw" gen --target c --algo naive -o "$out/naive" "$model"
for d in planned naive; do
    # shellcheck disable=SC2046 # one word per file, on one line
    echo "build/example/$d:" $(cd "$out/$d" && ls)
done

step "the planned pool (header of build/example/planned/lenet.c)"
sed -n '/^ \* pool /,/^ \*\//p' "$out/planned/lenet.c" | sed '$d'
step "its reuse lines"
if grep -q 'reuse:' "$out/planned/lenet.c"; then
    grep 'reuse:' "$out/planned/lenet.c" | sed 's/^ *//'
else
    echo "(none)"
fi

build() { # build NAME GENDIR EXTRA_FLAGS
    # shellcheck disable=SC2086
    $cc -std=c99 $cflags -Wall -Wextra -Werror -pedantic $3 \
        -I "$2" -I "$root/runtime" \
        "$2"/*.c "$root"/runtime/*.c \
        "$root/examples/lenet_kernels.c" "$root/examples/lenet_main.c" \
        -lm -o "$out/$1"
    echo "built build/example/$1"
}

step "compile with $cc (-std=c99 -Wall -Wextra -Werror -pedantic)"
build lenet_planned "$out/planned" ""
build lenet_naive "$out/naive" ""
build lenet_planned_tracked "$out/planned" "-DPW_RT_CHECKS -DPW_RT_TRACK"

step "run the planned wrapper"
"$out/lenet_planned" >"$out/planned.txt"
cat "$out/planned.txt"
"$out/lenet_naive" >"$out/naive.txt"
"$out/lenet_planned_tracked" >"$out/tracked.txt"

step "compare"
status=0
if cmp -s "$out/planned.txt" "$out/naive.txt"; then
    echo "ok: planned output is identical to the naive plan's"
else
    echo "FAIL: planned output differs from the naive plan's:"
    diff "$out/naive.txt" "$out/planned.txt" || true
    status=1
fi
if cmp -s "$out/tracked.txt" "$out/naive.txt"; then
    echo "ok: with PW_RT_CHECKS and PW_RT_TRACK the output is identical too"
else
    echo "FAIL: the tracked build's output differs:"
    diff "$out/naive.txt" "$out/tracked.txt" || true
    status=1
fi
exit $status
