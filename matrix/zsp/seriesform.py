# SPDX-License-Identifier: GPL-2.0
"""make check's series checks: git am, checkpatch, sign-off, the commits cited, the cover letter current.

make check's checks of each series' form: fit to send.

The series applies with git am to the pristine tree (Tree.prepare does
that, and caches the result by the series' content); every patch has a
subject with a subsystem prefix and a Signed-off-by, and passes the
tree's checkpatch.pl --strict without errors, warnings or checks, and
names upstream commits (Fixes: and "commit <id> ("<subject>")") by an id
and subject that matrix/upstream-commits.txt records; its subject, and
the cover letter's, says n/N with the kernel's stable tag, "[PATCH
6.12.y n/N]", unless the series is mainline's (cover.check_prefix());
the cover letter names the series as it is (make cover-letter). Each
check reports through check.py's done(name, why), why '' when it
passed. (Not series.py, the series file's parser, nor
commits.series_check, make series-check's run of every prefix.)
"""

import dataclasses
import os
import re
import subprocess
from typing import Callable, List, Tuple

from . import axes, cover, lock, send, series
from .errors import KernelError
from .kernel import Tree, first_error
from .settings import Settings

# "mm/slub: ...", or several subsystems as upstream writes them: "mm/slub, kunit: ...".
SUBJECT = re.compile(r'^Subject: \[PATCH[^]]*\] [a-z0-9/_.-]+(?:, [a-z0-9/_.-]+)*: ', re.M)
UPSTREAM_COMMITS = os.path.join(axes.MATRIX, 'upstream-commits.txt')
# A commit named in a message: Fixes: ID ("subject"), or commit ID ("subject").
CITED = re.compile(r'\b([0-9a-f]{7,40})\s+\("(.*?)"\)', re.S)
FIXES = re.compile(r'^Fixes: ([0-9a-f]{12,40}) \("(.*)"\)$')


def upstream_commits(path: str = UPSTREAM_COMMITS) -> List[Tuple[str, str]]:
	"""(id, subject) of every commit the series may cite."""
	out = []
	with open(path) as f:
		for line in f:
			if line.strip() and not line.startswith('#'):
				cid, subject = line.rstrip('\n').split('\t')[:2]
				out.append((cid, subject))
	return out


def check_citations(message: str, known: List[Tuple[str, str]]) -> str:
	"""'' when every Fixes: line has the form and every commit the message
	cites is a known upstream one under its exact subject; else why not."""
	for line in message.splitlines():
		if line.startswith('Fixes:') and not FIXES.match(line):
			return f'{line!r}: want Fixes: <12+ hex digits> ("<subject>")'
	for m in CITED.finditer(message):
		cid, subject = m.group(1), ' '.join(m.group(2).split())
		if len(cid) < 12:
			return f'commit {cid}: give at least 12 hex digits'
		match = [s for k, s in known if k.startswith(cid) or cid.startswith(k)]
		if not match:
			return f'commit {cid} is not in {os.path.basename(UPSTREAM_COMMITS)}; check it, add it'
		if subject not in match:
			return f'commit {cid} is "{match[0]}", not "{subject}"'
	return ''


def check_patch(path: str, name: str, src: str) -> str:
	"""'' when the patch is fit to send, else why not."""
	with open(path) as f:
		text = f.read()
	if not SUBJECT.search(text):
		return "subject lacks a 'subsystem: ' prefix"
	if not re.search(r'^Signed-off-by: ', text, re.M):
		return 'no Signed-off-by'
	why = check_citations(text.split('\n---\n', 1)[0], upstream_commits())
	if why:
		return why
	# The tree is Debian's tarball, without upstream's history: checkpatch
	# cannot look a Fixes: commit up in it (UNKNOWN_COMMIT_ID); it still
	# checks the line's form (GIT_COMMIT_ID).
	p = subprocess.run([os.path.join(src, 'scripts', 'checkpatch.pl'), '--strict', '--no-tree',
			    '--ignore', 'UNKNOWN_COMMIT_ID', '-q', path],
			   capture_output=True, text=True)
	out = (p.stdout + p.stderr).strip()
	if p.returncode or out:
		m = re.search(r'^(ERROR|WARNING|CHECK).*$', out, re.M)
		return f"checkpatch --strict: {m.group(0) if m else first_error(out)}"
	return ''


def check(s: Settings, kernels: str, done: Callable[[str, str], None]) -> None:
	"""Each series of @kernels (series_settings()), one after the other."""
	for ks in series_settings(s, kernels):
		check_series(ks, done)


def series_settings(s: Settings, kernels: str) -> List[Settings]:
	"""The Settings of each kernel whose series to check: every kernel's
	own, or only PATCHES= (a series of s.kernel) when it was given."""
	own = os.path.join(s.root, axes.KERNELS[s.kernel].patches)
	if os.path.abspath(s.patches) != os.path.abspath(own):
		return [s]
	return [s if k == s.kernel else dataclasses.replace(s, kernel=k, patches='', tarball='')
		for k in axes.kernels(kernels)]


def check_series(s: Settings, done: Callable[[str, str], None]) -> None:
	"""git am on the pristine tree, each patch, the cover letter."""
	where = os.path.relpath(s.patches, s.root)
	vanilla, patched = Tree(s, 'vanilla'), Tree(s, 'patched')
	with lock.held(s.cache, lock.to_take([vanilla.lock, patched.lock])):
		src = vanilla.prepare()
		try:
			patched.prepare()
			done(f'{where}/series applies with git am to pristine {vanilla.kernelversion()}', '')
		except KernelError as e:
			done(f'{where}/series', str(e) or 'does not apply')
	paths = series.files(s.patches)
	for n, path in enumerate(paths, 1):
		name = os.path.join(where, series.name(s.patches, path))
		with open(path) as f:
			prefix = cover.check_prefix(f.read(), s.kernel, n, len(paths))
		done(name, check_patch(path, name, src) or prefix)
	done(f'{where}/{cover.OUTPUT} names the series', cover.check_current(s.patches, s.kernel))
	send.series_check(src, s.patches, s.kernel, where, done)
