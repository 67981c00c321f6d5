# SPDX-License-Identifier: GPL-2.0
"""A cell's steps and boot; a run of cells, one booting while the next builds.

The pipeline of cells: prepare (config -> kernel -> module ->
initramfs), boot (runner.py, in its own process), and a run of many
cells, where one cell boots while the next one builds.

A step that fails writes its one-line reason to the cell's "error" file
(table.py shows it as the cell's error row) and the run goes on with the
next cell. A run holds the locks of its trees (lock.py) until its table
is written; SIGINT or SIGTERM stop the boot in the background, and the
locks go with this process.
"""

import argparse
import collections
import dataclasses
import itertools
import json
import os
import shutil
import signal
import subprocess
import sys
import threading
import time
from dataclasses import dataclass
from types import FrameType
from typing import List, Optional, Sequence, Tuple

from . import axes, console, disk, lock, qemu, runner, series, table
from .cache import Stamp
from .kernel import CCACHE_FILE, CellBuild, Tree
from .errors import AxisError, KernelError, SchemaError, SeriesError
from .progress import log
from .results import Row, load_json
from .settings import Settings

# "cannot test": what git bisect run wants for a commit that does not build.
CANNOT_TEST = 125


@dataclass(frozen=True)
class Limits:
	"""How long a cell's boots may take, and how many there may be
	(their flags: add_limits())."""
	timeout: float = qemu.TIMEOUT_S
	silence: float = qemu.SILENCE_S
	max_boots: int = runner.MAX_BOOTS


@dataclass(frozen=True)
class CellRequest:
	"""One cell on its tree as checked out (zsp internal cell; bisect's
	steps, series-check and mutants make theirs)."""
	tree: str
	alloc: str
	out: str
	profile: str = axes.DEFAULT_PROFILE
	modules: str = ''	# space-separated; '': CellBuild.default_modules()
	only: str = ''		# boot these cases alone, comma-separated (CASE=, Kills:)
	limits: Limits = Limits()


@dataclass(frozen=True)
class RunRequest:
	"""Every cell of a run, then its table (zsp run). The axes are
	space-separated lists, as the Makefile gives them; '' is every tree,
	every allocator, the one profile and the settings' kernel."""
	run: str
	trees: str = ''
	allocs: str = ''
	profiles: str = ''
	kernels: str = ''
	profile: str = axes.DEFAULT_PROFILE
	# PATCHES= was given: a series of one kernel, so no KERNEL=all.
	own_patches: bool = False
	limits: Limits = Limits()


def tree_series(tree: Tree) -> Optional[Row]:
	"""The series @tree's kernels are built from, for their cell.json
	(results.recorded_series): none for vanilla; for patched, the series
	of PATCHES= when the tree is that series as applied: its stamp holds
	the series' digest (Tree.apply_series) and HEAD is zsp-series' tip.
	None otherwise (a bisect step, zsp mutants' copy, a series edited
	since it was applied): a cell must not claim a series it did not run."""
	if tree.name == 'vanilla':
		return series.no_series()
	if tree.name != 'patched':
		return None
	try:
		record = series.record(tree.s.patches)
	except (OSError, SeriesError):
		return None
	if not Stamp(os.path.join(tree.src, '.git', 'zsp-series')).holds(record['digest']):
		return None
	head, tip = (tree.git('rev-parse', '-q', '--verify', f'{rev}^{{commit}}')
		     for rev in ('HEAD', 'zsp-series'))
	if head.returncode or tip.returncode or head.stdout != tip.stdout:
		return None
	return record


def inputs_of(build: CellBuild) -> List[str]:
	"""boot-cell's flags that record what the cell's kernel was built
	from: the series, and the sha256 of the bzImage it is about to boot."""
	record = tree_series(build.tree)
	return ['--series', json.dumps(record) if record is not None else '',
		'--kernel-sha256', series.sha256_file(build.bzimage)]


class Boot:
	"""A cell's boots (python3 -m zsp internal boot-cell) in a child
	process; its progress lines pass through, its last line is kept for
	the error. @inputs: inputs_of()'s flags; without them the cell
	records that what it was built from is not known."""

	def __init__(self, build: CellBuild, out: str, modules: List[str],
		     limits: Limits, store: str, only: str = '',
		     inputs: Sequence[str] = ()) -> None:
		cmd = [sys.executable, '-m', 'zsp', 'internal', 'boot-cell',
		       '--kernel-version', build.s.kernel, '--profile', build.profile.name,
		       '--tree', build.tree.name, '--alloc', build.alloc,
		       '--kernel', build.bzimage, '--initrd', build.initramfs,
		       '--gen-init-cpio', build.gen_init_cpio, '--kunit-tool', build.kunit_tool,
		       '--modules', ' '.join(modules), '--out', out,
		       '--timeout', str(limits.timeout), '--silence', str(limits.silence),
		       '--max-boots', str(limits.max_boots), '--store', store,
		       '--not-available', ' '.join(build.not_available), *inputs]
		if build.s.fresh:
			cmd.append('--fresh')
		if only:
			cmd += ['--only', only]
		if build.tree.has_commit(console.DISTINCT_FAULT):
			cmd.append('--distinct-fault')
		env = dict(os.environ, PYTHONPATH=os.path.dirname(os.path.dirname(
			os.path.abspath(__file__))))
		self.name = build.name
		self.out = out
		self.t0 = time.monotonic()
		self.last = ''
		self.first_error = ''
		self.proc = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL,
					     stderr=subprocess.PIPE, text=True)
		self.relay = threading.Thread(target=self._relay, daemon=True)
		self.relay.start()

	def _relay(self) -> None:
		assert self.proc.stderr
		for line in self.proc.stderr:
			sys.stderr.write(line)
			sys.stderr.flush()
			if line.strip():
				self.last = line.strip()
			if line.startswith('error:') and not self.first_error:
				self.first_error = line.strip()
		# The boot's own time, not the time until the run asked for it;
		# and the cell's line as soon as it is done, not when the next
		# cell's build is.
		if self.proc.wait() == 0:
			add_timing(self.out, 'boot', time.monotonic() - self.t0)
			log(f'{self.name}: done: {summary(self.out)}')

	def wait(self) -> int:
		rc = self.proc.wait()
		self.relay.join()
		if rc:
			why = self.first_error or self.last
			why = why[len('error: '):] if why.startswith('error: ') else why
			write_error(self.out, why)
			log(f'{self.name}: boot FAILED: {why}')
		return rc

	def stop(self) -> None:
		"""On the way out: runner kills its QEMU on SIGTERM."""
		if self.proc.poll() is None:
			self.proc.terminate()
		try:
			self.proc.wait(30)
		except subprocess.TimeoutExpired:
			self.proc.kill()
			self.proc.wait()
		self.relay.join(5)


def summary(out: str) -> str:
	"""A finished cell in one line: its rows by status, its boots, and
	the time its steps took (out/timings)."""
	try:
		cell = load_json(os.path.join(out, 'cell.json'))
	except (OSError, ValueError, SchemaError) as e:	# the table makes it an error row
		return f'no results ({e})'
	n = collections.Counter(c['status'] for c in cell['cases'])
	parts = [f'{n[st]} {st}' for st in table.STATUS_ORDER if n[st]]
	seconds = 0.0
	try:
		with open(os.path.join(out, 'timings')) as f:
			seconds = sum(float(line.split()[1]) for line in f if line.strip())
	except (OSError, ValueError, IndexError):
		pass
	boots = len(cell['boots'])
	reused = ', results reused' if cell.get('reused_from') else ''
	try:
		with open(os.path.join(out, CCACHE_FILE)) as f:
			hits, calls = (int(x) for x in f.read().split())
		if calls:
			reused += f', ccache {100 * hits // calls}% of {calls}'
	except (OSError, ValueError):
		pass
	return (f"{', '.join(parts) or 'no results'}; {boots} boot{'s' if boots != 1 else ''}, "
		f'{seconds:.0f} s{reused}')


def write_error(out: str, why: str) -> None:
	with open(os.path.join(out, 'error'), 'w') as f:
		f.write(why + '\n')


def add_timing(out: str, name: str, seconds: float) -> None:
	with open(os.path.join(out, 'timings'), 'a') as f:
		f.write(f'{name} {seconds:.2f}\n')


def prepare(build: CellBuild, out: str) -> bool:
	"""config -> kernel -> module -> initramfs; False (and out/error) when
	a step fails. Each step's time goes to out/timings for make bench."""
	name = build.name
	os.makedirs(out, exist_ok=True)
	for f in ('error', 'timings', CCACHE_FILE):
		try:
			os.unlink(os.path.join(out, f))
		except FileNotFoundError:
			pass
	steps = [('config', build.config),
		 ('kernel', lambda: build.build(os.path.join(out, 'build.log'))),
		 ('module', lambda: build.module(os.path.join(out, 'module.log'))),
		 ('initramfs', build.make_initramfs)]
	for step, fn in steps:
		log(f'{name}: {step}')
		t0 = time.monotonic()
		try:
			fn()
		except Exception as e:	# any failure is this cell's error
			why = str(e) if isinstance(e, KernelError) else f'{step}: {type(e).__name__}: {e}'
			write_error(out, why)
			log(f'{name}: {step} FAILED: {why}')
			return False
		add_timing(out, step, time.monotonic() - t0)
	shutil.copyfile(os.path.join(build.obj, '.config'), os.path.join(out, 'config'))
	return True


def stop_on_sigterm() -> None:
	"""SIGTERM unwinds like SIGINT: the finally blocks stop the boot."""
	def handler(signum: int, _frame: Optional[FrameType]) -> None:
		raise SystemExit(128 + signum)
	signal.signal(signal.SIGTERM, handler)


def cell(s: Settings, req: CellRequest) -> int:
	"""One cell on its tree as it is checked out (no tree step: bisect,
	series-check and mutants move the tree themselves)."""
	stop_on_sigterm()
	build = CellBuild(s, req.tree, req.alloc, req.profile)
	if not prepare(build, req.out):
		return CANNOT_TEST
	log(f'{build.name}: boot')
	modules = req.modules.split() if req.modules else build.default_modules()
	boot = Boot(build, req.out, modules, req.limits, os.path.join(s.cache, 'cell-results'),
		    req.only, inputs_of(build))
	try:
		return CANNOT_TEST if boot.wait() else 0
	finally:
		boot.stop()


def run(s: Settings, req: RunRequest) -> int:
	"""Every cell of a run, kernel by kernel, then the table."""
	stop_on_sigterm()
	trees: List[str] = req.trees.split() or list(axes.TREES)
	profiles: List[str] = req.profiles.split() or [req.profile]
	plan = kernel_plan(s, req.kernels or s.kernel, req.allocs.split(), req.own_patches)
	for ks, allocs in plan:
		check_axes(ks.kernel, trees, allocs, profiles)
	disk.require(s, [ks.kernel for ks, _ in plan], 'this run')
	os.makedirs(req.run, exist_ok=True)
	locks = [Tree(ks, t).lock for ks, _ in plan for t in trees]
	with lock.held(s.cache, lock.to_take(locks)):
		for ks, allocs in plan:
			run_cells(ks, req, trees, profiles, allocs)
	return table.main(req.run)


def kernel_plan(s: Settings, kernels: str, allocs: List[str], own_patches: bool
		) -> List[Tuple[Settings, List[str]]]:
	"""(settings, allocators) per kernel of KERNEL=. ALLOC= names
	allocators of any kernel: a kernel that removed one (axes.Kernel.
	removed) runs the others, and the table shows the removed column."""
	try:
		names = axes.kernels(kernels)
	except ValueError as e:
		raise AxisError(str(e)) from None
	if own_patches and names != [s.kernel]:
		raise AxisError('PATCHES= is the series of one kernel; give KERNEL= one of '
				+ ' '.join(axes.KERNELS))
	plan = []
	for name in names:
		k = axes.KERNELS[name]
		mine = [a for a in allocs if a not in dict(k.removed)] if allocs else list(k.allocators)
		if allocs and not mine:
			continue
		ks = s if name == s.kernel else dataclasses.replace(s, kernel=name, patches='',
								     tarball='')
		plan.append((ks, mine))
	if not plan:
		raise AxisError(f"ALLOC={' '.join(allocs)} is in none of KERNEL={kernels}")
	return plan


def run_cells(s: Settings, req: RunRequest, trees: List[str], profiles: List[str],
	      allocs: List[str]) -> None:
	# A cell boots in the background while the next one builds: a TCG
	# guest keeps about one core busy, kbuild both, and beside a build the
	# verdicts stay the same (vanilla-slub measured: 70 s of boots instead
	# of 59 s). One guest at a time: two would compete for the same vCPUs.
	boot: Optional[Boot] = None
	store = os.path.join(s.cache, 'cell-results')
	try:
		for t in trees:
			try:
				Tree(s, t).prepare(os.path.join(req.run, f'tree-{t}.timings'))
			except Exception as e:	# any failure is its cells' error
				if not isinstance(e, KernelError):
					e = KernelError(f'tree {t}: {type(e).__name__}: {e}')
				print(f'error: {e}', file=sys.stderr)
				for p, a in itertools.product(profiles, allocs):
					out = os.path.join(req.run, axes.Cell(s.kernel, t, p, a).name)
					os.makedirs(out, exist_ok=True)
					write_error(out, str(e))
				continue
			for p, a in itertools.product(profiles, allocs):
				c = axes.Cell(s.kernel, t, p, a)
				build = CellBuild(s, t, a, p)
				out = os.path.join(req.run, c.name)
				if not prepare(build, out):
					continue
				if boot:
					boot.wait()
				log(f'{c.name}: boot')
				boot = Boot(build, out, build.default_modules(), req.limits, store,
					    inputs=inputs_of(build))
		if boot:
			boot.wait()
	finally:
		if boot:
			boot.stop()


def check_axes(kernel: str, trees: List[str], allocs: List[str],
	       profiles: Sequence[str] = ()) -> None:
	for p in profiles:
		if p not in axes.PROFILES:
			raise AxisError(f"unknown profile '{p}'; valid: {' '.join(axes.PROFILES)}")
	for t in trees:
		if t not in axes.TREES:
			raise AxisError(f"unknown TREE '{t}'; valid: {' '.join(axes.TREES)} both")
	valid = axes.allocators(kernel)
	for a in allocs:
		if a not in valid:
			raise AxisError(f"unknown ALLOC '{a}'; valid: {' '.join(valid)}")


def add_limits(p: argparse.ArgumentParser, max_boots: int = runner.MAX_BOOTS) -> None:
	qemu.add_limits(p)
	p.add_argument('--max-boots', type=int, default=max_boots,
		       help='give up (error rows) after this many boots of a cell '
		       '(default: %(default)s)')
