#!/usr/bin/env bash
# module.sh TREE ALLOC LOG: build the test module out of tree against the
# cell's kernel. The source is copied into a per-cell dir: M= writes its
# objects next to the sources, and cells must not share them.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

main() {
	local tree=$1 alloc=$2 logf=$3 src obj mod
	src=$(src_dir "$tree")
	obj=$(obj_dir "$tree" "$alloc")
	mod="$ZSP_CACHE/mod/$tree-$alloc"
	mkdir -p "$mod"
	cp -p "$ZSP_ROOT"/kunit/Kbuild "$ZSP_ROOT"/kunit/*.[ch] "$mod/"
	if ! make -C "$src" O="$obj" M="$mod" CC="ccache gcc" modules >"$logf" 2>&1; then
		die "test module build against $tree/$alloc failed: $(grep -m1 'error:' "$logf" || tail -1 "$logf"); log: $logf"
	fi
}

main "$@"
