# SPDX-License-Identifier: GPL-2.0
"""Merges the cells of one run into results.json and prints its answer, then the table.

The answer comes first (verdict()): the run's verdict and exit status,
the counts per cell, the patched rows that did not pass. The table
follows (rows: suite.case; columns: tree/allocator).

Adds the Z7 row "zero_size_identical.same_on_all_allocators": for each
tree that ran on more than one allocator, pass when every contract case has
the same status and the same reason (numbers and addresses aside) on all
of them. A tree that ran on one allocator has nothing to compare with:
the patched tree's row passes when every contract case passes there (the
only result identical to a conforming allocator's); vanilla's is "skip".

What counts ("gated" rows): every row of the patched tree, and any cell
error. A skip on the patched tree is a failure: the cases the harness
itself skips (the resume plan) are never recorded. Vanilla's rows are the
baseline the series starts from: shown, and checked against
baseline-vanilla.txt by "make test", but not counted here. An upstream
test (test_meminit, slub_kunit) that fails on the patched tree with the
same status and the same reason as on vanilla is "known": counted as
passed, and listed. Exit status 1 when any gated row fails.
"""

import json
import os
import re
import sys
from typing import Dict, List, Tuple

from . import axes, baseline, html_report, report_ktap
from .axes import TREES, all_allocators
from .results import CONTRACT_PREFIX, Row, dump_json, is_contract, load_json, load_rows

ALLOCATORS = all_allocators()
Z7_ROW = ('zero_size_identical', 'same_on_all_allocators')
# What varies between runs, trees and allocators without changing what
# happened: addresses and other hex, PIDs, CPUs, line numbers, durations.
VOLATILE = [
	(re.compile(r'\b0x[0-9a-fA-F]+\b|\b(?=[a-fA-F]*\d)[0-9a-fA-F]{8,}\b'), '<hex>'),
	(re.compile(r'\[\s*\d+\.\d+\]'), ''),
	(re.compile(r'(\[#|CPU#|PID: |[:/])\d+'), r'\1N'),
	(re.compile(r'\b\d+s\b'), 'Ns'),
]


def normalize(detail: str) -> str:
	for pattern, repl in VOLATILE:
		detail = pattern.sub(repl, detail)
	return detail.strip()


def load_cells(run: str) -> List[Row]:
	"""Every cell of the run, of any kernel and profile (axes.Cell.name
	says where each one is)."""
	cells = []
	for c in axes.all_cells():
		path = os.path.join(run, c.name, 'cell.json')
		if os.path.exists(path):
			cell = load_json(path)
		elif os.path.exists(os.path.dirname(path)):
			err = os.path.join(os.path.dirname(path), 'error')
			msg = open(err).read().strip() if os.path.exists(err) else 'no results'
			cell = {'boots': [], 'cases': [{'suite': 'cell', 'case': 'build_and_boot',
							'status': 'error', 'detail': msg, 'boot': 0}]}
		else:
			continue
		# Cells written before the schema name no kernel or profile.
		cell.update(kernel=c.kernel, tree=c.tree, profile=c.profile, allocator=c.allocator)
		cells.append(cell)
	return cells


def group(r: Row) -> Tuple[str, str]:
	"""(kernel, profile): a table, a Z7 row and a baseline each."""
	return (r.get('kernel', axes.DEFAULT_KERNEL), r.get('profile', axes.DEFAULT_PROFILE))


def group_label(g: Tuple[str, str]) -> str:
	return f'kernel {g[0]}, profile {g[1]}'


def z7_row(tree: str, alloc: str, status: str, detail: str) -> Row:
	return {'tree': tree, 'allocator': alloc, 'suite': Z7_ROW[0], 'case': Z7_ROW[1],
		'status': status, 'detail': detail, 'boot': 0}


def one_allocator_z7(tree: str, c: Row, kernel: str) -> Row:
	"""Nothing to compare with: the patched tree is held to the contract
	(pass everywhere); vanilla's row is shown as not checked: n/a on a
	kernel with one allocator, skipped in a run of one allocator."""
	if tree != 'patched':
		if len(axes.allocators(kernel)) == 1:
			return z7_row(tree, c['allocator'], 'n/a', f'kernel {kernel} has one allocator')
		return z7_row(tree, c['allocator'], 'skip', 'one allocator in this run')
	contract = [r for r in c['cases'] if is_contract(r)]
	bad = sorted(r['case'] for r in contract if r['status'] != 'pass')
	if not contract:
		return z7_row(tree, c['allocator'], 'fail', f"no contract results on: {c['allocator']}")
	if bad:
		return z7_row(tree, c['allocator'], 'fail', 'no other allocator ran; checked '
			      'against the contract (every case passes), not passing: ' + ' '.join(bad))
	return z7_row(tree, c['allocator'], 'pass', 'no other allocator ran; checked against '
		      'the contract: every contract case passes')


def z7_rows(cells: List[Row]) -> List[Row]:
	rows = []
	for tree in TREES:
		tcells = [c for c in cells if c['tree'] == tree]
		if len(tcells) == 1:
			rows.append(one_allocator_z7(tree, tcells[0], group(tcells[0])[0]))
		if len(tcells) < 2:
			continue
		by_case: Dict[str, Dict[str, Tuple[str, str]]] = {}
		for c in tcells:
			for r in c['cases']:
				if is_contract(r):
					by_case.setdefault(r['case'], {})[c['allocator']] = (
						r['status'], normalize(r.get('detail', '')))
		differ = []
		for case, got in sorted(by_case.items()):
			if len(got) != len(tcells) or len({st for st, _ in got.values()}) > 1:
				differ.append(f'{case} (status)')
			elif len(set(got.values())) > 1:
				differ.append(f'{case} (reason)')
		empty = [c['allocator'] for c in tcells
			 if not any(is_contract(r) for r in c['cases'])]
		detail = ''
		if empty:
			detail = 'no contract results on: ' + ' '.join(empty)
		elif differ:
			detail = 'differ: ' + ' '.join(differ)
		for c in tcells:
			rows.append(z7_row(tree, c['allocator'], 'fail' if detail else 'pass', detail))
	return rows


def flatten(run_id: str, cells: List[Row]) -> List[Row]:
	rows = []
	for g in dict.fromkeys(group(c) for c in cells):
		gcells = [c for c in cells if group(c) == g]
		kp = {'kernel': g[0], 'profile': g[1]}
		for c in gcells:
			for r in c['cases']:
				rows.append({'run': run_id, **kp, 'tree': c['tree'],
					     'allocator': c['allocator'], **r})
		for r in z7_rows(gcells):
			rows.append({'run': run_id, **kp, **r})
	return rows


def known_failure(r: Row, rows: List[Row]) -> bool:
	"""The patched tree's upstream test fails as on vanilla: both match
	the failure baseline-vanilla.txt records for it, status and reason,
	and the patched detail is vanilla's (addresses aside, normalize()):
	test_meminit's "failures: 29 out of 131" on SLOB is known, 30 is a
	patch that broke one more subtest. Without a vanilla cell in the run,
	the baseline's own pattern (which pins the count) is the reference."""
	path = baseline.path_for(group(r)[0])
	# A kernel without a baseline yet knows no failure.
	known = baseline.load_baseline(path, group(r)[1]) if os.path.exists(path) else {}
	want = known.get((r['allocator'], r['case']))
	if not want or want.check(r['status'], r.get('detail', '')):
		return False
	base = [v for v in rows if v['tree'] == 'vanilla' and group(v) == group(r) and
		v['allocator'] == r['allocator'] and v['suite'] == r['suite'] and
		v['case'] == r['case']]
	# Without a vanilla cell in this run, the recorded failure is the reference.
	mine = normalize(r.get('detail', ''))
	return not base or any(want.check(v['status'], v.get('detail', '')) == '' and
			       normalize(v.get('detail', '')) == mine for v in base)


def gate(r: Row, rows: List[Row]) -> str:
	"""pass, fail or known, for a gated row; '' for the others."""
	if r['status'] == 'error':
		return 'fail'
	if r['tree'] != 'patched':
		return ''
	if r['status'] == 'pass':
		return 'pass'
	if r['status'] == 'n/a' and not r['suite'].startswith(CONTRACT_PREFIX):
		return ''
	upstream = not r['suite'].startswith(CONTRACT_PREFIX) and r['suite'] != 'cell'
	if upstream and known_failure(r, rows):
		return 'known'
	return 'fail'


REMOVED = 'REMOVED'
# The order the status counts are shown in (the table, a cell's line).
STATUS_ORDER = ('pass', 'fail', 'crash', 'hang', 'skip', 'n/a', 'error')


Grid = Tuple[List[Tuple[str, str]], List[str], Dict[Tuple[str, str, str], Row]]


def grid(rows: List[Row], removed: Tuple[str, ...] = ()) -> Grid:
	"""(columns, case names, row by (name, tree, allocator)) of the table
	and of the HTML report: columns tree/allocator, and for each tree that
	ran, a REMOVED column per allocator in @removed (the kernel has none);
	the contract's cases first."""
	cols: List[Tuple[str, str]] = []
	for t in TREES:
		ran = any(r['tree'] == t for r in rows)
		for a in ALLOCATORS:
			if any(r['tree'] == t and r['allocator'] == a for r in rows) or \
			   (ran and a in removed):
				cols.append((t, a))
	names: List[str] = []
	by: Dict[Tuple[str, str, str], Row] = {}
	for r in rows:
		name = f"{r['suite']}.{r['case']}"
		if name not in names:
			names.append(name)
		by[(name, r['tree'], r['allocator'])] = r
	names.sort(key=lambda n: (not n.startswith(CONTRACT_PREFIX), n))
	return cols, names, by


def table(rows: List[Row], removed: Tuple[str, ...] = ()) -> str:
	"""Rows: suite.case; columns as grid() lays them out."""
	cols, names, by = grid(rows, removed)
	cell = {k: r['status'].upper() for k, r in by.items()}
	width = max([len(n) for n in names] + [4])
	head = f"{'case':<{width}}" + ''.join(f'  {t[:3]}/{a:<4}' for t, a in cols)
	lines = [head, '-' * len(head)]
	for n in names:
		lines.append(f'{n:<{width}}' + ''.join(
			f"  {REMOVED if a in removed else cell.get((n, t, a), '-'):<8}"
			for t, a in cols))
	lines.append('-' * len(head))
	for status in STATUS_ORDER:
		line = f'{status:<{width}}'
		for t, a in cols:
			k = sum(1 for r in rows if r['tree'] == t and r['allocator'] == a
				and r['status'] == status)
			line += f"  {'-' if a in removed else k:<8}"
		lines.append(line)
	return '\n'.join(line.rstrip() for line in lines)


def details(rows: List[Row]) -> str:
	"""Each row that did not pass, its reason, and under it where the
	report died (a line of its own: the reason is what Z7 and the
	baselines compare)."""
	out = []
	for r in rows:
		if r['status'] != 'pass' and r.get('detail'):
			out.append(f"{r['tree']}/{r['allocator']} {r['case']}: "
				   f"{r['status']}: {r['detail']}")
			if r.get('where'):
				out.append(f"    at {r['where']}")
	return '\n'.join(out)


def count(run: str) -> Dict[str, int]:
	"""Gated rows by verdict. A known failure is a pass (the same failure,
	for the same reason, as vanilla); nothing gated is a skip any more (a
	patched skip fails), so "skip" stays 0 unless that rule changes."""
	return count_rows(load_rows(os.path.join(run, 'results.json')))


def count_rows(rows: List[Row]) -> Dict[str, int]:
	n = {'pass': 0, 'fail': 0, 'skip': 0, 'known': 0}
	for r in rows:
		v = gate(r, rows)
		if v:
			n[v] += 1
	return n


def cell_counts(rows: List[Row]) -> List[Tuple[str, str]]:
	"""(cell, its statuses counted in STATUS_ORDER) per cell of the run,
	in the run's order: "vanilla-slab (6.1 tiny)", "43 pass, 20 crash"."""
	counts: Dict[Tuple[str, str, str, str], Dict[str, int]] = {}
	for r in rows:
		if r['case'] == Z7_ROW[1]:
			continue	# derived from the others, not a result of the cell
		key = (r['kernel'], r['profile'], r['tree'], r['allocator'])
		n = counts.setdefault(key, {})
		n[r['status']] = n.get(r['status'], 0) + 1
	return [(f'{t}-{a} ({k} {p})',
		 ', '.join(f'{n[st]} {st}' for st in STATUS_ORDER if n.get(st)))
		for (k, p, t, a), n in counts.items()]


def verdict(rows: List[Row]) -> Tuple[int, List[str]]:
	"""The run's exit status and its answer, as the reader's first
	lines: the verdict, the counts per cell, and the patched rows (and
	cell errors) that did not pass, or "none"."""
	gated = [(r, gate(r, rows)) for r in rows]
	failed = [r for r, v in gated if v == 'fail']
	known = [r for r, v in gated if v == 'known']
	rc = 1 if failed else 0
	head = (f'verdict: FAIL (exit status 1): {len(failed)} patched row(s) or cell '
		'error(s) did not pass' if failed else
		'verdict: PASS (exit status 0): every patched row passed; vanilla is the baseline')
	lines = [head, '', 'cells:']
	lines += [f'  {name:<34} {n}' for name, n in cell_counts(rows)]
	lines += ['', 'patched rows that did not pass:']
	lines += [f"  {r['tree']}/{r['allocator']} ({r['kernel']} {r['profile']}) "
		  f"{r['suite']}.{r['case']}: {r['status']}: {r.get('detail', '')}"
		  for r in failed] or ['  none']
	lines += [f"  known: {r['allocator']} ({r['kernel']} {r['profile']}) {r['case']} "
		  'fails as on vanilla, same status and reason' for r in known]
	return rc, lines


def report(rows: List[Row], cells: List[Row]) -> str:
	"""The table of each (kernel, profile), the default one unlabelled."""
	texts = []
	for g in dict.fromkeys(group(r) for r in rows):
		grows = [r for r in rows if group(r) == g]
		removed = dict(axes.KERNELS[g[0]].removed)
		text = table(grows, tuple(removed))
		if g != (axes.DEFAULT_KERNEL, axes.DEFAULT_PROFILE):
			text = group_label(g) + '\n' + text
		if any(r['tree'] == 'patched' for r in grows):
			patches = axes.KERNELS[g[0]].patches
			text += f'\n(patched = vanilla + {patches}/series)'
		reused = [f"{axes.Cell(c['kernel'], c['tree'], c['profile'], c['allocator']).name} "
			  f"from {c['reused_from']}" for c in cells
			  if group(c) == g and c.get('reused_from')]
		na = {c['allocator']: c['not_available'] for c in cells
		      if group(c) == g and c.get('not_available')}
		for alloc, opts in na.items():
			text += (f"\n(n/a on {alloc}: {' '.join(opts)}: not in this allocator's "
				 'kernel, per Kconfig and the profile; never counted as tested)')
		for alloc, why in removed.items():
			text += f'\n({alloc}: {why}: no cells, never counted)'
		if reused:
			text += ('\n(not booted again, every input unchanged; FRESH=1 boots: '
				 + ', '.join(reused) + ')')
		why = details(grows)
		if why:
			text += '\n\nNot passing:\n' + why
		texts.append(text)
	return '\n\n'.join(texts)


def main(run: str) -> int:
	run_id = os.path.basename(os.path.normpath(run))
	cells = load_cells(run)
	rows = flatten(run_id, cells)
	dump_json(os.path.join(run, 'results.json'), {'run': run_id, 'rows': rows})
	rc, answer = verdict(rows)
	text = '\n'.join(answer) + '\n\n' + report(rows, cells)
	with open(os.path.join(run, 'table.txt'), 'w') as f:
		f.write(text + '\n')
	html_report.main(run)
	report_ktap.write(run, rows)
	print(text)
	print(f'\nrun {run_id}: {answer[0]}; results: {run}/results.json')
	return rc

