#!/bin/sh
# Install what planwrap needs to build and test, from Debian packages only.
# Run as root to install missing packages with apt-get; otherwise this script
# only reports what is missing and how to install it.
set -eu

missing=""
need_pkg() { # need_pkg PACKAGE TEST-COMMAND...
    pkg=$1; shift
    if ! "$@" >/dev/null 2>&1; then missing="$missing $pkg"; fi
}
have_cmd() { command -v "$1"; }
have_file() { test -e "$1"; }

need_pkg cmake          have_cmd cmake
need_pkg gcc            have_cmd cc
need_pkg make           have_cmd make
need_pkg uthash-dev     have_file /usr/include/uthash.h
need_pkg libjansson-dev have_file /usr/include/jansson.h
need_pkg libcmocka-dev  have_file /usr/include/cmocka.h
need_pkg pkg-config     have_cmd pkg-config
# the picture tests (plan --emit svg): well-formed XML, and it renders
need_pkg libxml2-utils  have_cmd xmllint
need_pkg librsvg2-bin   have_cmd rsvg-convert
# ONNX import: the protobuf-c reader is generated from libonnx-dev's
# onnx.proto at build time; libonnx-testdata feeds the import sweep;
# python3-onnx builds the small models of tests/import.
need_pkg libprotobuf-c-dev   have_file /usr/include/protobuf-c/protobuf-c.h
need_pkg protobuf-c-compiler have_cmd protoc-c
need_pkg libonnx-dev         have_file /usr/include/onnx/onnx.proto
need_pkg libonnx-testdata    have_file /usr/share/libonnx-testdata/data/node
need_pkg python3-onnx        /usr/bin/python3 -c "import onnx"
# Real models for tests/import/torchvision.sh: torchvision classifiers
# exported with torch.onnx.export at test time (nothing large committed).
need_pkg python3-torch       /usr/bin/python3 -c "import torch"
need_pkg python3-torchvision /usr/bin/python3 -c "import torchvision"

if [ -z "$missing" ]; then
    exit 0
fi

if [ "$(id -u)" -ne 0 ]; then
    echo "planwrap: missing Debian packages:$missing" >&2
    echo "planwrap: install them with: sudo apt-get install$missing" >&2
    exit 1
fi

echo "planwrap: installing missing Debian packages:$missing"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
# shellcheck disable=SC2086
apt-get install -y -qq --no-install-recommends $missing >/dev/null
