#!/usr/bin/env bash
# build.sh TREE ALLOC LOG: build bzImage and modules in the cell's O= dir
# (incremental, through ccache), the whole output into LOG.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

main() {
	local tree=$1 alloc=$2 logf=$3 src obj
	src=$(src_dir "$tree")
	obj=$(obj_dir "$tree" "$alloc")
	export CCACHE_DIR=${CCACHE_DIR:-$ZSP_CACHE/ccache}
	# Kernel builds are reproducible enough that a shared cache pays off
	# across trees; the timestamp would defeat it.
	export KBUILD_BUILD_TIMESTAMP=${KBUILD_BUILD_TIMESTAMP:-zsp}
	export KBUILD_BUILD_USER=zsp KBUILD_BUILD_HOST=zsp
	if ! make -C "$src" O="$obj" -j"${ZSP_JOBS:-$(nproc)}" CC="ccache gcc" \
		bzImage modules >"$logf" 2>&1; then
		die "build of $tree/$alloc failed: $(grep -m1 -E 'error:|Error [0-9]' "$logf" || tail -1 "$logf"); log: $logf"
	fi
}

main "$@"
