#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Runs the test modules of one matrix cell (tree x allocator) and writes
its results, booting again until every case has one.

A case that crashes or hangs the guest gets that status; the next boot
skips every case that already has a result and resumes after it. KTAP is
parsed by the tree's own kunit.py. A pass is downgraded to a failure when
the console shows a splat during the case, and a case that announced an
expected oops passes only if the oops names ZERO_SIZE_PTR's address.
"""

import argparse
import json
import os
import signal
import subprocess
import sys
import tempfile
from dataclasses import dataclass, asdict
from typing import Dict, List, Optional

import boot
import console
import reuse

SUITE_MODULE = 'zero_size_test'


@dataclass
class CaseResult:
	suite: str
	case: str
	status: str		# pass, fail, skip, crash, hang, error
	detail: str
	boot: int


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


class Cell:
	def __init__(self, args: argparse.Namespace) -> None:
		self.args = args
		self.results: Dict[str, CaseResult] = {}
		self.suite_of: Dict[str, str] = {}
		self.boots: List[dict] = []
		# Modules that ran to their end, or crashed: not loaded again.
		self.modules_done: set = set()
		# Cases of zero_size_test with a result: skipped in later boots.
		self.suite_cases: set = set()

	# -- one boot --------------------------------------------------------

	def kunit_parse(self, seg: console.Segment, stem: str) -> Dict[str, str]:
		"""Case name -> kunit.py's status, for one module's KTAP."""
		log = stem + '.ktap'
		with open(log, 'w') as f:
			f.write('\n'.join(seg.lines) + '\n')
		out = stem + '.json'
		with open(stem + '.parse.log', 'w') as plog:
			subprocess.run([sys.executable, self.args.kunit_tool, 'parse',
					f'--json={out}', log], stdout=plog,
				       stderr=subprocess.STDOUT, check=False)
		statuses: Dict[str, str] = {}
		try:
			with open(out) as f:
				tree = json.load(f)
		except (OSError, ValueError):
			return statuses

		def walk(group: dict) -> None:
			for sub in group.get('sub_groups', []):
				walk(sub)
			for case in group.get('test_cases', []):
				statuses[case['name']] = case['status']
				self.suite_of.setdefault(case['name'], group['name'])
		walk(tree)
		return statuses

	def record(self, case: str, status: str, detail: str, n: int) -> None:
		suite = self.suite_of.get(case, '?')
		self.results[case] = CaseResult(suite, case, status, detail, n)

	def judge(self, case: str, kstatus: str, ev: Optional[console.CaseEvents],
		  n: int) -> None:
		status = {'PASS': 'pass', 'FAIL': 'fail', 'SKIP': 'skip'}.get(kstatus, 'error')
		detail = '' if status != 'error' else f'kunit.py status {kstatus}'
		if ev and status == 'pass':
			oopses = ev.oopses
			splats = [s for s in ev.splats if s not in oopses]
			if ev.expects_oops and not any(console.ZSP_FAULT.search(o) for o in oopses):
				status, detail = 'fail', 'no oops naming address 0x10'
			elif splats:
				status, detail = 'fail', 'splat: ' + splats[0]
			elif oopses and not ev.expects_oops:
				status, detail = 'crash', oopses[0]
		elif ev and ev.oopses and ev.expects_oops:
			detail = ev.oopses[0]
		self.record(case, status, detail, n)

	def collect(self, n: int, stem: str, skip: List[str], r: boot.BootResult,
		    sc: console.Scan) -> None:
		for i, seg in enumerate(sc.segments):
			if seg.rc is not None:
				self.modules_done.add(seg.module)
			if seg.module == 'test_meminit':
				self.suite_of['test_meminit'] = 'test_meminit'
				if seg.rc is not None:
					ok = seg.rc == 0 and sc.meminit and 'passed' in sc.meminit
					self.record('test_meminit', 'pass' if ok else 'fail',
						    sc.meminit or f'insmod rc={seg.rc}', n)
				continue
			statuses = self.kunit_parse(seg, f'{stem}.{i}.{seg.module}')
			for case, kstatus in statuses.items():
				if case in skip or case in self.results:
					continue
				ev = sc.cases.get(case)
				if kstatus == 'ERROR' and (not ev or not ev.finished):
					continue	# never finished: judged below
				self.judge(case, kstatus, ev, n)
				if seg.module == SUITE_MODULE:
					self.suite_cases.add(case)
		if r.outcome == 'poweroff':
			return
		status = 'hang' if r.outcome in ('hang', 'timeout') else 'crash'
		ev = sc.cases.get(sc.running) if sc.running else None
		reason = ev.oopses[0] if ev and ev.oopses else r.reason
		open_seg = next((s for s in sc.segments if s.rc is None), None)
		if sc.running:
			# Only zero_size_test prints zsp-start lines.
			self.record(sc.running, status, reason, n)
			self.suite_cases.add(sc.running)
		elif open_seg and open_seg.module != SUITE_MODULE:
			self.suite_of.setdefault(open_seg.module, open_seg.module)
			self.record(open_seg.module, status, reason, n)
			self.modules_done.add(open_seg.module)

	# -- the resume loop -------------------------------------------------

	def run(self) -> int:
		a = self.args
		k = reuse.key(a.kernel, a.initrd, a.kunit_tool, a.modules,
			      a.timeout, a.silence) if a.store else ''
		earlier = reuse.lookup(a.store, k) if k and not a.fresh else None
		if earlier:
			print(f'    {a.tree}-{a.alloc}: reused, every input as in {earlier} '
			      '(FRESH=1 boots again)',
			      file=sys.stderr, flush=True)
			self.dump(reuse.copy(earlier, a.out))
			return 0
		self.boot_all()
		cell = self.write()
		if k and reuse.storable(cell):
			reuse.save(a.store, k, a.out)
		return 0

	def boot_all(self) -> None:
		a = self.args
		modules = a.modules.split()
		for n in range(1, a.max_boots + 1):
			skip = sorted(self.suite_cases)
			stem = os.path.join(a.out, f'boot-{n}')
			make_initrd(a.initrd, a.gen_init_cpio, modules, skip, stem + '.cpio')
			known = len(self.results)
			r = boot.boot(a.kernel, stem + '.cpio', stem + '.log',
				      a.timeout, a.silence)
			os.unlink(stem + '.cpio')
			with open(stem + '.log', errors='replace') as f:
				sc = console.scan(f.read().splitlines())
			self.boots.append({'boot': n, 'log': stem + '.log', **asdict(r)})
			# Named: the boot runs beside the next cell's build output.
			print(f'    {a.tree}-{a.alloc} boot {n}: {r.outcome} in {r.seconds:.1f}s'
			      + (f' ({r.reason})' if r.outcome != 'poweroff' else ''),
			      file=sys.stderr, flush=True)
			self.collect(n, stem, skip, r, sc)
			suite_done = any(s.module == SUITE_MODULE and s.rc is not None
					 for s in sc.segments)
			if r.outcome == 'poweroff' or suite_done and sc.done:
				break
			if len(self.results) == known:
				self.record(f'boot-{n}', 'error',
					    f'{r.outcome} before any case ran: {r.reason}', n)
				break
			modules = [m for m in modules if m not in self.modules_done]
		if not self.suite_cases:
			self.suite_of['zero_size_test'] = 'cell'
			self.record('zero_size_test', 'error',
				    'no result from the suite (KTAP missing or unreadable); '
				    f'see {self.boots[-1]["log"]}', len(self.boots))

	def write(self) -> dict:
		# A case that crashed in its first boot is named by a later one.
		for r in self.results.values():
			r.suite = self.suite_of.get(r.case, r.suite)
		out = {'tree': self.args.tree, 'allocator': self.args.alloc,
		       'boots': self.boots,
		       'cases': [asdict(r) for r in self.results.values()]}
		self.dump(out)
		return out

	def dump(self, cell: dict) -> None:
		path = os.path.join(self.args.out, 'cell.json')
		with open(path + '.tmp', 'w') as f:
			json.dump(cell, f, indent=1)
		os.replace(path + '.tmp', path)


def main(argv: List[str]) -> int:
	p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
	p.add_argument('--tree', required=True)
	p.add_argument('--alloc', required=True)
	p.add_argument('--kernel', required=True)
	p.add_argument('--initrd', required=True)
	p.add_argument('--gen-init-cpio', required=True)
	p.add_argument('--kunit-tool', required=True)
	p.add_argument('--modules', required=True)
	p.add_argument('--out', required=True)
	p.add_argument('--timeout', type=float, default=300)
	p.add_argument('--silence', type=float, default=30)
	p.add_argument('--max-boots', type=int, default=40)
	p.add_argument('--store', default='',
		       help='results of earlier cells by input hash (reuse.py)')
	p.add_argument('--fresh', action='store_true',
		       help='boot even when an earlier cell had the same inputs')
	args = p.parse_args(argv)
	# SIGTERM unwinds through boot(), which kills QEMU on the way out.
	signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
	os.makedirs(args.out, exist_ok=True)
	return Cell(args).run()


if __name__ == '__main__':
	sys.exit(main(sys.argv[1:]))
