# SPDX-License-Identifier: GPL-2.0
"""Reads a guest's console log: which module and case ran when, and what
the kernel printed meanwhile (oopses, splats).

KTAP itself is left to the tree's kunit.py; this module only cuts the log
into per-module segments for it and attributes kernel messages to the
test case that was running when they appeared. Nothing the kernel prints
is dropped: what falls in no case's window is kept in Scan.outside with
the module and the case it came after.

Windows: zero_size_test's cases print "# <case>: zsp-start" first and
their "ok N <case>" line last (after draining RCU-deferred frees and
system_wq), so everything between the two is the case's, whichever thread
printed it. Upstream KUnit modules (slub_kunit) print no start line; there
a message belongs to the case whose result line follows it, as kunit.py
files log lines too. Nor do they list their cases: each suite's KTAP plan
("1..N") and its numbered result lines are kept (Segment.plans), so that
a case that never reported is known to be missing.
"""

import re
from dataclasses import dataclass, field
from typing import Dict, List, Optional, Tuple

MODULE_BEGIN = re.compile(r'zsp-harness: begin (\S+)')
MODULE_END = re.compile(r'zsp-harness: end (\S+) rc=(\d+)')
DONE = re.compile(r'zsp-harness: done')
# What qemu.py writes before the guest's last bytes when they end in no
# newline: a line cut where QEMU was stopped (or quit), whose end never
# came. Not the guest's to say, so never a result: "ok 9 z5_cache_account"
# cut to "ok 9 z5_ca" named a case that does not exist (7.3, 2026-12-07).
CUT = 'zsp-host: cut off when the guest stopped: '
# printk's "[    1.234567] " when CONFIG_PRINTK_TIME is on.
TIMESTAMP = r'(?:\[\s*\d+\.\d+\] ?)?'
CASE_START = re.compile(r'# (\w+): zsp-start')
EXPECT_OOPS = re.compile(r'# (\w+): zsp-expect-oops(?: (read|write))?(?: at (0x[0-9a-f]+))?')
# From each suite's suite_init: the cases the module will report on.
ZSP_CASES = re.compile(r'(?:^|[\s:\]])zsp-cases (\w+):((?:\s+\w+)*)\s*$')
# Group 1 is the indentation: a case's result is nested in its suite's;
# group 2 its number in the suite, group 3 its name. A case name may
# hold '-' (kfence_test's "test_double_free-memcache").
CASE_RESULT = re.compile(r'^' + TIMESTAMP + r'(\s*)(?:not )?ok (\d+) (\w[\w-]*)')
# A suite's KTAP header and plan (lib/kunit/test.c: kunit_print_suite_start):
# "    # Subtest: slub_test", "    1..15", at one indentation; 7.x puts
# "    # module: slub_kunit" between them. A parameterised case's own
# "# Subtest:" is nested deeper, in its suite's.
SUBTEST = re.compile(r'^' + TIMESTAMP + r'(\s*)# Subtest: (\S+)')
PLAN = re.compile(r'^' + TIMESTAMP + r'(\s*)1\.\.(\d+)\s*$')
# An upstream test's case that needs another config (KASAN's
# KASAN_TEST_NEEDS_CONFIG_ON/OFF): "ok 7 name # SKIP Test requires CONFIG_X=n".
NEEDS_CONFIG = re.compile(r'# SKIP Test requires (CONFIG_\w+=\w+)\s*$')
# An upstream case that needs what no guest of the harness has, by its
# exact skip line, and what that is: slub_kunit's
# test_kmalloc_nolock_and_friends_perf (7.x) needs a hardware cycle
# counter, and QEMU's TCG emulates no PMU. Any other skip stays a skip.
NEEDS_GUEST = ((re.compile(r'# SKIP Failed to enable perf event, skipping\s*$'),
		'a CPU cycle counter: QEMU TCG emulates no PMU'),)


def needs(line: str) -> str:
	"""What a skipped upstream case's result @line says it needs that
	this kernel or guest lacks ('': an ordinary skip)."""
	m = NEEDS_CONFIG.search(line)
	if m:
		return f'{m.group(1)}: not this kernel'
	return next((what for pattern, what in NEEDS_GUEST if pattern.search(line)), '')
FAILURE = re.compile(r'# (\w[\w-]*): ((?:EXPECTATION|ASSERTION) FAILED at .*)')
# die() prints "<what>: <code> [#<n>] ..." for every oops on x86.
FATAL = re.compile(r'\[#\d+\]')
PANIC = re.compile(r'Kernel panic - not syncing')
# A hang the kernel reports: a soft lockup, or an RCU stall (a CPU spinning
# with interrupts off shows no soft lockup; another CPU reports the stall).
SOFT_LOCKUP = re.compile(r'BUG: soft lockup|rcu: INFO: \S+ (?:self-)?detected stalls? on CPU')
# The first line of an oops says what happened; FATAL comes a few lines on.
OOPS_HEAD = re.compile(r'BUG: |kernel BUG at|divide error|general protection fault|'
		       r'invalid opcode|stack segment')
# kmemleak's complaints (mm/kmemleak.c: kmemleak_warn(), a stack dump
# follows, and the allocation failure before kmemleak_disable()): a free
# or an allocation its records do not match, such as an object that
# overlaps one still allocated. Not "Cannot allocate a scan area": under
# memory pressure kmemleak scans the whole object instead, and goes on.
KMEMLEAK_WARN = (r'kmemleak: (?:Cannot insert|Cannot allocate a kmemleak_object|'
		 r'Found object by alias|Scan area larger than object|'
		 r'(?:Partially freeing|Freeing|Trying to color|Adding scan area to|'
		 r'Setting excess_ref on|Not scanning|Updating stack trace for) unknown object)')
# SLAB's debug reports (DEBUG_SLAB, mm/slab.c: slab_error() and the
# poison and red zone checks), each with a stack dump or an object dump.
SLAB_DEBUG = (r"slab error in \w+\(\): cache `|Slab corruption \(|"
	      r'slab: double free detected in cache|kfree_debugcheck: out of range ptr')
SLAB_DEBUG_RE = re.compile(SLAB_DEBUG)
# lockdep's reports (kernel/locking/lockdep.c; "suspicious RCU usage" is
# RCU-lockdep's, lockdep_rcu_suspicious()): a rule of "=", one of these
# lines, the kernel's ident, a rule of "-", the report and (all but the
# one at a return to user space) a stack dump. Each is a locking bug the
# kernel survived, a splat as WARN()'s is: "WARNING: CPU: " is only
# WARN()'s. Whole lines at the start, as pr_warn() prints them: a KUnit
# log line (indented, "# case: ...") or the harness's own cannot match.
# lockdep's "BUG: MAX_LOCKDEP_* too low!" and "[ BUG: Invalid wait
# context ]" are splats already ("BUG: ").
# The caller id CONFIG_PRINTK_CALLER adds after the time: "[  T70]".
CALLER = r'(?:\[\s*[TC]\d+\] ?)?'
LOCKDEP = re.compile(r'^' + TIMESTAMP + CALLER + r'(WARNING: (?:'
		     r'possible circular locking dependency detected|'
		     r'possible recursive locking detected|'
		     r'inconsistent lock state|'
		     r'possible irq lock inversion dependency detected|'
		     r'[\w-]+-safe -> [\w-]+-unsafe lock order detected|'
		     r'bad unlock balance detected!|'
		     r'bad contention detected!|'
		     r'held lock freed!|'
		     r'\S+/\d+ still has locks held!|'
		     r'lock held when returning to user space!|'
		     r'suspicious RCU usage|'
		     r'chain_key collision|'
		     r'Nested lock was not taken))\s*$')
# The line of a lockdep report that names its task ("<comm>/<pid> is
# trying to acquire lock:", "... [HC0[0]:SC0[0]:HE1:SE1] takes:", the
# chain_key collision's "<comm>/<pid>: "): the report at a return to user
# space has no stack dump, so no "Comm:" line.
LOCKDEP_TASK = re.compile(r'^' + TIMESTAMP + CALLER + r'(\S+)/\d+(?: is (?:trying|freeing|leaving)|'
			  r' just changed| \[HC\d|:\s*$)')
# SLUB's debug reports: "BUG <cache> (<taint>): <what>", no colon after BUG.
SPLAT = re.compile(r'WARNING: CPU: |BUG: |kernel BUG at|INFO: task .* blocked|'
		   r'BUG \S+ \([^)]*\): |' + KMEMLEAK_WARN + '|' + SLAB_DEBUG)
# kmemleak_disable(): after this line no scan can run (its debugfs file
# refuses "scan"), so the leak check after the suite has nothing to judge.
KMEMLEAK_OFF = re.compile(r'kmemleak: Kernel memory leak detector disabled')
KMEMLEAK_COMPLAINT = re.compile(KMEMLEAK_WARN + '.*')
# The oops head and FATAL are at most this many lines apart (x86 page fault:
# head, two #PF lines, the page table walk, then "Oops: ... [#n]").
HEAD_SPAN = 8
PF_ACCESS = re.compile(r'#PF: supervisor (read|write) access')
# The second line of a KASAN report: what was accessed, where, by whom.
KASAN_ACCESS = re.compile(r'^(Read|Write) of size \d+ at addr ([0-9a-f]+) by task ')
# 6.11 added the UID: "CPU: 0 UID: 0 PID: 56 Comm: zsp_fault ...".
COMM = re.compile(r'CPU: \d+ (?:UID: \d+ )?PID: \d+ Comm: (\S+)')
# Where a report died: its "RIP: 0010:symbol+off/len" line, and the call
# trace's frames after "Call Trace:" (a frame with "? " is a guess of the
# unwinder's, left out; "[module]" names a module's function).
RIP = re.compile(r'^RIP: [0-9a-f]{4}:(\S+\+0x[0-9a-f]+/0x[0-9a-f]+)')
FRAME = re.compile(r'^(\? )?([\w.$]+\+0x[0-9a-f]+/0x[0-9a-f]+(?: \[\w+\])?)$')
TRACE_MARKS = ('<TASK>', '<IRQ>', '</IRQ>', '<NMI>', '</NMI>', '<SOFTIRQ>', '</SOFTIRQ>')
# A "where" names the RIP and at most this many frames: up to the first
# in a module (the test that called in), which is the line a kernel
# developer looks for first.
WHERE_FRAMES = 6
# An x86 page fault's first line names the address it could not handle.
FAULT_ADDRESS = re.compile(r'address: ([0-9a-f]{16})\b')
SENTINEL = 0x10		# ZERO_SIZE_PTR on every architecture
# The series' x86 patch (its subject: DISTINCT_FAULT) adds this line after
# the oops's first one when the address is ZERO_SIZE_PTR's (DESIGN.md Z6).
SENTINEL_NAMED = re.compile(r'#PF: address is ZERO_SIZE_PTR\b')
DISTINCT_FAULT = 'x86/mm: name ZERO_SIZE_PTR in the oops of a fault at its address'
# Without ACPI, 6.12 says "reboot: Power off not available: System halted instead".
POWER_DOWN = re.compile(r'reboot: (Power down|System halted|Power off not available)')
MEMINIT = re.compile(r'test_meminit: (all \d+ tests passed!|failures: .*)')
# guest-init's kmemleak report, run as if it were a module (debug profile).
KMEMLEAK_MODULE = 'kmemleak'
LEAK = re.compile(r'unreferenced object (0x[0-9a-f]+) \(size (\d+)\):')
LEAK_COMM = re.compile(r'comm "([^"]*)"')
LEAK_FRAME = re.compile(r'\[<[0-9a-f]+>\] (\S+)( \[\w+\])?')
# The suite's modules (kunit/: zero_size_test, _plan, _bench), and a
# backtrace frame in one of them.
SUITE_MODULE_NAME = r'zero_size_\w+'
SUITE_FRAME = re.compile(rf'\[{SUITE_MODULE_NAME}\]')


@dataclass
class Leak:
	"""One object of a kmemleak report."""
	address: str
	size: int
	comm: str = ''
	frames: List[str] = field(default_factory=list)

	@property
	def suites(self) -> bool:
		"""Allocated by the suite: a frame of its backtrace is in one of
		its modules, whichever task ran it (a KUnit case's thread, insmod
		in suite_init, zsp_fault). The task alone says nothing: upstream's
		KUnit tests run in kunit_try_catch too."""
		return any(SUITE_FRAME.search(f) for f in self.frames)

	def describe(self) -> str:
		where = next((f for f in self.frames if SUITE_FRAME.search(f)), '')
		where = where or next((f for f in self.frames if 'kmalloc' not in f
				       and 'kmem_cache' not in f and 'slab' not in f), '?')
		return f'{self.address} (size {self.size}, comm {self.comm}, from {where})'


def leaks(lines: List[str]) -> List[Leak]:
	"""The objects of a kmemleak report, with their task and backtrace."""
	out: List[Leak] = []
	for line in lines:
		m = LEAK.search(line)
		if m:
			out.append(Leak(m.group(1), int(m.group(2))))
		elif out:
			c = LEAK_COMM.search(line)
			if c and not out[-1].comm:
				out[-1].comm = c.group(1)
			f = LEAK_FRAME.search(line)
			if f:
				out[-1].frames.append(f.group(1) + (f.group(2) or ''))
	return out


@dataclass
class Event:
	"""One thing the kernel reported: an oops, a panic, a soft lockup or a
	splat (a warning it survived)."""
	kind: str		# oops, panic, lockup, splat
	line: str		# the line that says what happened
	comm: str = ''		# the task it happened in, from "CPU: n PID: n Comm: x"
	access: str = ''	# read or write, from "#PF: supervisor ... access" or KASAN
	address: str = ''	# the address a KASAN report names
	names_sentinel: bool = False	# an oops with SENTINEL_NAMED's line
	rip: str = ''		# "symbol+off/len" of its RIP: line
	frames: List[str] = field(default_factory=list)	# its call trace's reliable frames

	@property
	def fatal(self) -> bool:
		return self.kind != 'splat'

	@property
	def where(self) -> str:
		"""Where it died: the RIP, then the call chain up to the first
		frame in a module ("virt_to_folio+0x31/0x3f < virt_to_slab+0x5/0x15
		< kmem_cache_free+0x2d/0xc3 < free_into_cache_round+0x8a/0x12d
		[zero_size_test]"); '' when the console showed neither."""
		chain: List[str] = []
		for f in self.frames[:WHERE_FRAMES]:
			chain.append(f)
			if f.endswith(']'):
				break
		return ' < '.join(([self.rip] if self.rip else []) + chain)

	def describe(self) -> str:
		return f'{self.line} (Comm: {self.comm})' if self.comm else self.line


@dataclass
class CaseEvents:
	"""What the console showed while one case ran."""
	started: bool = False
	finished: bool = False
	expects_oops: bool = False
	oopses: List[Event] = field(default_factory=list)	# fatal events
	splats: List[Event] = field(default_factory=list)
	access: str = ''	# what zsp-expect-oops announced: read or write
	# ... and where: the sentinel unless it named another address.
	fault_at: int = SENTINEL
	failures: List[str] = field(default_factory=list)	# KUnit's FAILED lines
	needs_config: str = ''	# skipped: what it needs (needs(): a config, the guest)
	# Started after an event that stops the boot (an oops no case
	# announced, a panic, a lockup): the kernel ran on for the harness's
	# grace (qemu.GRACE_S), damaged, so what the case did proves nothing.
	after_stop: bool = False


@dataclass
class Outside:
	"""An event in no case's window."""
	module: Optional[str]	# None: no module was loading (boot, shutdown)
	where: str		# "after z2_kfree", "during boot", ...
	event: Event


@dataclass
class Segment:
	"""The console lines of one module load."""
	module: str
	lines: List[str] = field(default_factory=list)
	rc: Optional[int] = None
	# The module speaks the zsp protocol (zsp-cases / zsp-start lines).
	zsp: bool = False
	expected: Dict[str, List[str]] = field(default_factory=dict)	# suite -> cases
	# Case-level KTAP result lines per name: more than one is an error.
	results: Dict[str, int] = field(default_factory=dict)
	last_case: Optional[str] = None
	# Events awaiting the result line of the case they happened in.
	pending: List[Event] = field(default_factory=list)
	# Each suite's KTAP plan: how many cases its "1..N" announced, and
	# the case-level result lines by number. An upstream module has no
	# zsp-cases line: its plan is what says a case is missing.
	plans: Dict[str, int] = field(default_factory=dict)
	numbered: Dict[str, Dict[int, str]] = field(default_factory=dict)
	# The suite whose cases' results come now, and their indentation.
	suite: Optional[Tuple[str, str]] = None


@dataclass
class Scan:
	segments: List[Segment] = field(default_factory=list)
	cases: Dict[str, CaseEvents] = field(default_factory=dict)
	# The case that was running when the log ended, if any.
	running: Optional[str] = None
	# Events outside every case window (boot, module load, between cases).
	outside: List[Outside] = field(default_factory=list)
	# Cases that printed zsp-start more than once.
	duplicates: List[str] = field(default_factory=list)
	meminit: Optional[str] = None
	# Why kmemleak turned itself off during the boot: its complaint before
	# KMEMLEAK_OFF's line (or that line itself); None while it runs.
	kmemleak_off: Optional[str] = None
	done: bool = False
	# Where the log ended, when no case was running (see _Scanner.where).
	end_where: str = ''
	# An event that stops the boot (CaseEvents.after_stop) was seen, and
	# is some row's: a case's, a module's or outside the cases.
	stopped: bool = False

	def expected(self) -> Dict[str, str]:
		"""Case -> suite, from every zsp-cases line of the log."""
		return {c: suite for seg in self.segments
			for suite, cases in seg.expected.items() for c in cases}


def repeated(last: Optional[Event], ev: Event) -> bool:
	"""ev is DEBUG_SLAB's report again: the last splat filed at the
	same place (in a case: its last splat, an oops between the two
	counts on its own) is the same report.

	Vanilla's red zone checks print one 600,000 times a boot; filed
	once, it is one splat and one object, wherever it falls (a case, a
	module's load, between cases). Every other splat counts one by one:
	Z6 wants exactly one KASAN report, not two.
	"""
	return (last is not None and not ev.fatal and last.line == ev.line
		and SLAB_DEBUG_RE.search(ev.line) is not None)


class _Scanner:
	def __init__(self) -> None:
		self.s = Scan()
		self.seg: Optional[Segment] = None
		self.current: Optional[str] = None
		self.last_module: Optional[str] = None
		self.n = 0
		# An oops head awaiting its FATAL line: (line number, text, the
		# splat it was filed as meanwhile).
		self.head: Optional[Tuple[int, str, Optional[Event]]] = None
		self.access = ''
		self.named = False	# SENTINEL_NAMED since the oops head
		self.stopped = False	# an event that stops the boot was seen
		# The newest event, until its "Comm:" line names the task.
		self.last: Optional[Event] = None
		# The report whose call trace the console is printing, if any.
		self.tracing: Optional[Event] = None
		self.failing: Optional[CaseEvents] = None
		self.kmemleak_said = ''	# kmemleak's last complaint

	# -- where an event goes ---------------------------------------------

	def where(self) -> str:
		if self.seg:
			c = self.seg.last_case
			return f'after {c}' if c else f'in {self.seg.module}, before any case result'
		if self.s.done:
			return 'after zsp-harness: done'
		if self.last_module:
			return f'after module {self.last_module}'
		return 'during boot'

	def flush_pending(self) -> None:
		if self.seg:
			for ev in self.seg.pending:
				self.s.outside.append(Outside(self.seg.module, self.where(), ev))
			self.seg.pending = []

	def attach(self, ev: Event) -> None:
		self.last = ev
		if self.current:
			ce = self.s.cases[self.current]
			# qemu.py lets the first oops of a case that announced one pass.
			if ev.fatal and not (ev.kind == 'oops' and ce.expects_oops and not ce.oopses):
				self.stopped = True
			if not repeated(ce.splats[-1] if ce.splats else None, ev):
				(ce.oopses if ev.fatal else ce.splats).append(ev)
			return
		if ev.fatal:
			self.stopped = True
		if self.seg and not self.seg.zsp:
			if not repeated(self.seg.pending[-1] if self.seg.pending else None, ev):
				self.seg.pending.append(ev)
			return
		out = Outside(self.seg.module if self.seg else None, self.where(), ev)
		last = self.s.outside[-1] if self.s.outside else None
		if not (last and (last.module, last.where) == (out.module, out.where)
			and repeated(last.event, ev)):
			self.s.outside.append(out)

	def retract(self, ev: Event) -> None:
		"""An oops head is filed as a splat until its FATAL line comes."""
		lists = [c.splats for c in self.s.cases.values()]
		if self.seg:
			lists.append(self.seg.pending)
		for lst in lists:
			for i, e in enumerate(lst):
				if e is ev:
					del lst[i]
					return
		self.s.outside = [o for o in self.s.outside if o.event is not ev]

	# -- lines -------------------------------------------------------------

	def feed(self, line: str) -> None:
		self.n += 1
		if self.harness_line(line):
			return
		if self.seg:
			self.seg.lines.append(line)
		if self.protocol_line(line):
			return
		m = MEMINIT.search(line)
		if m:
			self.s.meminit = m.group(1)
		self.kmemleak_line(line)
		self.kernel_line(line)

	def kmemleak_line(self, line: str) -> None:
		"""Keep kmemleak's last complaint: the reason when it stops."""
		if self.s.kmemleak_off is not None:
			return
		m = KMEMLEAK_COMPLAINT.search(line)
		if m:
			self.kmemleak_said = m.group(0).strip()
		elif KMEMLEAK_OFF.search(line):
			self.s.kmemleak_off = self.kmemleak_said or KMEMLEAK_OFF.pattern

	def harness_line(self, line: str) -> bool:
		if line.startswith(CUT):
			return True
		m = MODULE_BEGIN.search(line)
		if m:
			self.flush_pending()
			self.seg = Segment(m.group(1))
			self.s.segments.append(self.seg)
			self.current = None
			return True
		m = MODULE_END.search(line)
		if m:
			if self.seg:
				self.seg.rc = int(m.group(2))
				self.flush_pending()
				self.last_module = self.seg.module
			self.seg = None
			self.current = None
			return True
		if DONE.search(line):
			self.flush_pending()
			self.seg = None
			self.current = None
			self.s.done = True
			return True
		return False

	def protocol_line(self, line: str) -> bool:
		m = ZSP_CASES.search(line)
		if m and self.seg:
			self.become_zsp()
			self.seg.expected[m.group(1)] = m.group(2).split()
			return True
		m = CASE_START.search(line)
		if m:
			self.become_zsp()
			name = m.group(1)
			if name in self.s.cases and self.s.cases[name].started:
				self.s.duplicates.append(name)
			self.s.cases[name] = CaseEvents(started=True, after_stop=self.stopped)
			self.current = name
			return True
		m = EXPECT_OOPS.search(line)
		if m and m.group(1) == self.current:
			ce = self.s.cases[self.current]
			ce.expects_oops = True
			ce.access = m.group(2) or ''
			ce.fault_at = int(m.group(3), 16) if m.group(3) else SENTINEL
			return True
		m = FAILURE.search(line)
		if m:
			self.failing = self.s.cases.setdefault(m.group(1), CaseEvents())
			self.failing.failures.append(m.group(2).strip())
			return True
		m = CASE_RESULT.search(line)
		if self.failing and not m and line.strip():
			# KUnit's "Expected ..." line after the FAILED one.
			self.failing.failures[-1] += ': ' + line.strip()
		self.failing = None
		if m:
			self.numbered(m.group(1), int(m.group(2)), m.group(3))
			self.result(m.group(3), bool(m.group(1)), needs(line))
			return True
		return self.suite_line(line)

	def suite_line(self, line: str) -> bool:
		"""A suite's "# Subtest:" header or its plan: which suite the
		result lines that follow belong to, and how many it announced."""
		seg = self.seg
		if not seg:
			return False
		m = SUBTEST.search(line)
		if m:
			if not seg.suite or len(m.group(1)) <= len(seg.suite[1]):
				seg.suite = (m.group(2), m.group(1))
			return True
		m = PLAN.search(line)
		if m and seg.suite and m.group(1) == seg.suite[1] and seg.suite[0] not in seg.plans:
			seg.plans[seg.suite[0]] = int(m.group(2))
			return True
		return False

	def numbered(self, indent: str, number: int, name: str) -> None:
		"""A result line at the open suite's indentation is one of its
		cases'; one less indented is the suite's own: the suite ended."""
		seg = self.seg
		if not seg or not seg.suite:
			return
		suite, level = seg.suite
		if indent == level:
			seg.numbered.setdefault(suite, {}).setdefault(number, name)
		elif len(indent) < len(level):
			seg.suite = None

	def become_zsp(self) -> None:
		if self.seg and not self.seg.zsp:
			# What came before the module's first zsp line came during its load.
			self.flush_pending()
			self.seg.zsp = True

	def result(self, name: str, nested: bool, needs_config: str = '') -> None:
		seg = self.seg
		if seg and nested:
			seg.results[name] = seg.results.get(name, 0) + 1
		if name == self.current:
			self.s.cases[name].finished = True
			self.current = None
			if seg:
				seg.last_case = name
		elif seg and nested and not seg.zsp:
			ce = self.s.cases.setdefault(name, CaseEvents())
			ce.finished = True
			ce.needs_config = needs_config
			for ev in seg.pending:
				(ce.oopses if ev.fatal else ce.splats).append(ev)
			seg.pending = []
			seg.last_case = name

	def trace_line(self, text: str) -> bool:
		"""Takes @text if it is a RIP: line or a frame of the call trace
		being printed (where_of()); whether it did."""
		m = RIP.match(text)
		if m:
			if self.last and not self.last.rip:
				self.last.rip = m.group(1)
			return True
		if text == 'Call Trace:':
			self.tracing = self.last if self.last and not self.last.frames else None
			return True
		if not self.tracing:
			return False
		m = FRAME.match(text)
		if m:
			if not m.group(1):
				self.tracing.frames.append(m.group(2))
			return True
		if text in TRACE_MARKS:
			return True
		self.tracing = None	# </TASK>, "Modules linked in:", anything else
		return text == '</TASK>'

	def kernel_line(self, line: str) -> None:
		text = line.strip()
		if self.head and self.n - self.head[0] > HEAD_SPAN:
			self.head = None
		if self.trace_line(text):
			return
		m = COMM.search(line)
		if m and self.last and not self.last.comm:
			self.last.comm = m.group(1)
			return
		m = PF_ACCESS.search(line)
		if m:
			self.access = m.group(1)
			return
		if SENTINEL_NAMED.search(line):
			self.named = True
			return
		m = KASAN_ACCESS.search(text)
		if m and self.last and self.last.line.startswith('BUG: KASAN:') and not self.last.address:
			self.last.access, self.last.address = m.group(1).lower(), m.group(2)
			return
		m = LOCKDEP_TASK.search(line)
		if m and self.last and not self.last.comm and LOCKDEP.search(self.last.line):
			self.last.comm = m.group(1)
			return
		lockdep = LOCKDEP.search(line)
		if lockdep:
			self.attach(Event('splat', lockdep.group(1)))
		elif SOFT_LOCKUP.search(line):
			self.attach(Event('lockup', text))
		elif PANIC.search(line):
			self.attach(Event('panic', text))
		elif FATAL.search(line):
			what = text
			if self.head:
				what = self.head[1]
				if self.head[2]:
					self.retract(self.head[2])
			self.attach(Event('oops', what, access=self.access, names_sentinel=self.named))
			self.head = None
			self.access = ''
			self.named = False
		elif SPLAT.search(line) or OOPS_HEAD.search(line):
			ev = Event('splat', text) if SPLAT.search(line) else None
			if ev:
				self.attach(ev)
			if OOPS_HEAD.search(line):
				self.head = (self.n, text, ev)
				self.access = ''
				self.named = False

	def end(self) -> Scan:
		self.s.running = self.current
		self.s.end_where = self.where()
		self.s.stopped = self.stopped
		self.flush_pending()
		return self.s


def scan(lines: List[str]) -> Scan:
	sc = _Scanner()
	for line in lines:
		sc.feed(line)
	return sc.end()
