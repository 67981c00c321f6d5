# SPDX-License-Identifier: GPL-2.0
"""What a result is: statuses, contract rows, the bisect and mutant verdicts.

What a result is: the statuses a row can have, which rows belong to the
contract suite, and the two questions other tools ask of a cell.

bisect_verdict(): is this commit good? Only "pass" passes: fail, crash,
hang, skip and error do not, nor a CASE with no result. Whatever CASE
says, the rows that belong to no case are always judged too: errors (a
case with no result, a QEMU fault), the kernel's oopses and splats
outside every case ("outside_cases") and the cell's own rows
("cell.boot"): a commit whose kernel oopses between cases is not good.

mutant_verdict(): did the contract suite kill the wrong fix built into
this cell? "killed" when some contract case failed, crashed or hung;
"survived" when every contract case passed; "error" when no case gave a
kernel verdict (the harness could not tell, which is neither).
"""

import enum
import json
import os
from typing import Any, Dict, FrozenSet, List, Optional, Tuple

from . import axes
from .errors import SchemaError

# The version of cell.json and results.json. Paths in them are relative:
# a cell's logs to its own directory, a reused cell's origin to the run
# directory, so that a run directory can be moved or merged.
# 2: cell.json records what its kernel was built from ("series",
# "kernel_image_sha256"): a harness that cannot check those when it
# merges, exports or writes a cover letter must not read such a run.
# Older cells still load; what they never recorded is not known.
SCHEMA = 2


class Status(str, enum.Enum):
	"""A row's status; a str, so rows stay plain JSON."""
	PASS = 'pass'
	SKIP = 'skip'
	# An upstream test case that needs a config this kernel does not have
	# (KASAN's tag-mode cases on generic KASAN): neither pass nor fail.
	NA = 'n/a'
	FAIL = 'fail'
	ERROR = 'error'
	HANG = 'hang'
	CRASH = 'crash'

	def __str__(self) -> str:
		return self.value


class Outcome(str, enum.Enum):
	"""How a boot ended: the kernel's doing (poweroff, crash, panic,
	hang, timeout), or QEMU's (failed, killed, quit early): not a kernel
	verdict."""
	POWEROFF = 'poweroff'
	CRASH = 'crash'
	PANIC = 'panic'
	HANG = 'hang'
	TIMEOUT = 'timeout'
	QEMU_ERROR = 'qemu-error'

	def __str__(self) -> str:
		return self.value


# What each status promises, one line each (README's statuses, make docs).
MEANING = {
	Status.PASS: 'ran to its ok line, every expectation held, no oops, lockup or splat in its window',
	Status.NA: "an upstream case that needs a config this kernel or hardware this guest lacks; neither pass nor fail",
	Status.SKIP: 'KUnit skipped it; in the patched tree a skip counts as a failure',
	Status.FAIL: 'an expectation failed, or the kernel printed a splat in its window',
	Status.ERROR: 'no kernel verdict: no result line, a result twice, or a host or QEMU fault',
	Status.HANG: 'a soft lockup or RCU stall, silence, or the total timeout while it ran',
	Status.CRASH: 'an oops or panic while it ran (the detail names the oops line and thread)',
}

# Worse wins when two things happened to one row.
SEVERITY = [Status.PASS, Status.NA, Status.SKIP, Status.FAIL, Status.ERROR, Status.HANG, Status.CRASH]
# A kernel verdict against the case: what kills a mutant.
KILLING = (Status.FAIL, Status.CRASH, Status.HANG)

CONTRACT_PREFIX = 'zero_size'
SUITE_MODULE = 'zero_size_test'
OUTSIDE = 'outside_cases'
HOST_FAULT = 'host or QEMU fault, not a kernel verdict'
# The detail of a case the boots never reached (runner.Cell.finish).
NEVER_STARTED = 'no result from the suite: never started'

Row = Dict[str, Any]


def worse(a: str, b: str) -> bool:
	"""Whether status a is worse than status b."""
	return SEVERITY.index(Status(a)) > SEVERITY.index(Status(b))


def in_contract_suite(r: Row) -> bool:
	"""A row of the contract suites, their outside-the-cases row included."""
	return str(r['suite']).startswith(CONTRACT_PREFIX)


def is_contract(r: Row) -> bool:
	"""A case of the contract suite (not its outside-the-cases row)."""
	return in_contract_suite(r) and r['case'] != OUTSIDE


def dump_json(path: str, data: Row) -> None:
	"""Writes data with the schema version, atomically."""
	with open(path + '.tmp', 'w') as f:
		json.dump({'schema': SCHEMA, **{k: v for k, v in data.items() if k != 'schema'}},
			  f, indent=1)
	os.replace(path + '.tmp', path)


def load_json(path: str) -> Row:
	with open(path) as f:
		data = json.load(f)
	# Runs before the schema: results.json was a bare list of rows.
	if isinstance(data, list):
		data = {'schema': 0, 'rows': data}
	if int(data.get('schema', 0)) > SCHEMA:
		raise SchemaError(f"{path} has schema {data['schema']}; this harness reads "
				  f'up to {SCHEMA}: update the checkout')
	result: Row = data
	return result


def recorded_series(cell: Row) -> Optional[Row]:
	"""The series @cell's kernel was built from, as its cell.json recorded
	it: {"digest": series.digest(), "patchset_hash": kcidb's, "patches":
	[names in order]}, a digest of '' for vanilla. None when not known: a
	cell from before schema 2, or one whose tree was not the series as
	applied (a bisect step, a mutant): such a verdict speaks for no series."""
	s = cell.get('series')
	return s if isinstance(s, dict) and isinstance(s.get('digest'), str) else None


def run_series(run: str, kernel: str) -> Dict[str, Optional[Row]]:
	"""Each patched cell of @kernel in @run that has a cell.json -> the
	series it recorded (recorded_series). A cell that did not build has
	none: it gave no verdict on the series."""
	found: Dict[str, Optional[Row]] = {}
	for c in axes.all_cells():
		path = os.path.join(run, c.name, 'cell.json')
		if c.kernel == kernel and c.tree == 'patched' and os.path.isfile(path):
			found[c.name] = recorded_series(load_json(path))
	return found


def short(series: Optional[Row]) -> str:
	"""A recorded series in a one-line message."""
	return f"series {series['digest'][:12]}" if series else 'no recorded series'


def load_cases(cell_json: str) -> List[Row]:
	cases: List[Row] = load_json(cell_json)['cases']
	return cases


def load_rows(results_json: str) -> List[Row]:
	rows: List[Row] = load_json(results_json)['rows']
	return rows


def always_judged(c: Row) -> bool:
	return bool(c['status'] == Status.ERROR or c['case'] == OUTSIDE or c['suite'] == 'cell')


def bisect_verdict(cases: List[Row], want: str) -> Tuple[bool, List[str]]:
	"""(good, why not) for one commit's cell; want: one case or '' for all."""
	picked = [c for c in cases if always_judged(c) or (
		c['case'] == want if want else in_contract_suite(c))]
	why = [f"{c['case']}: {c['status']} {c['detail']}" for c in picked
	       if c['status'] != Status.PASS]
	if want and not any(c['case'] == want for c in cases):
		why.append(f'{want}: no result')
	return not why, why


def mutant_verdict(cases: List[Row], kills: FrozenSet[str] = frozenset()) -> Tuple[str, str]:
	"""("killed" | "survived" | "error", why) for one mutant's cell. A
	mutant is killed by a case it names (Kills:) that fails, crashes or
	hangs; any other row that does not pass (another case, outside_cases,
	a silence) is noise, never a kill: an error. Without @kills (the
	controls) every contract case counts."""
	contract = [c for c in cases if in_contract_suite(c)]
	named = [c for c in contract if not kills or c['case'] in kills]
	killers = [f"{c['case']} ({c['status']})" for c in named if c['status'] in KILLING]
	if killers:
		return 'killed', ', '.join(killers)
	errors = [c for c in cases if c['status'] != Status.PASS]
	missing = sorted(kills - {c['case'] for c in contract})
	if errors or not contract or missing:
		what = errors[0] if errors else {
			'case': 'suite', 'detail': f"no result for {', '.join(missing)}" if missing
			else 'no contract results'}
		return 'error', f"{what['case']}: {what.get('detail', '')}"
	return 'survived', f'all {len(named)} ' + ('named cases pass' if kills else
						   'contract cases pass')


def mutant_table(rows: List[List[str]]) -> Tuple[str, bool]:
	"""The run's mutant -> killing cases table, and whether all is as expected:
	every mutant killed, every unmutated control survived."""
	width = max([len(r[0]) for r in rows] + [6])
	lines = [f"{'mutant':<{width}}  alloc  result    killed by"]
	mutants = killed = bad = 0
	for name, alloc, result, why in rows:
		lines.append(f'{name:<{width}}  {alloc:<5}  {result:<8}  {why}')
		if name.startswith('control-'):
			bad += result != 'survived'
			continue
		mutants += 1
		killed += result == 'killed'
	bad += mutants - killed
	lines.append(f'{killed} of {mutants} mutants killed'
		     + ('' if not bad else f'; {bad} not as expected (a control that fails, '
			'a mutant that survives or could not be tested)'))
	return '\n'.join(lines), not bad and bool(rows)
