# SPDX-License-Identifier: GPL-2.0
"""The CI definitions (.github/workflows/matrix.yml, .gitlab-ci.yml) as
data: each engine's cell jobs (one per matrix entry, its variables
filled in) and merge job, as the shell lines they run. test_ci.py checks
them against the Makefile; faults_ci.py runs the lines of one cell and
of the merge on the real pipeline."""

import itertools
import os
import re
from dataclasses import dataclass
from typing import Dict, List

import yaml

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
GITHUB = os.path.join(ROOT, '.github', 'workflows', 'matrix.yml')
GITLAB = os.path.join(ROOT, '.gitlab-ci.yml')


@dataclass
class Job:
	engine: str
	name: str
	lines: List[str]	# shell lines, in order, variables filled in
	cell: Dict[str, str]	# KERNEL, ALLOC, TREE, PROFILE of a cell job; {} for merge


def load(path: str) -> dict:  # type: ignore[type-arg]
	with open(path) as f:
		data = yaml.safe_load(f)
	assert isinstance(data, dict), path
	return data


def combos(matrix: Dict[str, List[str]]) -> List[Dict[str, str]]:
	"""The product of the list-valued keys, then GitHub's "include"
	entries (each a combination of its own here: none matches one of
	the product's, as GitHub would otherwise merge it into that one)."""
	keys = [k for k in matrix if isinstance(matrix[k], list) and k != 'include']
	out = [dict(zip(keys, [str(v) for v in values]))
	       for values in itertools.product(*(matrix[k] for k in keys))]
	for extra in matrix.get('include', []):	# type: ignore[union-attr]
		assert not any(all(c.get(k) == str(v) for k, v in extra.items() if k in c)
			       for c in out), f'include entry {extra} would merge into a combination'
		out.append({k: str(v) for k, v in extra.items()})
	return out


def github_jobs() -> List[Job]:
	wf = load(GITHUB)
	out = []
	for name, job in wf['jobs'].items():
		matrix = job.get('strategy', {}).get('matrix', {})
		for combo in combos(matrix) if matrix else [{}]:
			lines = []
			for step in job['steps']:
				if 'run' in step:
					lines.append(re.sub(r'\$\{\{\s*matrix\.(\w+)\s*\}\}',
							    lambda m: combo[m.group(1)], step['run']))
			cell = {'KERNEL': combo['kernel'], 'ALLOC': combo['alloc'],
				'TREE': combo['tree'], 'PROFILE': combo['profile']} if combo else {}
			out.append(Job('github', name, lines, cell))
	return out


def gitlab_jobs() -> List[Job]:
	ci = load(GITLAB)
	out = []
	for name, job in ci.items():
		if not isinstance(job, dict) or 'script' not in job:
			continue
		entries = job.get('parallel', {}).get('matrix', [{}])
		for entry in entries:
			for combo in combos(entry) if entry else [{}]:
				lines = [re.sub(r'\$(\w+)', lambda m: combo.get(m.group(1), m.group(0)), line)
					 for line in job.get('before_script', []) + job['script']]
				out.append(Job('gitlab', name, lines, dict(combo)))
	return out


def all_jobs() -> List[Job]:
	return github_jobs() + gitlab_jobs()
