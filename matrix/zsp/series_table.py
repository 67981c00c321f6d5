# SPDX-License-Identifier: GPL-2.0
"""series-check's prefix x allocator table.

A cell reads "P/T" (contract cases passing / total), "BUILD" when the
prefix did not build or boot, and gets a "!" with the case names when a
case that passed at the previous prefix does not pass here. Exit 1 on any
build failure, any regression, or a whole series that is not all pass.
"""

import glob
import json
import os
import sys
from typing import Dict, List, Optional

from . import html_report
from .axes import all_allocators
from .results import in_contract_suite


def load(path: str) -> Optional[Dict[str, str]]:
	try:
		with open(path) as f:
			cases = json.load(f)['cases']
	except (OSError, ValueError):
		return None
	return {c['case']: c['status'] for c in cases if in_contract_suite(c)}


def main(run: str) -> int:
	n = len(glob.glob(os.path.join(run, 'prefix-*.subject')))
	# The kernel's allocators: those a prefix has a cell of (6.12: SLUB).
	allocs = [a for a in all_allocators()
		      if glob.glob(os.path.join(run, 'prefix-*', a))] or list(all_allocators())
	bad: List[str] = []
	lines = [f"{'prefix':<60}" + ''.join(f'  {a:<10}' for a in allocs)]
	prev: Dict[str, Optional[Dict[str, str]]] = {a: None for a in allocs}
	last: Dict[str, Optional[Dict[str, str]]] = {}
	for k in range(n):
		with open(os.path.join(run, f'prefix-{k}.subject')) as f:
			subject = f.read().strip()
		row = f'{k:>2} {subject[:57]:<57}'
		for a in allocs:
			cur = load(os.path.join(run, f'prefix-{k}', a, 'cell.json'))
			if cur is None or not cur:
				row += f"  {'BUILD':<10}"
				bad.append(f'prefix {k} {a}: did not build or boot')
				continue
			passed = sum(1 for s in cur.values() if s == 'pass')
			mark = ''
			before = prev[a]
			if before:
				lost = sorted(c for c, s in before.items() if s == 'pass' and cur.get(c) != 'pass')
				if lost:
					mark = '!'
					bad.append(f"prefix {k} {a}: regressed {' '.join(lost)}")
			row += f"  {f'{passed}/{len(cur)}{mark}':<10}"
			prev[a] = cur
			last[a] = cur
		lines.append(row)
	for a, cur in last.items():
		if cur and any(s != 'pass' for s in cur.values()):
			bad.append(f'whole series {a}: not all pass')
	text = '\n'.join(lines + [''] + bad)
	with open(os.path.join(run, 'series.txt'), 'w') as f:
		f.write(text + '\n')
	html_report.main(run)
	print(text)
	return 1 if bad else 0

