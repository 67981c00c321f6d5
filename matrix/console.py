# SPDX-License-Identifier: GPL-2.0
"""Reads a guest's console log: which module and case ran when, and what
the kernel printed meanwhile (oopses, splats).

KTAP itself is left to the tree's kunit.py; this module only cuts the log
into per-module segments for it and attributes kernel messages to the
test case that was running when they appeared.
"""

import re
from dataclasses import dataclass, field
from typing import Dict, List, Optional

MODULE_BEGIN = re.compile(r'zsp-harness: begin (\S+)')
MODULE_END = re.compile(r'zsp-harness: end (\S+) rc=(\d+)')
CASE_START = re.compile(r'# (\w+): zsp-start')
EXPECT_OOPS = re.compile(r'# (\w+): zsp-expect-oops')
CASE_RESULT = re.compile(r'^\s*(?:not )?ok \d+ (\w+)')
# die() prints "<what>: <code> [#<n>] ..." for every oops on x86.
FATAL = re.compile(r'\[#\d+\]')
PANIC = re.compile(r'Kernel panic - not syncing')
SOFT_LOCKUP = re.compile(r'BUG: soft lockup')
# The first line of an oops says what happened; FATAL comes a few lines on.
OOPS_HEAD = re.compile(r'BUG: |kernel BUG at|divide error|general protection fault|'
		       r'invalid opcode|stack segment')
SPLAT = re.compile(r'WARNING: CPU: |BUG: |kernel BUG at|INFO: task .* blocked')
ZSP_FAULT = re.compile(r'address: 0000000000000010\b')
POWER_DOWN = re.compile(r'reboot: (Power down|System halted)')
MEMINIT = re.compile(r'test_meminit: (all \d+ tests passed!|failures: .*)')


@dataclass
class CaseEvents:
	"""What the console showed while one case ran."""
	started: bool = False
	finished: bool = False
	expects_oops: bool = False
	oopses: List[str] = field(default_factory=list)
	splats: List[str] = field(default_factory=list)


@dataclass
class Segment:
	"""The console lines of one module load."""
	module: str
	lines: List[str] = field(default_factory=list)
	rc: Optional[int] = None


@dataclass
class Scan:
	segments: List[Segment] = field(default_factory=list)
	cases: Dict[str, CaseEvents] = field(default_factory=dict)
	# The case that was running when the log ended, if any.
	running: Optional[str] = None
	# Oopses and splats outside any case (boot, module load).
	stray: List[str] = field(default_factory=list)
	meminit: Optional[str] = None
	done: bool = False


def scan(lines: List[str]) -> Scan:
	s = Scan()
	seg: Optional[Segment] = None
	current: Optional[str] = None
	oops_head = ''
	for line in lines:
		m = MODULE_BEGIN.search(line)
		if m:
			seg = Segment(m.group(1))
			s.segments.append(seg)
			continue
		m = MODULE_END.search(line)
		if m:
			if seg:
				seg.rc = int(m.group(2))
			seg = None
			current = None
			continue
		if 'zsp-harness: done' in line:
			s.done = True
			continue
		if seg:
			seg.lines.append(line)
		m = CASE_START.search(line)
		if m:
			current = m.group(1)
			s.cases[current] = CaseEvents(started=True)
			continue
		m = EXPECT_OOPS.search(line)
		if m and current:
			s.cases[current].expects_oops = True
			continue
		m = CASE_RESULT.search(line)
		if m and m.group(1) == current:
			s.cases[current].finished = True
			current = None
			continue
		m = MEMINIT.search(line)
		if m:
			s.meminit = m.group(1)
		if OOPS_HEAD.search(line):
			oops_head = line.strip()
		target = s.cases[current] if current else None
		if FATAL.search(line) or PANIC.search(line) or SOFT_LOCKUP.search(line):
			what = line.strip() if not oops_head or PANIC.search(line) else oops_head
			if SOFT_LOCKUP.search(line):
				what = line.strip()
			if target:
				target.oopses.append(what)
			else:
				s.stray.append(what)
			oops_head = ''
		elif SPLAT.search(line):
			if target:
				target.splats.append(line.strip())
			else:
				s.stray.append(line.strip())
	s.running = current
	return s
