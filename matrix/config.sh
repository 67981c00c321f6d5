#!/usr/bin/env bash
# config.sh TREE ALLOC: write O/.config = tinyconfig + base + ALLOC fragment,
# merged by the tree's merge_config.sh, then check every requested option.
# Skipped when nothing the merge reads has changed.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

# verify_config CONFIG FRAGMENT...: every "=" line must be in CONFIG as
# written; every "is not set" option must be unset.
verify_config() {
	local config=$1 frag line opt bad=""
	shift
	for frag in "$@"; do
		while read -r line; do
			case "$line" in
			CONFIG_*=*)
				grep -qxF "$line" "$config" || bad="$bad ${line}"
				;;
			"# CONFIG_"*" is not set")
				opt=${line#"# "}
				opt=${opt%% *}
				grep -q "^$opt=" "$config" && bad="$bad $opt(unset)"
				;;
			esac
		done <"$frag"
	done
	[ -z "$bad" ] ||
		die "olddefconfig dropped or changed:$bad (check their dependencies in $ZSP_CONFIGS)"
}

main() {
	local tree=$1 alloc=$2 src obj frags stamp hash scratch
	# "mutant" is mutants.sh's copy of the patched tree.
	[ "$tree" = mutant ] || check_tree "$tree"
	check_alloc "$alloc"
	src=$(src_dir "$tree")
	obj=$(obj_dir "$tree" "$alloc")
	frags=("$ZSP_CONFIGS/base.config" "$ZSP_CONFIGS/$alloc.config")
	stamp="$obj/.zsp-config"
	# What the merge reads: the fragments, the compiler (Kconfig tests it),
	# and in a git tree the Kconfig files, tinyconfig's fragments and
	# kconfig itself as committed. A patch to slub.c leaves them alone.
	hash=$({
		cat "${frags[@]}"
		gcc --version | head -1
		[ ! -d "$src/.git" ] || git -C "$src" ls-files -s -- '*Kconfig*' \
			'kernel/configs/*' 'arch/x86/configs/*' 'scripts/kconfig/*'
	} | sha256sum | cut -d' ' -f1)
	if [ -f "$stamp" ] && [ -f "$obj/.config" ] && [ "$(cat "$stamp")" = "$hash" ]; then
		return
	fi
	# Merged in a scratch O= dir (named like the build dir, so build.sh's
	# source scan skips it): make tinyconfig in the build dir itself would
	# pass through other values of many options, and kbuild's syncconfig
	# would touch their dependency files and rebuild most of the kernel
	# even when the merged result is the same as before.
	scratch="$obj.kconfig"
	mkdir -p "$obj" "$scratch"
	rm -f "$stamp"
	make -s -C "$src" O="$scratch" tinyconfig >/dev/null
	"$src/scripts/kconfig/merge_config.sh" -m -O "$scratch" "$scratch/.config" "${frags[@]}" >"$obj/.zsp-merge.log" 2>&1
	make -s -C "$src" O="$scratch" olddefconfig >>"$obj/.zsp-merge.log" 2>&1
	verify_config "$scratch/.config" "${frags[@]}"
	cmp -s "$scratch/.config" "$obj/.config" || cp "$scratch/.config" "$obj/.config"
	echo "$hash" >"$stamp"
}

main "$@"
