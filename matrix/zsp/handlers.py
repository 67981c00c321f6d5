# SPDX-License-Identifier: GPL-2.0
"""What each module's part of a boot's console gives, by the module's
name: a table of handlers, one signature. A module the table does not
name prints KTAP, which the tree's kunit.py parses (ktap.py) and
verdict.py judges against the console; kmemleak, test_meminit and the
callsites report print something else each."""

from dataclasses import dataclass
from typing import Callable, Dict, Sequence

from . import callsites, console, ktap, qemu, verdict


@dataclass(frozen=True)
class Boot:
	"""One boot's console, as every handler sees it."""
	n: int			# the boot's number, from 1
	stem: str		# its files: STEM.log, STEM.I.MODULE.* for segment I
	skip: Sequence[str]	# the suite's cases its plan skipped
	result: qemu.BootResult
	scan: console.Scan
	kunit_tool: str		# the tree's kunit.py, for parse
	distinct: bool		# a Z6 oops must name ZERO_SIZE_PTR (verdict.z6_problem)


# (rows, boot, the module's segment, the segment's file stem).
Handler = Callable[[verdict.Rows, Boot, console.Segment, str], None]


def ktap_cases(rows: verdict.Rows, boot: Boot, seg: console.Segment, stem: str) -> None:
	statuses = ktap.parse(boot.kunit_tool, seg, stem)
	for suite, case, _ in statuses:
		rows.suite_of.setdefault(case, suite)
	verdict.ktap_rows(rows, boot.n, seg, [(case, k) for _, case, k in statuses],
			  boot.skip, boot.scan, boot.distinct)


def callsites_report(rows: verdict.Rows, boot: Boot, seg: console.Segment,
		     stem: str) -> None:
	"""Data, not a verdict: a row only when the report failed."""
	counts = callsites.parse(seg.lines) if seg.rc == 0 else None
	if counts is not None:
		callsites.write(stem + callsites.SUFFIX, counts)
		if counts.missing():
			rows.record(seg.module, 'error', 'callsites: no histogram for '
				    + ', '.join(counts.missing()) + ' (probe rejected at boot?)',
				    boot.n, suite=seg.module)
	elif seg.rc is not None:
		rows.record(seg.module, 'error', f'callsites report failed (rc={seg.rc})',
			    boot.n, suite=seg.module)


def kmemleak_scan(rows: verdict.Rows, boot: Boot, seg: console.Segment, stem: str) -> None:
	if seg.rc is not None:
		rows.record(seg.module, *verdict.leak_verdict(seg, boot.scan.kmemleak_off),
			    boot.n, suite=seg.module)


def meminit(rows: verdict.Rows, boot: Boot, seg: console.Segment, stem: str) -> None:
	rows.suite_of[seg.module] = seg.module
	if seg.rc is not None:
		rows.record(seg.module, *verdict.meminit_verdict(seg, boot.scan.meminit), boot.n)


HANDLERS: Dict[str, Handler] = {
	callsites.MODULE: callsites_report,
	console.KMEMLEAK_MODULE: kmemleak_scan,
	verdict.MEMINIT_MODULE: meminit,
}


def collect(rows: verdict.Rows, boot: Boot) -> None:
	"""A boot's rows: each module's segment by its handler, then what the
	console shows beyond them."""
	rows.begin_boot()
	for i, seg in enumerate(boot.scan.segments):
		rows.saw_segment(seg)
		HANDLERS.get(seg.module, ktap_cases)(rows, boot, seg, f'{boot.stem}.{i}.{seg.module}')
	verdict.after_segments(rows, boot.n, boot.skip, boot.result, boot.scan)
