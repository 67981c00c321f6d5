# shellcheck shell=bash
# Shared paths and helpers for the matrix scripts. Sourced, not run.

ZSP_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

# zsp SUBCOMMAND ARGS...: the harness's Python side (matrix/zsp/).
zsp() {
	PYTHONPATH="$ZSP_ROOT/matrix" python3 -m zsp "$@"
}

ZSP_CACHE=${ZSP_CACHE:-$ZSP_ROOT/build}
ZSP_PATCHES=${ZSP_PATCHES:-$ZSP_ROOT/patches}
ZSP_CONFIGS=${ZSP_CONFIGS:-$ZSP_ROOT/configs}
# The axes come from zsp/axes.py, their one place.
ZSP_ALLOCATORS=$(zsp axes allocators)
ZSP_TREES=$(zsp axes trees)
# Only what the caller set travels on: the Python side finds each kernel's
# own defaults (a 6.1 default exported here would override another's).
export ZSP_ROOT ZSP_CACHE

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

# with_locks NAME... -- CMD...: run CMD under the cache's locks NAME...,
# or refuse: two runs on one tree would corrupt each other. "zsp locked"
# holds them in its own process, on descriptors no child inherits (a
# daemon a child leaves behind, such as git's auto gc, cannot keep them),
# and ends after CMD, however CMD ends. Locks a caller already holds for
# us (ZSP_LOCKS, set by zsp locked) are not taken again.
with_locks() {
	local names=() n
	while [ "$1" != -- ]; do
		case " ${ZSP_LOCKS:-} " in
		*" $1 "*) ;;
		*) names+=(--lock "$1") ;;
		esac
		shift
	done
	shift
	if [ ${#names[@]} -eq 0 ]; then
		"$@"
		return
	fi
	zsp locked --cache "$ZSP_CACHE" "${names[@]}" -- "$@"
}

# relock NAME... -- "$@": at the top of a script's main, run the script
# again under with_locks, unless it already holds every NAME.
relock() {
	local n need=0
	for n in "$@"; do
		[ "$n" != -- ] || break
		case " ${ZSP_LOCKS:-} " in
		*" $n "*) ;;
		*) need=1 ;;
		esac
	done
	[ "$need" -eq 1 ] || return 0
	with_locks "$@"
	exit
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
