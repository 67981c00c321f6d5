# SPDX-License-Identifier: GPL-2.0
"""zsp/export.py: a run as kcidb I/O data (checked against kcidb-io's v5
schema, recorded in data/kcidb-v5-schema.json) and as JUnit XML."""

import contextlib
import io
import json
import os
import shutil
import subprocess
import tempfile
import unittest
import urllib.parse
import xml.etree.ElementTree as ET
from typing import Any, Dict, Iterator, List, Optional, Tuple

import jsonschema

from zsp import errors, export, results, series

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'data')
SCHEMA = os.path.join(DATA, 'kcidb-v5-schema.json')
REAL_RESULTS = os.path.join(DATA, 'run-tiny-results.json')
RUN_ID = 'test-20260101-000000-1'
OOPS = 'BUG: unable to handle page fault for address: 0000000000000010 \x1b[0m'
STALL = 'rcu: INFO: rcu_sched detected stalls on CPUs/tasks:'
# kcidb's fields of format "uri": an absolute URI, never a relative path.
URL_FIELDS = ('url', 'log_url', 'config_url', 'git_repository_url', 'report_url')


def row(tree: str, alloc: str, suite: str, case: str, status: str, detail: str = '',
	boot: int = 1) -> Dict[str, Any]:
	return {'run': RUN_ID, 'kernel': '6.1', 'profile': 'tiny', 'tree': tree,
		'allocator': alloc, 'suite': suite, 'case': case, 'status': status,
		'detail': detail, 'boot': boot}


ROWS = [
	row('patched', 'slub', 'zero_size_free', 'z2_kfree', 'pass'),
	row('patched', 'slub', 'zero_size_alloc', 'z1_kmalloc', 'skip', 'not in the plan'),
	row('patched', 'slub', 'zero_size_cache', 'z5_cache_plain', 'error',
	    'no result from the suite: never started'),
	row('patched', 'slub', 'slub_test', 'test kmalloc[1]', 'pass'),
	row('vanilla', 'slub', 'zero_size_free', 'z2_kfree', 'crash', OOPS, 1),
	row('vanilla', 'slub', 'zero_size_free', 'z2_kvfree', 'hang', STALL, 2),
	row('vanilla', 'slub', 'kasan', 'kasan_tag_case', 'n/a', 'needs KASAN_SW_TAGS'),
	row('vanilla', 'slub', 'zero_size_alloc', 'z1_kmalloc', 'pass', '', 3),
	row('vanilla', 'slab', 'cell', 'build_and_boot', 'error', 'kernel build failed', 0),
]


def write(path: str, text: str) -> None:
	os.makedirs(os.path.dirname(path), exist_ok=True)
	with open(path, 'w') as f:
		f.write(text)


def cell_json(tree: str, alloc: str, boots: List[Tuple[int, str]],
	      recorded: Optional[Dict[str, Any]] = None) -> str:
	"""A cell.json; @recorded: its series, or None for one of schema 1,
	which records none."""
	cell = {'schema': 1, 'kernel': '6.1', 'tree': tree, 'profile': 'tiny',
		'allocator': alloc, 'not_available': [],
		'boots': [{'boot': n, 'log': f'boot-{n}.log', 'outcome': o,
			   'reason': '', 'seconds': 1.0} for n, o in boots],
		'cases': []}
	if recorded is not None:
		cell.update(schema=2, series=recorded, kernel_image_sha256='0' * 64)
	return json.dumps(cell)


def make_run(run: str, recorded: Optional[Dict[str, Any]] = None) -> None:
	"""Three cells: patched-slub and vanilla-slub built and booted,
	vanilla-slab failed to build; the patched cell @recorded its series."""
	write(os.path.join(run, 'results.json'),
	      json.dumps({'schema': 1, 'run': RUN_ID, 'rows': ROWS}))
	for name, boots in (('patched-slub', [(1, 'poweroff')]),
			    ('vanilla-slub', [(1, 'crash'), (2, 'hang'), (3, 'poweroff')])):
		tree, alloc = name.split('-')
		write(os.path.join(run, name, 'cell.json'), cell_json(
			tree, alloc, boots, recorded if tree == 'patched' else
			series.no_series() if recorded else None))
		write(os.path.join(run, name, 'config'), 'CONFIG_SLUB=y\n')
		write(os.path.join(run, name, 'timings'), 'config 1.50\nkernel 100.25\nmodule 2.00\n'
		      'initramfs 0.25\nboot 9.00\n')
		for n, _ in boots:
			write(os.path.join(run, name, f'boot-{n}.log'), 'console\n')
	write(os.path.join(run, 'vanilla-slab', 'error'), 'kernel: make bzImage failed\n')


def make_series(patches: str) -> List[str]:
	"""A series of two patches in subdirectories, as the real one."""
	paths = [os.path.join(patches, 'common', '0001-a.patch'),
		 os.path.join(patches, 'slub', '0002-b.patch')]
	for n, p in enumerate(paths):
		write(p, f'Subject: [PATCH {n + 1}/2] x\n\n--- a\n+++ b\n')
	write(os.path.join(patches, 'series'), '# order\ncommon/0001-a.patch\n\nslub/0002-b.patch\n')
	return paths


def validator() -> jsonschema.Draft7Validator:
	"""kcidb-io validates with Draft 7 and its format checker."""
	with open(SCHEMA) as f:
		schema = json.load(f)
	return jsonschema.Draft7Validator(schema,
					  format_checker=jsonschema.Draft7Validator.FORMAT_CHECKER)


def fields(node: Any) -> Iterator[Tuple[str, Any]]:
	"""Every (key, value) of a JSON tree, misc's contents left out."""
	if isinstance(node, dict):
		for k, v in node.items():
			yield k, v
			if k != 'misc':
				yield from fields(v)
	elif isinstance(node, list):
		for v in node:
			yield from fields(v)


class ExportTest(unittest.TestCase):
	def setUp(self) -> None:
		self.tmp = tempfile.TemporaryDirectory()
		self.run = os.path.join(self.tmp.name, RUN_ID)
		self.patches = os.path.join(self.tmp.name, 'patches')
		self.patch_paths = make_series(self.patches)
		# As runner.write records it when the cell boots.
		make_run(self.run, series.record(self.patches))

	def tearDown(self) -> None:
		self.tmp.cleanup()

	def report(self) -> Dict[str, Any]:
		return export.kcidb(self.run)

	def by_path(self, cell: str) -> Dict[str, Dict[str, Any]]:
		return {t['path']: t for t in self.report()['tests']
			if t['build_id'] == f'zsp:{RUN_ID}:{cell}'}

	def test_kcidb_is_valid_v5(self) -> None:
		report = self.report()
		errors = [f'{list(e.path)}: {e.message}' for e in validator().iter_errors(report)]
		self.assertEqual(errors, [])
		self.assertEqual(report['version'], {'major': 5, 'minor': 3})
		for key, value in fields(report):
			if key in URL_FIELDS:
				self.assertTrue(urllib.parse.urlsplit(value).scheme, f'{key}: {value}')

	def test_schema_is_kcidbs(self) -> None:
		"""The recorded schema refuses what kcidb refuses."""
		bad = {'version': {'major': 5, 'minor': 3},
		       'tests': [{'id': 'zsp:t', 'origin': 'zsp', 'build_id': 'zsp:b',
				  'status': 'CRASH', 'path': 'a b', 'crash': True}]}
		messages = ' '.join(e.message for e in validator().iter_errors(bad))
		for word in ('CRASH', 'a b', 'crash'):
			self.assertIn(word, messages)
		self.assertFalse(validator().is_valid({'version': {'major': 4}}))

	def test_statuses(self) -> None:
		vanilla = self.by_path('vanilla-slub')
		crash = vanilla['zero_size_free.z2_kfree']
		self.assertEqual(crash['status'], 'FAIL')
		self.assertEqual(crash['misc']['zsp_status'], 'crash')
		self.assertEqual(crash['misc']['detail'], OOPS)
		hang = vanilla['zero_size_free.z2_kvfree']
		self.assertEqual((hang['status'], hang['misc']['zsp_status']), ('FAIL', 'hang'))
		self.assertEqual(hang['misc']['detail'], STALL)
		na = vanilla['kasan.kasan_tag_case']
		self.assertEqual(na['status'], 'SKIP')
		self.assertEqual(na['misc']['zsp_status'], 'n/a')
		self.assertIn('not applicable', na['misc']['not_applicable'])
		self.assertEqual(vanilla['zero_size_alloc.z1_kmalloc']['status'], 'PASS')
		patched = self.by_path('patched-slub')
		self.assertEqual(patched['zero_size_alloc.z1_kmalloc']['status'], 'SKIP')
		# Never started: kcidb's MISS (the harness's doing), not ERROR.
		self.assertEqual(patched['zero_size_cache.z5_cache_plain']['status'], 'MISS')
		for detail, want in ((f'QEMU killed by SIGKILL: {results.HOST_FAULT}', 'MISS'),
				     ('no result from the suite: started in boot 1, printed no '
				      'ok/not ok line', 'ERROR')):
			r = row('patched', 'slub', 'zero_size_free', 'z2_x', 'error', detail)
			self.assertEqual(export.kcidb_status(r), want, detail)
		slab = self.by_path('vanilla-slab')
		self.assertEqual(slab['cell.build_and_boot']['status'], 'ERROR')

	def test_a_case_name_kcidb_cannot_take(self) -> None:
		t = self.by_path('patched-slub')['slub_test.test_kmalloc_1_']
		self.assertEqual((t['misc']['zsp_suite'], t['misc']['zsp_case']),
				 ('slub_test', 'test kmalloc[1]'))

	def test_ids_unique_linked_and_deterministic(self) -> None:
		report = self.report()
		for kind in ('checkouts', 'builds', 'tests'):
			ids = [o['id'] for o in report[kind]]
			self.assertEqual(len(ids), len(set(ids)), kind)
			self.assertTrue(all(i.startswith(f'zsp:{RUN_ID}:') for i in ids), kind)
		self.assertEqual(len(report['tests']), len(ROWS))
		builds = {b['id'] for b in report['builds']}
		checkouts = {c['id'] for c in report['checkouts']}
		self.assertTrue(all(t['build_id'] in builds for t in report['tests']))
		self.assertTrue(all(b['checkout_id'] in checkouts for b in report['builds']))
		self.assertEqual(json.dumps(report), json.dumps(self.report()))

	def test_a_repeated_case_keeps_its_id_unique(self) -> None:
		write(os.path.join(self.run, 'results.json'),
		      json.dumps({'schema': 1, 'run': RUN_ID, 'rows': ROWS + ROWS[:1]}))
		ids = [t['id'] for t in self.report()['tests']]
		self.assertEqual(len(ids), len(set(ids)))

	def test_patchset_hash_is_kcidbs_for_patched_only(self) -> None:
		checkouts = {c['tree_name']: c for c in self.report()['checkouts']}
		self.assertEqual(set(checkouts), {'debian-6.1-vanilla', 'debian-6.1-patched'})
		self.assertEqual(checkouts['debian-6.1-vanilla']['patchset_hash'], '')
		# The shell command the schema gives, over the series in order.
		want = subprocess.run(['sh', '-c', 'sha256sum "$@" | cut -c-64 | sha256sum | cut -c-64',
				       'sh'] + self.patch_paths,
				      capture_output=True, text=True, check=True).stdout.strip()
		patched = checkouts['debian-6.1-patched']
		self.assertEqual(patched['patchset_hash'], want)
		self.assertEqual(patched['misc']['patchset_files'],
				 ['common/0001-a.patch', 'slub/0002-b.patch'])
		self.assertNotIn('patchset_files', checkouts['debian-6.1-vanilla']['misc'])

	def test_patchset_hash_is_the_runs_not_todays(self) -> None:
		"""The series changed (or went) since the run: the checkout is
		still the series the run booted."""
		want = self.report()['checkouts']
		with open(self.patch_paths[0], 'a') as f:
			f.write('+an edit after the run\n')
		self.assertEqual(self.report()['checkouts'], want)
		os.unlink(os.path.join(self.patches, 'series'))
		self.assertEqual(self.report()['checkouts'], want)

	def test_a_run_that_recorded_no_series_has_no_hash(self) -> None:
		"""A run from before schema 2: the hash is unknown, and said to be,
		never computed from today's series."""
		shutil.rmtree(self.run)
		make_run(self.run)
		report = self.report()
		self.assertEqual(list(validator().iter_errors(report)), [])
		checkouts = {c['tree_name']: c for c in report['checkouts']}
		patched = checkouts['debian-6.1-patched']
		self.assertNotIn('patchset_hash', patched)
		self.assertIn('unknown', patched['misc']['patchset_hash'])
		self.assertNotIn('patchset_files', patched['misc'])
		self.assertEqual(checkouts['debian-6.1-vanilla']['patchset_hash'], '')
		err = io.StringIO()
		with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(err):
			export.main(self.run)
		self.assertIn('debian-6.1-patched: patchset_hash unknown', err.getvalue())

	def test_cells_of_two_series_are_refused(self) -> None:
		"""A checkout is one series: a run whose cells ran two says so."""
		other = dict(series.record(self.patches), digest='b' * 64)
		write(os.path.join(self.run, 'patched-slab', 'cell.json'),
		      cell_json('patched', 'slab', [(1, 'poweroff')], other))
		with self.assertRaises(errors.ExportError) as e:
			self.report()
		msg = str(e.exception)
		for want in ('patched-slab', 'patched-slub', 'series bbbbbbbbbbbb', 'different series'):
			self.assertIn(want, msg)
		self.assertNotIn('\n', msg)

	def test_builds(self) -> None:
		builds = {b['misc']['cell']: b for b in self.report()['builds']}
		self.assertEqual(list(builds), ['patched-slub', 'vanilla-slub', 'vanilla-slab'])
		slub = builds['patched-slub']
		self.assertEqual((slub['architecture'], slub['config_name'], slub['status']),
				 ('x86_64', 'tiny+slub', 'PASS'))
		self.assertEqual(slub['duration'], 104.0)
		slab = builds['vanilla-slab']
		self.assertEqual(slab['status'], 'FAIL')
		self.assertEqual(slab['misc']['error'], 'kernel: make bzImage failed')

	def test_logs_are_relative_paths_in_misc(self) -> None:
		vanilla = self.by_path('vanilla-slub')
		self.assertEqual(vanilla['zero_size_free.z2_kvfree']['misc']['log'],
				 'vanilla-slub/boot-2.log')
		self.assertNotIn('log', self.by_path('vanilla-slab')['cell.build_and_boot']['misc'])
		self.assertNotIn('log_url', json.dumps(self.report()))

	def test_junit_counts_per_cell(self) -> None:
		root = ET.fromstring(export.junit(self.run))
		suites = {s.get('name'): s for s in root.iter('testsuite')}
		self.assertEqual(list(suites), ['patched-slub', 'vanilla-slub', 'vanilla-slab'])
		want = {'patched-slub': ('4', '0', '1', '1'), 'vanilla-slub': ('4', '2', '0', '1'),
			'vanilla-slab': ('1', '0', '1', '0')}
		for name, s in suites.items():
			got = tuple(s.get(k) for k in ('tests', 'failures', 'errors', 'skipped'))
			self.assertEqual(got, want[name], name)
			cases = s.findall('testcase')
			self.assertEqual(len(cases), int(got[0]))
			self.assertEqual([len(s.findall(f'testcase/{k}')) for k in
					  ('failure', 'error', 'skipped')], [int(n) for n in got[1:]])
		self.assertEqual(root.get('tests'), str(len(ROWS)))

	def test_junit_elements(self) -> None:
		root = ET.fromstring(export.junit(self.run))
		failure = [c for c in root.iter('testcase') if c.find('failure') is not None]
		self.assertEqual([(c.get('classname'), c.get('name'), c.find('failure').get('type'))
				  for c in failure], [('zero_size_free', 'z2_kfree', 'crash'),
						      ('zero_size_free', 'z2_kvfree', 'hang')])
		# The oops line, its console escape made XML-safe.
		self.assertEqual(failure[0].find('failure').get('message'), OOPS.replace('\x1b', '\ufffd'))
		errors = [c.find('error') for c in root.iter('testcase') if c.find('error') is not None]
		self.assertEqual([e.get('message') for e in errors],
				 ['no result from the suite: never started', 'kernel build failed'])
		skipped = [c.find('skipped').get('message') for c in root.iter('testcase')
			   if c.find('skipped') is not None]
		self.assertEqual(skipped[0], 'not in the plan')
		self.assertIn('not applicable', skipped[1])
		self.assertEqual(export.junit(self.run), export.junit(self.run))

	def test_main_writes_both_files(self) -> None:
		out = io.StringIO()
		with contextlib.redirect_stdout(out):
			self.assertEqual(export.main(self.run), 0)
		paths = [os.path.join(self.run, n) for n in ('kcidb.json', 'junit.xml')]
		self.assertEqual(out.getvalue().split(), paths)
		with open(paths[0]) as f:
			self.assertTrue(validator().is_valid(json.load(f)))
		ET.parse(paths[1])
		self.assertFalse([n for n in os.listdir(self.run) if n.endswith('.tmp')])

	def test_main_into_another_directory(self) -> None:
		dest = os.path.join(self.tmp.name, 'out')
		with contextlib.redirect_stdout(io.StringIO()):
			export.main(self.run, dest)
		self.assertEqual(sorted(os.listdir(dest)), ['junit.xml', 'kcidb.json'])
		self.assertFalse(os.path.exists(os.path.join(self.run, 'kcidb.json')))

	def test_missing_results_json(self) -> None:
		os.unlink(os.path.join(self.run, 'results.json'))
		for fn in (export.kcidb, export.junit, export.main):
			with self.assertRaises(errors.ExportError) as e:
				fn(self.run)
			msg = str(e.exception)
			self.assertIn(f'{self.run} has no results.json', msg)
			self.assertIn('finished run of make matrix', msg)
			self.assertNotIn('\n', msg)

	def test_bad_origin(self) -> None:
		with self.assertRaises(errors.ExportError):
			export.kcidb(self.run, origin='Not-An-Origin')


class RealRunTest(unittest.TestCase):
	"""results.json of a real tiny run (6 cells, crashes and hangs on vanilla),
	without its cell directories: the repository's own series."""

	def setUp(self) -> None:
		self.tmp = tempfile.TemporaryDirectory()
		self.run = os.path.join(self.tmp.name, 'test-20261206-015450-21580')
		os.makedirs(self.run)
		shutil.copy(REAL_RESULTS, os.path.join(self.run, 'results.json'))
		with open(REAL_RESULTS) as f:
			self.rows: List[Dict[str, Any]] = json.load(f)['rows']

	def tearDown(self) -> None:
		self.tmp.cleanup()

	def test_kcidb(self) -> None:
		report = export.kcidb(self.run)
		self.assertEqual(list(validator().iter_errors(report)), [])
		self.assertEqual(len(report['tests']), len(self.rows))
		self.assertEqual(len({t['id'] for t in report['tests']}), len(self.rows))
		self.assertEqual(len(report['builds']), 6)
		# No cell directories: whether a cell built is not known, not assumed.
		self.assertFalse(any('status' in b for b in report['builds']))
		for kind in ('crash', 'hang', 'fail', 'pass'):
			got = [t for t in report['tests'] if t['misc']['zsp_status'] == kind]
			self.assertEqual(len(got), sum(r['status'] == kind for r in self.rows), kind)
			self.assertEqual({t['status'] for t in got}, {export.KCIDB_STATUS[kind]})
		checkouts = {c['tree_name']: c for c in report['checkouts']}
		self.assertEqual(checkouts['debian-6.1-vanilla']['patchset_hash'], '')
		# No cell.json records the series it ran: not today's, but unknown.
		self.assertNotIn('patchset_hash', checkouts['debian-6.1-patched'])
		self.assertIn('unknown', checkouts['debian-6.1-patched']['misc']['patchset_hash'])

	def test_junit(self) -> None:
		root = ET.fromstring(export.junit(self.run))
		self.assertEqual(len(root.findall('testsuite')), 6)
		self.assertEqual(int(root.get('tests', '')), len(self.rows))
		bad = sum(r['status'] in ('fail', 'crash', 'hang') for r in self.rows)
		self.assertEqual(int(root.get('failures', '')), bad)
		self.assertEqual(sum(int(s.get('failures', '')) for s in root.iter('testsuite')), bad)


if __name__ == '__main__':
	unittest.main()
