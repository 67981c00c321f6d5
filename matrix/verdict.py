#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""verdict.py CELL_JSON [CASE]: exit 0 when the cell's contract cases (or
CASE alone) all pass, 1 otherwise (fail, crash, hang, error, or CASE has
no result), printing what was not passing. Used by git bisect run."""

import json
import sys


def main(argv: list) -> int:
	with open(argv[0]) as f:
		cases = json.load(f)['cases']
	want = argv[1] if len(argv) > 1 and argv[1] else None
	picked = [c for c in cases if (c['case'] == want if want
				       else c['suite'].startswith('zero_size') or c['status'] == 'error')]
	bad = [c for c in picked if c['status'] != 'pass']
	for c in bad:
		print(f"  {c['case']}: {c['status']} {c['detail']}", file=sys.stderr)
	if want and not picked:
		print(f'  {want}: no result', file=sys.stderr)
		return 1
	return 1 if bad else 0


if __name__ == '__main__':
	sys.exit(main(sys.argv[1:]))
