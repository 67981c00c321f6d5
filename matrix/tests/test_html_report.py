# SPDX-License-Identifier: GPL-2.0
"""zsp/html_report.py: a run's index.html, read as people read it: by a
real browser (Debian's chromium, headless), whose DOM must hold the grid
and the links, and whose screenshot must show the statuses' colours.
Without chromium the test fails (make deps installs it): a report that
was never rendered is not known to render."""

import os
import re
import shutil
import struct
import subprocess
import tempfile
import unittest
import zlib
from html.parser import HTMLParser
from typing import Dict, List, Set, Tuple
from unittest import mock

from zsp import axes, html_report, table
from tests.test_merge import quiet, write_cell

CHROMIUM = 'chromium'
STATUSES = ['pass', 'fail', 'crash', 'hang', 'skip', 'n/a', 'error']


class Cells(HTMLParser):
	"""The grid's cells: (class, text), and every href."""

	def __init__(self) -> None:
		super().__init__()
		self.cells: List[Tuple[str, str]] = []
		self.hrefs: List[str] = []
		self._td: str = ''
		self._in = False

	def handle_starttag(self, tag: str, attrs: List[Tuple[str, str | None]]) -> None:
		a = dict(attrs)
		if tag == 'td':
			self._in, self._td = True, a.get('class') or ''
			self.cells.append((self._td, ''))
		if tag == 'a' and a.get('href'):
			self.hrefs.append(a['href'] or '')

	def handle_data(self, data: str) -> None:
		if self._in and data.strip():
			cls, text = self.cells[-1]
			self.cells[-1] = (cls, text + data.strip())

	def handle_endtag(self, tag: str) -> None:
		if tag == 'td':
			self._in = False


def png_colours(path: str) -> Set[Tuple[int, int, int]]:
	"""The RGB colours of an 8-bit RGB or RGBA PNG (chromium's screenshots)."""
	with open(path, 'rb') as f:
		data = f.read()
	assert data[:8] == b'\x89PNG\r\n\x1a\n'
	pos, idat, w = 8, b'', 0
	while pos < len(data):
		n, kind = struct.unpack('>I4s', data[pos:pos + 8])
		body = data[pos + 8:pos + 8 + n]
		if kind == b'IHDR':
			w, h, depth, ctype = struct.unpack('>IIBB', body[:10])
			assert depth == 8 and ctype in (2, 6), (depth, ctype)
			bpp = 3 if ctype == 2 else 4
		elif kind == b'IDAT':
			idat += body
		pos += 12 + n
	raw, stride = zlib.decompress(idat), w * bpp
	prev, colours = bytearray(stride), set()
	for y in range(h):
		line = raw[y * (stride + 1):(y + 1) * (stride + 1)]
		ftype, cur = line[0], bytearray(line[1:])
		for i in range(stride):
			a = cur[i - bpp] if i >= bpp else 0
			b, c = prev[i], prev[i - bpp] if i >= bpp else 0
			if ftype == 1:
				cur[i] = (cur[i] + a) & 255
			elif ftype == 2:
				cur[i] = (cur[i] + b) & 255
			elif ftype == 3:
				cur[i] = (cur[i] + (a + b) // 2) & 255
			elif ftype == 4:
				p = a + b - c
				pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
				cur[i] = (cur[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
		colours.update(tuple(cur[i:i + 3]) for i in range(0, stride, bpp))  # type: ignore[misc]
		prev = cur
	return colours


def rgb(hexcolour: str) -> Tuple[int, int, int]:
	return (int(hexcolour[1:3], 16), int(hexcolour[3:5], 16), int(hexcolour[5:7], 16))


class HtmlReportTest(unittest.TestCase):
	def setUp(self) -> None:
		self.tmp = tempfile.TemporaryDirectory()
		self.addCleanup(self.tmp.cleanup)
		self.run_dir = os.path.join(self.tmp.name, 'run')
		write_cell(self.run_dir, 'vanilla-slub', STATUSES)
		write_cell(self.run_dir, 'patched-slub', ['pass'] * len(STATUSES))
		quiet(table.main, self.run_dir)
		self.index = os.path.join(self.run_dir, html_report.OUTPUT)

	def test_every_run_gets_its_page(self) -> None:
		self.assertTrue(os.path.exists(self.index))

	def test_grid_statuses_and_links(self) -> None:
		with open(self.index) as f:
			p = Cells()
			p.feed(f.read())
		got: Dict[str, int] = {}
		for cls, text in p.cells:
			if cls.startswith('st-'):
				got[text] = got.get(text, 0) + 1
				self.assertEqual(cls, html_report.css_class(text.lower()))
		# The Z7 rows: patched's passes, vanilla's is a skip (one allocator).
		self.assertEqual(got['PASS'], 1 + len(STATUSES) + 1)
		self.assertEqual(got['SKIP'], 2)
		for s in ('FAIL', 'CRASH', 'HANG', 'N/A', 'ERROR'):
			self.assertEqual(got[s], 1, s)
		for href in p.hrefs:
			self.assertTrue(os.path.exists(os.path.join(self.run_dir, href)), href)
		self.assertIn('vanilla-slub/boot-1.log', p.hrefs)
		with open(self.index) as f:
			text = f.read()
		self.assertIn('crash: <code>BUG: oops</code>', text)
		self.assertNotRegex(text, r'(src|href)="(https?:)?//')	# nothing from the network

	def test_removed_allocators_show_as_removed(self) -> None:
		k = axes.Kernel(**{**axes.KERNELS['6.1'].__dict__,
				   'removed': (('slob', 'removed in 6.4'),)})
		with mock.patch.dict(axes.KERNELS, {'6.1': k}):
			text = html_report.render(self.run_dir)
		self.assertEqual(text.count('<td class="st-removed">removed</td>'),
				 2 * (len(STATUSES) + 1))

	def test_series_check_and_bench_tables(self) -> None:
		"""A series-check run's table and a bench run's, escaped, under
		their headings; a run without them has neither."""
		self.assertNotIn('<h2>Every prefix', html_report.render(self.run_dir))
		for name, heading in html_report.EXTRA_TABLES:
			with open(os.path.join(self.run_dir, name), 'w') as f:
				f.write(f'{name} table: slub 61/61 <ok> & done\n')
		text = html_report.render(self.run_dir)
		for name, heading in html_report.EXTRA_TABLES:
			self.assertIn(heading, text)
			self.assertIn(f'{name} table: slub 61/61 &lt;ok&gt; &amp; done', text)

	def chromium(self, *args: str) -> str:
		if not shutil.which(CHROMIUM):
			self.fail('chromium is not installed: run make deps (apt-get install chromium)')
		p = subprocess.run([CHROMIUM, '--headless', '--no-sandbox', '--disable-gpu',
				    '--hide-scrollbars', '--user-data-dir=' + self.tmp.name + '/profile',
				    *args, 'file://' + self.index],
				   capture_output=True, text=True, timeout=120)
		self.assertEqual(p.returncode, 0, p.stderr[-2000:])
		return p.stdout

	def test_chromium_dom_holds_the_grid(self) -> None:
		dom = self.chromium('--dump-dom')
		# The answer first (issue 33): verdict, counts, rows; then the grid.
		self.assertIn('id="verdict"', dom)
		self.assertLess(dom.index('id="verdict"'), dom.index('<table'))
		self.assertRegex(dom, r'verdict: (PASS|FAIL) \(exit status [01]\)')
		self.assertLess(dom.index('cells:'), dom.index('patched rows that did not pass:'))
		self.assertEqual(len(re.findall(r'<td class="st-crash"', dom)), 1)
		self.assertIn('<h2>kernel 6.1, profile tiny</h2>', dom)
		self.assertIn('href="vanilla-slub/boot-1.log"', dom)

	def test_chromium_screenshot_shows_the_colours(self) -> None:
		shot = os.path.join(self.tmp.name, 'shot.png')
		self.chromium('--window-size=900,900', f'--screenshot={shot}')
		colours = png_colours(shot)
		for status in ('pass', 'crash', 'hang', 'error'):
			self.assertIn(rgb(html_report.COLOURS[status][0]), colours, status)


if __name__ == '__main__':
	unittest.main()
