#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""verdict.py CELL_JSON [CASE]: exit 0 when the cell's contract cases (or
CASE alone) all pass, 1 otherwise, printing what was not passing. Used by
git bisect run.

Only "pass" passes: fail, crash, hang, skip and error do not, nor a CASE
with no result. Whatever CASE says, the rows that belong to no case are
always judged too: errors (a case with no result, a QEMU fault), the
kernel's oopses and splats outside every case ("outside_cases") and the
cell's own rows ("cell.boot"): a commit whose kernel oopses between cases
is not good."""

import json
import sys

OUTSIDE = 'outside_cases'


def always_judged(c: dict) -> bool:
	return c['status'] == 'error' or c['case'] == OUTSIDE or c['suite'] == 'cell'


def main(argv: list) -> int:
	with open(argv[0]) as f:
		cases = json.load(f)['cases']
	want = argv[1] if len(argv) > 1 and argv[1] else None
	picked = [c for c in cases if always_judged(c) or (
		c['case'] == want if want else c['suite'].startswith('zero_size'))]
	bad = [c for c in picked if c['status'] != 'pass']
	for c in bad:
		print(f"  {c['case']}: {c['status']} {c['detail']}", file=sys.stderr)
	if want and not any(c['case'] == want for c in cases):
		print(f'  {want}: no result', file=sys.stderr)
		return 1
	return 1 if bad else 0


if __name__ == '__main__':
	sys.exit(main(sys.argv[1:]))
