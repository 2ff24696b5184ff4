#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# test_pkgconfig.sh <source dir> <build dir>: a DOCA program builds with only
# `cc prog.c $(pkg-config --cflags --libs doca-common doca-dma doca-argp doca-comch doca-rdma)`,
# (1) from the build tree (meson-uninstalled/) and (2) after `meson install`
# into a fresh prefix; the -dpu flavour defines DOCA_ARCH_DPU. (3) A DOCA 1.4
# program builds the same way from the 1.4 flavour's folders.
set -euo pipefail
src=$1
build=$2
cc=${CC:-cc}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
prog="$src/tests/build/prog_all_headers.c"

check() { # check <label> <expected output prefix> <binary> <lib dir>
	local out
	out=$(LD_LIBRARY_PATH="$4" "$3")
	case "$out" in
	"$2"*) echo "ok: $1 ($out)" ;;
	*) echo "FAIL: $1 printed '$out', expected '$2...'"; exit 1 ;;
	esac
}

# 1. From the build tree.
export PKG_CONFIG_PATH="$build/meson-uninstalled"
# shellcheck disable=SC2046
$cc -o "$work/host" "$prog" $(pkg-config --cflags --libs doca-common doca-dma doca-argp doca-comch doca-rdma)
check "build tree, host" "side=host" "$work/host" "$build/src"
# shellcheck disable=SC2046
$cc -o "$work/dpu" "$prog" $(pkg-config --cflags --libs doca-common-dpu doca-dma-dpu doca-argp-dpu doca-comch-dpu doca-rdma-dpu)
check "build tree, dpu flavour" "side=dpu" "$work/dpu" "$build/src"

# 2. After installing into a prefix of our own.
meson install -C "$build" --no-rebuild --quiet --destdir "$work/root" >/dev/null
# DOCA 3's modules, not a legacy flavour's namesakes under lib/ferry/doca-<VERSION>/.
pcdir=$(dirname "$(find "$work/root" -path '*/ferry/*' -prune -o -name doca-dma.pc -print | head -n1)")
libdir=$(dirname "$(find "$work/root" -name 'libdoca_dma.so' | head -n1)")
export PKG_CONFIG_PATH="$pcdir" PKG_CONFIG_SYSROOT_DIR="$work/root"
# shellcheck disable=SC2046
$cc -o "$work/installed" "$prog" $(pkg-config --cflags --libs doca-common doca-dma doca-argp doca-comch doca-rdma)
check "installed prefix" "side=host" "$work/installed" "$libdir"

# 3. A DOCA 1.4 program (a 1.3-style sample: per-library modules, its own
# helper file) builds from the 1.4 flavour's folders, in the build tree and
# installed, and runs with the 1.4 behaviour.
legacy14=("$src/tests/legacy/legacy14_dma_local_copy.c" "$src/tests/legacy/legacy14_common.c")
check14() { # check14 <label> <binary> <lib dir>
	local out
	out=$(LD_LIBRARY_PATH="$3" "$2" 4096 2>&1)
	case "$out" in
	*"local copy of 4096 bytes: ok (DOCA 1.4.0079 headers, runtime 1.4.0079)"*) echo "ok: $1" ;;
	*) echo "FAIL: $1 printed '$out'"; exit 1 ;;
	esac
}
# shellcheck disable=SC2046
$cc -o "$work/legacy14" "${legacy14[@]}" $(PKG_CONFIG_PATH="$build/include/legacy/pc/doca-1.4" \
	PKG_CONFIG_SYSROOT_DIR='' pkg-config --cflags --libs doca-common doca-dma doca-comm-channel)
check14 "build tree, DOCA 1.4 flavour" "$work/legacy14" "$build/src"
pc14=$(dirname "$(find "$work/root" -path '*/ferry/doca-1.4/pkgconfig/doca-dma.pc' | head -n1)")
# shellcheck disable=SC2046
$cc -o "$work/legacy14-installed" "${legacy14[@]}" $(PKG_CONFIG_PATH="$pc14" pkg-config --cflags --libs doca-common doca-dma)
check14 "installed prefix, DOCA 1.4 flavour" "$work/legacy14-installed" "$libdir"
