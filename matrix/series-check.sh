#!/usr/bin/env bash
# series-check.sh RUN_DIR: every prefix of the series (base, +1 patch, ...,
# the whole series) on every allocator: it must build and boot, no case
# that passed at the previous prefix may stop passing, and the whole series
# must pass every case. A fix series cannot make every prefix pass the
# whole suite (each patch fixes its own cases), so the rule per prefix is
# the kernel's: bisectable, and no regression. Prefixes are the commits of
# the patched tree, checked out in turn, so each step rebuilds only what
# one patch changed.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

main() {
	local run=$1 commit k=0 alloc
	# src is global: the EXIT trap needs it after main returns.
	relock src-patched -- "$0" "$@"
	mkdir -p "$run"
	src=$(zsp tree patched)
	trap 'back_to_series "$src"' EXIT
	for commit in $(git -C "$src" rev-parse zsp-base) $(git -C "$src" rev-list --reverse zsp-base..HEAD); do
		git -C "$src" checkout -q "$commit"
		log "prefix $k: $(git -C "$src" log -1 --format=%s "$commit")"
		git -C "$src" log -1 --format=%s "$commit" >"$run/prefix-$k.subject"
		for alloc in $ZSP_ALLOCATORS; do
			zsp cell --tree patched --alloc "$alloc" --out "$run/prefix-$k/$alloc" \
				--modules zero_size_test || true
		done
		k=$((k + 1))
	done
	zsp series-table "$run"
}

main "$@"
