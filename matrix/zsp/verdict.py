# SPDX-License-Identifier: GPL-2.0
"""A boot's console scan and outcome -> a cell's rows. Pure: no process,
no file; runner.py runs the boots, handlers.py reads each module's part
of the console (kunit.py for KTAP) and hands the statuses here.

The console overrides kunit.py: an oops in a case's window is a crash, a
splat fails it, and a case that announced an expected oops (Z6) passes
only with exactly one oops, at ZERO_SIZE_PTR's address, in the zsp_fault
thread, of the announced access.

Nothing is lost: every case the module listed (zsp-cases), and every
case an upstream module's KTAP plan announced ("1..N"), ends with a
result or an error row; what the kernel printed outside every case fails
the module's row ("<module>.outside_cases"; "cell.boot" outside any
module); a case reported twice is an error; and a QEMU that failed or was
killed gives "error", never a kernel verdict.
"""

import re
from dataclasses import dataclass, field
from typing import Dict, FrozenSet, List, Optional, Sequence, Set, Tuple

from . import console, qemu
from .results import (HOST_FAULT, NEVER_STARTED, OUTSIDE, Outcome, Row, SUITE_MODULE,
		      Status, worse)

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
	# Where the report behind a crash, hang or splat died (console.Event.
	# where): apart from detail, which Z7 and the baselines compare.
	where: str = ''


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
		# Upstream's case for another kind of kernel or guest: never a
		# pass, and not a failure of this one (a skip of our own suite
		# still is).
		status, detail = 'n/a', f'needs {ev.needs_config}'
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


# Upstream's test_meminit prints no KTAP: one line says how it went.
MEMINIT_MODULE = 'test_meminit'


def meminit_verdict(seg: console.Segment, said: Optional[str]) -> Tuple[str, str]:
	"""test_meminit's own row, from @said: its summary line (console.MEMINIT)."""
	ok = seg.rc == 0 and said and 'passed' in said
	return 'pass' if ok else 'fail', said or f'insmod rc={seg.rc}'


@dataclass
class Rows:
	"""A cell's rows, and what its boots have shown so far that the next
	boot's plan and the last rows depend on."""
	# --only: the suite's cases this cell runs; the others are planned
	# out from the first boot and get no row (make bisect CASE=: one
	# case decides a step, so only it needs to boot).
	only: FrozenSet[str] = frozenset()
	# Row key -> result. A case's key is its name; a module's own row
	# is "<module>" or "<module>.outside_cases", the cell's "cell.<x>".
	results: Dict[str, CaseResult] = field(default_factory=dict)
	suite_of: Dict[str, str] = field(default_factory=dict)
	# Modules that ran to their end, or crashed: not loaded again.
	modules_done: Set[str] = field(default_factory=set)
	# Cases of zero_size_test with a result: skipped in later boots.
	suite_cases: Set[str] = field(default_factory=set)
	# Case -> suite: the union of every boot's zsp-cases lines.
	expected: Dict[str, str] = field(default_factory=dict)
	suite_loaded: bool = False
	# An upstream module's suites, (module, suite): the number of cases
	# its KTAP plan announced, and each case's name by its number, from
	# every boot (a module that crashed runs again in the next).
	plans: Dict[Tuple[str, str], int] = field(default_factory=dict)
	numbered: Dict[Tuple[str, str], Dict[int, str]] = field(default_factory=dict)
	# Rows written by the boot being collected, and those of them a
	# fatal event outside the cases went to.
	touched: Set[str] = field(default_factory=set)
	fatal_rows: Set[str] = field(default_factory=set)

	def begin_boot(self) -> None:
		self.touched = set()
		self.fatal_rows = set()

	def selected(self, case: str) -> bool:
		return not self.only or case in self.only

	def saw_segment(self, seg: console.Segment) -> None:
		"""What a module's part of the console tells whatever module it is."""
		if seg.rc is not None:
			self.modules_done.add(seg.module)
		if seg.module == SUITE_MODULE:
			self.suite_loaded = True
		for suite, cases in seg.expected.items():
			for case in cases:
				self.expected.setdefault(case, suite)
				self.suite_of.setdefault(case, suite)
		if seg.zsp or seg.module == SUITE_MODULE:
			return	# its zsp-cases lines list its cases, planned-out ones too
		for suite, count in seg.plans.items():
			self.plans[seg.module, suite] = count
		for suite, names in seg.numbered.items():
			for number, case in names.items():
				self.numbered.setdefault((seg.module, suite), {}).setdefault(number, case)

	def record(self, case: str, status: str, detail: str, n: int,
		   suite: Optional[str] = None, where: str = '') -> None:
		"""Sets a case's result (its key is its name)."""
		suite = suite or self.suite_of.get(case) or '?'
		self.results[case] = CaseResult(suite, case, status, detail, n, where)
		self.touched.add(case)

	def merge(self, key: str, suite: str, case: str, status: str, detail: str,
		  n: int, where: str = '') -> None:
		"""Adds to a row that may already hold something: worse wins, and the
		detail keeps every distinct reason."""
		old = self.results.get(key)
		self.touched.add(key)
		if not old:
			self.results[key] = CaseResult(suite, case, status, detail, n, where)
			return
		if status == 'pass':
			return
		if old.status == 'pass':
			old.status, old.detail, old.boot, old.where = status, detail, n, where
			return
		reasons = [old.detail, detail]
		if worse(status, old.status):
			old.status, old.boot, old.where = status, n, where or old.where
			reasons.reverse()
		old.detail = '; '.join(dict.fromkeys(d for d in reasons if d))

	def named(self) -> List[CaseResult]:
		"""Every row; a case that crashed in its first boot is named by a
		later one."""
		for r in self.results.values():
			if r.suite == '?':
				r.suite = self.suite_of.get(r.case, r.suite)
		return list(self.results.values())


def module_row(module: str, zsp: bool) -> Tuple[str, str, str]:
	"""(key, suite, case) of the row for what a module printed outside its
	cases: zero_size_test's "outside_cases"; an upstream module's own
	row (test_meminit has only that one)."""
	if zsp or module == SUITE_MODULE:
		return f'{module}.{OUTSIDE}', module, OUTSIDE
	return module, module, module


# -- one boot --------------------------------------------------------------

def judge(rows: Rows, case: str, kstatus: str, ev: Optional[console.CaseEvents],
	  n: int, module: str = '', distinct: bool = False) -> None:
	"""A case's row from kunit.py's status and its console window."""
	status = KUNIT_STATUS.get(kstatus, 'error')
	detail = '' if status != 'error' else f'kunit.py status {kstatus}'
	if ev and status == 'fail' and ev.failures:
		detail = ev.failures[0]
	if ev:
		status, detail = console_verdict(status, detail, ev, module, distinct)
	rows.record(case, status, detail, n, where=where_of(status, ev))


def ktap_rows(rows: Rows, n: int, seg: console.Segment, statuses: List[Tuple[str, str]],
	      skip: Sequence[str], sc: console.Scan, distinct: bool) -> None:
	"""The rows of a KTAP module's cases: @statuses, (case, kunit.py's
	status) in the KTAP's order, each time it reports the case."""
	names = [case for case, _ in statuses]
	twice = {c for c in names if names.count(c) > 1}
	twice |= {c for c, k in seg.results.items() if k > 1}
	for case, kstatus in dict(statuses).items():
		if case in skip or case in rows.results:
			continue
		ev = sc.cases.get(case)
		if ev and ev.after_stop:
			continue	# ran in a damaged kernel: again next boot
		if case in twice:
			rows.record(case, 'error', f'{seg.module} reported {case} twice '
				    f'in one KTAP (boot {n})', n)
		elif kstatus == 'ERROR' and (not ev or not ev.finished):
			continue	# never finished: judged below
		elif seg.zsp and kstatus == 'PASS' and not (ev and ev.started):
			rows.record(case, 'error', 'passed without printing zsp-start: '
				    'its console window is unknown', n)
		else:
			judge(rows, case, kstatus, ev, n, seg.module, distinct)
		if seg.zsp or seg.module == SUITE_MODULE:
			rows.suite_cases.add(case)
	if not statuses and not seg.zsp and seg.module != SUITE_MODULE and seg.rc is not None:
		# An upstream module that ran to its end and reported nothing
		# (insmod failed, or kunit.py could read no KTAP): its cases are
		# not all passing, they are unknown.
		key, suite, case = module_row(seg.module, False)
		rows.merge(key, suite, case, 'error', f'no case result from {seg.module} '
			   f'(insmod rc={seg.rc}): KTAP missing or unreadable (boot {n})', n)


def after_segments(rows: Rows, n: int, skip: Sequence[str], r: qemu.BootResult,
		   sc: console.Scan) -> None:
	"""What a boot shows beyond its modules' own reports, once every
	segment has its rows: lost result lines, cases started twice, what
	the kernel printed outside every case, and how the boot ended."""
	unfinished(rows, n, skip, sc)
	for case in dict.fromkeys(sc.duplicates):
		rows.record(case, 'error', f'zsp-start printed twice in boot {n}: '
			    'the module ran the case twice', n)
		rows.suite_cases.add(case)
	outside(rows, n, sc)
	if r.outcome != Outcome.POWEROFF:
		blame_end(rows, n, skip, r, sc)


def unfinished(rows: Rows, n: int, skip: Sequence[str], sc: console.Scan) -> None:
	"""A case that started, is not the one the boot ended in, and has no
	result line: its "ok" line was lost. An error, never a silent gap."""
	for case, ev in sc.cases.items():
		if (ev.started and not ev.finished and case != sc.running
		    and not ev.after_stop and case not in skip and case not in rows.touched):
			rows.record(case, 'error', f'no result from the suite: started '
				    f'in boot {n}, printed no ok/not ok line', n)
			rows.suite_cases.add(case)


def outside(rows: Rows, n: int, sc: console.Scan) -> None:
	seg_zsp = {s.module: s.zsp for s in sc.segments}
	for o in sc.outside:
		if o.module is None:
			key, suite, case = 'cell.boot', 'cell', 'boot'
		else:
			key, suite, case = module_row(o.module, seg_zsp.get(o.module, False))
		status = EVENT_STATUS[o.event.kind]
		rows.merge(key, suite, case, status,
			   f'{status} {o.where}: {o.event.describe()}', n, o.event.where)
		if o.event.fatal:
			rows.fatal_rows.add(key)


def blame_end(rows: Rows, n: int, skip: Sequence[str], r: qemu.BootResult,
	      sc: console.Scan) -> None:
	"""The boot ended without powering off: blame what was running."""
	status = OUTCOME_STATUS.get(r.outcome, Status.ERROR)
	host = status == 'error'
	if sc.running in skip:
		# The plan skipped it and it ran: its result stands, the boot
		# proves nothing about it.
		rows.record(f'boot-{n}', 'error', f'{r.outcome} in {sc.running}, '
			    'which zero_size_plan was to skip', n, suite='cell')
		return
	if sc.running:
		ev = sc.cases[sc.running]
		if ev.after_stop or (status == 'crash' and sc.stopped
				     and not own_fatal(ev)):
			# The guest was stopped for an oops before this case
			# started (the kernel runs on for GRACE_S after one):
			# not its crash. It has no result yet; the next boot
			# runs it again. A crash no line announced (a triple
			# fault) stopped nothing before it: it is the case's.
			return
		rows.record(sc.running, status, end_detail(r, ev, host), n,
			    where='' if host else where_of(status, ev))
		rows.suite_cases.add(sc.running)
		return
	if status == 'crash' and sc.stopped:
		# The oops that stopped the guest is already a row's, and
		# the kernel ran on past it: nothing else to blame.
		return
	if host:
		rows.record(f'boot-{n}', 'error', f'{r.reason}: {HOST_FAULT} '
			    f'({sc.end_where}, no case running)', n, suite='cell')
		return
	open_seg = next((s for s in sc.segments if s.rc is None), None)
	if open_seg:
		key, suite, case = module_row(open_seg.module, open_seg.zsp)
		if key == open_seg.module:
			rows.modules_done.add(open_seg.module)
	else:
		key, suite, case = 'cell.boot', 'cell', 'boot'
	if key not in rows.fatal_rows:
		# Silence or a timeout: no line of the log says more.
		rows.merge(key, suite, case, status, f'{status} {sc.end_where}: {r.reason}', n)


def own_fatal(ev: console.CaseEvents) -> List[console.Event]:
	"""The fatal events of a case's window that can have stopped the
	guest: the oops a Z6 case announced cannot."""
	return ev.oopses[1:] if ev.expects_oops else ev.oopses


def where_of(status: str, ev: Optional[console.CaseEvents]) -> str:
	"""Where the report behind a row that did not pass died: the first
	fatal event of its window for a crash or hang, else its first splat
	('' for a pass, or a failed expectation with no report)."""
	if not ev or status in ('pass', 'skip', 'n/a'):
		return ''
	events = ev.oopses if status in ('crash', 'hang') and ev.oopses else ev.splats
	return next((e.where for e in events if e.where), '')


def end_detail(r: qemu.BootResult, ev: console.CaseEvents, host: bool) -> str:
	if host:
		return f'{r.reason}: {HOST_FAULT}'
	fatal = own_fatal(ev)
	return fatal[0].describe() if fatal else r.reason


# -- the cell's end -----------------------------------------------------------

def finish(rows: Rows, boots: List[Row], modules: Sequence[str]) -> None:
	"""Every case the module listed has a row, and every case an
	upstream module's KTAP plan announced; so does a suite that listed
	nothing or reported nothing, and each of the planned @modules."""
	n = len(boots)
	# In the cell's directory, which the table names beside the row.
	log = boots[-1]['log'] if boots else '-'
	if not rows.suite_loaded:
		why = f'{SUITE_MODULE} never loaded'
	elif not rows.expected:
		why = 'the module printed no zsp-cases line'
	elif not rows.suite_cases:
		why = 'KTAP missing or unreadable'
	else:
		why = ''
	if why:
		rows.record(SUITE_MODULE, 'error',
			    f'no result from the suite ({why}); see {log}', n, suite='cell')
	last = boots[-1] if boots else {'outcome': '-', 'reason': ''}
	ended = f"last boot {n} ended: {last['outcome']} {last['reason']}".strip()
	# A planned module besides the suite that never ran to its end nor
	# crashed (the boots ran out first) has no row of its own yet.
	for m in modules:
		key, suite, case = module_row(m, False)
		if m != SUITE_MODULE and m not in rows.modules_done and key not in rows.results:
			rows.record(case, 'error', f'{m} never ran to its end; {ended}', n, suite=suite)
	for case, suite in rows.expected.items():
		if case not in rows.results and rows.selected(case):
			rows.record(case, 'error', f'{NEVER_STARTED}; {ended}', n, suite=suite)
	for (module, suite), count in rows.plans.items():
		unreported(rows, module, suite, count, n, ended)


def has_row(rows: Rows, case: str) -> bool:
	"""A case of an upstream module has a verdict: its own row, or (a
	parameterised case, which kunit.py reports by its parameters) rows
	of the group its name heads."""
	return case in rows.results or any(r.suite == case for r in rows.results.values())


def unreported(rows: Rows, module: str, suite: str, count: int, n: int,
	       ended: str) -> None:
	"""Every case an upstream suite's KTAP plan announced (@count) and
	no boot gave a verdict: an error row, never a gap. As with the
	suite's own cases: a result line lost, the module stopped before its
	end (a hang, a crash it never got past), or the case ran only after
	the kernel was stopped. A case no result line ever named is known by
	its number: "#k"."""
	names = rows.numbered.get((module, suite), {})
	missing = [k for k in range(1, count + 1) if k not in names or not has_row(rows, names[k])]
	for k in missing:
		case = names.get(k, '')
		which = f'case {k} ({case})' if case else f'case {k}'
		detail = (f'no result from {module}: its KTAP plan (1..{count}) announced '
			  f'{which}, which gave no verdict ({count - len(missing)} of {count} '
			  f'did); {ended}')
		if case:
			rows.record(case, 'error', detail, n, suite=suite)
		else:
			rows.merge(f'{suite}.#{k}', suite, f'#{k}', 'error', detail, n)
