# SPDX-License-Identifier: GPL-2.0
"""make send and make check's dry run (zsp/send.py): the placeholder
author never goes out, and the dry run's log is read back."""

import os
import subprocess
import tempfile
import unittest
from unittest import mock

from zsp import cover, send
from zsp.errors import ZspError

SENDER = 'Ann Sender <ann@example.net>'


def patch(subject: str) -> str:
	return (f'From 0 Mon Sep 17 00:00:00 2001\nFrom: {cover.AUTHOR}\nSubject: {subject}\n\n'
		f'Body.\n\nSigned-off-by: {cover.AUTHOR}\n---\n mm/slub.c | 1 +\n')


def message(subject: str, reply: bool = True, to: str = 'Vlastimil Babka <vbabka@kernel.org>',
	    cc: str = send.MM_LIST, sender: str = SENDER) -> str:
	return ('Dry-OK. Log says:\nServer: localhost\n'
		f'From: {sender}\nTo: {to}\nCc: {cc}\nSubject: {subject}\n'
		+ ('In-Reply-To: <1@example.net>\n' if reply else '') + '\nResult: OK\n')


class SendTest(unittest.TestCase):
	def setUp(self) -> None:
		self.tmp = tempfile.TemporaryDirectory()
		self.d = self.tmp.name
		self.patches = os.path.join(self.d, 'patches')
		os.makedirs(os.path.join(self.patches, 'slub'))
		with open(os.path.join(self.patches, 'series'), 'w') as f:
			f.write('slub/0001-mm-slub-a.patch\n')
		with open(os.path.join(self.patches, 'slub', '0001-mm-slub-a.patch'), 'w') as f:
			f.write(patch('[PATCH 1/1] mm/slub: a'))
		with open(os.path.join(self.patches, cover.OUTPUT), 'w') as f:
			f.write(patch('[PATCH 0/1] mm/slub: all').replace('Body.', 'base: v7.3.4'))
		self.out = os.path.join(self.d, 'out')
		os.makedirs(self.out)

	def tearDown(self) -> None:
		self.tmp.cleanup()

	def test_the_placeholder_never_goes_out(self) -> None:
		files = send.prepare(self.patches, SENDER, self.out)
		self.assertEqual([os.path.basename(f) for f in files],
				 ['0000-cover-letter.patch', '0001-mm-slub-a.patch'])
		for path in files:
			with open(path) as f:
				text = f.read()
			self.assertNotIn(send.PLACEHOLDER, text)
			self.assertIn(f'From: {SENDER}\n', text)
		with self.assertRaisesRegex(send.SendError, 'placeholder'):
			send.prepare(self.patches, cover.AUTHOR, self.out)

	def test_no_identity_or_the_placeholder_is_refused(self) -> None:
		repo = os.path.join(self.d, 'repo')
		subprocess.run(['git', 'init', '-q', repo], check=True)
		env = dict(os.environ, GIT_CONFIG_GLOBAL='/dev/null', GIT_CONFIG_NOSYSTEM='1')
		with mock.patch.dict(os.environ, env):
			with self.assertRaisesRegex(send.SendError, 'no git identity'):
				send.identity(repo)
			for key, value in (('user.name', 'Z'), ('user.email', send.PLACEHOLDER)):
				subprocess.run(['git', '-C', repo, 'config', key, value], check=True)
			with self.assertRaisesRegex(send.SendError, 'placeholder'):
				send.identity(repo)
			subprocess.run(['git', '-C', repo, 'config', 'user.email', 'z@example.net'],
				       check=True)
			self.assertEqual(send.identity(repo), 'Z <z@example.net>')
		self.assertTrue(issubclass(send.SendError, ZspError))

	def test_the_dry_run_is_read_back(self) -> None:
		files = send.prepare(self.patches, SENDER, self.out)
		good = (message('[PATCH 0/1] mm/slub: all', reply=False)
			+ message('[PATCH 1/1] mm/slub: a'))
		self.assertEqual(send.check(good, files, SENDER, '7.3'), '')
		bad = {
			'would go out': good.replace(f'Cc: {send.MM_LIST}',
						     f'Cc: {send.MM_LIST}, {send.PLACEHOLDER}', 1),
			'1 messages': message('[PATCH 0/1] mm/slub: all', reply=False),
			'not threaded': good.replace('In-Reply-To', 'X-Reply'),
			'not among its recipients': good.replace(send.MM_LIST, 'x@example.net'),
			'6.1 wants': good,
			'not from': good.replace(f'From: {SENDER}', 'From: Other <o@example.net>'),
		}
		for why, log in bad.items():
			kernel = '6.1' if why == '6.1 wants' else '7.3'
			self.assertIn(why, send.check(log, files, SENDER, kernel), why)

	def test_every_patch_needs_the_senders_sign_off(self) -> None:
		files = send.prepare(self.patches, SENDER, self.out)
		with open(files[1], 'w') as f:
			f.write(patch('[PATCH 1/1] mm/slub: a').replace('Signed-off-by', 'Acked-by'))
		log = message('[PATCH 0/1] mm/slub: all', reply=False) + message('[PATCH 1/1] mm/slub: a')
		self.assertIn('no Signed-off-by', send.check(log, files, SENDER, '7.3'))


if __name__ == '__main__':
	unittest.main()
