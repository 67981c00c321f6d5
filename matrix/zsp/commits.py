# SPDX-License-Identifier: GPL-2.0
"""Cells on commits of the patched tree: make bisect and make series-check.

Cells on commits of the patched tree: "make bisect" (git bisect run
over the series, one cell per step) and "make series-check" (every
prefix of the series x every allocator).

Both move the patched tree's HEAD, so both hold its lock and check the
series out again when they end, however they end. A step is a cell of
the suite alone ("zero_size_test") at the commit checked out: only what
the commit changed is rebuilt.
"""

import dataclasses
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Dict, Iterator, List

from . import axes, lock, pipeline, results, runner, series, series_table, settings
from .cache import Stamp
from .errors import BisectError
from .kernel import Tree
from .pipeline import CellRequest, Limits
from .progress import log
from .settings import Settings

FIRST_BAD = re.compile(r'^([0-9a-f]{40}) is the first bad commit$', re.M)


@dataclass(frozen=True)
class BisectRequest:
	"""make bisect (zsp bisect), and each step git bisect run calls
	(zsp internal bisect-step, which has no GOOD= or BAD=)."""
	run: str
	alloc: str
	good: str = 'base'
	bad: str = ''
	case: str = ''
	# With a case: boot the whole suite at each step all the same.
	boot_all: bool = False
	profile: str = axes.DEFAULT_PROFILE
	limits: Limits = Limits()


@dataclass(frozen=True)
class SeriesCheckRequest:
	"""make series-check (zsp series-check)."""
	run: str
	profile: str = axes.DEFAULT_PROFILE
	limits: Limits = Limits()


@contextmanager
def patched_tree(s: Settings) -> Iterator[Tree]:
	"""The patched tree, under its lock, with the series applied; on the
	way out its branch is checked out again (else its stamp is dropped,
	so that the next run applies the series afresh)."""
	pipeline.stop_on_sigterm()	# a killed bisect must still check the series out
	tree = Tree(s, 'patched')
	with lock.held(s.cache, lock.to_take([tree.lock])):
		tree.prepare()
		try:
			yield tree
		finally:
			tree.git('bisect', 'reset')
			if tree.git('checkout', '-q', 'zsp-series').returncode:
				Stamp(os.path.join(tree.src, '.git', 'zsp-series')).clear()


def series_commits(tree: Tree) -> List[str]:
	"""zsp-base, then one commit per patch, in order."""
	base = tree.git('rev-parse', 'zsp-base').stdout.strip()
	return [base] + tree.git('rev-list', '--reverse', 'zsp-base..zsp-series').stdout.split()


def subject(tree: Tree, commit: str) -> str:
	return tree.git('log', '-1', '--format=%s', commit).stdout.strip()


def suite_cell(s: Settings, alloc: str, out: str, profile: str, limits: Limits,
	       only: str = '') -> int:
	"""The suite alone in one cell of the patched tree as checked out."""
	return pipeline.cell(s, CellRequest(tree='patched', alloc=alloc, out=out, profile=profile,
					    modules=results.SUITE_MODULE, only=only, limits=limits))


def step_cell(s: Settings, req: BisectRequest, out: str) -> int:
	"""A bisect step's cell: with CASE=, that case alone is booted (its
	verdict is the step's), unless --boot-all."""
	return suite_cell(s, req.alloc, out, req.profile, req.limits,
			  '' if req.boot_all else req.case)


# -- bisect -------------------------------------------------------------------

# A planted bad patch, for the harness's own checks of bisect (make test)
# and its timing (make bench): it breaks kfree_bulk() of sentinels on
# SLUB only, right after the SLUB fix.
BAD_PATCH = os.path.join(axes.MATRIX, 'tests', 'data', 'bad-slub-bulk-free.patch')
BAD_NAME = '0004a-bad-slub-bulk-free.patch'
# The first case BAD_PATCH breaks: what CASE= names to find it.
BAD_CASE = 'z2_kfree_bulk_sentinels'


def plant_bad(patches: str, dest: str) -> str:
	"""A copy of the series in dest with BAD_PATCH right after the (first)
	SLUB patch, the fix it takes back; returns that fix's series entry."""
	shutil.copytree(patches, dest, dirs_exist_ok=True)
	with open(os.path.join(dest, 'series')) as f:
		lines = f.read().splitlines()
	good = next(line.strip() for line in lines if line.startswith('slub/'))
	shutil.copyfile(BAD_PATCH, os.path.join(dest, 'slub', BAD_NAME))
	lines.insert(lines.index(good) + 1, f'slub/{BAD_NAME}')
	with open(os.path.join(dest, 'series'), 'w') as f:
		f.write('\n'.join(lines) + '\n')
	return good


def verdict_of(cell_json: str, case: str) -> int:
	"""git bisect run's answer for a built and booted cell: 0 good, 1 bad."""
	good, why = results.bisect_verdict(results.load_cases(cell_json), case)
	for line in why:
		print(f'  {line}', file=sys.stderr)
	return 0 if good else 1


def bisect_step(s: Settings, req: BisectRequest) -> int:
	"""One step of git bisect run: 0 good, 1 bad, 125 when the commit
	does not build or boot (git bisect skips it)."""
	tree = Tree(s, 'patched')
	commit = tree.git('rev-parse', '--short=12', 'HEAD').stdout.strip()
	log(f'bisect step {commit} ({subject(tree, commit)})')
	out = os.path.join(req.run, commit)
	rc = step_cell(s, req, out)
	if rc:
		return pipeline.CANNOT_TEST
	return verdict_of(os.path.join(out, 'cell.json'), req.case)


def resolve(s: Settings, tree: Tree, name: str) -> str:
	"""The commit of a patch file name (with or without its directory or
	.patch), "base", or a commit of the tree."""
	commits = series_commits(tree)
	if name == 'base':
		return commits[0]
	for i, entry in enumerate(series.entries(s.patches)):
		base = os.path.basename(entry)
		if name in (entry, base, base[:-len('.patch')] if base.endswith('.patch') else base):
			return commits[i + 1]
	p = tree.git('rev-parse', '-q', '--verify', f'{name}^{{commit}}')
	if p.returncode:
		raise BisectError(f"'{name}' is neither a patch of {s.patches}/series, "
				  f"'base', nor a commit of {tree.src}")
	return p.stdout.strip()


def describe(s: Settings, tree: Tree, commit: str) -> str:
	"""'slub/0004-....patch (subject)' for a commit of the series."""
	commits = series_commits(tree)
	names = series.entries(s.patches)
	n = commits.index(commit) if commit in commits else 0
	name = names[n - 1] if n else commit[:12]
	return f'{name} ({subject(tree, commit)})'


def step_argv(s: Settings, req: BisectRequest) -> List[str]:
	"""The bisect-step command line that git bisect run calls."""
	argv = [sys.executable, '-m', 'zsp', 'internal', 'bisect-step', '--alloc', req.alloc,
		'--case', req.case, '--run', req.run, '--profile', req.profile,
		'--timeout', str(req.limits.timeout), '--silence', str(req.limits.silence),
		'--max-boots', str(req.limits.max_boots)]
	if req.boot_all:
		argv.append('--boot-all')
	return argv + settings.argv(s)


def bisect(s: Settings, req: BisectRequest) -> int:
	print(find_first_bad(s, req))
	return 0


def find_first_bad(s: Settings, req: BisectRequest) -> str:
	"""The first patch of the series that breaks one allocator (or one
	case on it), as a line for the user. Both ends are checked first."""
	pipeline.check_axes(s.kernel, ['patched'], [req.alloc])
	# git bisect run runs the step in the tree: a relative run dir
	# would land there.
	req = dataclasses.replace(req, run=os.path.abspath(req.run))
	if req.case and req.case not in runner.source_cases():
		raise BisectError(f"unknown CASE '{req.case}'; valid: {' '.join(runner.source_cases())}")
	os.makedirs(req.run, exist_ok=True)
	what = req.alloc + (f' for {req.case}' if req.case else '')
	env = dict(os.environ, PYTHONPATH=axes.MATRIX)
	with patched_tree(s) as tree:
		good = resolve(s, tree, req.good)
		bad = resolve(s, tree, req.bad) if req.bad else series_commits(tree)[-1]
		log(f"bisect {req.alloc}{f' case {req.case}' if req.case else ''}: "
		    f'checking GOOD={req.good} and BAD={req.bad or "the tip"} first')
		rcs = []
		for commit in (good, bad):
			tree.git('checkout', '-q', commit)
			rcs.append(subprocess.run(step_argv(s, req), env=env).returncode)
		if rcs[0] != 0:
			raise BisectError(f'GOOD={req.good} is not good on {req.alloc} '
					  f'(step exit {rcs[0]}); logs: {req.run}')
		if rcs[1] == 0:
			return (f'nothing in {req.good}..{req.bad or "the tip"} is bad on {what}: '
				f'BAD passes; logs: {req.run}')
		if rcs[1] != 1:
			raise BisectError(f'BAD={req.bad or "the tip"} cannot be tested on '
					  f'{req.alloc} (step exit {rcs[1]}); logs: {req.run}')
		logfile = os.path.join(req.run, 'bisect.log')
		p = tree.git('bisect', 'start', bad, good)
		with open(logfile, 'w') as f:
			f.write(p.stdout + p.stderr)
		if p.returncode:
			raise BisectError(f'git bisect start failed; log: {logfile}')
		text = bisect_run(tree, step_argv(s, req), env, logfile)
		m = FIRST_BAD.search(text)
		if not m:
			raise BisectError(f'git bisect found no first bad commit; log: {logfile}')
		return f'first bad patch on {what}: {describe(s, tree, m.group(1))}; logs: {req.run}'


# How long a stopped step may take to clean up (kbuild, QEMU) before it is
# killed: patched_tree() checks the series out only after it is gone.
STEP_GRACE_S = 60.0


def group_members(pgid: int) -> List[int]:
	"""The live (not zombie) processes of a process group."""
	pids = []
	for d in os.listdir('/proc'):
		if not d.isdigit():
			continue
		try:
			with open(f'/proc/{d}/stat') as f:
				fields = f.read().rsplit(')', 1)[1].split()
		except OSError:
			continue
		if int(fields[2]) == pgid and fields[0] != 'Z':
			pids.append(int(d))
	return pids


def stop_group(pgid: int) -> None:
	"""Wait for a SIGTERM'd process group to end; SIGKILL what is left
	after STEP_GRACE_S."""
	deadline = time.monotonic() + STEP_GRACE_S
	while group_members(pgid):
		if time.monotonic() > deadline:
			for pid in group_members(pgid):
				try:
					os.kill(pid, signal.SIGKILL)
				except ProcessLookupError:
					pass
			return
		time.sleep(0.1)


def bisect_run(tree: Tree, argv: List[str], env: Dict[str, str], logfile: str) -> str:
	"""git bisect run, its output shown live and kept in logfile."""
	# Its own process group, so that stopping it stops the step too.
	p = subprocess.Popen(['git', '-C', tree.src, 'bisect', 'run'] + argv, env=env,
			     stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
			     start_new_session=True)
	assert p.stdout
	text = ''
	try:
		with open(logfile, 'a') as f:
			for line in p.stdout:
				sys.stderr.write(line)
				f.write(line)
				text += line
	finally:
		# Stopped early (SIGTERM, ^C): the step must not go on moving
		# HEAD after patched_tree() has checked the series out again.
		if p.poll() is None:
			os.killpg(p.pid, signal.SIGTERM)
			p.wait()
			stop_group(p.pid)
		p.wait()
	if p.returncode:
		raise BisectError(f'git bisect run failed; log: {logfile}')
	# git's last line may lack its newline: ours starts on a line of its own.
	if text and not text.endswith('\n'):
		sys.stderr.write('\n')
	return text


# -- series-check -------------------------------------------------------------

def series_check(s: Settings, req: SeriesCheckRequest) -> int:
	"""Every prefix of the series (base, +1 patch, ..., the whole series)
	on every allocator: it must build and boot, no case that passed at
	the previous prefix may stop passing, and the whole series must pass
	every case. A fix series cannot make every prefix pass the whole
	suite (each patch fixes its own cases): the rule per prefix is the
	kernel's, bisectable and no regression."""
	os.makedirs(req.run, exist_ok=True)
	with patched_tree(s) as tree:
		for k, commit in enumerate(series_commits(tree)):
			tree.git('checkout', '-q', commit)
			log(f'prefix {k}: {subject(tree, commit)}')
			with open(os.path.join(req.run, f'prefix-{k}.subject'), 'w') as f:
				f.write(subject(tree, commit) + '\n')
			for alloc in axes.allocators(s.kernel):
				suite_cell(s, alloc, os.path.join(req.run, f'prefix-{k}', alloc), req.profile,
					   req.limits)
	return series_table.main(req.run)
