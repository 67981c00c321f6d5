# SPDX-License-Identifier: GPL-2.0
"""make docs and its checks: generated blocks current, links resolving."""

import os
import tempfile
import unittest

from zsp import axes, docs


def page(root: str, name: str, text: str) -> None:
	path = os.path.join(root, name)
	os.makedirs(os.path.dirname(path), exist_ok=True)
	with open(path, 'w') as f:
		f.write(text)


class BlockTest(unittest.TestCase):
	def setUp(self) -> None:
		self.tmp = tempfile.TemporaryDirectory()
		self.root = self.tmp.name
		page(self.root, 'docs/x.md', '# X\n')

	def tearDown(self) -> None:
		self.tmp.cleanup()

	def test_stale_block_fails_and_make_docs_mends_it(self) -> None:
		page(self.root, 'README.md', '# R\n<!-- zsp-docs: counts -->\nThe suite has 61 cases.\n'
		     '<!-- zsp-docs: end -->\n')
		self.assertEqual(len(docs.stale(self.root)), 1)
		self.assertEqual(docs.write(self.root), [os.path.relpath(
			os.path.join(self.root, 'README.md'), axes.ROOT)])
		self.assertEqual(docs.stale(self.root), [])
		with open(os.path.join(self.root, 'README.md')) as f:
			self.assertIn(f'The suite has {len(docs.cases())} cases', f.read())

	def test_unknown_block_and_missing_end_are_named(self) -> None:
		page(self.root, 'README.md', '<!-- zsp-docs: nosuch -->\n<!-- zsp-docs: end -->\n')
		self.assertIn("unknown block 'nosuch'", docs.stale(self.root)[0])
		page(self.root, 'README.md', '<!-- zsp-docs: counts -->\ntext\n')
		self.assertIn('has no', docs.stale(self.root)[0])

	def test_every_clause_has_cases_and_every_case_a_clause(self) -> None:
		cases = docs.cases()
		self.assertEqual(len(cases), len(set(cases)))
		self.assertEqual({docs.clause_of(c) for c in cases}, {f'Z{n}' for n in range(1, 8)})

	def test_vanilla_column_follows_the_baseline(self) -> None:
		# Listed in 6.1's baseline as a crash on SLAB, not on 6.12.
		self.assertEqual(docs.vanilla('6.1', 'slab', 'z2_kmem_cache_free'), 'crash')
		self.assertEqual(docs.vanilla('6.1', 'slub', 'z1_kmalloc'), 'pass')


class LinkTest(unittest.TestCase):
	def setUp(self) -> None:
		self.tmp = tempfile.TemporaryDirectory()
		self.root = self.tmp.name
		page(self.root, 'docs/a.md', '# Page A\n## What a `verdict` guarantees\n## Same\n## Same\n')

	def tearDown(self) -> None:
		self.tmp.cleanup()

	def test_good_links_pass(self) -> None:
		page(self.root, 'README.md', '[a](docs/a.md) [v](docs/a.md#what-a-verdict-guarantees) '
		     '[s](docs/a.md#same-1) [web](https://example.org/x) `[not](a link)`\n'
		     '```\n[in code](nowhere.md)\n```\n')
		self.assertEqual(docs.broken_links(self.root), [])

	def test_missing_file_and_heading_are_named_with_their_line(self) -> None:
		page(self.root, 'README.md', 'ok\n[gone](docs/gone.md)\n[bad](docs/a.md#nothing-here)\n')
		self.assertEqual(docs.broken_links(self.root), [
			'README.md:2: docs/gone.md: no such file',
			'README.md:3: docs/a.md#nothing-here: no such heading'])

	def test_slug_is_githubs(self) -> None:
		self.assertEqual(docs.slug('Bisect and series-check'), 'bisect-and-series-check')
		self.assertEqual(docs.slug('6.12 (SLUB): the series'), '612-slub-the-series')


class RepositoryTest(unittest.TestCase):
	def test_packages_are_deps_shs(self) -> None:
		got = docs.packages()
		self.assertIn('qemu-system-x86', got)
		fetched = docs.gen_packages('')
		for k in axes.KERNELS.values():
			if k.suite:	# not apt-get installed: fetched into the cache
				self.assertNotIn(k.package, got)
				self.assertIn(f'`{k.package}` ({k.suite}', fetched)
			else:
				self.assertIn(k.package, got)

	def test_every_module_has_a_line_in_the_map(self) -> None:
		text = docs.gen_modules('')
		for f in os.listdir(docs.PACKAGE):
			if f.endswith('.py') and f != '__init__.py':
				self.assertIn(f'| `{f[:-3]}` |', text)


if __name__ == '__main__':
	unittest.main()
