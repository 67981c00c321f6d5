# SPDX-License-Identifier: GPL-2.0
"""The cache's disk: refuse a run that would fill it half-way through.

A full disk mid-run is a host fault: kbuild, git or the results writer
dies with ENOSPC, and the run is an error where it should have been a
verdict (CI, 2026-12-07: the 7.3 tree's first commit failed at 203 s on
a shared disk with 9 GiB free). So a run that builds checks first, with
what it will need: each kernel whose trees are not in the cache yet
costs TREES_GIB (the vanilla tree unpacked, the patched one hard-linked
to it plus its git objects, measured 2026-12-07), and every run leaves
BUILD_GIB for its O= dirs, modules, ccache and results.
"""

import dataclasses
import os
from typing import Iterable

from .errors import DiskError
from .kernel import Tree
from .settings import Settings

TREES_GIB = 2.5
BUILD_GIB = 3.0
GIB = 1 << 30


def free_gib(path: str) -> float:
	"""Free space for an unprivileged writer on the file system that
	holds @path (or would: its nearest existing parent)."""
	while not os.path.exists(path):
		path = os.path.dirname(path) or '.'
	st = os.statvfs(path)
	return st.f_bavail * st.f_frsize / GIB


def cold(s: Settings, kernel: str) -> bool:
	"""Whether @kernel's vanilla tree is still to be unpacked."""
	ks = dataclasses.replace(s, kernel=kernel, patches='', tarball='')
	return not os.path.exists(os.path.join(Tree(ks, 'vanilla').src, '.zsp-unpacked'))


def need_gib(s: Settings, kernels: Iterable[str]) -> float:
	"""What a run over @kernels still needs in s.cache."""
	return BUILD_GIB + TREES_GIB * sum(cold(s, k) for k in kernels)


def require(s: Settings, kernels: Iterable[str], what: str) -> None:
	"""Raises DiskError, one line, when s.cache has less free than the
	run needs."""
	need, free = need_gib(s, kernels), free_gib(s.cache)
	if free < need:
		raise DiskError(f'{s.cache} has {free:.1f} GiB free and {what} needs about '
				f'{need:.1f} GiB there: free some space, or give CACHE= a '
				'directory on a disk with room')
