# SPDX-License-Identifier: GPL-2.0
"""make cover-letter: the series' cover letter, in git format-patch
--cover-letter form, from its hand-written text and a run's results.

PATCHES/cover-letter.txt holds what a person writes: the Subject: line
and the body, with an @RESULTS@ line where the run's summary goes. The
rest is computed, so that it never goes stale by hand: the recipients
(the vanilla tree's scripts/get_maintainer.pl over the series, plus
stable@ for a stable series), the per-cell counts of a run, the
shortlog, the diffstat of the patched tree and the base. The result is
PATCHES/0000-cover-letter.patch; make check fails when its shortlog is
not the series' (check_current()).

The results are the series' only if the run tested this series: the
digest its patched cells recorded (results.recorded_series) must be
today's series.digest(PATCHES). A run of another series, or one that
recorded none (made before cell.json schema 2), is refused
(check_run_series()), as a cover letter must not vouch for patches that
were never booted.
"""

import collections
import os
import re
import subprocess
import textwrap
from typing import Dict, List, Tuple

from . import axes, lock, series
from .errors import CoverError
from .kernel import Tree
from .results import Row, load_rows, run_series, short
from .settings import Settings

TEMPLATE = 'cover-letter.txt'
OUTPUT = '0000-cover-letter.patch'
RESULTS_MARK = '@RESULTS@'
AUTHOR = 'Zero-size series <zsp@example.org>'
STABLE = 'stable@vger.kernel.org'
# The column order of the summary: the verdicts a reader looks for first.
STATUSES = ('pass', 'fail', 'crash', 'hang', 'error', 'skip', 'n/a')
# A subject's [PATCH ...] prefix: the words before n/N ("6.1.y", "v2",
# "RFC"), then n, as git format-patch may pad it, and N.
PREFIX = re.compile(r'^Subject: \[PATCH((?: [^]\s]+)*?) 0*(\d+)/(\d+)\]', re.M)


def stable_tag(kernel: str) -> str:
	"""The tag of @kernel's subjects: '6.12.y' for a stable backport of
	the mainline series (axes.MAINLINE_KERNEL's), '' for that one."""
	return '' if kernel == axes.MAINLINE_KERNEL else f'{kernel}.y'


def check_prefix(text: str, kernel: str, n: int, total: int) -> str:
	"""'' when the Subject: in @text is that of patch @n (0: the cover
	letter) of @total in @kernel's series, tagged as stable_tag() says;
	else why not. Other words, such as "v2" or "RFC", may come with it."""
	m = PREFIX.search(text)
	if not m:
		return 'its subject has no [PATCH ... n/N] prefix'
	if (int(m.group(2)), int(m.group(3))) != (n, total):
		return f'its subject does not say {n}/{total}'
	tag = stable_tag(kernel)
	tags = [w for w in m.group(1).split() if w.endswith('.y')]
	if tags != ([tag] if tag else []):
		want = f'[PATCH {tag} {n}/{total}]' if tag else 'no .y tag (the mainline series)'
		return f'its subject is tagged {" ".join(tags) or "for mainline"}; {kernel} wants {want}'
	return ''


def subject(path: str) -> str:
	"""A patch's subject without its [PATCH ...] prefix, unfolded."""
	with open(path) as f:
		text = f.read()
	m = re.search(r'^Subject: (.*(?:\n .*)*)', text, re.M)
	if not m:
		raise CoverError(f'{path} has no Subject: line')
	return re.sub(r'^\[[^]]*\] ', '', ' '.join(m.group(1).split()))


def shortlog(paths: List[str]) -> str:
	"""git shortlog's form: the author and count, then each subject."""
	lines = [f'{AUTHOR.split(" <")[0]} ({len(paths)}):']
	for p in paths:
		lines.append(textwrap.fill(subject(p), 72, initial_indent='  ',
					   subsequent_indent='    '))
	return '\n'.join(lines)


def summary(rows: List[Row]) -> str:
	"""Cases per verdict, a line per cell, kernel and profile first."""
	counts: Dict[Tuple[str, str, str, str], collections.Counter[str]] = {}
	for r in rows:
		key = (r['kernel'], r['profile'], r['allocator'], r['tree'])
		counts.setdefault(key, collections.Counter())[r['status']] += 1
	cols = [s for s in STATUSES if any(c[s] for c in counts.values())]
	head = f"{'kernel':<7}{'profile':<8}{'alloc':<6}{'tree':<8}" + \
		''.join(f'{s:>6}' for s in cols)
	lines = [head, '-' * len(head)]
	for key in sorted(counts):
		lines.append((f'{key[0]:<7}{key[1]:<8}{key[2]:<6}{key[3]:<8}' +
			      ''.join(f'{counts[key][s] or "":>6}' for s in cols)).rstrip())
	return '\n'.join(lines)


def recipients(src: str, paths: List[str], stable: bool) -> Tuple[List[str], List[str]]:
	"""(To, Cc): the maintainers of what the series touches, then its
	reviewers, supporters and lists, as the tree's MAINTAINERS says."""
	p = subprocess.run(['perl', os.path.join(src, 'scripts', 'get_maintainer.pl'),
			    '--no-git', '--no-git-fallback', '--no-multiline', '--separator', '\n']
			   + paths, cwd=src, capture_output=True, text=True)
	if p.returncode:
		raise CoverError(f'get_maintainer.pl: {p.stderr.strip() or p.returncode}')
	to: List[str] = []
	cc: List[str] = []
	for line in p.stdout.splitlines():
		m = re.match(r'^(.*?) \((.*)\)$', line.strip())
		if not m:
			continue
		(to if m.group(2).startswith('maintainer:') else cc).append(m.group(1))
	if stable:
		to.insert(0, STABLE)
	return to, cc


def diffstat(patched: str) -> str:
	"""The whole series' diffstat, from the patched tree's git."""
	base = subprocess.run(['git', 'rev-list', '--max-parents=0', 'HEAD'], cwd=patched,
			      capture_output=True, text=True, check=True).stdout.split()[0]
	return subprocess.run(['git', 'diff', '--stat=72', '--summary', base, 'HEAD'],
			      cwd=patched, capture_output=True, text=True, check=True).stdout.rstrip()


def headers(to: List[str], cc: List[str]) -> List[str]:
	return [f'{name}: ' + ',\n\t'.join(people)
		for name, people in (('To', to), ('Cc', cc)) if people]


def render(patches: str, run: str, vanilla: str, patched: str, base: str,
	   kernel: str = axes.DEFAULT_KERNEL) -> str:
	"""The cover letter of the series in @patches, with @run's results
	on @kernel (a run may hold the cells of several kernels)."""
	with open(os.path.join(patches, TEMPLATE)) as f:
		template = f.read()
	m = re.match(r'Subject: (.*)\n\n', template)
	if not m or RESULTS_MARK not in template:
		raise CoverError(f'{patches}/{TEMPLATE} must start with a Subject: line and a '
				 f'blank line, and hold an {RESULTS_MARK} line')
	paths = series.files(patches)
	title = m.group(1)
	why = check_prefix(template, kernel, 0, len(paths))
	if why:
		raise CoverError(f'{patches}/{TEMPLATE}: {why}')
	# A stable series ("[PATCH 6.1.y 0/10]") goes to stable@ first.
	to, cc = recipients(vanilla, paths, bool(stable_tag(kernel)))
	rows = [r for r in load_rows(os.path.join(run, 'results.json')) if r['kernel'] == kernel]
	if not rows:
		raise CoverError(f'{run} has no cells of kernel {kernel}; give RUN= a run of '
				 f'make matrix KERNEL={kernel}')
	results = (f'Cases per verdict in each cell (run {os.path.basename(os.path.normpath(run))}):'
		   '\n\n' + textwrap.indent(summary(rows), '  '))
	body = template[m.end():].replace(RESULTS_MARK, results).rstrip()
	return '\n'.join([
		'From 0000000000000000000000000000000000000000 Mon Sep 17 00:00:00 2001',
		f'From: {AUTHOR}', f'Subject: {title}', *headers(to, cc), '',
		body, '', shortlog(paths), '', diffstat(patched), '', base, '-- ', git_version(), ''])


def check_run_series(run: str, patches: str, kernel: str) -> None:
	"""Raises CoverError unless every patched cell of @kernel in @run
	recorded the series in @patches as it is now."""
	found = run_series(run, kernel)
	give = f'give RUN= a run of this series (make matrix KERNEL={kernel})'
	if not found:
		raise CoverError(f'{run} has no patched cell of kernel {kernel} that booted: it '
				 f'tested no series; {give}')
	today = series.digest(patches)
	for name, recorded in found.items():
		if not recorded:
			raise CoverError(f'{run}/{name} recorded no series (a run from before '
					 f'cell.json schema 2, or not of the series as applied); {give}')
		if recorded['digest'] != today:
			raise CoverError(f'{run} was made with another series ({name}: '
					 f'{short(recorded)}; {patches}/series is now {today[:12]}); '
					 f'{give}')


def git_version() -> str:
	out = subprocess.run(['git', '--version'], capture_output=True, text=True).stdout
	return out.split()[-1]


def main(s: Settings, run: str) -> int:
	"""Writes PATCHES/0000-cover-letter.patch with @run's results."""
	if not os.path.isfile(os.path.join(run, 'results.json')):
		raise CoverError(f'{run} has no results.json; give RUN= a finished run of make matrix')
	check_run_series(run, s.patches, s.kernel)
	vanilla, patched = Tree(s, 'vanilla'), Tree(s, 'patched')
	with lock.held(s.cache, lock.to_take([vanilla.lock, patched.lock])):
		vanilla.prepare()
		patched.prepare()
		k = axes.KERNELS[s.kernel]
		# Debian's tarball has no upstream history: there is no commit id
		# to give as base-commit:, so name the release and the package.
		base = (f'base: v{vanilla.kernelversion()} as Debian ships it ({k.package}); '
			'its tarball carries no upstream commit id for base-commit:')
		text = render(s.patches, run, vanilla.src, patched.src, base, s.kernel)
	out = os.path.join(s.patches, OUTPUT)
	with open(out + '.tmp', 'w') as f:
		f.write(text)
	os.replace(out + '.tmp', out)
	print(out)
	return 0


def check_current(patches: str, kernel: str = '') -> str:
	"""'' when the cover letter names the series' patches in order, and
	its subject is tagged as @kernel's series should be (if given)."""
	path = os.path.join(patches, OUTPUT)
	if not os.path.exists(path):
		return f'{path} is missing; run make cover-letter'
	with open(path) as f:
		text = f.read()
	paths = series.files(patches)
	if shortlog(paths) not in text:
		return 'its shortlog is not the series\'; run make cover-letter'
	if kernel:
		return check_prefix(text, kernel, 0, len(paths))
	if not re.search(rf'^Subject: \[PATCH [^]]*\b0/{len(paths)}\]', text, re.M):
		return f'its subject does not say 0/{len(paths)}'
	return ''
