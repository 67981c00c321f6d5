# SPDX-License-Identifier: GPL-2.0
"""Runs the test modules of one matrix cell (tree x allocator) and writes
its results, booting again until every case has one.

A case that crashes or hangs the guest gets that status; the next boot
skips every case that already has a result and resumes after it. KTAP is
parsed by the tree's own kunit.py. The console overrides it: an oops in a
case's window is a crash, a splat fails it, and a case that announced an
expected oops (Z6) passes only with exactly one oops, at ZERO_SIZE_PTR's
address, in the zsp_fault thread, of the announced access.

Nothing is lost: every case the module listed (zsp-cases) ends with a
result or an error row; what the kernel printed outside every case fails
the module's row ("<module>.outside_cases"; "cell.boot" outside any
module); a case reported twice is an error; and a QEMU that failed or was
killed gives "error", never a kernel verdict.
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
from typing import Dict, List, Optional, Set, Tuple

from . import axes, cache, callsites, console, qemu
from .results import (HOST_FAULT, NEVER_STARTED, OUTSIDE, Outcome, Row, SEVERITY,
		      SUITE_MODULE, Status, dump_json, worse)

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
EVENT_STATUS = {'oops': Status.CRASH, 'panic': Status.CRASH, 'lockup': Status.HANG,
		'splat': Status.FAIL}
OUTCOME_STATUS = {Outcome.CRASH: Status.CRASH, Outcome.PANIC: Status.CRASH,
		  Outcome.HANG: Status.HANG, Outcome.TIMEOUT: Status.HANG,
		  Outcome.QEMU_ERROR: Status.ERROR}
KUNIT_STATUS = {'PASS': 'pass', 'FAIL': 'fail', 'SKIP': 'skip'}


@dataclass
class CaseResult:
	suite: str
	case: str
	status: str		# pass, fail, skip, crash, hang, error
	detail: str
	boot: int


def z6_problem(ev: console.CaseEvents, distinct: bool = False) -> str:
	"""What is wrong with the oops of a case that announced one, or ''.
	@distinct: the tree has the series' x86 patch (console.DISTINCT_FAULT),
	so the oops of a fault at ZERO_SIZE_PTR must name it; without it, it
	must not. An oops at any other address never names it."""
	at = ev.fault_at
	oopses = ev.oopses
	if not oopses:
		return f'no oops: the access through {at:#x} did not fault'
	if len(oopses) > 1:
		return (f'{len(oopses)} oopses in the case, expected one: '
			+ '; '.join(o.describe() for o in oopses))
	o = oopses[0]
	if o.kind != 'oops':
		return f'expected an oops, got: {o.describe()}'
	m = console.FAULT_ADDRESS.search(o.line)
	if not m or int(m.group(1), 16) != at:
		return f'oops does not name address {at:#x}: {o.describe()}'
	if o.comm != 'zsp_fault':
		return f"oops in {o.comm or 'an unnamed task'}, not zsp_fault: {o.line}"
	if at != console.SENTINEL and o.names_sentinel:
		return f'oops names ZERO_SIZE_PTR for a fault at {at:#x}: {o.line}'
	if at == console.SENTINEL and distinct and not o.names_sentinel:
		return ('oops does not name ZERO_SIZE_PTR ("#PF: address is ZERO_SIZE_PTR"), '
			f'though the tree has "{console.DISTINCT_FAULT}": {o.line}')
	if o.names_sentinel and not distinct:
		return ('oops names ZERO_SIZE_PTR, though the tree lacks '
			f'"{console.DISTINCT_FAULT}": {o.line}')
	if not ev.access:
		return 'zsp-expect-oops named no access (read|write)'
	if o.access != ev.access:
		return (f"a {o.access or 'unknown'} access faulted, the case announced "
			f'{ev.access}: {o.line}')
	return ''


def kasan_sees_the_fault(s: console.Event, ev: console.CaseEvents) -> bool:
	"""Generic KASAN checks the Z6 access before it is made, and reports
	an access below PAGE_SIZE as a null-ptr-deref before the oops: that
	report is the announced fault itself (same thread, the announced
	address and access), not a splat of its own."""
	return (s.line.startswith('BUG: KASAN: null-ptr-deref ') and s.comm == 'zsp_fault'
		and s.address != '' and int(s.address, 16) == ev.fault_at
		and s.access == ev.access)


# Upstream's tests of the memory debuggers provoke their reports on
# purpose and check them themselves (KUNIT_EXPECT_KASAN_FAIL, kfence_test's
# console probe): there a report of that debugger is no splat, KTAP decides.
PROVOKES_REPORTS = {'kasan_test': re.compile(r'^BUG: KASAN: '),
		    'kfence_test': re.compile(r'^BUG: KFENCE: ')}


def console_verdict(status: str, detail: str, ev: console.CaseEvents,
		    module: str = '', distinct: bool = False) -> Tuple[str, str]:
	"""kunit.py's verdict as the case's console window amends it."""
	if ev.expects_oops:
		problem = z6_problem(ev, distinct)
		if status == 'pass' and problem:
			status, detail = 'fail', problem
		elif status != 'pass' and not detail and ev.oopses:
			detail = ev.oopses[0].describe()
	elif ev.oopses:
		# Whatever KUnit said, the kernel died in this window.
		first = ev.oopses[0]
		return EVENT_STATUS[first.kind], first.describe()
	heads = {o.line for o in ev.oopses}
	splats = [s for s in ev.splats if s.line not in heads]
	own = PROVOKES_REPORTS.get(module)
	if own:
		splats = [s for s in splats if not own.search(s.line)]
	if ev.expects_oops and ev.oopses:
		# One KASAN report of the announced fault, at most.
		seen = next((s for s in splats if kasan_sees_the_fault(s, ev)), None)
		splats = [s for s in splats if s is not seen]
	if status == 'skip' and ev.needs_config and module != SUITE_MODULE and not splats:
		# Upstream's case for another kind of kernel: never a pass, and
		# not a failure of this one (a skip of our own suite still is).
		status, detail = 'n/a', f'needs {ev.needs_config}: not this kernel'
	if splats and status in ('pass', 'skip', 'fail'):
		why = 'splat: ' + splats[0].describe()
		detail = f'{detail}; {why}' if status == 'fail' and detail else why
		status = 'fail'
	return status, detail


def leak_verdict(seg: console.Segment, off: Optional[str] = None) -> Tuple[str, str]:
	"""kmemleak after the suite: a leaked object of the suite's fails the
	cell; the kernel's own (boot-time) reports are counted, not judged.
	A scan that could not run is the kernel's failure when kmemleak said
	it turned itself off (@off: its complaint, also a splat where it was
	printed): a kernel whose leak detector gave up has not shown that
	nothing leaked. Any other failed scan is the harness's error."""
	if seg.rc != 0 and off:
		return 'fail', f'kmemleak turned itself off ({off}): no scan after the suite'
	if seg.rc != 0:
		return 'error', f'kmemleak scan failed (rc={seg.rc}): no report to judge'
	found = console.leaks(seg.lines)
	ours = [lk for lk in found if lk.suites]
	if ours:
		return 'fail', (f"{len(ours)} object(s) of the suite leaked: "
				f"{'; '.join(lk.describe() for lk in ours[:3])}")
	return 'pass', f'no object of the suite leaked ({len(found) - len(ours)} elsewhere)'


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
		# Row key -> result. A case's key is its name; a module's own row
		# is "<module>" or "<module>.outside_cases", the cell's "cell.<x>".
		self.results: Dict[str, CaseResult] = {}
		self.suite_of: Dict[str, str] = {}
		self.boots: List[Row] = []
		# Modules that ran to their end, or crashed: not loaded again.
		self.modules_done: Set[str] = set()
		# Cases of zero_size_test with a result: skipped in later boots.
		self.suite_cases: Set[str] = set()
		# Case -> suite: the union of every boot's zsp-cases lines.
		self.expected: Dict[str, str] = {}
		self.suite_loaded = False
		# Rows written by the boot being collected, and those of them a
		# fatal event outside the cases went to.
		self.touched: Set[str] = set()
		self.fatal_rows: Set[str] = set()
		# --only: the suite's cases this cell runs; the others are
		# planned out from the first boot and get no row (make bisect
		# CASE=: one case decides a step, so only it needs to boot).
		self.only: Set[str] = set(filter(None, getattr(args, 'only', '').split(',')))

	# -- rows --------------------------------------------------------------

	def record(self, case: str, status: str, detail: str, n: int,
		   suite: Optional[str] = None) -> None:
		"""Sets a case's result (its key is its name)."""
		suite = suite or self.suite_of.get(case) or '?'
		self.results[case] = CaseResult(suite, case, status, detail, n)
		self.touched.add(case)

	def merge(self, key: str, suite: str, case: str, status: str, detail: str,
		  n: int) -> None:
		"""Adds to a row that may already hold something: worse wins, and the
		detail keeps every distinct reason."""
		old = self.results.get(key)
		self.touched.add(key)
		if not old:
			self.results[key] = CaseResult(suite, case, status, detail, n)
			return
		if status == 'pass':
			return
		if old.status == 'pass':
			old.status, old.detail, old.boot = status, detail, n
			return
		reasons = [old.detail, detail]
		if worse(status, old.status):
			old.status, old.boot = status, n
			reasons.reverse()
		old.detail = '; '.join(dict.fromkeys(d for d in reasons if d))

	def module_row(self, module: str, zsp: bool) -> Tuple[str, str, str]:
		"""(key, suite, case) of the row for what a module printed outside its
		cases: zero_size_test's "outside_cases"; an upstream module's own
		row (test_meminit has only that one)."""
		if zsp or module == SUITE_MODULE:
			return f'{module}.{OUTSIDE}', module, OUTSIDE
		return module, module, module

	# -- one boot --------------------------------------------------------

	def kunit_parse(self, seg: console.Segment, stem: str) -> List[Tuple[str, str]]:
		"""(case, kunit.py's status) for one module's KTAP, in order, each
		time the KTAP reports it (a name twice is an error, not "last wins")."""
		# Absolute: kunit.py changes to the kernel tree before it opens them.
		log = os.path.abspath(stem + '.ktap')
		with open(log, 'w') as f:
			f.write('\n'.join(seg.lines) + '\n')
		out = os.path.abspath(stem + '.json')
		with open(stem + '.parse.log', 'w') as plog:
			subprocess.run([sys.executable, self.args.kunit_tool, 'parse',
					f'--json={out}', log], stdout=plog,
				       stderr=subprocess.STDOUT, check=False)
		statuses: List[Tuple[str, str]] = []
		try:
			with open(out) as f:
				tree = json.load(f)
		except (OSError, ValueError):
			return statuses

		def walk(group: Row) -> None:
			for sub in group.get('sub_groups', []):
				walk(sub)
			for case in group.get('test_cases', []):
				# kunit.py names a missing subtest '': the expected list
				# accounts for it.
				if case['name']:
					statuses.append((case['name'], case['status']))
					self.suite_of.setdefault(case['name'], group['name'])
		walk(tree)
		return statuses

	def judge(self, case: str, kstatus: str, ev: Optional[console.CaseEvents],
		  n: int, module: str = '') -> None:
		status = KUNIT_STATUS.get(kstatus, 'error')
		detail = '' if status != 'error' else f'kunit.py status {kstatus}'
		if ev and status == 'fail' and ev.failures:
			detail = ev.failures[0]
		if ev:
			status, detail = console_verdict(status, detail, ev, module,
							 self.args.distinct_fault)
		self.record(case, status, detail, n)

	def collect(self, n: int, stem: str, skip: List[str], r: qemu.BootResult,
		    sc: console.Scan) -> None:
		self.touched = set()
		self.fatal_rows = set()
		for i, seg in enumerate(sc.segments):
			self.collect_segment(n, f'{stem}.{i}.{seg.module}', seg, skip, sc)
		self.collect_unfinished(n, skip, sc)
		for case in dict.fromkeys(sc.duplicates):
			self.record(case, 'error', f'zsp-start printed twice in boot {n}: '
				    'the module ran the case twice', n)
			self.suite_cases.add(case)
		self.collect_outside(n, sc)
		if r.outcome != Outcome.POWEROFF:
			self.collect_end(n, skip, r, sc)

	def collect_segment(self, n: int, stem: str, seg: console.Segment,
			    skip: List[str], sc: console.Scan) -> None:
		if seg.rc is not None:
			self.modules_done.add(seg.module)
		if seg.module == SUITE_MODULE:
			self.suite_loaded = True
		for suite, cases in seg.expected.items():
			for case in cases:
				self.expected.setdefault(case, suite)
				self.suite_of.setdefault(case, suite)
		if seg.module == callsites.MODULE:
			# Data, not a verdict: a row only when the report failed.
			counts = callsites.parse(seg.lines) if seg.rc == 0 else None
			if counts is not None:
				callsites.write(stem + callsites.SUFFIX, counts)
				if counts.missing():
					self.record(seg.module, 'error', 'callsites: no histogram for '
						    + ', '.join(counts.missing()) + ' (probe rejected at boot?)',
						    n, suite=seg.module)
			elif seg.rc is not None:
				self.record(seg.module, 'error', f'callsites report failed (rc={seg.rc})',
					    n, suite=seg.module)
			return
		if seg.module == console.KMEMLEAK_MODULE:
			if seg.rc is not None:
				self.record(seg.module, *leak_verdict(seg, sc.kmemleak_off), n,
					    suite=seg.module)
			return
		if seg.module == 'test_meminit':
			self.suite_of['test_meminit'] = 'test_meminit'
			if seg.rc is not None:
				ok = seg.rc == 0 and sc.meminit and 'passed' in sc.meminit
				self.record('test_meminit', 'pass' if ok else 'fail',
					    sc.meminit or f'insmod rc={seg.rc}', n)
			return
		statuses = self.kunit_parse(seg, stem)
		names = [case for case, _ in statuses]
		twice = {c for c in names if names.count(c) > 1}
		twice |= {c for c, k in seg.results.items() if k > 1}
		for case, kstatus in dict(statuses).items():
			if case in skip or case in self.results:
				continue
			ev = sc.cases.get(case)
			if ev and ev.after_stop:
				continue	# ran in a damaged kernel: again next boot
			if case in twice:
				self.record(case, 'error', f'{seg.module} reported {case} twice '
					    f'in one KTAP (boot {n})', n)
			elif kstatus == 'ERROR' and (not ev or not ev.finished):
				continue	# never finished: judged below
			elif seg.zsp and kstatus == 'PASS' and not (ev and ev.started):
				self.record(case, 'error', 'passed without printing zsp-start: '
					    'its console window is unknown', n)
			else:
				self.judge(case, kstatus, ev, n, seg.module)
			if seg.zsp or seg.module == SUITE_MODULE:
				self.suite_cases.add(case)

	def collect_unfinished(self, n: int, skip: List[str], sc: console.Scan) -> None:
		"""A case that started, is not the one the boot ended in, and has no
		result line: its "ok" line was lost. An error, never a silent gap."""
		for case, ev in sc.cases.items():
			if (ev.started and not ev.finished and case != sc.running
			    and not ev.after_stop and case not in skip and case not in self.touched):
				self.record(case, 'error', f'no result from the suite: started '
					    f'in boot {n}, printed no ok/not ok line', n)
				self.suite_cases.add(case)

	def collect_outside(self, n: int, sc: console.Scan) -> None:
		seg_zsp = {s.module: s.zsp for s in sc.segments}
		for o in sc.outside:
			if o.module is None:
				key, suite, case = 'cell.boot', 'cell', 'boot'
			else:
				key, suite, case = self.module_row(o.module, seg_zsp.get(o.module, False))
			status = EVENT_STATUS[o.event.kind]
			self.merge(key, suite, case, status,
				   f'{status} {o.where}: {o.event.describe()}', n)
			if o.event.fatal:
				self.fatal_rows.add(key)

	def collect_end(self, n: int, skip: List[str], r: qemu.BootResult,
			sc: console.Scan) -> None:
		"""The boot ended without powering off: blame what was running."""
		status = OUTCOME_STATUS.get(r.outcome, Status.ERROR)
		host = status == 'error'
		if sc.running in skip:
			# The plan skipped it and it ran: its result stands, the boot
			# proves nothing about it.
			self.record(f'boot-{n}', 'error', f'{r.outcome} in {sc.running}, '
				    'which zero_size_plan was to skip', n, suite='cell')
			return
		if sc.running:
			ev = sc.cases[sc.running]
			if ev.after_stop or (status == 'crash' and sc.stopped
					     and not self.own_fatal(ev)):
				# The guest was stopped for an oops before this case
				# started (the kernel runs on for GRACE_S after one):
				# not its crash. It has no result yet; the next boot
				# runs it again. A crash no line announced (a triple
				# fault) stopped nothing before it: it is the case's.
				return
			self.record(sc.running, status, self.end_detail(r, ev, host), n)
			self.suite_cases.add(sc.running)
			return
		if status == 'crash' and sc.stopped:
			# The oops that stopped the guest is already a row's, and
			# the kernel ran on past it: nothing else to blame.
			return
		if host:
			self.record(f'boot-{n}', 'error', f'{r.reason}: {HOST_FAULT} '
				    f'({sc.end_where}, no case running)', n, suite='cell')
			return
		open_seg = next((s for s in sc.segments if s.rc is None), None)
		if open_seg:
			key, suite, case = self.module_row(open_seg.module, open_seg.zsp)
			if key == open_seg.module:
				self.modules_done.add(open_seg.module)
		else:
			key, suite, case = 'cell.boot', 'cell', 'boot'
		if key not in self.fatal_rows:
			# Silence or a timeout: no line of the log says more.
			self.merge(key, suite, case, status, f'{status} {sc.end_where}: {r.reason}', n)

	@staticmethod
	def own_fatal(ev: console.CaseEvents) -> List[console.Event]:
		"""The fatal events of a case's window that can have stopped the
		guest: the oops a Z6 case announced cannot."""
		return ev.oopses[1:] if ev.expects_oops else ev.oopses

	def end_detail(self, r: qemu.BootResult, ev: console.CaseEvents, host: bool) -> str:
		if host:
			return f'{r.reason}: {HOST_FAULT}'
		fatal = self.own_fatal(ev)
		return fatal[0].describe() if fatal else r.reason

	# -- the resume loop -------------------------------------------------

	def run(self) -> int:
		a = self.args
		k = cache.key(a.kernel, a.initrd, a.kunit_tool, a.modules, a.timeout, a.silence,
			      qemu.Guest.of(a.profile), a.distinct_fault,
			      ','.join(sorted(self.only))) if a.store else ''
		earlier = cache.lookup(a.store, k) if k and not a.fresh else None
		if earlier:
			print(f'    {a.tree}-{a.alloc}: reused, every input as in {earlier} '
			      '(FRESH=1 boots again)',
			      file=sys.stderr, flush=True)
			self.dump(cache.copy(earlier, a.out))
			return 0
		self.boot_all()
		cell = self.write()
		if k and cache.storable(cell):
			cache.save(a.store, k, a.out)
		return 0

	def boot_all(self) -> None:
		a = self.args
		modules = a.modules.split()
		for n in range(1, a.max_boots + 1):
			skip = sorted(self.suite_cases | self.unselected())
			stem = os.path.join(a.out, f'boot-{n}')
			make_initrd(a.initrd, a.gen_init_cpio, modules, skip, stem + '.cpio')
			r = qemu.boot(a.kernel, stem + '.cpio', stem + '.log',
				      a.timeout, a.silence, guest=qemu.Guest.of(a.profile))
			os.unlink(stem + '.cpio')
			with open(stem + '.log', errors='replace') as f:
				sc = console.scan(f.read().splitlines())
			# Relative to the cell's directory (results.SCHEMA).
			self.boots.append({'boot': n, 'log': os.path.basename(stem) + '.log', **asdict(r)})
			# Named: the boot runs beside the next cell's build output.
			print(f'    {a.tree}-{a.alloc} boot {n}: {r.outcome} in {r.seconds:.1f}s'
			      + (f' ({r.reason})' if r.outcome != Outcome.POWEROFF else ''),
			      file=sys.stderr, flush=True)
			known = set(self.results)
			self.collect(n, stem, skip, r, sc)
			modules = [m for m in modules if m not in self.modules_done]
			if not self.boot_again(r, sc, known, modules):
				break
		self.finish()

	def selected(self, case: str) -> bool:
		return not self.only or case in self.only

	def unselected(self) -> Set[str]:
		"""The suite's cases --only plans out, as its source and every
		boot's zsp-cases lines name them."""
		if not self.only:
			return set()
		return (set(source_cases()) | set(self.expected)) - self.only

	def boot_again(self, r: qemu.BootResult, sc: console.Scan, known: Set[str],
		       modules: List[str]) -> bool:
		suite_done = any(s.module == SUITE_MODULE and s.rc is not None
				 for s in sc.segments)
		if r.outcome == Outcome.POWEROFF or suite_done and sc.done:
			return False
		if not sc.running and (r.outcome == Outcome.QEMU_ERROR
				       or not any(s.rc is None for s in sc.segments)):
			# It ended outside every module (kernel boot, shutdown), or
			# QEMU failed with no case to blame: a boot again would repeat it.
			return False
		if all(self.results[k].suite == 'cell' for k in set(self.results) - known):
			# No case or module got a result (the cell's own rows are no
			# progress): another boot would end the same way.
			return False
		left = [c for c in self.expected if c not in self.results and self.selected(c)]
		# Only the suite is left and every case it listed has a result.
		return bool(left) or not self.expected or any(m != SUITE_MODULE for m in modules)

	def finish(self) -> None:
		"""Every case the module listed has a row; so does a suite that
		listed nothing or reported nothing."""
		n = len(self.boots)
		# In the cell's directory, which the table names beside the row.
		log = self.boots[-1]['log'] if self.boots else '-'
		if not self.suite_loaded:
			why = f'{SUITE_MODULE} never loaded'
		elif not self.expected:
			why = 'the module printed no zsp-cases line'
		elif not self.suite_cases:
			why = 'KTAP missing or unreadable'
		else:
			why = ''
		if why:
			self.record(SUITE_MODULE, 'error',
				    f'no result from the suite ({why}); see {log}', n, suite='cell')
		last = self.boots[-1] if self.boots else {'outcome': '-', 'reason': ''}
		# A planned module besides the suite that never ran to its end nor
		# crashed (the boots ran out first) has no row of its own yet.
		for m in getattr(self.args, 'modules', '').split():
			key, suite, case = self.module_row(m, False)
			if m != SUITE_MODULE and m not in self.modules_done and key not in self.results:
				self.record(case, 'error', f'{m} never ran to its end; last boot {n} '
					    f"ended: {last['outcome']} {last['reason']}".strip(), n, suite=suite)
		for case, suite in self.expected.items():
			if case not in self.results and self.selected(case):
				self.record(case, 'error', f'{NEVER_STARTED}; '
					    f"last boot {n} ended: {last['outcome']} {last['reason']}".strip(),
					    n, suite=suite)

	def write(self) -> Row:
		# A case that crashed in its first boot is named by a later one.
		for r in self.results.values():
			if r.suite == '?':
				r.suite = self.suite_of.get(r.case, r.suite)
		out = {'kernel': self.args.kernel_version, 'tree': self.args.tree,
		       'profile': self.args.profile, 'allocator': self.args.alloc,
		       'not_available': self.args.not_available.split(),
		       'only': sorted(self.only), 'boots': self.boots,
		       'cases': [asdict(r) for r in self.results.values()]}
		self.dump(out)
		return out

	def dump(self, cell: Row) -> None:
		dump_json(os.path.join(self.args.out, 'cell.json'), cell)


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
	p.add_argument('--distinct-fault', action='store_true',
		       help='the oops of a Z6 case must name ZERO_SIZE_PTR (the tree has '
		       'the x86 patch; without this flag it must not)')


def run(args: argparse.Namespace) -> int:
	# SIGTERM unwinds through boot(), which kills QEMU on the way out.
	signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
	os.makedirs(args.out, exist_ok=True)
	return Cell(args).run()
