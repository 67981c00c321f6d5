# SPDX-License-Identifier: GPL-2.0
"""make check's checks (zsp/lint.py, zsp/seriesform.py): a patch unfit to
send, the commits a message cites, a missing linter."""

import os
import tempfile
import unittest
from typing import List, Tuple
from unittest import mock

from zsp import check, docs, lint, seriesform


class CheckTest(unittest.TestCase):

	def why(self, text: str) -> str:
		with tempfile.NamedTemporaryFile('w', suffix='.patch') as f:
			f.write(text)
			f.flush()
			return seriesform.check_patch(f.name, 'x.patch', '/nonexistent')

	def test_subject_and_sign_off(self) -> None:
		self.assertIn("lacks a 'subsystem: ' prefix", self.why('Subject: [PATCH 1/2] fix it\n'))
		self.assertEqual(self.why('Subject: [PATCH 1/2] mm/slub: fix it\n'), 'no Signed-off-by')
		self.assertEqual(self.why('Subject: [PATCH 7/8] mm/slub, kunit: add tests\n'),
				 'no Signed-off-by')
		self.assertIn("lacks a 'subsystem: ' prefix",
			      self.why('Subject: [PATCH 1/2] mm/slub,kunit: add tests\n'))

	def test_citations(self) -> None:
		known = [('b77d5b1b83e3e14870224de7c63f115a2dc44e9a',
			  'mm: slab: optimize memcg_slab_free_hook()'), ('3042f83f19be', 'rcu: x y')]
		good = ('Since commit b77d5b1b83e3 ("mm: slab: optimize\nmemcg_slab_free_hook()")\n'
			'Fixes: 3042f83f19be ("rcu: x y")\n')
		self.assertEqual(seriesform.check_citations(good, known), '')
		for bad, want in (
			('Fixes: 3042f83f ("rcu: x y")', '12+ hex digits'),
			('Fixes: 3042f83f19be (rcu: x y)', '12+ hex digits'),
			('Fixes: 3042f83f19be ("rcu: x")', 'is "rcu: x y", not "rcu: x"'),
			('Fixes: 123456789abc ("rcu: x y")', 'not in upstream-commits.txt'),
			('commit 3042f83 ("rcu: x y")', 'at least 12 hex digits')):
			self.assertIn(want, seriesform.check_citations(bad, known), bad)

	def test_recorded_upstream_commits_are_well_formed(self) -> None:
		for cid, subject in seriesform.upstream_commits():
			self.assertRegex(cid, r'^[0-9a-f]{12,40}$')
			self.assertTrue(subject and subject == subject.strip(), cid)

	def test_missing_tool_is_a_failed_check(self) -> None:
		ok, why = lint.run_tool(['zsp-no-such-linter', 'x'])
		self.assertFalse(ok)
		self.assertIn('zsp-no-such-linter', why)

	def test_shell_files_exist(self) -> None:
		for f in lint.shell_files():
			self.assertTrue(os.path.isfile(f), f)


class DocsCheckTest(unittest.TestCase):

	def test_a_broken_generator_is_the_docs_checks_failure(self) -> None:
		got: List[Tuple[str, str]] = []
		with mock.patch.object(docs, 'check', side_effect=OSError('no baseline')):
			check.documentation(mock.Mock(), 'all', lambda n, why: got.append((n, why)))
		self.assertEqual(len(got), 1)
		self.assertEqual(got[0][1], 'OSError: no baseline')


if __name__ == '__main__':
	unittest.main()
