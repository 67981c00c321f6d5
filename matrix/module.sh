#!/usr/bin/env bash
# module.sh TREE ALLOC LOG: build the test module out of tree against the
# cell's kernel. The source is copied into a per-cell dir: M= writes its
# objects next to the sources, and cells must not share them.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

main() {
	local tree=$1 alloc=$2 logf=$3 src obj mod key
	src=$(src_dir "$tree")
	obj=$(obj_dir "$tree" "$alloc")
	mod="$ZSP_CACHE/mod/$tree-$alloc"
	mkdir -p "$mod"
	# The module depends on its sources and on the kernel tree (headers,
	# exports). The kernel's build stamp is renewed whenever kbuild ran
	# there; while it stands, skip make's 2 s of modpost and checks.
	key=$({
		cat "$ZSP_ROOT"/kunit/Kbuild "$ZSP_ROOT"/kunit/*.[ch]
		stat -c '%n %y' "$obj/.zsp-built" "$obj/Module.symvers"
	} | sha256sum | cut -d' ' -f1)
	if [ -z "${ZSP_FRESH:-}" ] && [ -f "$mod/zero_size_test.ko" ] &&
		[ "$(cat "$mod/.zsp-built" 2>/dev/null)" = "$key" ]; then
		echo "up to date: $mod/.zsp-built" >"$logf"
		return
	fi
	rm -f "$mod/.zsp-built"
	cp -p "$ZSP_ROOT"/kunit/Kbuild "$ZSP_ROOT"/kunit/*.[ch] "$mod/"
	if ! make -C "$src" O="$obj" M="$mod" CC="ccache gcc" modules >"$logf" 2>&1; then
		die "test module build against $tree/$alloc failed: $(grep -m1 'error:' "$logf" || tail -1 "$logf"); log: $logf"
	fi
	echo "$key" >"$mod/.zsp-built"
}

main "$@"
