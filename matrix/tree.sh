#!/usr/bin/env bash
# tree.sh vanilla|patched: make the kernel tree exist and print its path.
# The caller holds the tree's lock (relock or with_locks src-TREE, lib.sh).
#
# vanilla: the tarball, unpacked once.
# patched: the tarball as a git repo (commit tagged zsp-base) with every
# patch of patches/series applied by git am, one commit each, on the
# branch zsp-series. The series is
# re-applied only when its content changes, and then every file whose
# content stayed the same keeps its mtime, so kbuild rebuilds only what the
# edit changed.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

unpack() {
	local dest=$1
	[ -f "$dest/.zsp-unpacked" ] && return
	[ -r "$ZSP_TARBALL" ] ||
		die "$ZSP_TARBALL is missing; install it: apt-get install linux-source-6.1"
	log "unpack $ZSP_TARBALL -> $dest"
	rm -rf "$dest" "$dest.tmp"
	mkdir -p "$dest.tmp"
	tar -xf "$ZSP_TARBALL" -C "$dest.tmp" --strip-components=1
	touch "$dest.tmp/.zsp-unpacked"
	mv "$dest.tmp" "$dest"
}

git_tree() {
	git -C "$1" -c user.name=zsp -c user.email=zsp@localhost "${@:2}"
}

# The tarball's .gitignore ignores everything at the top level: add -f.
make_git_base() {
	local dest=$1
	git_tree "$dest" rev-parse -q --verify zsp-base >/dev/null 2>&1 && return
	log "git init $dest (base commit)"
	git init -q "$dest"
	# The first commit leaves ~80k loose objects, and git's auto gc would
	# then detach a daemon that repacks for minutes beside the build.
	git_tree "$dest" config gc.auto 0
	git_tree "$dest" config maintenance.auto false
	git_tree "$dest" add -f -A
	git_tree "$dest" commit -q -m "linux-source-6.1 $(make -s -C "$dest" kernelversion)"
	git_tree "$dest" tag zsp-base
}

series_files() {
	local series="$ZSP_PATCHES/series" line
	[ -f "$series" ] || die "$series is missing; PATCHES= must name a dir with a series file"
	while read -r line; do
		line=${line%%#*}
		line=${line//[[:space:]]/}
		[ -n "$line" ] || continue
		[ -f "$ZSP_PATCHES/$line" ] || die "patches/series names $line, which does not exist"
		printf '%s\n' "$ZSP_PATCHES/$line"
	done <"$series"
}

series_hash() {
	{
		cat "$ZSP_PATCHES/series"
		series_files | xargs -r cat
	} | sha256sum | cut -d' ' -f1
}

# save_mtimes DIR REFDIR: remember the mtime of every file the applied
# series changed (as the mtime of an empty file in REFDIR), and the commit.
save_mtimes() {
	local dest=$1 ref=$2 f i=0
	git_tree "$dest" rev-parse HEAD >"$ref/head"
	while read -r f; do
		i=$((i + 1))
		[ -e "$dest/$f" ] || continue
		touch -r "$dest/$f" "$ref/$i"
		printf '%s\t%s\n' "$i" "$f" >>"$ref/files"
	done < <(git_tree "$dest" diff --name-only zsp-base HEAD)
}

# restore_mtimes DIR REFDIR: a file whose content the re-application did
# not change gets its old mtime back, so kbuild rebuilds only what the
# edited patches really changed.
restore_mtimes() {
	local dest=$1 ref=$2 old i f
	old=$(cat "$ref/head")
	[ -f "$ref/files" ] || return 0
	while IFS=$'\t' read -r i f; do
		[ -e "$dest/$f" ] || continue
		if [ "$(git_tree "$dest" rev-parse -q --verify "$old:$f" 2>/dev/null)" = \
			"$(git_tree "$dest" rev-parse -q --verify "HEAD:$f" 2>/dev/null)" ]; then
			touch -r "$ref/$i" "$dest/$f"
		fi
	done <"$ref/files"
}

# check_series DIR: apply every patch, in order, to a scratch index of
# zsp-base (no file is touched), so that a patch that does not apply is
# named with its file before the tree is changed at all.
check_series() {
	local dest=$1 idx patch out file
	idx=$(mktemp)
	GIT_INDEX_FILE=$idx git_tree "$dest" read-tree zsp-base
	while read -r patch; do
		if ! out=$(GIT_INDEX_FILE=$idx git_tree "$dest" apply --cached "$patch" 2>&1); then
			rm -f "$idx"
			file=$(printf '%s\n' "$out" | sed -n 's/^error: patch failed: \([^:]*\):.*/\1/p;s/^error: \([^:]*\): does not exist.*/\1/p' | head -1)
			die "patch ${patch#"$ZSP_PATCHES"/} does not apply to ${file:-the tree}: $(printf '%s\n' "$out" | grep -m1 '^error' || printf '%s\n' "$out" | head -1)"
		fi
	done < <(series_files)
	rm -f "$idx"
}

# apply_series DIR: git am every patch of the series onto zsp-base, one
# commit each, unless this exact series is applied already.
apply_series() {
	local dest=$1 hash stamp patch n=0 out ref file
	hash=$(series_hash)
	stamp="$dest/.git/zsp-series"
	[ -f "$stamp" ] && [ "$(cat "$stamp")" = "$hash" ] && return
	check_series "$dest"
	rm -f "$stamp"
	ref=$(mktemp -d)
	git_tree "$dest" am --abort >/dev/null 2>&1 || true
	save_mtimes "$dest" "$ref"
	git_tree "$dest" bisect reset >/dev/null 2>&1 || true
	git_tree "$dest" checkout -q -f -B zsp-series zsp-base
	while read -r patch; do
		n=$((n + 1))
		if ! out=$(git_tree "$dest" am -q "$patch" 2>&1); then
			git_tree "$dest" am --abort >/dev/null 2>&1 || true
			rm -rf "$ref"
			file=$(printf '%s\n' "$out" | sed -n 's/^error: patch failed: \([^:]*\):.*/\1/p;s/^error: \([^:]*\): does not exist.*/\1/p' | head -1)
			die "patch ${patch#"$ZSP_PATCHES"/} does not apply to ${file:-the tree} ($(printf '%s\n' "$out" | grep -m1 '^error' || true))"
		fi
	done < <(series_files)
	restore_mtimes "$dest" "$ref"
	rm -rf "$ref"
	log "applied $n patch(es) to $dest"
	echo "$hash" >"$stamp"
}

# timed STAGE CMD...: CMD, its wall seconds appended to $ZSP_TIMINGS (if
# set) as "STAGE seconds", for make bench.
timed() {
	local stage=$1 t0
	shift
	t0=$(date +%s.%N)
	"$@"
	[ -z "${ZSP_TIMINGS:-}" ] ||
		printf '%s %.2f\n' "$stage" "$(echo "$(date +%s.%N) - $t0" | bc)" >>"$ZSP_TIMINGS"
}

main() {
	local tree=${1:-} dest
	check_tree "$tree"
	dest=$(src_dir "$tree")
	mkdir -p "$(dirname "$dest")"
	timed extract unpack "$dest"
	if [ "$tree" = patched ]; then
		timed patch make_git_base "$dest"
		timed patch apply_series "$dest"
	fi
	printf '%s\n' "$dest"
}

main "$@"
