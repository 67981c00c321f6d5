# SPDX-License-Identifier: GPL-2.0
"""RUN/results.ktap: a run's results as KTAP, the format kernel test tools read.

kunit.py parse, kselftest's runners and LAVA read KTAP
(Documentation/dev-tools/ktap.rst); results.json is this harness's own.
The run is one test plan, each cell a subtest ("vanilla-slab", with its
kernel and profile when not the default: axes.Cell.name), its rows the
cell's cases, "suite.case". pass is "ok"; fail, crash, hang and error are
"not ok", each after a diagnostic line saying which and why (the oops,
the splat, the failed expectation), since KTAP has no crash; n/a and
skip are "ok ... # SKIP" with their reason. A cell is "ok" only when
every row of it is. The Z7 row, which compares cells, is a row of each
cell it judges. The file is rewritten from results.json on every
table.main(): it is a view of the run, never a second record.
"""

import os
from typing import Dict, List, Tuple

from . import axes
from .results import Row

OUTPUT = 'results.ktap'
INDENT = '    '
NOT_OK = ('fail', 'crash', 'hang', 'error')


def one_line(text: str) -> str:
	"""A detail as one line: a newline would end the diagnostic."""
	return ' '.join(text.split())


def case_lines(n: int, r: Row) -> List[str]:
	name = f"{r['suite']}.{r['case']}"
	detail = one_line(r.get('detail', ''))
	if r['status'] in NOT_OK:
		return [f"# {r['status']}: {detail or 'no detail'}", f'not ok {n} {name}']
	if r['status'] in ('skip', 'n/a'):
		return [f"ok {n} {name} # SKIP {r['status']}: {detail or 'no reason given'}"]
	return [f'ok {n} {name}']


def cell_name(r: Row) -> str:
	return axes.Cell(r['kernel'], r['tree'], r['profile'], r['allocator']).name


def render(rows: List[Row]) -> str:
	cells: Dict[str, List[Row]] = {}
	for r in rows:
		cells.setdefault(cell_name(r), []).append(r)
	out = ['KTAP version 1', f'1..{len(cells)}']
	for i, (name, mine) in enumerate(cells.items(), 1):
		body = ['KTAP version 1', f'# Subtest: {name}', f'1..{len(mine)}']
		for n, r in enumerate(mine, 1):
			body += case_lines(n, r)
		out += [INDENT + line for line in body]
		ok = all(r['status'] not in NOT_OK for r in mine)
		out.append(f"{'ok' if ok else 'not ok'} {i} {name}")
	return '\n'.join(out) + '\n'


def counts(rows: List[Row]) -> Tuple[int, int]:
	"""(cells, rows) the file holds: what a reader must find in it."""
	return len({cell_name(r) for r in rows}), len(rows)


def write(run: str, rows: List[Row]) -> str:
	path = os.path.join(run, OUTPUT)
	with open(path + '.tmp', 'w') as f:
		f.write(render(rows))
	os.replace(path + '.tmp', path)
	return path
