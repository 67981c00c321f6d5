# SPDX-License-Identifier: GPL-2.0
"""A finished run's results in the two forms other tools read: a KernelCI
kcidb I/O report (RUN/kcidb.json) and JUnit XML (RUN/junit.xml).

Why: results.json is this harness's own format. KernelCI's database
takes kcidb I/O data, and CI systems (GitLab, Jenkins) show JUnit XML;
exporting a run lets both show the matrix without knowing it.

kcidb (schema v5.3, kcidb-io's kcidb_io/schema/v05_03.py; a copy is
matrix/tests/data/kcidb-v5-schema.json):
  - a checkout per (kernel, tree): Debian's source package, plus the
    series for the patched tree. Its patchset_hash is kcidb's: the sha256
    of the newline-terminated sha256s of the patches, in series order
    ("" for vanilla), as the run's patched cells recorded it when they
    booted (results.recorded_series), never today's series, which may
    have changed since. A run whose cells recorded no series (made before
    schema 2, or a bisect step's) has no patchset_hash: misc says it is
    unknown. Cells of one kernel that recorded different series are an
    error: a checkout is one series.
  - a build per cell (kernel config): x86_64, config_name
    "profile+allocator". v5 builds have no "valid": status PASS when the
    cell built, FAIL when it did not, absent when the run holds no cell
    directory to tell.
  - a test per row of results.json, path "suite.case". kcidb has no
    crash or hang: both are FAIL, with misc.zsp_status saying which and
    misc.detail the oops or stall line, misc.where where it died (RIP <
    frames up to the test's); n/a is SKIP (not applicable);
    an error is MISS where the case never ran or a host or QEMU fault
    ended its boot (kcidb: "didn't run due to a failure in the test
    harness"), else ERROR. Every test's misc keeps zsp_status, so
    nothing is lost.
  Every id is "ORIGIN:RUN:..." (unique and the same on every export).
  kcidb's URL fields must be absolute URIs (format "uri"); a run's logs
  have only paths relative to the run directory, so they go in misc
  ("log", "build_log"), and the patch names in the checkout's misc (a
  patchset_files entry needs a URL).

JUnit: a <testsuite> per cell, a <testcase> per row (classname suite,
name case); fail, crash and hang are <failure type=STATUS>, error is
<error>, skip and n/a are <skipped>.
"""

import json
import os
import re
import sys
import xml.etree.ElementTree as ET
from typing import Any, Dict, List, Optional, Set, Tuple

from . import axes
from .errors import ExportError
from .results import HOST_FAULT, NEVER_STARTED, Row, load_json, run_series, short

KCIDB_VERSION = {'major': 5, 'minor': 3}
ARCH = 'x86_64'
# kcidb's origin_pattern; a test path part is its test_path_re's.
ORIGIN = re.compile(r'[a-z0-9_]+')
NOT_PATH = re.compile(r'[^a-zA-Z0-9_-]+')
KCIDB_STATUS = {'pass': 'PASS', 'fail': 'FAIL', 'crash': 'FAIL', 'hang': 'FAIL',
		'skip': 'SKIP', 'n/a': 'SKIP', 'error': 'ERROR'}
NOT_APPLICABLE = 'not applicable: the case needs a config this kernel does not have'
FAILURES = ('fail', 'crash', 'hang')
SKIPPED = ('skip', 'n/a')
# What XML 1.0 cannot hold, even escaped (console logs carry escapes).
NOT_XML = re.compile('[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]')
BUILD_STEPS = ('config', 'kernel', 'module', 'initramfs')


def load(run: str) -> Tuple[str, List[Row]]:
	"""(run id, rows) of a finished run."""
	path = os.path.join(run, 'results.json')
	if not os.path.isfile(path):
		raise ExportError(f'{run} has no results.json; give a finished run of make matrix')
	data = load_json(path)
	run_id = str(data.get('run') or os.path.basename(os.path.normpath(run)))
	rows: List[Row] = data['rows']
	return run_id, rows


def cell_of(r: Row) -> axes.Cell:
	"""A row's cell; rows from before the schema name no kernel or profile."""
	try:
		return axes.Cell(r.get('kernel', axes.DEFAULT_KERNEL), r['tree'],
				 r.get('profile', axes.DEFAULT_PROFILE), r['allocator'])
	except (KeyError, ValueError) as e:
		raise ExportError(f"a row of results.json names no cell of this harness ({e}): "
				  f"{r.get('suite')}.{r.get('case')}; export it with the checkout "
				  'that ran it') from e


def cells_of(rows: List[Row]) -> List[axes.Cell]:
	"""The run's cells, in the order of results.json."""
	return list(dict.fromkeys(cell_of(r) for r in rows))


def cell_json(run: str, c: axes.Cell) -> Optional[Row]:
	path = os.path.join(run, c.name, 'cell.json')
	return load_json(path) if os.path.isfile(path) else None


def series_of(run: str, kernel: str) -> Optional[Row]:
	"""The series the run's patched cells of @kernel recorded; None when
	any of them (or the run, having no patched cell.json) recorded none."""
	found = list(run_series(run, kernel).items())
	if not found:
		return None
	first, mine = found[0]
	for name, theirs in found[1:]:
		if (theirs or {}).get('digest') != (mine or {}).get('digest'):
			raise ExportError(f'{run}: cells {first} ({short(mine)}) and {name} '
					  f'({short(theirs)}) of kernel {kernel} ran different series; '
					  'export a run of one series')
	return mine


def checkout_id(origin: str, run_id: str, kernel: str, tree: str) -> str:
	return f'{origin}:{run_id}:{kernel}-{tree}'


# misc.patchset_hash of a patched checkout whose run recorded no series.
UNKNOWN_SERIES = ('unknown: the run recorded no series (made before cell.json schema 2, '
		  'or not on the series as applied); not computed from today\'s series')


def checkout(origin: str, run_id: str, kernel: str, tree: str, recorded: Optional[Row],
	     built: bool) -> Row:
	"""The (kernel, tree) source: Debian's package, plus the series the
	run @recorded (series_of()) for the patched tree."""
	k = axes.KERNELS[kernel]
	misc: Row = {'kernel': kernel, 'tree': tree, 'package': k.package}
	comment = f'Debian {k.package}'
	hashes: Row = {'patchset_hash': ''}
	if tree == 'patched' and recorded:
		hashes['patchset_hash'] = recorded['patchset_hash']
		misc['patchset_files'] = recorded['patches']
		misc['series_digest'] = recorded['digest']
		# Its directory is not recorded (PATCHES= may have named another).
		comment += f" + {len(recorded['patches'])} patches (series {recorded['digest'][:12]})"
	elif tree == 'patched':
		# kcidb's patchset_hash is optional: absent says "not known".
		hashes = {}
		misc['patchset_hash'] = UNKNOWN_SERIES
		comment += ' + the patches of a series the run did not record'
	c: Row = {'id': checkout_id(origin, run_id, kernel, tree), 'origin': origin,
		  'tree_name': f'debian-{kernel}-{tree}', **hashes, 'comment': comment}
	# Known only when a cell built: the series applied.
	if built:
		c['valid'] = True
	c['misc'] = misc
	return c


def build_status(run: str, c: axes.Cell) -> Tuple[Optional[str], Row]:
	"""(kcidb status, misc) of a cell's build: a cell.json (a boot) or a
	kept .config means it built; an error without them, that it did not."""
	d = os.path.join(run, c.name)
	if os.path.isfile(os.path.join(d, 'cell.json')) or os.path.isfile(os.path.join(d, 'config')):
		return 'PASS', {}
	if os.path.isfile(os.path.join(d, 'error')):
		with open(os.path.join(d, 'error')) as f:
			return 'FAIL', {'error': f.read().strip()}
	return None, {}


def build_seconds(run: str, c: axes.Cell) -> Optional[float]:
	"""config + kernel + module + initramfs, from the cell's timings."""
	path = os.path.join(run, c.name, 'timings')
	if not os.path.isfile(path):
		return None
	total = 0.0
	with open(path) as f:
		for line in f:
			parts = line.split()
			if len(parts) == 2 and parts[0] in BUILD_STEPS:
				total += float(parts[1])
	return round(total, 2)


def build_id(origin: str, run_id: str, c: axes.Cell) -> str:
	return f'{origin}:{run_id}:{c.name}'


def build(origin: str, run_id: str, run: str, c: axes.Cell, cell: Optional[Row]) -> Row:
	"""A cell's kernel config, built."""
	status, misc = build_status(run, c)
	misc = {'cell': c.name, 'kernel': c.kernel, 'tree': c.tree, 'profile': c.profile,
		'allocator': c.allocator, **misc}
	if os.path.isfile(os.path.join(run, c.name, 'build.log')):
		misc['build_log'] = f'{c.name}/build.log'
	if cell and cell.get('not_available'):
		misc['not_available'] = cell['not_available']
	if cell and cell.get('reused_from'):
		misc['reused_from'] = cell['reused_from']
	b: Row = {'id': build_id(origin, run_id, c), 'origin': origin,
		  'checkout_id': checkout_id(origin, run_id, c.kernel, c.tree),
		  'architecture': ARCH, 'config_name': f'{c.profile}+{c.allocator}'}
	seconds = build_seconds(run, c)
	if seconds is not None:
		b['duration'] = seconds
	if status:
		b['status'] = status
	b['misc'] = misc
	return b


def test_path(suite: str, case: str) -> str:
	"""kcidb's dot-separated path: each part [a-zA-Z0-9_-]+."""
	return '.'.join(NOT_PATH.sub('_', part) or '_' for part in (suite, case))


def boot_log(run: str, c: axes.Cell, cell: Optional[Row], boot: int) -> str:
	"""The boot's log, relative to the run; '' when the run has none."""
	logs = {b['boot']: b['log'] for b in (cell or {}).get('boots', [])}
	rel = os.path.join(c.name, logs.get(boot, f'boot-{boot}.log'))
	return rel if boot and os.path.isfile(os.path.join(run, rel)) else ''


def test_misc(r: Row, path: str, log: str) -> Row:
	"""What kcidb has no field for: zsp's own status, its reason, the log."""
	misc: Row = {'zsp_status': r['status']}
	if r.get('detail'):
		misc['detail'] = r['detail']
	if r.get('where'):
		misc['where'] = r['where']
	if r['status'] == 'n/a':
		misc['not_applicable'] = NOT_APPLICABLE
	if path != f"{r['suite']}.{r['case']}":
		misc.update(zsp_suite=r['suite'], zsp_case=r['case'])
	if r.get('boot'):
		misc['boot'] = r['boot']
	if log:
		misc['log'] = log
	return misc


def kcidb_status(r: Row) -> str:
	"""kcidb's status of a row: an error the harness is to blame for,
	not the test, is MISS."""
	detail = r.get('detail', '')
	if r['status'] == 'error' and (detail.startswith(NEVER_STARTED) or HOST_FAULT in detail):
		return 'MISS'
	return KCIDB_STATUS[r['status']]


def test(origin: str, run_id: str, r: Row, log: str, seen: Set[str]) -> Row:
	"""One row; @seen keeps the ids unique should a case repeat."""
	c = cell_of(r)
	bid = build_id(origin, run_id, c)
	path = test_path(r['suite'], r['case'])
	tid = base = f'{bid}:{path}'
	n = 1
	while tid in seen:
		n += 1
		tid = f'{base}#{n}'
	seen.add(tid)
	return {'id': tid, 'origin': origin, 'build_id': bid, 'path': path,
		'status': kcidb_status(r), 'misc': test_misc(r, path, log)}


def kcidb(run: str, origin: str = 'zsp') -> Dict[str, Any]:
	"""The run as kcidb I/O data, schema v5.3; the series is the one the
	run recorded (series_of())."""
	if not ORIGIN.fullmatch(origin):
		raise ExportError(f"origin '{origin}' is not a kcidb origin: use a-z, 0-9 and _")
	run_id, rows = load(run)
	cells = cells_of(rows)
	files = {c: cell_json(run, c) for c in cells}
	built = {(c.kernel, c.tree) for c in cells if build_status(run, c)[0] == 'PASS'}
	checkouts = [checkout(origin, run_id, k, t, series_of(run, k) if t == 'patched' else None,
			      (k, t) in built)
		     for k, t in dict.fromkeys((c.kernel, c.tree) for c in cells)]
	builds = [build(origin, run_id, run, c, files[c]) for c in cells]
	seen: Set[str] = set()
	tests = []
	for r in rows:
		c = cell_of(r)
		tests.append(test(origin, run_id, r, boot_log(run, c, files[c], int(r.get('boot', 0))),
				  seen))
	return {'version': dict(KCIDB_VERSION), 'checkouts': checkouts, 'builds': builds,
		'tests': tests}


def xml_text(s: str) -> str:
	return NOT_XML.sub('\ufffd', s)


def counts(rows: List[Row]) -> Dict[str, str]:
	"""A testsuite's tests, failures, errors and skipped, as attributes."""
	n = {'tests': len(rows),
	     'failures': sum(r['status'] in FAILURES for r in rows),
	     'errors': sum(r['status'] == 'error' for r in rows),
	     'skipped': sum(r['status'] in SKIPPED for r in rows)}
	return {k: str(v) for k, v in n.items()}


def testcase(parent: ET.Element, r: Row) -> None:
	status, detail = r['status'], xml_text(str(r.get('detail', '')))
	tc = ET.SubElement(parent, 'testcase', classname=xml_text(r['suite']),
			   name=xml_text(r['case']))
	if status in FAILURES:
		ET.SubElement(tc, 'failure', message=detail or status, type=status)
	elif status == 'error':
		ET.SubElement(tc, 'error', message=detail or 'error', type=status)
	elif status == 'n/a':
		ET.SubElement(tc, 'skipped', message=NOT_APPLICABLE + (f': {detail}' if detail else ''))
	elif status == 'skip':
		ET.SubElement(tc, 'skipped', message=detail or 'skipped')


def testsuite(parent: ET.Element, c: axes.Cell, rows: List[Row]) -> None:
	ts = ET.SubElement(parent, 'testsuite', {'name': c.name, **counts(rows)})
	props = ET.SubElement(ts, 'properties')
	for name in ('kernel', 'tree', 'profile', 'allocator'):
		ET.SubElement(props, 'property', name=name, value=getattr(c, name))
	for r in rows:
		testcase(ts, r)


def junit(run: str) -> str:
	"""The run as JUnit XML: a testsuite per cell, a testcase per row."""
	run_id, rows = load(run)
	root = ET.Element('testsuites', {'name': run_id, **counts(rows)})
	for c in cells_of(rows):
		testsuite(root, c, [r for r in rows if cell_of(r) == c])
	ET.indent(root, space='  ')
	return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding='unicode') + '\n'


def write(path: str, text: str) -> None:
	with open(path + '.tmp', 'w', encoding='utf-8') as f:
		f.write(text)
	os.replace(path + '.tmp', path)


def main(run: str, out_dir: str = '') -> int:
	"""Writes kcidb.json and junit.xml into @out_dir (default: the run)."""
	data = kcidb(run)
	for c in data['checkouts']:
		if 'patchset_hash' not in c:
			print(f"{run}: {c['tree_name']}: patchset_hash {UNKNOWN_SERIES}", file=sys.stderr)
	report = json.dumps(data, indent=1) + '\n'
	xml = junit(run)
	out = out_dir or run
	os.makedirs(out, exist_ok=True)
	for name, text in (('kcidb.json', report), ('junit.xml', xml)):
		write(os.path.join(out, name), text)
		print(os.path.join(out, name))
	return 0
