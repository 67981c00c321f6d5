#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""mutant_verdict.py CELL_JSON | --table MUTANTS_TSV

CELL_JSON: whether the contract suite killed the mutant built into that
cell. Prints "killed<TAB>case (status), ..." when some contract case
failed, crashed or hung; "survived<TAB>..." when every contract case
passed; "error<TAB>..." when no case gave a kernel verdict (the harness
could not tell, which is neither a kill nor a survival).

--table: the run's mutant -> killing cases table from mutants.sh's TSV.
"""

import json
import sys
from typing import List

KILLING = ('fail', 'crash', 'hang')


def verdict(path: str) -> str:
	with open(path) as f:
		cases = json.load(f)['cases']
	contract = [c for c in cases if c['suite'].startswith('zero_size')]
	killers = [f"{c['case']} ({c['status']})" for c in contract if c['status'] in KILLING]
	if killers:
		return 'killed\t' + ', '.join(killers)
	errors = [c for c in cases if c['status'] not in ('pass',)]
	if errors or not contract:
		what = errors[0] if errors else {'case': 'suite', 'detail': 'no contract results'}
		return f"error\t{what['case']}: {what.get('detail', '')}"
	return f'survived\tall {len(contract)} contract cases pass'


def table(path: str) -> int:
	rows: List[List[str]] = []
	with open(path) as f:
		for line in f:
			rows.append(line.rstrip('\n').split('\t', 3))
	width = max([len(r[0]) for r in rows] + [6])
	print(f"{'mutant':<{width}}  alloc  result    killed by")
	mutants = killed = bad = 0
	for name, alloc, result, why in rows:
		print(f'{name:<{width}}  {alloc:<5}  {result:<8}  {why}')
		# The unmutated controls must survive: every case passes there.
		if name.startswith('control-'):
			bad += result != 'survived'
			continue
		mutants += 1
		killed += result == 'killed'
	bad += mutants - killed
	print(f'{killed} of {mutants} mutants killed'
	      + ('' if not bad else f'; {bad} not as expected (a control that fails, '
		 'a mutant that survives or could not be tested)'))
	return 1 if bad or not rows else 0


def main(argv: List[str]) -> int:
	if argv[0] == '--table':
		return table(argv[1])
	print(verdict(argv[0]))
	return 0


if __name__ == '__main__':
	sys.exit(main(sys.argv[1:]))
