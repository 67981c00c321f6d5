# SPDX-License-Identifier: GPL-2.0
"""One module's KTAP, parsed by the tree's own kunit.py (parse --json)."""

import json
import os
import subprocess
import sys
from typing import List, Tuple

from . import console
from .results import Row


def parse(kunit_tool: str, seg: console.Segment, stem: str) -> List[Tuple[str, str, str]]:
	"""(suite, case, kunit.py's status) for one module's KTAP, in order,
	each time the KTAP reports it (a name twice is an error, not "last
	wins"). Leaves stem.ktap, stem.json and stem.parse.log behind."""
	# Absolute: kunit.py changes to the kernel tree before it opens them.
	log = os.path.abspath(stem + '.ktap')
	with open(log, 'w') as f:
		f.write('\n'.join(seg.lines) + '\n')
	out = os.path.abspath(stem + '.json')
	with open(stem + '.parse.log', 'w') as plog:
		subprocess.run([sys.executable, kunit_tool, 'parse',
				f'--json={out}', log], stdout=plog,
			       stderr=subprocess.STDOUT, check=False)
	statuses: List[Tuple[str, str, str]] = []
	try:
		with open(out) as f:
			tree = json.load(f)
	except (OSError, ValueError):
		return statuses

	def walk(group: Row) -> None:
		for sub in group.get('sub_groups', []):
			walk(sub)
		for case in group.get('test_cases', []):
			# kunit.py names a missing subtest '': the expected list
			# accounts for it.
			if case['name']:
				statuses.append((group['name'], case['name'], case['status']))
	walk(tree)
	return statuses
