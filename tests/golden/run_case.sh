#!/bin/sh
# run_case.sh PLANWRAP CASE_DIR - runs one golden case (see README.md).
#
# Reads CASE_DIR/cmd (one line of planwrap arguments), replaces @DIR@ by the
# case folder and @OUT@ by a fresh temporary folder, runs planwrap in the
# case folder (standard input from CASE_DIR/stdin when it exists, else
# empty), then compares standard output, standard error and the exit status
# with expected.stdout, expected.stderr and expected.status (a missing file
# means empty output / status 0), and the files written under @OUT@ with
# CASE_DIR/expected/, recursively (no expected/: nothing may be written).  In the actual output the
# case folder's and the output folder's paths are written back as @DIR@ and
# @OUT@, so expected files hold no absolute path.
#
# With PW_UPDATE_GOLDEN=1 the expected files are rewritten from the actual
# results instead (review them with `git diff` before committing).
set -u

if [ $# -ne 2 ]; then
    echo "usage: run_case.sh PLANWRAP CASE_DIR" >&2
    exit 2
fi
planwrap=$1
dir=$(cd "$2" && pwd) || exit 2
case "$planwrap" in
/*) ;;
*) planwrap=$(pwd)/$planwrap ;;
esac
if [ ! -f "$dir/cmd" ]; then
    echo "golden: $dir/cmd is missing" >&2
    exit 2
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/pw-golden.XXXXXX") || exit 2
trap 'rm -rf "$tmp"' EXIT HUP INT TERM
out="$tmp/out"
mkdir "$out"

# The command line, with @DIR@ and @OUT@ turned into shell variables so
# that eval keeps paths with spaces in one word.
cmd=$(sed -n '1p' "$dir/cmd" | sed 's/@DIR@/"$dir"/g; s/@OUT@/"$out"/g')

stdin=/dev/null
[ -f "$dir/stdin" ] && stdin="$dir/stdin"
(
    cd "$dir" || exit 125
    eval "exec \"\$planwrap\" $cmd" <"$stdin" >"$tmp/stdout" 2>"$tmp/stderr"
)
status=$?

# Escapes a string for use as a literal in a sed regular expression.
sed_quote() {
    printf '%s\n' "$1" | sed 's/[][\/.*^$&]/\\&/g'
}
qdir=$(sed_quote "$dir")
qout=$(sed_quote "$out")
for f in stdout stderr; do
    sed "s/$qout/@OUT@/g; s/$qdir/@DIR@/g" "$tmp/$f" >"$tmp/$f.norm"
done
printf '%s\n' "$status" >"$tmp/status"

if [ "${PW_UPDATE_GOLDEN:-0}" = 1 ]; then
    for f in stdout stderr; do
        if [ -s "$tmp/$f.norm" ]; then
            cp "$tmp/$f.norm" "$dir/expected.$f"
        else
            rm -f "$dir/expected.$f"
        fi
    done
    if [ "$status" -ne 0 ]; then
        cp "$tmp/status" "$dir/expected.status"
    else
        rm -f "$dir/expected.status"
    fi
    rm -rf "$dir/expected"
    if [ -n "$(ls -A "$out")" ]; then
        cp -R "$out" "$dir/expected"
    fi
    echo "golden: updated $dir"
    exit 0
fi

fail=0
# A missing expected file means empty output: compare with an empty file of
# our own (not /dev/null, which a broken machine may have replaced).
: >"$tmp/empty"
for f in stdout stderr; do
    exp="$dir/expected.$f"
    [ -f "$exp" ] || exp="$tmp/empty"
    if ! cmp -s "$exp" "$tmp/$f.norm"; then
        echo "golden: $f differs (expected vs actual):"
        diff -u "$exp" "$tmp/$f.norm" | sed -n '3,$p'
        fail=1
    fi
done
exp_status=0
[ -f "$dir/expected.status" ] && exp_status=$(sed -n '1p' "$dir/expected.status")
if [ "$status" != "$exp_status" ]; then
    echo "golden: exit status $status, expected $exp_status"
    fail=1
fi
if [ -d "$dir/expected" ]; then
    if ! diff -r -u "$dir/expected" "$out" >"$tmp/tree.diff"; then
        echo "golden: files under @OUT@ differ from expected/:"
        cat "$tmp/tree.diff"
        fail=1
    fi
elif [ -n "$(ls -A "$out")" ]; then
    echo "golden: files were written under @OUT@ but there is no expected/:"
    ls -A "$out"
    fail=1
fi
if [ "$fail" -ne 0 ]; then
    echo "golden: FAILED $dir"
    echo "golden: to accept the new output, rerun with PW_UPDATE_GOLDEN=1"
fi
exit "$fail"
