# SPDX-License-Identifier: GPL-2.0
"""make test's baseline stage: the vanilla column against matrix/baseline-vanilla*.txt.

python3 -m zsp baseline RUN [--baseline FILE]: vanilla still shows every
bug the series fixes, for the same reason, and nothing else, on each
kernel of the run (its record in axes.py names its baseline file).

A baseline (6.1's: matrix/baseline-vanilla.txt) has one line per row that
does not pass on vanilla: "alloc case status reason-regex". The regex is
everything after the third field (it may hold spaces) and must be found
(re.search) in the row's detail: a crash is only the expected crash if it
is the same oops. For compatibility a status may list alternatives
("crash|hang"). Lines starting with "#" are comments. A line holds for
every profile of the kernel; "alloc/profile" as the first field makes it
hold for that profile alone, in place of a plain line for the same case
(a distro or debug kernel may fail a case for another reason, or fail a
case that tiny passes).

Prints one "ok"/"FAIL" line per listed row (the suite detected the bug,
for the listed reason, or it no longer does), then one "FAIL" per vanilla
row that does not pass but is not listed. A vanilla run on one allocator
has no Z7 comparison: its row is "skip" and gets a "skip" line, counted
neither way. This is what makes the contract cases able to fail: each is
shown failing where 6.1 is broken.
"""

import json
import os
import re
import sys
from dataclasses import dataclass
from typing import Dict, List, Optional, Tuple

from .axes import DEFAULT_KERNEL, DEFAULT_PROFILE, KERNELS, MATRIX, PROFILES
from .results import Row, load_rows



def path_for(kernel: str) -> str:
	"""A kernel's baseline file (its record in axes.py names it)."""
	return os.path.join(MATRIX, KERNELS[kernel].baseline)


BASELINE = path_for(DEFAULT_KERNEL)
Z7_CASE = 'same_on_all_allocators'


@dataclass
class Expect:
	statuses: List[str]
	reason: Optional[str]	# a regex; None when the line gives none

	def check(self, status: str, detail: str) -> str:
		"""'' when a row with this status and detail is the listed one,
		else what differs."""
		want = '|'.join(self.statuses)
		if status not in self.statuses:
			return f'{status}, expected {want}'
		if self.reason is None:
			return f'{status} as expected, but the baseline gives no reason pattern'
		if not re.search(self.reason, detail):
			return f"{status}, but reason '{detail}' does not match '{self.reason}'"
		return ''


def parse_line(path: str, number: int, line: str) -> Tuple[Tuple[str, str], Expect]:
	fields = line.split(None, 3)
	if len(fields) < 3:
		raise ValueError(f'{path}:{number}: want "alloc case status reason-regex": {line}')
	reason = fields[3].strip() if len(fields) == 4 else None
	if reason is not None:
		try:
			re.compile(reason)
		except re.error as e:
			raise ValueError(f'{path}:{number}: bad reason regex {reason!r}: {e}') from e
	return (fields[0], fields[1]), Expect(fields[2].split('|'), reason)


def load_baseline(path: str = BASELINE,
		  profile: str = DEFAULT_PROFILE) -> Dict[Tuple[str, str], Expect]:
	"""(alloc, case) -> what vanilla shows, for one profile."""
	plain, own = {}, {}
	with open(path) as f:
		for number, line in enumerate(f, 1):
			line = line.strip()
			# Only whole-line comments: a regex may hold "#" ("\[#1\]").
			if line and not line.startswith('#'):
				(alloc, case), expect = parse_line(path, number, line)
				alloc, _, only = alloc.partition('/')
				if only and only not in PROFILES:
					raise ValueError(f"{path}:{number}: unknown profile '{only}'; "
							 f"valid: {' '.join(PROFILES)}")
				if not only:
					plain[(alloc, case)] = expect
				elif only == profile:
					own[(alloc, case)] = expect
	return {**plain, **own}


def alternatives(reason: str) -> List[str]:
	"""The top-level alternatives of a regex (| outside any group)."""
	out, depth, start, i = [], 0, 0, 0
	while i < len(reason):
		c = reason[i]
		if c == '\\':
			i += 2
			continue
		depth += c == '('
		depth -= c == ')'
		if c == '|' and depth == 0:
			out.append(reason[start:i])
			start = i + 1
		i += 1
	return out + [reason[start:]]


# A reason that would let another failure through (issue 31 #12): an
# address of any value, an empty or bare-phrase alternative, a Z7 row
# whose set of differing cases is left open.
OPEN_ADDRESS = re.compile(r'address: (?:\[0-9a-f\]\+|\\S\+|\.\*)')


def loose(expect: Expect) -> str:
	"""'' when the line's reason can fail; else why it cannot. For the
	lines of every profile and of tiny: a profile's own lines (debug,
	leak) record a spread of outcomes on purpose, each with its why."""
	reason = expect.reason or ''
	if OPEN_ADDRESS.search(reason):
		return 'an address of any value: pin it, or its region'
	if reason.rstrip('$') == '^differ: ':
		return "any set of differing cases: list them"
	for alt in alternatives(reason):
		bare = alt.strip('^$')
		# Only a pass, or a row a stopped guest never wrote (missing),
		# has an empty detail.
		if not bare and not {'pass', 'missing'} & set(expect.statuses):
			return f'an empty alternative in {reason!r}'
		if not alt.startswith('^') and len(bare) < 40 and '\\(Comm: ' not in alt:
			return f'a bare phrase {alt!r}: anchor it (^...$) or name the task'
	return ''


# One line of the check: ("ok" | "FAIL" | "skip", what).
Verdict = Tuple[str, str]


def main(run: str, path: str = '', suggest: bool = False) -> int:
	lines = verdicts(run, path)
	for v, what in lines:
		print(f'{v:<4} {what}')
	if suggest:
		for line in suggestions(run, path):
			print(line)
	return 1 if any(v == 'FAIL' for v, _ in lines) else 0


# What changes from boot to boot in a report: kernel addresses and the
# garbage a corrupted free list yields (a low address, the sentinel's 0x10
# or a field behind it, stays: it names the bug; so does a poison pattern
# such as 0x6b6b6b6b6b6b6b6b), CPUs, PIDs, a kworker's name, seconds.
LONG_HEX = re.compile(r'0x[0-9a-f]{9,}')
POISON = re.compile(r'([0-9a-f]{2})\1{3,}')
VOLATILE = ((r'\bffff[0-9a-f]{12}\b', r'ffff[0-9a-f]{12}'),
	    (r'CPU\\#\d+', r'CPU\\#\\d+'),
	    (r'CPU: \d+', r'CPU: \\d+'),
	    (r'PID: \d+', r'PID: \\d+'),
	    (r'kworker/\w+:\w+', r'kworker/\\w+:\\w+'),
	    (r'stuck for \d+s', r'stuck for \\d+s'),
	    (r'(\[[\w/-]+:)\d+(\\\])', r'\1\\d+\2'))


def open_hex(m: 're.Match[str]') -> str:
	return m.group(0) if POISON.search(m.group(0)) else r'0x[0-9a-f]+'


# A source file named by its absolute path: the suite's, built in the
# cache directory, which differs from machine to machine, and whose line
# numbers move with every edit of the suite (a kernel file's are relative
# and stay: a path that does not begin with '/' is never one).
SOURCE = re.compile(r'(?<![\w.+-])(?:/[\w.+-]+)+/([\w.+-]+\.[ch]):\d+')


def reason_pattern(detail: str) -> str:
	"""A regex for a row's detail as the baseline wants it: the literal
	text, with what differs between boots of the same bug left open."""
	parts = SOURCE.split(detail.split('; ')[0])
	# Odd parts are the file names SOURCE took out of their directory.
	out = ''.join(r'\S*' + re.escape(p) + r':\d+' if i % 2 else re.escape(p)
		      for i, p in enumerate(parts)).replace('\\ ', ' ')
	out = LONG_HEX.sub(open_hex, out)
	for volatile, general in VOLATILE:
		out = re.sub(volatile, general, out)
	return out


def suggestions(run: str, path: str = '') -> List[str]:
	"""A baseline line ("alloc/profile case status reason-regex") for each
	vanilla row the check fails, to review before it goes in the file:
	a line records a bug the series fixes, not whatever vanilla did."""
	rows = [r for r in load_rows(os.path.join(run, 'results.json')) if r['tree'] == 'vanilla']
	out = []
	for r in rows:
		kernel, profile = r.get('kernel', DEFAULT_KERNEL), r.get('profile', DEFAULT_PROFILE)
		want = load_baseline(path if path and kernel == DEFAULT_KERNEL else path_for(kernel),
				     profile)
		status, detail = r['status'], r.get('detail', '')
		expect = want.get((r['allocator'], r['case']))
		if status in ('pass', 'n/a') or r['case'] == Z7_CASE and status == 'skip':
			continue
		if expect is not None and not expect.check(status, detail):
			continue
		alloc = r['allocator'] + ('' if profile == DEFAULT_PROFILE else f'/{profile}')
		out.append(f"{alloc} {r['case']} {status} {reason_pattern(detail)}")
	return out


def verdicts(run: str, path: str = '') -> List[Verdict]:
	"""Checks each kernel's vanilla rows against its baseline (path, when
	given, for the default kernel's)."""
	# Read (and so checked) even when the run has no vanilla row.
	load_baseline(path or path_for(DEFAULT_KERNEL))
	rows = [r for r in load_rows(os.path.join(run, 'results.json')) if r['tree'] == 'vanilla']
	out: List[Verdict] = []
	for g in dict.fromkeys((r.get('kernel', DEFAULT_KERNEL), r.get('profile', DEFAULT_PROFILE))
			       for r in rows):
		grows = [r for r in rows if (r.get('kernel', DEFAULT_KERNEL),
					     r.get('profile', DEFAULT_PROFILE)) == g]
		want = load_baseline(path if path and g[0] == DEFAULT_KERNEL else path_for(g[0]), g[1])
		label = '' if g == (DEFAULT_KERNEL, DEFAULT_PROFILE) else f'{g[0]}/{g[1]} '
		out += check(want, grows, label)
	return out


def check(want: Dict[Tuple[str, str], Expect], rows: List[Row], label: str) -> List[Verdict]:
	"""A verdict per listed and per unlisted failing row."""
	got = {(r['allocator'], r['case']): (r['status'], r.get('detail', '')) for r in rows}
	allocs = {r['allocator'] for r in rows}
	out: List[Verdict] = []
	for (alloc, case), expect in sorted(want.items()):
		if alloc not in allocs:
			continue
		status, detail = got.get((alloc, case), ('missing', ''))
		if case == Z7_CASE and status == 'skip':
			out.append(('skip', f'{label}vanilla/{alloc} {case}: {detail}, not checked'))
			continue
		why = expect.check(status, detail)
		if why:
			out.append(('FAIL', f'{label}vanilla/{alloc} {case}: {why}'))
		else:
			out.append(('ok', f'{label}vanilla/{alloc} {case}: {status} as expected, '
				    'reason matches'))
	for (alloc, case), (status, detail) in sorted(got.items()):
		if status in ('pass', 'n/a') or (alloc, case) in want:
			continue
		if case == Z7_CASE and status == 'skip':
			continue	# one allocator: nothing to compare, reported above
		out.append(('FAIL', f'{label}vanilla/{alloc} {case}: {status}, not in the baseline '
			    f'({detail})'))
	return out
