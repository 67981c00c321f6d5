# SPDX-License-Identifier: GPL-2.0
"""make docs: what the source decides, written into README.md and docs/.

A figure or list that the source decides (the cases, clauses, patches,
mutants, profiles, statuses, modules, make targets) is never written by
hand: it sits in a block

	<!-- zsp-docs: NAME [ARG] -->
	...
	<!-- zsp-docs: end -->

that "make docs" fills from the source, and "make check" fails when a
block differs from what the source gives now (stale), names a generator
that does not exist, or when a relative link or #anchor in a page does
not resolve. What a run measured is not generated: it is dated in
docs/measurements.md.
"""

import glob
import os
import re
import textwrap
from typing import Callable, Dict, Iterator, List, Optional, Tuple

from . import axes, baseline, results, runner, series
from .errors import ZspError

MAKEFILE = os.path.join(axes.ROOT, 'Makefile')
PACKAGE = os.path.dirname(os.path.abspath(__file__))
BEGIN = re.compile(r'^<!-- zsp-docs: ([a-z0-9-]+)(?: (\S+))? -->$')
END = '<!-- zsp-docs: end -->'
CLAUSE = re.compile(r'^z(\d)_')


class DocsError(ZspError):
	"""A block without its end, or naming no generator."""


def pages(root: str = axes.ROOT) -> List[str]:
	"""README.md and docs/*.md: the pages make docs and the checks read."""
	return [os.path.join(root, 'README.md')] + sorted(glob.glob(os.path.join(root, 'docs', '*.md')))


def cases() -> List[str]:
	"""Every case of the suite, in source order (runner's one parser)."""
	return runner.source_cases()


def clause_of(case: str) -> str:
	m = CLAUSE.match(case)
	return f'Z{m.group(1)}' if m else ''


def table(head: List[str], rows: List[List[str]]) -> str:
	lines = ['| ' + ' | '.join(head) + ' |', '|' + '---|' * len(head)]
	lines += ['| ' + ' | '.join(r) + ' |' for r in rows]
	return '\n'.join(lines)


def vanilla(kernel: str, alloc: str, case: str) -> str:
	"""What vanilla did with a case: its baseline line, tiny first, then
	where another profile differs."""
	path = baseline.path_for(kernel)
	tiny = baseline.load_baseline(path, axes.DEFAULT_PROFILE).get((alloc, case))
	out = '\\|'.join(tiny.statuses) if tiny else 'pass'
	for p in axes.PROFILES:
		if p == axes.DEFAULT_PROFILE:
			continue
		e = baseline.load_baseline(path, p).get((alloc, case))
		if (e.statuses if e else ['pass']) != (tiny.statuses if tiny else ['pass']):
			out += f'; {p}: ' + ('\\|'.join(e.statuses) if e else 'pass')
	return out


def gen_cases(clause: str) -> str:
	cols = [(k, a) for k in axes.KERNELS.values() for a in k.allocators]
	head = ['case'] + [f'{k.name} {a.upper()}' for k, a in cols]
	rows = [[f'`{c}`'] + [vanilla(k.name, a, c) for k, a in cols]
		for c in cases() if clause_of(c) == clause]
	if not rows:
		raise DocsError(f'no case of clause {clause} in kunit/*.c')
	return (f'Vanilla (before the series), {axes.DEFAULT_PROFILE} profile unless '
		f'named; the patched trees pass every case.\n\n' + table(head, rows))


def patches(kernel: str) -> List[Tuple[str, str]]:
	"""(series entry, subject) of a kernel's series."""
	if kernel not in axes.KERNELS:
		raise DocsError(f"unknown kernel '{kernel}'; valid: {' '.join(axes.KERNELS)}")
	top = os.path.join(axes.ROOT, axes.KERNELS[kernel].patches)
	out = []
	for path in series.files(top):
		with open(path) as f:
			m = re.search(r'^Subject: (?:\[[^]]*\] )?(.*(?:\n .*)*)', f.read(), re.M)
		out.append((series.name(top, path), ' '.join(m.group(1).split()) if m else ''))
	return out


def gen_series(kernel: str) -> str:
	rows = [[str(i), f'`{os.path.dirname(n)}`', s] for i, (n, s) in enumerate(patches(kernel), 1)]
	return table(['#', 'dir', 'subject'], rows)


def mutants() -> List[Tuple[str, str, str, str, str, str]]:
	"""(name, kernel, profile, allocator, the patch it mutates, what) of
	matrix/mutants/, as make mutants reads them (mutants.load_all())."""
	from . import mutants as m	# the harness's reader, not a second one
	out = []
	for x in m.load_all():
		with open(x.path) as f:
			mutates = m.field(f.read(), 'Mutates')
		out.append((x.name, x.kernel, x.profile, x.allocator, mutates, x.what))
	return out


def gen_mutants(_: str) -> str:
	return table(['mutant', 'kernel', 'profile', 'allocator', 'mutates', 'the wrong fix'],
		     [[f'`{n}`', k, p, a, f'`{mu}`', w] for n, k, p, a, mu, w in mutants()])


def gen_counts(_: str) -> str:
	cs = cases()
	clauses = sorted({clause_of(c) for c in cs})
	per = ', '.join(f'{k}: {len(patches(k))}' for k in axes.KERNELS)
	return (f'The suite has {len(cs)} cases for clauses {clauses[0]}-{clauses[-1]} '
		f'(Z8 is the profiles); patches per series: {per}; '
		f'`make mutants` plants {len(mutants())} wrong fixes.')


def gen_profiles(_: str) -> str:
	return table(['profile', 'fragments', 'what it adds'],
		     [[f'`{p.name}`', ' '.join(f'`configs/{f}`' for f in p.fragments), p.help]
		      for p in axes.PROFILES.values()])


def gen_axes(_: str) -> str:
	rows = [[f'`{k.name}`' + (' (default)' if k.name == axes.DEFAULT_KERNEL else ''),
		 f'`{k.package}`', ', '.join(k.allocators), f'`{k.patches}/`',
		 f'`matrix/{k.baseline}`'] for k in axes.KERNELS.values()]
	return (table(['KERNEL', 'Debian package', 'allocators', 'series', 'baseline'], rows) +
		f"\n\nTREE: {', '.join(axes.TREES)}. PROFILE: " +
		', '.join(p + (' (default)' if p == axes.DEFAULT_PROFILE else '') for p in axes.PROFILES) + '.')


def gen_statuses(_: str) -> str:
	return '\n'.join(f'- `{s.value}`: {results.MEANING[s]}' for s in results.SEVERITY)


def module_line(path: str) -> str:
	"""A module's docstring, its first sentence."""
	with open(path) as f:
		m = re.search(r'^"""(.*?)(?:\n\s*\n|""")', f.read(), re.M | re.S)
	text = ' '.join(m.group(1).split()) if m else ''
	return re.split(r'(?<=\.)\s', text, maxsplit=1)[0]


def gen_modules(_: str) -> str:
	rows = []
	for path in sorted(glob.glob(os.path.join(PACKAGE, '*.py'))):
		name = os.path.basename(path)[:-len('.py')]
		if name == '__init__':
			continue
		line = module_line(path)
		if not line:
			raise DocsError(f'matrix/zsp/{name}.py has no docstring to list')
		rows.append([f'`{name}`', line.replace('|', '\\|')])
	return table(['module', 'its job'], rows)


def help_lines() -> Iterator[str]:
	"""The Makefile's help recipe, its echo lines as make help prints them
	but for make's own expansions, which are left as written."""
	with open(MAKEFILE) as f:
		text = f.read()
	recipe = text.split('\nhelp:\n', 1)[1].split('\n\n', 1)[0]
	for line in recipe.splitlines():
		m = re.match(r"\t@echo '(.*)'$", line)
		if m:
			yield m.group(1).replace("'\"'\"'", "'")


def gen_targets(form: str) -> str:
	"""make help's targets; "short": their first lines alone."""
	lines = []
	for line in help_lines():
		if line.startswith('Variables'):
			break
		if form != 'short' or not line.startswith(' '):
			lines.append(line)
	return '```\n' + '\n'.join(expand(line, make_defaults()) for line in lines) + '\n```'


def make_defaults() -> Dict[str, str]:
	"""The Makefile's "NAME ?= value" defaults, relative to the checkout,
	and the axes it asks zsp for."""
	with open(MAKEFILE) as f:
		out = {m.group(1): m.group(2).replace('$(ROOT)/', '') for m in
		       re.finditer(r'^(\w+) \?= (.*)$', f.read(), re.M)}
	allocs = sorted({a for k in axes.KERNELS.values() for a in k.allocators})
	for name, values in (('ALLOCATORS', allocs), ('KERNELS', list(axes.KERNELS)),
			     ('TREES', list(axes.TREES)), ('PROFILES', list(axes.PROFILES))):
		out[name] = ' '.join(values)
	return out


def expand(line: str, values: Dict[str, str]) -> str:
	"""The two make expansions the help text uses."""
	line = re.sub(r'\$\(subst \$\(eval\) ,\|,\$\((\w+)\)\)',
		      lambda m: values[m.group(1)].replace(' ', '|'), line)
	return re.sub(r'\$\((\w+)\)', lambda m: values.get(m.group(1), m.group(0)), line)


def gen_variables(_: str) -> str:
	values = make_defaults()
	lines = [expand(line, values) for line in help_lines()]
	start = next(i for i, line in enumerate(lines) if line.startswith('Variables'))
	return '```\n' + '\n'.join(lines[start + 1:]) + '\n```'


DEPS = os.path.join(axes.MATRIX, 'deps.sh')


def packages() -> List[str]:
	"""The Debian packages make deps installs: the kernels' source
	packages (axes.py; a suite's are fetched: fetched()) and deps.sh's
	own list."""
	with open(DEPS) as f:
		m = re.search(r'^PACKAGES="\$\(zsp internal axes packages\) (.*?) \$\*"$', f.read(),
			      re.M | re.S)
	if not m:
		raise DocsError(f'{rel(DEPS)}: no PACKAGES="$(zsp internal axes packages) ... $*" line')
	kernels = dict.fromkeys(k.package for k in axes.KERNELS.values() if not k.suite)
	return list(kernels) + m.group(1).split()


def gen_packages(_: str) -> str:
	fetched = [f'`{k.package}` ({k.suite}, for kernel {k.name})'
		   for k in axes.KERNELS.values() if k.suite]
	text = '```\n' + textwrap.fill(' '.join(packages()), 76, break_on_hyphens=False) + '\n```'
	if fetched:
		text += ('\n\nand fetches into the cache, through a private apt configuration '
			 "there (`matrix/fetch-backports.sh`; the machine's apt sources are read, "
			 'never changed): ' + ', '.join(fetched) + '.')
	return text


GENERATORS: Dict[str, Callable[[str], str]] = {
	'counts': gen_counts, 'cases': gen_cases, 'series': gen_series,
	'mutants': gen_mutants, 'profiles': gen_profiles, 'axes': gen_axes,
	'statuses': gen_statuses, 'modules': gen_modules, 'targets': gen_targets,
	'variables': gen_variables, 'packages': gen_packages,
}


def render(text: str, where: str) -> str:
	"""The page with every block made again from the source."""
	out: List[str] = []
	lines = text.split('\n')
	i = 0
	while i < len(lines):
		out.append(lines[i])
		m = BEGIN.match(lines[i])
		i += 1
		if not m:
			continue
		name, arg = m.group(1), m.group(2) or ''
		if name == 'end':
			raise DocsError(f'{where}:{i}: an end without its block')
		gen = GENERATORS.get(name)
		if gen is None:
			raise DocsError(f"{where}:{i}: unknown block '{name}'; valid: {' '.join(GENERATORS)}")
		start = i
		while i < len(lines) and lines[i] != END:
			if BEGIN.match(lines[i]):
				break
			i += 1
		if i == len(lines) or lines[i] != END:
			raise DocsError(f"{where}:{start}: block '{name}' has no '{END}'")
		out += gen(arg).split('\n') + [END]
		i += 1
	return '\n'.join(out)


def texts(root: str) -> Iterator[Tuple[str, str]]:
	"""(path, text) of each page."""
	for path in pages(root):
		with open(path) as f:
			yield path, f.read()


def rel(path: str) -> str:
	return os.path.relpath(path, axes.ROOT)


def write(root: str = axes.ROOT) -> List[str]:
	"""make docs: rewrite every stale block; the pages it changed."""
	changed = []
	for path, text in texts(root):
		new = render(text, rel(path))
		if new != text:
			with open(path, 'w') as f:
				f.write(new)
			changed.append(rel(path))
	return changed


def stale(root: str = axes.ROOT) -> List[str]:
	"""Why each page whose blocks differ from the source is stale."""
	out = []
	for path, text in texts(root):
		try:
			if render(text, rel(path)) != text:
				out.append(f'{rel(path)}: a generated block is stale; run make docs')
		except DocsError as e:
			out.append(str(e))
	return out


LINK = re.compile(r'(?<!!)\[[^]]*\]\(([^)\s]+)\)')
HEADING = re.compile(r'^#{1,6} (.*)$')
FENCE = re.compile(r'^(```|~~~)')


def slug(heading: str) -> str:
	"""GitHub's anchor of a heading: lower case, punctuation dropped, spaces to '-'."""
	text = re.sub(r'[`*_]|<[^>]*>', '', heading.strip()).lower()
	return re.sub(r'[^\w\- ]', '', text).replace(' ', '-')


def prose(text: str) -> Iterator[Tuple[int, str]]:
	"""(line number, line) outside fenced code."""
	fenced = False
	for n, line in enumerate(text.split('\n'), 1):
		if FENCE.match(line):
			fenced = not fenced
		elif not fenced:
			yield n, line


def anchors(path: str) -> List[str]:
	with open(path) as f:
		text = f.read()
	seen: Dict[str, int] = {}
	out = []
	for _, line in prose(text):
		m = HEADING.match(line)
		if m:
			s = slug(m.group(1))
			out.append(s if s not in seen else f'{s}-{seen[s]}')
			seen[s] = seen.get(s, 0) + 1
	return out


def broken_links(root: str = axes.ROOT) -> List[str]:
	"""Every relative link of the pages that names no file or no heading."""
	out = []
	headings: Dict[str, List[str]] = {}	# each target page read once
	for path, text in texts(root):
		for n, line in prose(text):
			for target in LINK.findall(re.sub(r'`[^`]*`', '', line)):
				if re.match(r'[a-z]+:', target):
					continue	# http:, mailto: - not ours to check
				file, _, anchor = target.partition('#')
				dest = os.path.normpath(os.path.join(os.path.dirname(path), file)) if file else path
				where = f'{os.path.relpath(path, root)}:{n}'
				if not os.path.exists(dest):
					out.append(f'{where}: {target}: no such file')
				elif anchor and dest.endswith('.md'):
					if dest not in headings:
						headings[dest] = anchors(dest)
					if anchor not in headings[dest]:
						out.append(f'{where}: {target}: no such heading')
	return out


def check(root: str = axes.ROOT) -> Tuple[bool, str]:
	"""make check's docs line: blocks current, links resolving."""
	problems = stale(root) + broken_links(root)
	for p in problems:
		print(p)
	return not problems, problems[0] if problems else ''


def main(root: Optional[str] = None) -> int:
	for path in write(root or axes.ROOT):
		print(f'updated {path}')
	return 0
