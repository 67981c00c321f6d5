#!/usr/bin/env bash
# config.sh TREE ALLOC: write O/.config = tinyconfig + base + ALLOC fragment,
# merged by the tree's merge_config.sh, then check every requested option.
# Skipped when the fragments and the tree have not changed.
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
	local tree=$1 alloc=$2 src obj frags stamp hash
	check_tree "$tree"
	check_alloc "$alloc"
	src=$(src_dir "$tree")
	obj=$(obj_dir "$tree" "$alloc")
	frags=("$ZSP_CONFIGS/base.config" "$ZSP_CONFIGS/$alloc.config")
	stamp="$obj/.zsp-config"
	hash=$({
		cat "${frags[@]}"
		cat "$src/.git/zsp-series" 2>/dev/null || true
	} | sha256sum | cut -d' ' -f1)
	if [ -f "$stamp" ] && [ -f "$obj/.config" ] && [ "$(cat "$stamp")" = "$hash" ]; then
		return
	fi
	mkdir -p "$obj"
	rm -f "$stamp"
	make -s -C "$src" O="$obj" tinyconfig >/dev/null
	"$src/scripts/kconfig/merge_config.sh" -m -O "$obj" "$obj/.config" "${frags[@]}" >"$obj/.zsp-merge.log" 2>&1
	make -s -C "$src" O="$obj" olddefconfig >>"$obj/.zsp-merge.log" 2>&1
	verify_config "$obj/.config" "${frags[@]}"
	echo "$hash" >"$stamp"
}

main "$@"
