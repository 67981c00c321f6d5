# SPDX-License-Identifier: GPL-2.0
"""The boots of one cell until every case has a result (zsp internal boot-cell).

Runs the test modules of one matrix cell (tree x allocator) and writes
its results, booting again until every case has one.

A case that crashes or hangs the guest gets that status; the next boot
skips every case that already has a result and resumes after it. What
each boot's console gives is handlers.py's (a handler per module) and
verdict.py's (the rows); a cell whose every input is as in an earlier
one reuses its results (cache.py).
"""

import argparse
import glob
import json
import os
import re
import signal
import subprocess
import sys
import tempfile
from dataclasses import dataclass, asdict
from typing import FrozenSet, List, Optional, Set, Tuple

from . import axes, cache, console, handlers, qemu, verdict
from .results import Outcome, Row, SUITE_MODULE, dump_json

# Each boot resumes after the cases that have a result; vanilla SLOB,
# the worst cell, needs about 25.
MAX_BOOTS = 40
SUITE_SOURCES = os.path.join(axes.ROOT, 'kunit', '*.c')


def source_cases() -> List[str]:
	"""Every case of the suite, from its sources: known before a boot."""
	cases: List[str] = []
	for path in sorted(glob.glob(SUITE_SOURCES)):
		with open(path) as f:
			cases += re.findall(r'KUNIT_CASE\((\w+)\)', f.read())
	return cases


def make_initrd(base: str, gen_init_cpio: str, modules: List[str],
		skip: List[str], path: str) -> None:
	"""The cell's initramfs plus a second archive holding the boot's plan."""
	with tempfile.TemporaryDirectory() as tmp:
		plan = os.path.join(tmp, 'plan')
		with open(plan, 'w') as f:
			f.write(f"ZSP_MODULES='{' '.join(modules)}'\n")
			f.write(f"ZSP_SKIP='{','.join(skip)}'\n")
		spec = os.path.join(tmp, 'spec')
		with open(spec, 'w') as f:
			f.write(f'file /etc/zsp/plan {plan} 0644 0 0\n')
		extra = subprocess.run([gen_init_cpio, spec], check=True,
				       capture_output=True).stdout
	with open(base, 'rb') as b, open(path, 'wb') as out:
		out.write(b.read())
		out.write(extra)


@dataclass(frozen=True)
class BootRequest:
	"""What boot-cell is asked to do: its flags (add_arguments), read once."""
	kernel_version: str
	profile: str
	tree: str
	alloc: str
	kernel: str		# the bzImage
	initrd: str		# the cell's initramfs, without the boot's plan
	gen_init_cpio: str
	kunit_tool: str
	modules: Tuple[str, ...]	# in the order they load
	out: str		# the cell's directory
	timeout: float
	silence: float
	max_boots: int
	store: str		# '': no results reuse
	fresh: bool
	not_available: Tuple[str, ...]
	# The suite's cases this cell runs; empty: all of them.
	only: FrozenSet[str]
	distinct_fault: bool
	# What the cell's kernel was built from, recorded in cell.json so that
	# its verdict names its inputs (results.recorded_series): the series,
	# None when not known; the bzImage's sha256, '' when not known.
	series: Optional[Row]
	kernel_sha256: str

	@staticmethod
	def of(args: argparse.Namespace) -> 'BootRequest':
		return BootRequest(
			kernel_version=args.kernel_version, profile=args.profile, tree=args.tree,
			alloc=args.alloc, kernel=args.kernel, initrd=args.initrd,
			gen_init_cpio=args.gen_init_cpio, kunit_tool=args.kunit_tool,
			modules=tuple(args.modules.split()), out=args.out, timeout=args.timeout,
			silence=args.silence, max_boots=args.max_boots, store=args.store,
			fresh=args.fresh, not_available=tuple(args.not_available.split()),
			only=frozenset(filter(None, args.only.split(','))),
			distinct_fault=args.distinct_fault,
			series=json.loads(args.series) if args.series else None,
			kernel_sha256=args.kernel_sha256)


class Cell:
	"""The boots of one cell, each resuming after the cases that have a
	result, until every case has one."""

	def __init__(self, req: BootRequest) -> None:
		self.req = req
		self.rows = verdict.Rows(only=req.only)
		self.boots: List[Row] = []

	def run(self) -> int:
		req = self.req
		k = cache_key(req) if req.store else ''
		earlier = cache.lookup(req.store, k) if k and not req.fresh else None
		if earlier:
			print(f'    {req.tree}-{req.alloc}: reused, every input as in {earlier} '
			      '(FRESH=1 boots again)',
			      file=sys.stderr, flush=True)
			# The verdict is the earlier one (the same image, initramfs,
			# harness and QEMU); what it was built from is this cell's.
			dump(req, {**cache.copy(earlier, req.out), **built_from(req)})
			return 0
		self.boot_all()
		cell = write(req, self.rows, self.boots)
		if k and cache.storable(cell):
			cache.save(req.store, k, req.out)
		return 0

	def boot_all(self) -> None:
		modules = list(self.req.modules)
		for n in range(1, self.req.max_boots + 1):
			skip = sorted(self.rows.suite_cases | self.unselected())
			r, sc = self.boot(n, modules, skip)
			known = set(self.rows.results)
			handlers.collect(self.rows, handlers.Boot(
				n, os.path.join(self.req.out, f'boot-{n}'), skip, r, sc,
				self.req.kunit_tool, self.req.distinct_fault))
			modules = [m for m in modules if m not in self.rows.modules_done]
			if not self.boot_again(r, sc, known, modules):
				break
		verdict.finish(self.rows, self.boots, self.req.modules)

	def boot(self, n: int, modules: List[str],
		 skip: List[str]) -> Tuple[qemu.BootResult, console.Scan]:
		"""Boot @n with its plan: load @modules, skip the cases in @skip."""
		req = self.req
		stem = os.path.join(req.out, f'boot-{n}')
		make_initrd(req.initrd, req.gen_init_cpio, modules, skip, stem + '.cpio')
		r = qemu.boot(req.kernel, stem + '.cpio', stem + '.log',
			      req.timeout, req.silence, guest=qemu.Guest.of(req.profile, req.kernel_version))
		os.unlink(stem + '.cpio')
		with open(stem + '.log', errors='replace') as f:
			sc = console.scan(f.read().splitlines())
		# Relative to the cell's directory (results.SCHEMA).
		self.boots.append({'boot': n, 'log': os.path.basename(stem) + '.log', **asdict(r)})
		# Named: the boot runs beside the next cell's build output.
		print(f'    {req.tree}-{req.alloc} boot {n}: {r.outcome} in {r.seconds:.1f}s'
		      + (f' ({r.reason})' if r.outcome != Outcome.POWEROFF else ''),
		      file=sys.stderr, flush=True)
		return r, sc

	def unselected(self) -> Set[str]:
		"""The suite's cases --only plans out, as its source and every
		boot's zsp-cases lines name them."""
		if not self.req.only:
			return set()
		return (set(source_cases()) | set(self.rows.expected)) - self.req.only

	def boot_again(self, r: qemu.BootResult, sc: console.Scan, known: Set[str],
		       modules: List[str]) -> bool:
		rows = self.rows
		suite_done = any(s.module == SUITE_MODULE and s.rc is not None
				 for s in sc.segments)
		if r.outcome == Outcome.POWEROFF or suite_done and sc.done:
			return False
		if not sc.running and (r.outcome == Outcome.QEMU_ERROR
				       or not any(s.rc is None for s in sc.segments)):
			# It ended outside every module (kernel boot, shutdown), or
			# QEMU failed with no case to blame: a boot again would repeat it.
			return False
		if all(rows.results[k].suite == 'cell' for k in set(rows.results) - known):
			# No case or module got a result (the cell's own rows are no
			# progress): another boot would end the same way.
			return False
		left = [c for c in rows.expected if c not in rows.results and rows.selected(c)]
		# Only the suite is left and every case it listed has a result.
		return bool(left) or not rows.expected or any(m != SUITE_MODULE for m in modules)


def cache_key(req: BootRequest) -> str:
	"""The hash of every input of the cell's boots (cache.key)."""
	return cache.key(req.kernel, req.initrd, req.kunit_tool, ' '.join(req.modules),
			 req.timeout, req.silence, qemu.Guest.of(req.profile, req.kernel_version),
			 req.distinct_fault, ','.join(sorted(req.only)),
			 qemu_version=qemu.version(qemu.X86_64.binary),
			 # Cell.boot's: qemu.boot() without icount.
			 accel=qemu.accelerator())


def built_from(req: BootRequest) -> Row:
	"""cell.json's record of what the kernel was built from: the series
	(null: not known) and the image's sha256 (results.SCHEMA 2)."""
	return {'series': req.series, 'kernel_image_sha256': req.kernel_sha256}


def write(req: BootRequest, rows: verdict.Rows, boots: List[Row]) -> Row:
	"""The cell's cell.json: what was asked and built from, each boot,
	each row."""
	out = {'kernel': req.kernel_version, 'tree': req.tree,
	       'profile': req.profile, 'allocator': req.alloc, **built_from(req),
	       'not_available': list(req.not_available),
	       'only': sorted(req.only), 'boots': boots,
	       'cases': [asdict(r) for r in rows.named()]}
	dump(req, out)
	return out


def dump(req: BootRequest, cell: Row) -> None:
	dump_json(os.path.join(req.out, 'cell.json'), cell)


def add_arguments(p: argparse.ArgumentParser) -> None:
	p.add_argument('--kernel-version', default=axes.DEFAULT_KERNEL, choices=list(axes.KERNELS),
		       help="the cell's kernel (zsp/axes.py)")
	p.add_argument('--profile', default=axes.DEFAULT_PROFILE, choices=list(axes.PROFILES),
		       help="the cell's config profile (zsp/axes.py)")
	p.add_argument('--tree', required=True, help='vanilla or patched')
	p.add_argument('--alloc', required=True, help='the allocator the kernel was built with')
	p.add_argument('--kernel', required=True, help='the bzImage')
	p.add_argument('--initrd', required=True, help="the cell's initramfs (CellBuild.make_initramfs)")
	p.add_argument('--gen-init-cpio', required=True, help="the tree's usr/gen_init_cpio")
	p.add_argument('--kunit-tool', required=True, help="the tree's kunit.py, for parse")
	p.add_argument('--modules', required=True, help='test modules to run, in order')
	p.add_argument('--out', required=True, help="the cell's directory in the run")
	qemu.add_limits(p)
	p.add_argument('--max-boots', type=int, default=MAX_BOOTS,
		       help='give up (error rows) after this many boots')
	p.add_argument('--store', default='',
		       help='results of earlier cells by input hash (cache.py)')
	p.add_argument('--fresh', action='store_true',
		       help='boot even when an earlier cell had the same inputs')
	p.add_argument('--not-available', default='',
		       help="the profile's options this allocator does not have (recorded)")
	p.add_argument('--only', default='',
		       help="run only these cases of the suite (comma-separated); the others "
		       'get no row (make bisect CASE=)')
	p.add_argument('--series', default='',
		       help="the series the kernel was built from, as JSON (results."
		       "recorded_series); '': not known")
	p.add_argument('--kernel-sha256', default='',
		       help="the bzImage's sha256, recorded in cell.json")
	p.add_argument('--distinct-fault', action='store_true',
		       help='the oops of a Z6 case must name ZERO_SIZE_PTR (the tree has '
		       'the x86 patch; without this flag it must not)')


def run(args: argparse.Namespace) -> int:
	req = BootRequest.of(args)
	# SIGTERM unwinds through boot(), which kills QEMU on the way out.
	signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
	os.makedirs(req.out, exist_ok=True)
	return Cell(req).run()
