# SPDX-License-Identifier: GPL-2.0
"""zsp: the zero-size contract matrix's harness.

One module per job, as tools/testing/kunit/ splits kunit.py. The module
map is docs/architecture.md, which make docs writes from the first line
of each module's docstring (make check fails when it is stale); the
command line is python3 -m zsp -h.
"""
