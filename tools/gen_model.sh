#!/bin/sh
# tools/gen_model.sh KIND [N] - prints a synthetic IR v1 model on stdout.
#
#   resnet N        a residual CNN of N basic blocks (conv, in-place relu_,
#                   conv, in-place residual add_, in-place relu_)
#   transformer N   N transformer layers: fused qkv projection split by
#                   three views (alias ... TYPE offset=), attention with an
#                   in-place softmax_, residual add_, a GELU MLP
#   chain N         N conv + in-place relu_ layers (chain-shaped: bestfit
#                   must reach the lower bound)
#
# Used by bench/planner/run.sh (bench/planner/models/*.pw are its output,
# regenerated with `sh tools/gen_model.sh KIND N > FILE`).
set -eu
kind=${1:?usage: gen_model.sh resnet|transformer|chain [N]}
n=${2:-4}

resnet() {
    echo "# residual CNN, $n basic blocks (tools/gen_model.sh resnet $n)"
    echo "model resnet_gen"
    echo "kernel conv2d(in, in, out)"
    echo "kernel relu_(inout)"
    echo "kernel add_(inout, in)"
    echo "input x f32[1,64,56,56]"
    cur=x
    i=0
    while [ "$i" -lt "$n" ]; do
        echo "const w${i}_1 f32[64,64,3,3]"
        echo "const w${i}_2 f32[64,64,3,3]"
        echo "alloc b${i}_c1 f32[1,64,56,56]"
        echo "call conv2d($cur, w${i}_1, b${i}_c1)"
        echo "alias b${i}_r1 = b${i}_c1"
        echo "call relu_(b${i}_r1)"
        echo "free b${i}_c1 w${i}_1"
        echo "alloc b${i}_c2 f32[1,64,56,56]"
        echo "call conv2d(b${i}_r1, w${i}_2, b${i}_c2)"
        echo "free b${i}_r1 w${i}_2"
        echo "alias b${i}_sum = b${i}_c2"
        echo "call add_(b${i}_sum, $cur)"
        echo "free b${i}_c2 $cur"
        echo "alias b${i}_out = b${i}_sum"
        echo "call relu_(b${i}_out)"
        echo "free b${i}_sum"
        cur=b${i}_out
        i=$((i + 1))
    done
    echo "alloc logits f32[1,1000]"
    echo "call head($cur, logits)"
    echo "free $cur"
    echo "output logits"
}

transformer() {
    s=128
    d=256
    echo "# transformer, $n layers, S=$s D=$d (tools/gen_model.sh transformer $n)"
    echo "model transformer_gen"
    echo "kernel linear(in, in, out)"
    echo "kernel softmax_(inout)"
    echo "kernel gelu_(inout)"
    echo "kernel add_(inout, in)"
    echo "input h f32[1,$s,$d]"
    cur=h
    i=0
    while [ "$i" -lt "$n" ]; do
        echo "const l${i}_wqkv f32[$d,$((3 * d))]"
        echo "const l${i}_wo f32[$d,$d]"
        echo "const l${i}_w1 f32[$d,$((4 * d))]"
        echo "const l${i}_w2 f32[$((4 * d)),$d]"
        echo "alloc l${i}_qkv f32[1,$s,$((3 * d))]"
        echo "call linear($cur, l${i}_wqkv, l${i}_qkv)"
        echo "alias l${i}_q = l${i}_qkv f32[1,$s,$d] offset=0"
        echo "alias l${i}_k = l${i}_qkv f32[1,$s,$d] offset=$((s * d))"
        echo "alias l${i}_v = l${i}_qkv f32[1,$s,$d] offset=$((2 * s * d))"
        echo "free l${i}_qkv"
        echo "alloc l${i}_scores f32[1,4,$s,$s]"
        echo "call qk(l${i}_q, l${i}_k, l${i}_scores)"
        echo "free l${i}_q l${i}_k"
        echo "alias l${i}_probs = l${i}_scores"
        echo "call softmax_(l${i}_probs)"
        echo "free l${i}_scores"
        echo "alloc l${i}_attn f32[1,$s,$d]"
        echo "call pv(l${i}_probs, l${i}_v, l${i}_attn)"
        echo "free l${i}_probs l${i}_v"
        echo "alloc l${i}_proj f32[1,$s,$d]"
        echo "call linear(l${i}_attn, l${i}_wo, l${i}_proj)"
        echo "free l${i}_attn"
        echo "alias l${i}_res1 = l${i}_proj"
        echo "call add_(l${i}_res1, $cur)"
        echo "free l${i}_proj $cur"
        echo "alloc l${i}_ff1 f32[1,$s,$((4 * d))]"
        echo "call linear(l${i}_res1, l${i}_w1, l${i}_ff1)"
        echo "alias l${i}_g = l${i}_ff1"
        echo "call gelu_(l${i}_g)"
        echo "free l${i}_ff1"
        echo "alloc l${i}_ff2 f32[1,$s,$d]"
        echo "call linear(l${i}_g, l${i}_w2, l${i}_ff2)"
        echo "free l${i}_g"
        echo "alias l${i}_out = l${i}_ff2"
        echo "call add_(l${i}_out, l${i}_res1)"
        echo "free l${i}_ff2 l${i}_res1"
        cur=l${i}_out
        i=$((i + 1))
    done
    echo "alloc y f32[1,$s,$d]"
    echo "call copy($cur, y)"
    echo "free $cur"
    echo "output y"
}

chain() {
    echo "# chain of $n conv + relu_ layers (tools/gen_model.sh chain $n)"
    echo "model chain_gen"
    echo "kernel conv2d(in, in, out)"
    echo "kernel relu_(inout)"
    echo "input x f32[1,16,64,64]"
    cur=x
    i=0
    while [ "$i" -lt "$n" ]; do
        c=$((16 * (1 + (i * 5) % 7)))
        echo "const w$i f32[$c,16,3,3]"
        echo "alloc c$i f32[1,$c,64,64]"
        echo "call conv2d($cur, w$i, c$i)"
        echo "free $cur w$i"
        echo "alias r$i = c$i"
        echo "call relu_(r$i)"
        echo "free c$i"
        cur=r$i
        i=$((i + 1))
    done
    echo "alloc y f32[1,10]"
    echo "call head($cur, y)"
    echo "free $cur"
    echo "output y"
}

case $kind in
resnet) resnet ;;
transformer) transformer ;;
chain) chain ;;
*)
    echo "gen_model.sh: unknown kind '$kind' (resnet, transformer, chain)" >&2
    exit 2
    ;;
esac
