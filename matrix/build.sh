#!/usr/bin/env bash
# build.sh TREE ALLOC LOG: build bzImage and modules in the cell's O= dir
# (incremental, through ccache), the whole output into LOG.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

# build_key OBJ: what a build is made from besides the sources.
build_key() {
	{
		cat "$1/.config"
		gcc --version | head -1
	} | sha256sum | cut -d' ' -f1
}

# up_to_date SRC OBJ KEY: the last good build used this config and no
# source file has changed since it started. A rerun with nothing changed
# then skips kbuild's own walk of the tree (5 s per cell here).
up_to_date() {
	local src=$1 obj=$2 key=$3 stamp=$2/.zsp-built
	[ -f "$stamp" ] && [ -f "$obj/arch/x86/boot/bzImage" ] || return 1
	[ "$(cat "$stamp")" = "$key" ] || return 1
	[ -z "$(find "$src" \( -path "$src/.git" -o -path "$src/${ZSP_O_PREFIX:-o-}*" \
		-o -path "$src/o-*" \) -prune -o -newer "$stamp" -print -quit)" ]
}

main() {
	local tree=$1 alloc=$2 logf=$3 src obj key
	src=$(src_dir "$tree")
	obj=$(obj_dir "$tree" "$alloc")
	key=$(build_key "$obj")
	if [ -z "${ZSP_FRESH:-}" ] && up_to_date "$src" "$obj" "$key"; then
		echo "up to date: $obj/.zsp-built" >"$logf"
		return
	fi
	rm -f "$obj/.zsp-built"
	# Stamped with the start time: an edit made during the build is newer.
	echo "$key" >"$obj/.zsp-built.new"
	export CCACHE_DIR=${CCACHE_DIR:-$ZSP_CACHE/ccache}
	# Kernel builds are reproducible enough that a shared cache pays off
	# across trees; the timestamp would defeat it.
	export KBUILD_BUILD_TIMESTAMP=${KBUILD_BUILD_TIMESTAMP:-zsp}
	export KBUILD_BUILD_USER=zsp KBUILD_BUILD_HOST=zsp
	if ! make -C "$src" O="$obj" -j"${ZSP_JOBS:-$(nproc)}" CC="ccache gcc" \
		bzImage modules >"$logf" 2>&1; then
		die "build of $tree/$alloc failed: $(grep -m1 -E 'error:|Error [0-9]' "$logf" || tail -1 "$logf"); log: $logf"
	fi
	mv "$obj/.zsp-built.new" "$obj/.zsp-built"
}

main "$@"
