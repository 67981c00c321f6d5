# SPDX-License-Identifier: GPL-2.0
"""make callsites: who asks the kmalloc family for zero bytes.

The 2007 WARN_ON_ONCE(size == 0) in SLUB was there because "nobody really
knew how often this happens". The kmem trace events cannot answer on 6.1:
__do_kmalloc_node() returns kmalloc_slab()'s ZERO_SIZE_PTR before
trace_kmalloc() (SLAB, SLUB), and SLOB returns before its own trace call.
So the distro profile's kernel command line sets kprobe events on the
kmalloc family's out-of-line entry points (PROBES), with the size asked for
and the caller. A compile-time kmalloc(0) never leaves the inline
kmalloc() on SLAB and SLUB, which returns ZERO_SIZE_PTR itself: those
callers are invisible there (SLOB has no such inline and sees them).

The boot's requests land in the trace ring buffer; guest-init reads them
first thing (BOOT lines), then counts every later one in the guest with a
hist trigger filtered on size == 0 (a run of the suite asks for zero bytes
135,217 times, far past any ring buffer) and prints the histograms after
the suite (INIT lines). This module parses those lines from the console
(the "callsites" segment of a boot), writes a cell's counts and prints
the table per allocator: the boot's, the kernel's after it, the suite's.
"""

import glob
import json
import os
import re
from collections import Counter
from dataclasses import dataclass, field
from typing import Dict, List, Optional, Set, Tuple

from . import console
from .errors import CallsitesError

# guest-init's pseudo-module that prints the counts.
MODULE = 'callsites'
GROUP = 'zsp'


@dataclass(frozen=True)
class Probe:
	event: str
	function: str
	caller: str		# the fetch-arg of the caller's address

	def definition(self) -> str:
		"""kprobe_event= syntax: commas for spaces."""
		return (f'p:{GROUP}/{self.event},{self.function},size=%di:u64,'
			f'caller={self.caller}:symbol')


# $stack0 at a function's first instruction is its return address: the
# caller, into which kmalloc() and its inline wrappers were expanded.
PROBES: Tuple[Probe, ...] = (
	Probe('zsp_kmalloc', '__kmalloc', '$stack0'),
	Probe('zsp_kmalloc_node', '__kmalloc_node', '$stack0'),
	# kmemdup(), kstrdup(), devm_kmalloc(), ...: their caller is an argument.
	Probe('zsp_track_caller', '__kmalloc_node_track_caller', '%cx'),
	Probe('zsp_kvmalloc', 'kvmalloc_node', '$stack0'),
)
# kvmalloc_node() asks __kmalloc_node() in turn: counted once, at the outer.
INNER = {('zsp_kmalloc_node', 'kvmalloc_node')}
# The instrument's own: a hist trigger's map asks for 0 bytes per element
# while guest-init sets it up, and the triggers set before it count that.
INSTRUMENT = {'tracing_map_init', 'hist_trigger_elt_data_alloc'}
# Per-CPU ring buffer for the boot: every kmalloc-family call lands in it,
# zero bytes or not, until guest-init stops it. The buffer stays at its
# boot-time minimum (one page) unless a boot option such as trace_event=
# expands it, which kprobe_event= does not: SLOB's boot overran it by 904
# events. trace_event= names events that do not exist yet at its time
# (early_initcall): it only expands the buffer.
BOOT_BUFFER = '8M'


def boot_append() -> str:
	"""The kernel command line that sets the probes at boot (fs_initcall
	time: earlier requests go unseen)."""
	return (f"kprobe_event={';'.join(p.definition() for p in PROBES)} "
		f'trace_event={GROUP}:* trace_buf_size={BOOT_BUFFER}')


BOOT = re.compile(r'^zsp-callsite boot\s+(\d+) (\w+) (\S+)(?: \[(\w+)\])?')
OVERRUN = re.compile(r'^zsp-callsite overrun (\d+)')
HIST_EVENT = re.compile(r'^zsp-callsite hist (\w+)')
DROPPED = re.compile(r'^Dropped: (\d+)')
HIST = re.compile(r'\{ caller: \[[0-9a-f]+\] (\S+?)(?: \[(\w+)\])?\s*\} hitcount:\s*(\d+)')


def function(caller: str) -> str:
	"""foo+0x12/0x40 -> foo: offsets differ from build to build."""
	return caller.split('+', 1)[0]


@dataclass
class Counts:
	"""Zero-byte requests by caller: the boot's, and after it the kernel's
	and the suite's (callers in one of its modules)."""
	boot: Counter[str] = field(default_factory=Counter)
	kernel: Counter[str] = field(default_factory=Counter)
	suite: Counter[str] = field(default_factory=Counter)
	overrun: int = 0	# boot events the ring buffer lost: boot is a floor
	dropped: int = 0	# callers a full hist map left out: after boot is a floor
	# The events that printed a histogram: a probe the kernel rejected at
	# boot prints none, and its callers would be silently missing.
	events: Set[str] = field(default_factory=set)
	# Boots of the cell, and how many of them printed counts: a boot that
	# crashed in the suite never reaches the report, so its cases go
	# uncounted.
	boots: int = 1
	reported: int = 1

	def add(self, where: str, event: str, caller: str, module: str, n: int) -> None:
		fn = function(caller)
		if (event, fn) in INNER or fn in INSTRUMENT:
			return
		if module:
			fn = f'{fn} [{module}]'
		if where == 'boot':
			self.boot[fn] += n
		elif re.fullmatch(console.SUITE_MODULE_NAME, module):
			self.suite[fn] += n
		else:
			self.kernel[fn] += n

	def missing(self) -> List[str]:
		"""The probes with no histogram in the report."""
		return [p.event for p in PROBES if p.event not in self.events]

	def merge(self, other: 'Counts') -> None:
		"""Another boot of the same cell: its kernel and suite calls add
		up (each boot ran other cases); the boot itself is the same boot
		again and counts once."""
		self.kernel.update(other.kernel)
		self.suite.update(other.suite)
		self.dropped += other.dropped
		self.events &= other.events
		self.reported += other.reported

	def to_json(self) -> Dict[str, object]:
		return {'boot': dict(self.boot), 'kernel': dict(self.kernel),
			'suite': dict(self.suite), 'boot_overrun': self.overrun,
			'hist_dropped': self.dropped, 'events': sorted(self.events)}

	@staticmethod
	def from_json(d: Dict[str, object]) -> 'Counts':
		def c(key: str) -> Counter[str]:
			v = d.get(key, {})
			return Counter(v if isinstance(v, dict) else {})
		def n(key: str) -> int:
			v = d.get(key, 0)
			return v if isinstance(v, int) else 0
		ev = d.get('events', [])
		return Counts(c('boot'), c('kernel'), c('suite'), n('boot_overrun'),
			      n('hist_dropped'),
			      {e for e in ev if isinstance(e, str)} if isinstance(ev, list) else set())


def parse(lines: List[str]) -> Counts:
	"""The counts in a callsites segment of the console."""
	out, event = Counts(), ''
	for line in lines:
		line = line.strip()
		m = BOOT.match(line)
		if m:
			out.add('boot', m.group(2), m.group(3), m.group(4) or '', int(m.group(1)))
			continue
		m = OVERRUN.match(line)
		if m:
			out.overrun += int(m.group(1))
			continue
		m = DROPPED.match(line)
		if m:
			out.dropped += int(m.group(1))
			continue
		m = HIST_EVENT.match(line)
		if m:
			event = m.group(1)
			out.events.add(event)
			continue
		m = HIST.search(line)
		if m and event:
			out.add('init', event, m.group(1), m.group(2) or '', int(m.group(3)))
	return out


# Beside the boot's other files (boot-N.I.callsites.json), which a reused
# cell's run copies with them.
SUFFIX = '.json'


def write(path: str, counts: Counts) -> None:
	with open(path, 'w') as f:
		json.dump(counts.to_json(), f, indent=1, sort_keys=True)


def boot_number(path: str) -> int:
	m = re.search(r'boot-(\d+)\.', os.path.basename(path))
	return int(m.group(1)) if m else 0


BOOT_LOG = re.compile(r'^boot-\d+\.log$')


def load_cell(cell: str) -> Optional[Counts]:
	"""A cell's counts over every boot that printed them, or None."""
	found = sorted(glob.glob(os.path.join(cell, f'boot-*.{MODULE}{SUFFIX}')),
		       key=boot_number)
	if not found:
		return None
	counts: Optional[Counts] = None
	for path in found:
		with open(path) as f:
			c = Counts.from_json(json.load(f))
		if counts is None:
			counts = c
		else:
			counts.merge(c)
	assert counts is not None
	counts.boots = max(counts.reported,
			   sum(1 for n in os.listdir(cell) if BOOT_LOG.match(n)))
	return counts


def load_run(run: str) -> Dict[str, Counts]:
	"""Cell directory name -> its counts, for the cells that have any."""
	out = {}
	for name in sorted(os.listdir(run)):
		path = os.path.join(run, name)
		c = load_cell(path) if os.path.isdir(path) else None
		if c is not None:
			out[name] = c
	return out


def table(cells: Dict[str, Counts]) -> str:
	"""caller -> count per cell, in three sections, most frequent first."""
	names = list(cells)
	width = max([len(n) for n in names] + [8])
	lines: List[str] = []
	for title, key in (('the boot, from the probes (fs_initcall) to init', 'boot'),
			   ('the kernel, after the boot', 'kernel'),
			   ("the suite's own calls", 'suite')):
		per = {n: getattr(c, key) for n, c in cells.items()}
		total: Counter[str] = Counter()
		for c in per.values():
			total.update(c)
		callers = sorted(total, key=lambda k: (-total[k], k))
		cw = max([len(k) for k in callers] + [40])
		lines.append(f'-- {title}')
		lines.append(f"{'caller':<{cw}} " + ' '.join(f'{n:>{width}}' for n in names))
		for k in callers:
			lines.append(f'{k:<{cw}} ' + ' '.join(
				f'{per[n].get(k, 0) or "-":>{width}}' for n in names))
		lines.append(f"{'total':<{cw}} " + ' '.join(
			f'{sum(per[n].values()):>{width}}' for n in names))
		lines.append('')
	lost = [f'{n} ({c.overrun} events)' for n, c in cells.items() if c.overrun]
	if lost:
		lines.append('boot counts are a floor: the ring buffer overran in ' + ', '.join(lost))
	lost = [f'{n} ({c.dropped} callers)' for n, c in cells.items() if c.dropped]
	if lost:
		lines.append('counts after the boot are a floor: the hist map was full in '
			     + ', '.join(lost))
	lost = [f'{n} ({c.reported} of {c.boots} boots)' for n, c in cells.items()
		if c.reported < c.boots]
	if lost:
		lines.append('counts after the boot are a floor: boots that crashed never '
			     'printed theirs in ' + ', '.join(lost))
	lost = [f"{n} ({', '.join(c.missing())})" for n, c in cells.items() if c.missing()]
	if lost:
		lines.append('probes missing (rejected at boot?), their callers uncounted in '
			     + ', '.join(lost))
	return '\n'.join(lines).rstrip('\n')


def main(run: str) -> int:
	cells = load_run(run)
	if not cells:
		raise CallsitesError(f'{run}: no cell counted zero-byte requests; run a profile '
				     'that does (make callsites, or make run PROFILE=distro)')
	text = table(cells)
	with open(os.path.join(run, 'callsites.txt'), 'w') as f:
		f.write(text + '\n')
	print(text)
	return 0
