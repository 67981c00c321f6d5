# SPDX-License-Identifier: GPL-2.0
"""patches/series: the one parser. A line names one patch, relative to
the series' directory; "#" starts a comment anywhere on a line; blank
lines are skipped. "python3 -m zsp internal series" prints the paths for
the shell."""

import hashlib
import os
import re
from typing import Any, Dict, List

from .errors import SeriesError


def entries(patches: str) -> List[str]:
	"""The series' patch names, in order, checked to exist."""
	path = os.path.join(patches, 'series')
	if not os.path.isfile(path):
		raise SeriesError(f'{path} is missing; PATCHES= must name a dir with a series file')
	names = []
	with open(path) as f:
		for line in f:
			name = line.split('#', 1)[0].strip()
			if not name:
				continue
			if not os.path.isfile(os.path.join(patches, name)):
				raise SeriesError(f'patches/series names {name}, which does not exist')
			names.append(name)
	return names


def files(patches: str) -> List[str]:
	return [os.path.join(patches, n) for n in entries(patches)]


def name(patches: str, path: str) -> str:
	return os.path.relpath(path, patches)


def digest(patches: str) -> str:
	"""Changes when the series file or any patch's content does."""
	h = hashlib.sha256()
	with open(os.path.join(patches, 'series'), 'rb') as f:
		h.update(f.read())
	for path in files(patches):
		with open(path, 'rb') as f:
			h.update(f.read())
	return h.hexdigest()


def sha256_file(path: str) -> str:
	h = hashlib.sha256()
	with open(path, 'rb') as f:
		h.update(f.read())
	return h.hexdigest()


def patchset_hash(paths: List[str]) -> str:
	"""kcidb's: "sha256sum *.patch | cut -c-64 | sha256sum | cut -c-64"
	over the patches in order; "" for none."""
	if not paths:
		return ''
	lines = ''.join(sha256_file(p) + '\n' for p in paths)
	return hashlib.sha256(lines.encode()).hexdigest()


def record(patches: str) -> Dict[str, Any]:
	"""What a patched cell's cell.json records of the series in @patches
	(results.recorded_series): its digest, for make merge and make
	cover-letter to compare; kcidb's hash and the patch names, for make
	export, which may run long after the series has changed."""
	paths = files(patches)
	return {'digest': digest(patches), 'patchset_hash': patchset_hash(paths),
		'patches': [name(patches, p) for p in paths]}


def no_series() -> Dict[str, Any]:
	"""A vanilla cell's record: no series at all (known, unlike a cell
	that recorded none)."""
	return {'digest': '', 'patchset_hash': '', 'patches': []}


FAILED_FILE = re.compile(r'^error: (?:patch failed: ([^:]*):|([^:]*): does not exist)', re.M)


def failed_file(git_output: str) -> str:
	"""The file git apply/am could not patch, from its error output."""
	m = FAILED_FILE.search(git_output)
	return (m.group(1) or m.group(2)) if m else 'the tree'
