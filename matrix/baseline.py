#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""baseline.py RUN [BASELINE]: vanilla 6.1 still shows every bug the series
fixes, and nothing else.

BASELINE (default matrix/baseline-vanilla.txt) lists "alloc case status"
for each row that does not pass on vanilla; status may list alternatives
("crash|hang"). Prints one "ok"/"FAIL" line per listed row (the suite
detected the bug, or it no longer does), then one "FAIL" per vanilla row
that does not pass but is not listed. This is what makes the contract
cases able to fail: each is shown failing where 6.1 is broken.
"""

import json
import os
import sys
from typing import Dict, List, Tuple

HERE = os.path.dirname(os.path.abspath(__file__))


BASELINE = os.path.join(HERE, 'baseline-vanilla.txt')


def load_baseline(path: str = BASELINE) -> Dict[Tuple[str, str], List[str]]:
	want = {}
	with open(path) as f:
		for line in f:
			line = line.split('#')[0].strip()
			if line:
				alloc, case, status = line.split()
				want[(alloc, case)] = status.split('|')
	return want


def main(argv: List[str]) -> int:
	run = argv[0]
	want = load_baseline(argv[1] if len(argv) > 1 else BASELINE)
	with open(os.path.join(run, 'results.json')) as f:
		rows = [r for r in json.load(f) if r['tree'] == 'vanilla']
	got = {(r['allocator'], r['case']): r['status'] for r in rows}
	allocs = {r['allocator'] for r in rows}
	bad = 0
	for (alloc, case), statuses in sorted(want.items()):
		if alloc not in allocs:
			continue
		status = got.get((alloc, case), 'missing')
		if status in statuses:
			print(f'ok   vanilla/{alloc} {case}: {status} as expected')
		else:
			print(f"FAIL vanilla/{alloc} {case}: {status}, expected {'|'.join(statuses)}")
			bad += 1
	for (alloc, case), status in sorted(got.items()):
		if status != 'pass' and (alloc, case) not in want:
			print(f'FAIL vanilla/{alloc} {case}: {status}, not in the baseline')
			bad += 1
	return 1 if bad else 0


if __name__ == '__main__':
	sys.exit(main(sys.argv[1:]))
