# SPDX-License-Identifier: GPL-2.0
"""The CI definitions cannot run here; what can be checked is: they
parse, they run one job per cell of the default matrix and a merge job
after them, and every make command in them is a target of the Makefile
given only variables the Makefile reads, with values the axes accept.
(faults_ci.py runs the lines of one cell and of the merge for real.)"""

import os
import re
import shlex
import unittest
from typing import List, Set
from unittest import mock

from tests import ci_jobs
from zsp import axes
from zsp.kernel import CellBuild
from zsp.settings import Settings

MAKEFILE = os.path.join(ci_jobs.ROOT, 'Makefile')


def make_targets() -> Set[str]:
	with open(MAKEFILE) as f:
		return set(re.findall(r'^([a-z][\w-]*):', f.read(), re.M))


def targets_with_deps() -> Set[str]:
	"""Targets whose recipe runs after make deps (which installs python3
	and everything else the pipeline needs)."""
	with open(MAKEFILE) as f:
		text = f.read()
	out = set(re.findall(r'^([a-z][\w-]*):[^=\n]*\bdeps\b', text, re.M))
	# "matrix: run" and the like: a target whose prerequisite has deps.
	for t, pre in re.findall(r'^([a-z][\w-]*):\s*([a-z][\w-]*)\s*$', text, re.M):
		if pre in out:
			out.add(t)
	return out


def make_variables() -> Set[str]:
	with open(MAKEFILE) as f:
		return set(re.findall(r'\$\((?:or |if |filter |abspath )?\$?\(?([A-Z][A-Z_]*)\)', f.read()))


def make_commands(lines: List[str]) -> List[List[str]]:
	"""Each make command of the lines, as argv (shell operators split off)."""
	out = []
	for line in lines:
		for part in re.split(r'&&|\|\||;', line):
			argv = shlex.split(part.strip())
			if argv and argv[0] == 'make':
				out.append(argv)
	return out


class CiDefinitionsTest(unittest.TestCase):
	def test_both_parse_and_have_cells_and_a_merge(self) -> None:
		for engine in ('github', 'gitlab'):
			jobs = [j for j in ci_jobs.all_jobs() if j.engine == engine]
			cells = {(j.cell['KERNEL'], j.cell['PROFILE'], j.cell['ALLOC'], j.cell['TREE'])
				 for j in jobs if j.cell}
			# Every kernel's cells of the default profile.
			want = {(k, axes.DEFAULT_PROFILE, a, t) for k in axes.KERNELS
				for a in axes.allocators(k) for t in axes.TREES}
			self.assertEqual(cells, want, engine)
			self.assertEqual([j.name for j in jobs if not j.cell], ['merge'], engine)

	def test_merge_runs_after_the_cells_whatever_they_did(self) -> None:
		gh = ci_jobs.load(ci_jobs.GITHUB)['jobs']['merge']
		self.assertEqual(gh['needs'], 'cell')
		self.assertEqual(gh['if'], 'always()')
		gl = ci_jobs.load(ci_jobs.GITLAB)
		self.assertEqual(gl['stages'], ['cells', 'merge'])
		self.assertEqual(gl['merge']['when'], 'always')

	def test_every_make_command_is_a_target_with_known_variables(self) -> None:
		targets, variables = make_targets(), make_variables()
		values = {'ALLOC': set(axes.all_allocators()), 'TREE': set(axes.TREES),
			  'PROFILE': set(axes.PROFILES), 'KERNEL': set(axes.KERNELS)}
		seen = set()
		for job in ci_jobs.all_jobs():
			for argv in make_commands(job.lines):
				target = [a for a in argv[1:] if '=' not in a]
				self.assertEqual(len(target), 1, argv)
				self.assertIn(target[0], targets, argv)
				seen.add(target[0])
				for a in argv[1:]:
					if '=' in a:
						var, value = a.split('=', 1)
						self.assertIn(var, variables, argv)
						if var in values:
							self.assertIn(value, values[var], argv)
		self.assertEqual(seen, {'run', 'merge', 'export'})

	def test_jobs_install_python_for_targets_without_deps(self) -> None:
		"""The containers are bare Debian 12: no python3. make merge and
		make export do not run make deps (it installs kernel sources
		they do not need), so the job installs python3 itself, before."""
		with_deps = targets_with_deps()
		self.assertIn('run', with_deps)
		self.assertNotIn('merge', with_deps)
		for job in ci_jobs.all_jobs():
			installed: Set[str] = set()
			for line in job.lines:
				m = re.search(r'apt-get install -y(?: --no-install-recommends)? ([\w. +-]+)$',
					      line)
				if m:
					installed |= set(m.group(1).split())
				for argv in make_commands([line]):
					self.assertIn('make', installed, (job.engine, job.name, line))
					target = [a for a in argv[1:] if '=' not in a][0]
					if target not in with_deps:
						self.assertIn('python3', installed,
							      (job.engine, job.name, line))

	def test_make_variables_are_read(self) -> None:
		# The parser of this test, checked on the variables it must find.
		self.assertTrue({'ALLOC', 'TREE', 'PROFILE', 'KERNEL', 'RESULTS', 'RUNS', 'RUN'}
				<= make_variables())

	def test_cell_jobs_keep_ccache_where_the_build_puts_it(self) -> None:
		env = {k: v for k, v in os.environ.items() if k != 'CCACHE_DIR'}
		with mock.patch.dict(os.environ, env, clear=True):
			where = CellBuild(Settings(cache='build'), 'patched', 'slub').ccache_dir()
		self.assertEqual(where, 'build/ccache')
		gh = ci_jobs.load(ci_jobs.GITHUB)['jobs']['cell']['steps']
		self.assertIn(where, [s.get('with', {}).get('path') for s in gh])
		self.assertEqual(ci_jobs.load(ci_jobs.GITLAB)['cell']['cache']['paths'], [where])


if __name__ == '__main__':
	unittest.main()
