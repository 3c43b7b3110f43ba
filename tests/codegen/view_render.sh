#!/bin/sh
# view_render.sh PLANWRAP ROOT - the documented view is the contract for
# user templates: `gen` renders from lists built element by element
# (mst_lazy_list), and rendering the built-in C templates against the
# whole document (`plan --emit view`, then `render --data`) must give the
# same files, byte for byte, on programs with several pools, views,
# reuse, guards, states and weights.
set -u
pw=$1
root=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
g=$root/tests/golden/gen
# NAME MODEL [OPTIONS...]: gen and plan --emit view take the same options
check() {
    name=$1
    model=$2
    shift 2
    rm -rf "$tmp/gen"
    if ! "$pw" gen "$model" --target c "$@" -o "$tmp/gen" 2>"$tmp/err"; then
        echo "FAIL: $name: gen failed: $(cat "$tmp/err")"
        fail=1
        return
    fi
    if ! "$pw" plan --emit view "$@" "$model" -o "$tmp/view.json" \
        2>"$tmp/err"; then
        echo "FAIL: $name: plan --emit view failed: $(cat "$tmp/err")"
        fail=1
        return
    fi
    m=$(sed -n 's/^model  *\([A-Za-z_0-9]*\).*/\1/p' "$model" | head -1)
    [ -n "$m" ] || m=model
    for pair in "model.c:$m.c" "model.h:$m.h" "kernels.h:${m}_kernels.h"; do
        t=${pair%%:*}
        f=${pair#*:}
        if ! "$pw" render --strict --no-escape --data "$tmp/view.json" \
            -o "$tmp/$f" "builtin:c/$t" 2>"$tmp/err"; then
            echo "FAIL: $name: render builtin:c/$t: $(cat "$tmp/err")"
            fail=1
            continue
        fi
        if ! cmp -s "$tmp/gen/$f" "$tmp/$f"; then
            echo "FAIL: $name: $f from gen differs from render --data"
            diff "$tmp/gen/$f" "$tmp/$f" | head -10
            fail=1
        fi
    done
}
check lenet "$root/examples/lenet.pw"
check views "$root/tests/codegen/models/views.pw"
check views_none "$g/c_views_none/input.pw" --memory-pool none
check guard "$g/c_guard/input.pw" --guard-bytes 8
check donors "$g/c_donors/input.pw"
check planned_state "$g/c_planned_state/input.pw"
check state_next "$g/c_state_next/input.pw"
check weights "$g/c_weights/input.pw"
check mnasnet "$root/tests/data/models/mnasnet0_5.pw" --algo bestfit
# A user's template that nests the lists built on demand in themselves:
# the outer element is still in use while the inner ones are built (no
# object of it may be refilled), and the result must still equal
# render --data of the whole document.
mkdir -p "$tmp/t/c"
cat >"$tmp/t/c/model.c.mustache" <<'EOT'
{{#statements}}{{line}}:{{#events}}{{kind}}{{#alloc}}[{{name}} {{comment}}]{{/alloc}}{{/events}}<{{#statements}}{{#events}}{{#death}}{{name}},{{/death}}{{/events}}{{/statements}}>
{{/statements}}{{#buffers}}{{name}}({{#buffers}}{{size}},{{/buffers}})
{{/buffers}}{{#pools}}{{#table}}{{row}}|{{#buffers}}{{name}}{{/buffers}}
{{/table}}{{/pools}}
EOT
for name in c_donors c_views c_planned_state; do
    model=$g/$name/input.pw
    m=$(sed -n 's/^model  *\([A-Za-z_0-9]*\).*/\1/p' "$model" | head -1)
    rm -rf "$tmp/gen"
    if ! "$pw" gen "$model" --templates "$tmp/t" -o "$tmp/gen" 2>"$tmp/err" ||
        ! "$pw" plan --emit view "$model" -o "$tmp/view.json" ||
        ! "$pw" render --strict --no-escape --data "$tmp/view.json" \
            -o "$tmp/nested.c" "$tmp/t/c/model.c.mustache"; then
        echo "FAIL: nested $name: $(cat "$tmp/err")"
        fail=1
    elif ! cmp -s "$tmp/gen/$m.c" "$tmp/nested.c"; then
        echo "FAIL: nested $name: gen differs from render --data"
        diff "$tmp/gen/$m.c" "$tmp/nested.c" | head -10
        fail=1
    fi
done
exit $fail
