# SPDX-License-Identifier: GPL-2.0
"""The CI definitions' jobs, run here on the real pipeline: the shell
lines of two cell jobs and of the merge job of each engine, in order,
each job in a checkout of its own with its own results, the artifacts
carried between them as the engine carries them. test_ci.py checks the
same lines as text; this runs them. The two cell jobs run in two
caches, as on two machines: the first on a runner that ran the cell
before (make test's cache, where the matrix stage did: its result is
reused), the second as on a fresh runner, in its checkout's build/
(make's default CACHE), empty but for the ccache its engine restores
(here a copy of make test's): it unpacks and patches its tree, builds
its kernel (ccache hits) and boots. (Both fresh cost 7 more minutes of
make test, which CI's 90 cannot spare.)

The merged run must equal one run of the same two cells on one machine
(make test's cache, where the matrix stage ran them: table,
results.json rows, exit status), and make export must write kcidb and
JUnit files from it, and its results/latest/index.html must hold the
grid as headless Chromium reads it. A package-install line is not run (no root, no
network here): each package it names must be installed already, so
that what the job installs is what its later lines find.

Run: cd matrix && python3 -m unittest discover -s tests -t . -p 'faults_ci.py'
"""

import glob
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest
import urllib.parse
from typing import Dict, List, Tuple

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
from tests import ci_jobs  # noqa: E402
from tests.faults_harness import CACHE, PATCHED, ZSP, run  # noqa: E402
from tests.test_html_report import CHROMIUM  # noqa: E402

# The two cells of each engine's dry run: one kernel, profile and tree,
# two allocators, so that the merge has a Z7 row across them to compute.
CELLS = [{'KERNEL': '6.1', 'PROFILE': 'tiny', 'ALLOC': alloc, 'TREE': 'patched'}
	 for alloc in ('slab', 'slub')]
INSTALL = re.compile(r'apt-get install -y(?: --no-install-recommends)? ([\w. +-]+)$')


def checkout(dst: str) -> None:
	"""What actions/checkout and GitLab's clone give a job: the project's
	tracked files (as they are in this working tree), nothing built."""
	files = subprocess.run(['git', '-C', ci_jobs.ROOT, 'ls-files', '-z'], check=True,
			       capture_output=True, text=True).stdout.split('\0')
	for f in filter(None, files):
		src = os.path.join(ci_jobs.ROOT, f)
		if os.path.lexists(src):
			os.makedirs(os.path.dirname(os.path.join(dst, f)), exist_ok=True)
			shutil.copy2(src, os.path.join(dst, f), follow_symlinks=False)


def installed(package: str) -> bool:
	p = subprocess.run(['dpkg-query', '-W', '-f=${db:Status-Status}', package],
			   capture_output=True, text=True)
	return p.stdout.strip() == 'installed'


# The table's note of reused cells names each cell's first run by a path
# relative to this run: runs at other depths name the same cell apart.
REUSED_NOTE = re.compile(r'\n\(not booted again, every input unchanged; FRESH=1 boots: [^)]*\)')


def table_text(run_dir: str) -> str:
	with open(os.path.join(run_dir, 'table.txt')) as f:
		return REUSED_NOTE.sub('', f.read())


def rows_without_run(run_dir: str) -> List[Dict[str, object]]:
	with open(os.path.join(run_dir, 'results.json')) as f:
		return [{k: v for k, v in r.items() if k != 'run'} for r in json.load(f)['rows']]


@unittest.skipUnless(os.path.isdir(os.path.join(PATCHED, '.git')),
		     'needs the patched tree of a matrix run')
class CiDryRun(unittest.TestCase):
	tmp: str
	one: str		# the run of CELLS on one machine
	one_rc: int
	one_log: str
	# A cell job's lines -> the checkout it ran in: a job of the other
	# engine with the very same lines is not run again (GitHub's and
	# GitLab's cell jobs are one make line each, the same one); its
	# artifact is that checkout's.
	ran: Dict[Tuple[str, ...], str]

	@classmethod
	def setUpClass(cls) -> None:
		cls.tmp = tempfile.mkdtemp()
		cls.ran = {}
		# One run of the same cells, as one machine would run them.
		cls.one = os.path.join(cls.tmp, 'one')
		r = run(ZSP + ['run', cls.one, '--cache', CACHE, '--trees', 'patched',
			       '--allocs', ' '.join(c['ALLOC'] for c in CELLS), '--profiles', 'tiny',
			       '--kernels', '6.1'], timeout=1800)
		cls.one_rc = r.returncode
		cls.one_log = r.stdout + r.stderr

	@classmethod
	def tearDownClass(cls) -> None:
		shutil.rmtree(cls.tmp)

	def run_job(self, job: ci_jobs.Job, workdir: str, fresh_runner: bool = False) -> None:
		"""The job's lines in order, in its checkout, as its engine's
		shell would (bash -e -c, one line at a time). On a fresh runner
		the cache is the checkout's (no CACHE, no CCACHE_DIR)."""
		# The job's make is a make of its own: nothing of make test's
		# command line (FRESH=, JOBS=) reaches it through MAKEFLAGS.
		env = {k: v for k, v in os.environ.items() if k not in ('CACHE', 'CCACHE_DIR')}
		env.update(MAKEFLAGS='', MAKELEVEL='', MFLAGS='')
		if not fresh_runner:
			env['CACHE'] = CACHE
		elif os.path.isdir(os.path.join(CACHE, 'ccache')):
			# actions/cache (GitLab: cache:) restores the ccache.
			shutil.copytree(os.path.join(CACHE, 'ccache'),
					os.path.join(workdir, 'build', 'ccache'))
		for line in job.lines:
			m = INSTALL.search(line)
			if m:
				missing = [p for p in m.group(1).split() if not installed(p)]
				self.assertEqual(missing, [], f'{job.engine} {job.name}: {line}')
				continue
			r = subprocess.run(['bash', '-e', '-c', line], env=env, timeout=1800,
					   cwd=workdir, text=True, capture_output=True)
			if job.name == 'merge' and line.startswith('make merge'):
				self.assertEqual(r.returncode, self.one_rc,
						 f'{job.engine} merge: {line}\n{r.stdout}{r.stderr}')
			else:
				self.assertEqual(r.returncode, 0, f'{job.engine} {job.name}: {line}\n'
						 f'{r.stdout[-2000:]}{r.stderr[-2000:]}')
		if fresh_runner:
			# Its own tree, built and booted: nothing reused.
			self.assertTrue(os.path.isdir(os.path.join(workdir, 'build', 'src', 'patched',
								   '.git')))
			tables = glob.glob(os.path.join(workdir, 'cells', '*', '[0-9]*', 'table.txt'))
			self.assertEqual(len(tables), 1, tables)
			with open(tables[0]) as f:
				self.assertIsNone(REUSED_NOTE.search(f.read()), tables[0])

	def dry_run(self, engine: str, jobs: List[ci_jobs.Job], carry: Dict[str, str]) -> str:
		"""Two cell jobs, then the merge job; carry maps the cell job's
		artifact directory to where the merge job finds it. Returns the
		merge job's checkout."""
		cells = [j for j in jobs if j.cell in CELLS]
		self.assertEqual(len(cells), len(CELLS), f'{engine}: the cells {CELLS}')
		merge = [j for j in jobs if j.name == 'merge']
		self.assertEqual(len(merge), 1, f'{engine}: one merge job')
		top = os.path.join(self.tmp, engine)
		merge_dir = os.path.join(top, 'merge')
		checkout(merge_dir)
		for i, job in enumerate(cells):
			workdir = self.ran.get(tuple(job.lines), '')
			if not workdir:
				workdir = os.path.join(top, f'cell-{i}')
				checkout(workdir)
				self.run_job(job, workdir, fresh_runner=i == 1)
				self.ran[tuple(job.lines)] = workdir
			for src, dst in carry.items():
				shutil.copytree(os.path.join(workdir, src), os.path.join(merge_dir, dst),
						dirs_exist_ok=True)
		self.run_job(merge[0], merge_dir)
		return merge_dir

	def check_merged(self, merge_dir: str) -> None:
		latest = os.path.join(merge_dir, 'results', 'latest')
		self.assertEqual(self.one_rc, 0, self.one_log[-2000:])
		self.assertEqual(rows_without_run(latest), rows_without_run(self.one))
		self.assertEqual(table_text(latest), table_text(self.one))
		for name in ('kcidb.json', 'junit.xml', 'index.html'):
			self.assertTrue(os.path.getsize(os.path.join(latest, name)), name)
		with open(os.path.join(latest, 'kcidb.json')) as f:
			tests = json.load(f)['tests']
		self.assertTrue(tests)
		self.assertEqual({t['status'] for t in tests}, {'PASS'})
		self.check_report(latest)

	def check_report(self, latest: str) -> None:
		"""results/latest/index.html of real cells, as headless Chromium
		reads it: a passing grid cell per passing row, every link resolves
		in the run."""
		if not shutil.which(CHROMIUM):
			self.fail('chromium is not installed: run make deps (apt-get install chromium)')
		p = subprocess.run([CHROMIUM, '--headless', '--no-sandbox', '--disable-gpu',
				    f'--user-data-dir={self.tmp}/chromium', '--dump-dom',
				    'file://' + os.path.realpath(os.path.join(latest, 'index.html'))],
				   capture_output=True, text=True, timeout=120)
		self.assertEqual(p.returncode, 0, p.stderr[-2000:])
		dom = p.stdout
		passes = sum(1 for r in rows_without_run(latest) if r['status'] == 'pass')
		self.assertGreater(passes, 0)
		self.assertEqual(len(re.findall(r'<td class="st-pass"', dom)), passes)
		hrefs = re.findall(r'href="([^"#]+)"', dom)
		for href in hrefs:
			self.assertTrue(os.path.exists(os.path.join(latest, urllib.parse.unquote(href))),
					href)

	def test_github(self) -> None:
		# upload-artifact of cells/, download-artifact with
		# merge-multiple into artifacts/.
		merged = self.dry_run('github', [j for j in ci_jobs.all_jobs()
						 if j.engine == 'github'], {'cells': 'artifacts'})
		self.check_merged(merged)

	def test_gitlab(self) -> None:
		# artifacts: paths: cells/, restored in place for the next stage.
		merged = self.dry_run('gitlab', [j for j in ci_jobs.all_jobs()
						 if j.engine == 'gitlab'], {'cells': 'cells'})
		self.check_merged(merged)


if __name__ == '__main__':
	unittest.main()
