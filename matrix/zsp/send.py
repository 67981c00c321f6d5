# SPDX-License-Identifier: GPL-2.0
"""make send: the series as git send-email would mail it, a dry run.

The series is kept under a placeholder author (cover.AUTHOR), which must
never go out: prepare() copies the cover letter and the patches, in
order, with the sender's git identity in From: and Signed-off-by:, and
refuses to run without one. dry_run() hands them to git send-email
--dry-run in the vanilla tree, so that each patch's Cc: comes from the
tree's scripts/get_maintainer.pl; nothing is sent. check() reads its
output back: every message from the sender, numbered n/N under the
kernel's stable tag, to the slab maintainers' list, the placeholder
nowhere; the cover letter names its base (Debian's tarball has no
commit id for base-commit:, cover.py says what stands in for it) and
every patch carries the sender's Signed-off-by:. make check runs it for
each series with a made-up sender (TEST_SENDER).
"""

import os
import re
import subprocess
import tempfile
from typing import Callable, List

from . import cover, lock, series
from .errors import ZspError
from .kernel import Tree
from .settings import Settings

# Where the slab series must go whatever get_maintainer.pl prints.
MM_LIST = 'linux-mm@kvack.org'
# make check's sender: a real one comes from git config.
TEST_SENDER = 'Test Sender <sender@example.net>'
PLACEHOLDER = re.search(r'<(.*)>', cover.AUTHOR).group(1)  # type: ignore[union-attr]


class SendError(ZspError):
	"""The series cannot be prepared or would not go out as it should."""


def identity(root: str) -> str:
	"""The sender, from git config user.name and user.email (of @root)."""
	def get(key: str) -> str:
		p = subprocess.run(['git', '-C', root, 'config', key], capture_output=True, text=True)
		return p.stdout.strip()
	name, email = get('user.name'), get('user.email')
	if not name or not email:
		raise SendError('no git identity to send as; run: git config user.name "Your Name" '
				'&& git config user.email you@example.org')
	if email == PLACEHOLDER:
		raise SendError(f'git config user.email is the placeholder {PLACEHOLDER}, which '
				'never goes out; set your own')
	return f'{name} <{email}>'


def prepare(patches: str, sender: str, out: str) -> List[str]:
	"""The cover letter and the series in @out, From: and Signed-off-by:
	the sender's; returns their paths in mailing order."""
	if PLACEHOLDER in sender:
		raise SendError(f'{sender}: the placeholder never goes out')
	paths = [os.path.join(patches, cover.OUTPUT)] + series.files(patches)
	done = []
	for n, path in enumerate(paths):
		if not os.path.exists(path):
			raise SendError(f'{path} is missing; run make cover-letter')
		with open(path) as f:
			text = f.read()
		text = text.replace(f'From: {cover.AUTHOR}\n', f'From: {sender}\n', 1)
		text = text.replace(f'Signed-off-by: {cover.AUTHOR}\n', f'Signed-off-by: {sender}\n')
		dest = os.path.join(out, f'{n:04d}-' + os.path.basename(path).split('-', 1)[1])
		with open(dest, 'w') as f:
			f.write(text)
		done.append(dest)
	return done


def cover_header(path: str, name: str) -> List[str]:
	"""The addresses of the cover letter's @name: header (To:, Cc:: make
	cover-letter's get_maintainer.pl over the whole series)."""
	with open(path) as f:
		head = f.read().split('\n\n', 1)[0]
	m = re.search(rf'^{name}: (.*(?:\n\t.*)*)', head, re.M)
	return [a.strip() for a in m.group(1).split(',\n\t')] if m else []


def dry_run(src: str, files: List[str], sender: str) -> str:
	"""git send-email --dry-run of @files from the tree @src, threaded under
	the cover letter (files[0]): its log. Every patch goes where the
	cover letter goes (as b4 sends a series: the x86 patch of a slab
	series reaches linux-mm too), plus its own get_maintainer.pl Cc:."""
	cmd = ['git', 'send-email', '--dry-run', '--confirm=never', '--thread',
	       '--no-chain-reply-to', '--suppress-cc=self', f'--from={sender}',
	       '--cc-cmd=scripts/get_maintainer.pl --norolestats --nogit --nogit-fallback']
	cmd += [f'--to={a}' for a in cover_header(files[0], 'To')]
	cmd += [f'--cc={a}' for a in cover_header(files[0], 'Cc')]
	p = subprocess.run(cmd + files, cwd=src, capture_output=True, text=True,
			   env=dict(os.environ, GIT_CONFIG_NOSYSTEM='1'), stdin=subprocess.DEVNULL)
	if p.returncode:
		why = (p.stderr.strip() or p.stdout.strip()).splitlines()
		raise SendError(f"git send-email --dry-run: {why[0] if why else p.returncode}")
	return p.stdout


def check(log: str, files: List[str], sender: str, kernel: str) -> str:
	"""'' when the dry run's @log mails @files as they should go; else why not."""
	if PLACEHOLDER in log:
		return f'the placeholder {PLACEHOLDER} would go out'
	messages = log.split('Dry-OK. Log says:')[1:]
	if len(messages) != len(files):
		return f'{len(messages)} messages in the dry run, not {len(files)}'
	total = len(files) - 1
	for n, (text, path) in enumerate(zip(messages, files)):
		name = os.path.basename(path)
		text = text.split('\nResult: ', 1)[0]
		subject = re.search(r'^Subject: .*$', text, re.M)
		why = cover.check_prefix(subject.group(0) if subject else '', kernel, n, total)
		if why:
			return f'{name}: {why}'
		if not re.search(rf'^From: {re.escape(sender)}$', text, re.M):
			return f'{name}: not from {sender}'
		if not re.search(r'^To: \S', text, re.M):
			return f'{name}: no To:'
		if MM_LIST not in text:
			return f'{name}: {MM_LIST} is not among its recipients'
		if n and not re.search(r'^In-Reply-To: ', text, re.M):
			return f'{name}: not threaded under the cover letter'
		with open(path) as f:
			body = f.read()
		if n and f'Signed-off-by: {sender}\n' not in body:
			return f"{name}: no Signed-off-by: {sender}"
		if not n and not re.search(r'^base(-commit)?: ', body, re.M):
			return f'{name}: names no base (base-commit: or what stands in for it)'
	return ''


def main(s: Settings, out: str) -> int:
	"""make send: the kernel's series prepared as the sender's in @out,
	and git send-email --dry-run of it (@out/dry-run.log). Sends nothing."""
	sender = identity(s.root)
	os.makedirs(out)
	vanilla = Tree(s, 'vanilla')
	with lock.held(s.cache, lock.to_take([vanilla.lock])):
		src = vanilla.prepare()
	files = prepare(s.patches, sender, out)
	log = dry_run(src, files, sender)
	with open(os.path.join(out, 'dry-run.log'), 'w') as f:
		f.write(log)
	why = check(log, files, sender, s.kernel)
	print(f'{len(files)} messages from {sender} in {out}; git send-email --dry-run log: '
	      f"{os.path.join(out, 'dry-run.log')}")
	if why:
		print(f'error: {why}')
		return 1
	print('nothing was sent: to send, run git send-email with the same flags, without '
	      '--dry-run (docs/series.md)')
	return 0


def series_check(src: str, patches: str, kernel: str, where: str,
		 done: Callable[[str, str], None]) -> None:
	"""make check's dry run of one series (@where, as the check names
	it), as TEST_SENDER."""
	name = f'{where}: git send-email --dry-run as a sender'
	with tempfile.TemporaryDirectory() as tmp:
		try:
			files = prepare(patches, TEST_SENDER, tmp)
			done(name, check(dry_run(src, files, TEST_SENDER), files, TEST_SENDER, kernel))
		except SendError as e:
			done(name, str(e))
