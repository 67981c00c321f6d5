# shellcheck shell=bash
# Shared paths and helpers for the matrix scripts. Sourced, not run.

ZSP_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
ZSP_CACHE=${ZSP_CACHE:-$ZSP_ROOT/build}
ZSP_TARBALL=${ZSP_TARBALL:-/usr/src/linux-source-6.1.tar.xz}
ZSP_PATCHES=${ZSP_PATCHES:-$ZSP_ROOT/patches}
ZSP_CONFIGS=${ZSP_CONFIGS:-$ZSP_ROOT/configs}
ZSP_ALLOCATORS="slab slub slob"
ZSP_TREES="vanilla patched"
export ZSP_ROOT ZSP_CACHE ZSP_TARBALL ZSP_PATCHES ZSP_CONFIGS

# die MSG: the one-line error every script ends with on bad input.
die() {
	printf 'error: %s\n' "$*" >&2
	exit 1
}

# The run's start, shared by every script it calls, for progress lines.
ZSP_T0=${ZSP_T0:-$(date +%s)}
export ZSP_T0

# log MSG: a progress line on stderr, with the seconds since the run began.
log() {
	printf '[%4ds] %s\n' "$(($(date +%s) - ZSP_T0))" "$*" >&2
}

check_alloc() {
	case " $ZSP_ALLOCATORS " in
	*" $1 "*) ;;
	*) die "unknown ALLOC '$1'; valid: $ZSP_ALLOCATORS" ;;
	esac
}

check_tree() {
	case " $ZSP_TREES " in
	*" $1 "*) ;;
	*) die "unknown TREE '$1'; valid: $ZSP_TREES both" ;;
	esac
}

src_dir() { printf '%s/src/%s\n' "$ZSP_CACHE" "$1"; }
# Inside the source tree, so that kbuild uses srctree=..: command lines
# are then the same for vanilla and patched, and ccache serves both.
# ZSP_O_PREFIX lets the harness self-tests use scratch build dirs.
obj_dir() { printf '%s/src/%s/%s%s\n' "$ZSP_CACHE" "$1" "${ZSP_O_PREFIX:-o-}" "$2"; }

# hold_lock NAME: take an exclusive lock until ZSP_LOCK_FD is closed or the
# process ends, or refuse: two runs on one tree would corrupt each other.
hold_lock() {
	local lock="$ZSP_CACHE/locks/$1.lock"
	mkdir -p "$ZSP_CACHE/locks"
	exec {ZSP_LOCK_FD}>"$lock"
	flock -n "$ZSP_LOCK_FD" ||
		die "another run holds $lock; wait for it to finish"
}

# back_to_series SRC: after bisect or series-check moved the patched tree's
# HEAD, check the applied series out again; if that is not possible, drop
# the stamp so that the next run applies the series afresh.
back_to_series() {
	git -C "$1" bisect reset >/dev/null 2>&1 || true
	git -C "$1" checkout -q zsp-series 2>/dev/null || rm -f "$1/.git/zsp-series"
}

# link_patched_copy DST: make DST a hard-linked copy of the patched tree
# (without .git and O= dirs) unless it already is one of the current
# series; O= dirs inside DST stay. git writes a changed file anew (a new
# inode), so a link never carries a change from one tree into the other.
# Returns 1 when DST was already current.
link_patched_copy() {
	local src dst=$1 stamp
	src=$(src_dir patched)
	stamp=$(cat "$src/.git/zsp-series")
	[ "$(cat "$dst/.zsp-copy" 2>/dev/null)" != "$stamp" ] || return 1
	mkdir -p "$dst"
	find "$dst" -mindepth 1 -maxdepth 1 ! -name 'o-*' -exec rm -rf {} +
	(cd "$src" && find . -mindepth 1 -maxdepth 1 ! -name .git ! -name 'o-*' \
		-exec cp -al {} "$dst/" \;)
	printf '%s\n' "$stamp" >"$dst/.zsp-copy"
}
