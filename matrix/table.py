#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Merges the cells of one run into results.json and prints the table
(rows: suite.case; columns: tree/allocator).

Adds the Z7 row "zero_size_identical.same_on_all_allocators": for each
tree that ran on more than one allocator, pass when every contract case has
the same status on all of them.

What counts ("gated" rows): every row of the patched tree, and any cell
error. Vanilla's rows are the baseline the series starts from: shown, and
checked against baseline-vanilla.txt by "make test", but not counted here.
An upstream test (test_meminit, slub_kunit) that fails on the patched tree
exactly as on vanilla is "known", not a regression of the series. Exit
status 1 when any gated row fails.
"""

import json
import os
import sys
from typing import Dict, List, Tuple

import baseline

ALLOCATORS = ['slab', 'slub', 'slob']
TREES = ['vanilla', 'patched']
CONTRACT_PREFIX = 'zero_size'
Z7_ROW = ('zero_size_identical', 'same_on_all_allocators')


def load_cells(run: str) -> List[dict]:
	cells = []
	for tree in TREES:
		for alloc in ALLOCATORS:
			path = os.path.join(run, f'{tree}-{alloc}', 'cell.json')
			if os.path.exists(path):
				with open(path) as f:
					cells.append(json.load(f))
			elif os.path.exists(os.path.dirname(path)):
				err = os.path.join(os.path.dirname(path), 'error')
				msg = open(err).read().strip() if os.path.exists(err) else 'no results'
				cells.append({'tree': tree, 'allocator': alloc, 'boots': [],
					      'cases': [{'suite': 'cell', 'case': 'build_and_boot',
							 'status': 'error', 'detail': msg,
							 'boot': 0}]})
	return cells


def z7_rows(cells: List[dict]) -> List[dict]:
	rows = []
	for tree in TREES:
		tcells = [c for c in cells if c['tree'] == tree]
		if len(tcells) < 2:
			continue
		by_case: Dict[str, Dict[str, str]] = {}
		for c in tcells:
			for r in c['cases']:
				if r['suite'].startswith(CONTRACT_PREFIX):
					by_case.setdefault(r['case'], {})[c['allocator']] = r['status']
		differ = sorted(case for case, st in by_case.items()
				if len(st) != len(tcells) or len(set(st.values())) > 1)
		empty = [c['allocator'] for c in tcells
			 if not any(r['suite'].startswith(CONTRACT_PREFIX) for r in c['cases'])]
		detail = ''
		if empty:
			detail = 'no contract results on: ' + ' '.join(empty)
		elif differ:
			detail = 'differ: ' + ' '.join(differ)
		for c in tcells:
			rows.append({'tree': tree, 'allocator': c['allocator'],
				     'suite': Z7_ROW[0], 'case': Z7_ROW[1],
				     'status': 'fail' if detail else 'pass',
				     'detail': detail, 'boot': 0})
	return rows


def flatten(run_id: str, cells: List[dict]) -> List[dict]:
	rows = []
	for c in cells:
		for r in c['cases']:
			rows.append({'run': run_id, 'tree': c['tree'],
				     'allocator': c['allocator'], **r})
	for r in z7_rows(cells):
		rows.append({'run': run_id, **r})
	return rows


def verdict(r: dict, rows: List[dict]) -> str:
	"""pass, fail, skip or known, for a gated row; '' for the others."""
	if r['status'] == 'error':
		return 'fail'
	if r['tree'] != 'patched':
		return ''
	if r['status'] in ('pass', 'skip'):
		return r['status']
	if not r['suite'].startswith(CONTRACT_PREFIX):
		base = [v['status'] for v in rows if v['tree'] == 'vanilla' and
			v['allocator'] == r['allocator'] and v['case'] == r['case']]
		if not base:
			# No vanilla cell in this run: its recorded baseline.
			base = baseline.load_baseline().get((r['allocator'], r['case']), ['pass'])
		if r['status'] in base:
			return 'known'
	return 'fail'


def table(rows: List[dict]) -> str:
	cols: List[Tuple[str, str]] = []
	for t in TREES:
		for a in ALLOCATORS:
			if any(r['tree'] == t and r['allocator'] == a for r in rows):
				cols.append((t, a))
	names: List[str] = []
	cell: Dict[Tuple[str, str, str], str] = {}
	for r in rows:
		name = f"{r['suite']}.{r['case']}"
		if name not in names:
			names.append(name)
		cell[(name, r['tree'], r['allocator'])] = r['status'].upper()
	names.sort(key=lambda n: (not n.startswith(CONTRACT_PREFIX), n))
	width = max([len(n) for n in names] + [4])
	head = f"{'case':<{width}}" + ''.join(f'  {t[:3]}/{a:<4}' for t, a in cols)
	lines = [head, '-' * len(head)]
	for n in names:
		lines.append(f'{n:<{width}}' + ''.join(
			f"  {cell.get((n, t, a), '-'):<8}" for t, a in cols))
	lines.append('-' * len(head))
	for status in ('pass', 'fail', 'crash', 'hang', 'skip', 'error'):
		line = f'{status:<{width}}'
		for t, a in cols:
			k = sum(1 for r in rows if r['tree'] == t and r['allocator'] == a
				and r['status'] == status)
			line += f'  {k:<8}'
		lines.append(line)
	return '\n'.join(lines)


def details(rows: List[dict]) -> str:
	out = []
	for r in rows:
		if r['status'] not in ('pass', 'skip') and r.get('detail'):
			out.append(f"{r['tree']}/{r['allocator']} {r['case']}: "
				   f"{r['status']}: {r['detail']}")
	return '\n'.join(out)


def count(run: str) -> Dict[str, int]:
	with open(os.path.join(run, 'results.json')) as f:
		rows = json.load(f)
	n = {'pass': 0, 'fail': 0, 'skip': 0, 'known': 0}
	for r in rows:
		v = verdict(r, rows)
		if v:
			n[v] += 1
	return n


def main(argv: List[str]) -> int:
	if argv[0] == '--count':
		n = count(argv[1])
		print(n['pass'], n['fail'], n['skip'] + n['known'])
		return 0
	run = argv[0]
	run_id = os.path.basename(os.path.normpath(run))
	cells = load_cells(run)
	rows = flatten(run_id, cells)
	tmp = os.path.join(run, 'results.json.tmp')
	with open(tmp, 'w') as f:
		json.dump(rows, f, indent=1)
	os.replace(tmp, os.path.join(run, 'results.json'))
	text = table(rows)
	if any(r['tree'] == 'patched' for r in rows):
		text += '\n(patched = vanilla + patches/series)'
	reused = [f"{c['tree']}-{c['allocator']} from {c['reused_from']}"
		  for c in cells if c.get('reused_from')]
	if reused:
		text += ('\n(not booted again, every input unchanged; FRESH=1 boots: '
			 + ', '.join(reused) + ')')
	why = details(rows)
	if why:
		text += '\n\nNot passing:\n' + why
	with open(os.path.join(run, 'table.txt'), 'w') as f:
		f.write(text + '\n')
	print(text)
	known = [r for r in rows if verdict(r, rows) == 'known']
	for r in known:
		print(f"known: {r['allocator']} {r['case']} fails on vanilla as on patched: not counted")
	failed = [r for r in rows if verdict(r, rows) == 'fail']
	print(f'\nrun {run_id}: {len(failed)} failing (patched tree and cell errors; '
	      f'vanilla is the baseline); results: {run}/results.json')
	return 1 if failed else 0


if __name__ == '__main__':
	sys.exit(main(sys.argv[1:]))
