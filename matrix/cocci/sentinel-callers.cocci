// SPDX-License-Identifier: GPL-2.0
/// Who can hit this: the call sites of the slab API's free paths that the
/// series fixes, where the pointer may be ZERO_SIZE_PTR, what kmalloc(0)
/// returns (see patches/7.3/cover-letter.txt).
///
/// Reported (report mode, one line "file:line: API: why" each):
///  - kvfree_rcu_mightsleep(), kfree_rcu_mightsleep(), kfree_rcu(),
///    kvfree_rcu() and kmem_cache_free() of a pointer that the same
///    function assigned from a kmalloc-family allocation whose size is not
///    a compile-time constant;
///  - kfree_bulk() and kmem_cache_free_bulk() of an array one of whose
///    elements the same function assigned so;
///  - a kmalloc mempool (mempool_create_kmalloc_pool(),
///    mempool_init_kmalloc_pool(), or mempool_create*()/mempool_init*()
///    with mempool_kmalloc) whose element size is not a compile-time
///    constant: a pool of size 0 holds ZERO_SIZE_PTR elements.
///
/// The allocators and the arguments whose product is the size are in
/// SIZE_ARGS below: kmalloc, kzalloc, kvmalloc, kvzalloc (and _node),
/// kmalloc_nolock, kmalloc_track_caller, kmalloc_array, kcalloc,
/// kvmalloc_array, kvcalloc (and _node), the *_objs() counts, kmemdup,
/// kmemdup_array, krealloc, krealloc_array, kvrealloc. A size is "safe",
/// not reported, when it is a constant by its look: its only identifiers
/// are all-caps (macros), type names or the operands of sizeof(),
/// offsetof() and the like, beside integer literals and operators; or
/// when it is zero only if it wraps: struct_size(), a sum with a term, a
/// product all of whose factors, a shift whose left operand is a nonzero
/// constant or so (len + 1, (n + 2) * sizeof(x), 1 << bits). A size held
/// in a variable or field is judged by what the same function assigned
/// to it before the call (rule defs): safe if every such assignment that
/// reaches the call unchanged is; the report shows them ('sz' = 'n * 4').
///
/// Limits: a line here is a candidate, not a proof.
///  - False positives: a size is only known to be computed, not to be
///    able to be 0: most are checked before, or cannot be 0 for reasons
///    only reading the caller tells (a count checked nonzero, a division
///    of a nonzero sum, a helper's return value). The rules follow the
///    control flow but not its conditions: an allocation on one branch
///    and a free on a correlated other one is reported (net/core/sock.c's
///    sk_prot_alloc() kmallocs when the proto has no cache and
///    kmem_cache_frees when it has one). For kfree_rcu() and kvfree_rcu()
///    a sentinel whose object the caller writes oopses before the free.
///  - False negatives: the allocation and the free must be in one function
///    (a pointer kept in a structure and freed elsewhere, the common case
///    of kfree_rcu(), is not followed), and the freed expression must be
///    the one assigned (no alias, no container_of(), no &a[i] or a + i for
///    the bulk APIs); sizeof() and offsetof() count as nonzero, so do
///    kmalloc_obj(), kzalloc_obj() and the *_flex() forms, though sizeof
///    of an empty struct is 0 in GNU C; an all-caps macro may be 0 in some
///    configuration; a variable assigned a safe size on one path and left
///    as it came (a parameter) on another counts as safe; macros the
///    parser cannot expand, code under #if it does not take, and files it
///    cannot parse or times out on are skipped (--no-includes: no
///    header's macros are known); kfree_rcu_nolock(), pools made with a
///    helper other than mempool_kmalloc and every allocator not in
///    SIZE_ARGS (devm_kmalloc(), kstrdup(), ...) are not followed.
///  - NULL is not looked for, though kmem_cache_free() and the bulk frees
///    of 7.3 fault on it too.
///
/// Run by matrix/callers.sh (make callers) on a pre-filtered file list;
/// matrix/tests/data/sentinel-callers.c holds positive and negative cases
/// of each rule, matrix/tests/test_callers.py checks them.
//
// Confidence: Low (candidates, to be read)
// Options: --no-includes

virtual report

@initialize:python@
@@
import re

# Allocation -> the indices of its arguments whose product is the size.
SIZE_ARGS = {}
for _f in ('kmalloc', 'kzalloc', 'kvmalloc', 'kvzalloc', 'kmalloc_node',
	   'kzalloc_node', 'kvmalloc_node', 'kvzalloc_node', 'kmalloc_nolock',
	   'kmalloc_track_caller', 'kmalloc_node_track_caller'):
	SIZE_ARGS[_f] = (0,)
for _f in ('kmalloc_array', 'kcalloc', 'kvmalloc_array', 'kvcalloc',
	   'kmalloc_array_node', 'kcalloc_node', 'kvmalloc_array_node',
	   'kvcalloc_node'):
	SIZE_ARGS[_f] = (0, 1)
for _f in ('kmalloc_objs', 'kzalloc_objs', 'kvmalloc_objs', 'kvzalloc_objs'):
	SIZE_ARGS[_f] = (1,)
for _f in ('kmemdup', 'krealloc', 'krealloc_node', 'kvrealloc', 'kvrealloc_node'):
	SIZE_ARGS[_f] = (1,)
for _f in ('kmemdup_array', 'krealloc_array'):
	SIZE_ARGS[_f] = (1, 2)
# A kmalloc pool's maker -> the index of its element size (pool data).
SIZE_ARGS.update({'mempool_create_kmalloc_pool': (1,), 'mempool_init_kmalloc_pool': (2,),
		  'mempool_create': (3,), 'mempool_create_node': (3,),
		  'mempool_init': (4,), 'mempool_init_node': (4,)})

TYPE_WORDS = {'void', 'char', 'short', 'int', 'long', 'unsigned', 'signed',
	      'size_t', 'ssize_t', 'struct', 'union', 'enum', 'const', 'u8', 'u16',
	      'u32', 'u64', 's8', 's16', 's32', 's64', '__u8', '__u16', '__u32',
	      '__u64', '__le16', '__le32', '__le64', '__be16', '__be32', '__be64',
	      'bool', 'uintptr_t', 'phys_addr_t', 'dma_addr_t', 'gfp_t'}
# Operators whose operand is never evaluated into the size: it is a
# constant whatever the operand names.
CONST_OPS = {'sizeof', 'offsetof', 'sizeof_field', 'ARRAY_SIZE', 'BITS_TO_LONGS'}
NONZERO_OPS = {'struct_size', 'struct_size_t'}
TOKEN = re.compile(r'\s*(0[xX][0-9a-fA-F]+[uUlL]*|\d+[uUlL]*|[A-Za-z_]\w*|->|<<|>>|\S)')


def tokens(expr):
	return TOKEN.findall(expr)


def skip_group(toks, i):
	"""The index after the balanced parenthesis group at toks[i]."""
	depth = 0
	while i < len(toks):
		if toks[i] in '([':
			depth += 1
		elif toks[i] in ')]':
			depth -= 1
			if depth == 0:
				return i + 1
		i += 1
	return i


def skip_operand(toks, i):
	"""The index after sizeof's operand written without parentheses
	(sizeof *p, sizeof p->a[2])."""
	while i < len(toks) and toks[i] in ('*', '&'):
		i += 1
	if i < len(toks) and toks[i] == '(':
		return skip_group(toks, i)
	i += 1
	while i < len(toks):
		if toks[i] in ('->', '.') and i + 1 < len(toks):
			i += 2
		elif toks[i] == '[':
			i = skip_group(toks, i)
		else:
			break
	return i


def constant(expr):
	"""Whether expr is a compile-time constant by its look: literals,
	operators, all-caps macros, type names and the operands of sizeof()."""
	toks = tokens(expr)
	i = 0
	while i < len(toks):
		t = toks[i]
		if t in CONST_OPS:
			if i + 1 < len(toks) and toks[i + 1] == '(':
				i = skip_group(toks, i + 1)
			else:
				i = skip_operand(toks, i + 1)
			continue
		if re.match(r'[A-Za-z_]', t) and not (t in TYPE_WORDS or
			re.match(r'^_*[A-Z][A-Z0-9_]*$', t)):
			return False
		i += 1
	return True


def split_top(expr, op):
	"""expr's terms around op at parenthesis depth 0."""
	terms, depth, cur = [], 0, []
	for t in tokens(expr):
		if t in '([':
			depth += 1
		elif t in ')]':
			depth -= 1
		if t == op and depth == 0:
			terms.append(' '.join(cur))
			cur = []
		else:
			cur.append(t)
	terms.append(' '.join(cur))
	return terms


def nonzero_constant(expr):
	toks = tokens(expr)
	if not constant(expr) or not toks:
		return False
	if len(toks) == 1 and re.match(r'^\d', toks[0]):
		return int(re.sub(r'[uUlL]+$', '', toks[0]), 0) != 0
	return toks[0] in CONST_OPS or re.match(r'^_*[A-Z]', toks[0]) is not None


def strip_parens(expr):
	toks = tokens(expr)
	while len(toks) > 2 and toks[0] == '(' and skip_group(toks, 0) == len(toks):
		toks = toks[1:-1]
	return ' '.join(toks)


def never_zero(expr):
	"""Zero only if it wraps: struct_size(); a sum with a term, a product
	all of whose factors, a shift whose left operand is so or a nonzero
	constant."""
	expr = strip_parens(expr)
	toks = tokens(expr)
	if toks and toks[0] in NONZERO_OPS and skip_group(toks, 1) == len(toks):
		return True
	for op, whole in (('+', any), ('*', all), ('<<', None)):
		parts = split_top(expr, op)
		if len(parts) < 2:
			continue
		if whole is None:
			parts = parts[:1]
			whole = all
		if whole(nonzero_constant(t) or never_zero(t) for t in parts):
			return True
	return False


def safe(expr):
	"""Not reported: a constant (taken to be nonzero), or never zero."""
	return constant(expr) or never_zero(expr)


def squash(s):
	"""An expression as spatch prints it (sizeof ( x ), a [ i ]) as C is
	usually written, without the casts of a pool's (void *)size."""
	s = re.sub(r'\s+', ' ', s).strip()
	s = re.sub(r' ?(->|\.) ?', r'\1', s)
	s = re.sub(r'([(\[]) ', r'\1', s)
	s = re.sub(r' ([)\],])', r'\1', s)
	s = re.sub(r'(\w) ([(\[])', r'\1\2', s)
	s = re.sub(r'(^|[(,] ?)([*&]) ', r'\1\2', s)
	return re.sub(r'^(\((void|unsigned long) ?\*?\) ?)+', '', s)


# Findings wait for the end: a size held in a variable is reported only
# if some assignment that reaches the call (rule defs, DEFS) is not safe.
FOUND = []	# [(key of the allocation or pool call, factors, line format)]
DEFS = {}	# (key, variable) -> [expressions assigned to it]


def key(p):
	return (p[0].file, p[0].line, p[0].column)


def args_of(es):
	return [squash(str(e)) for e in es.elements]


def factors(fn, args):
	"""The size factors of a call fn(args), or KeyError if fn is not
	in SIZE_ARGS (the rules' lists and SIZE_ARGS disagree)."""
	return [args[i] for i in SIZE_ARGS[fn] if i < len(args)]


def found_alloc(pf, api, ptr, alloc, es, pa):
	args = args_of(es)
	bad = [f for f in factors(alloc, args) if not safe(f)]
	if bad:
		FOUND.append((key(pa), bad, "%s:%s: %s: %s from %s(%s) at line %s in %s(), size %%s" % (
			pf[0].file, pf[0].line, api, squash(ptr), alloc, ', '.join(args),
			pa[0].line, pf[0].current_element)))


def found_pool(p, api, size):
	size = squash(size)
	if not safe(size):
		FOUND.append((key(p), [size], "%s:%s: %s: kmalloc pool in %s(), size %%s" % (
			p[0].file, p[0].line, api, p[0].current_element)))


def resolved(k, factor):
	exprs = DEFS.get((k, factor), [])
	return bool(exprs) and all(safe(e) for e in exprs)


def named(k, factor):
	"""'factor', and what the function assigned to it if it is a variable."""
	exprs = sorted(set(DEFS.get((k, factor), [])))
	return "'%s'%s" % (factor, " = '%s'" % "' | '".join(exprs) if exprs else '')


def print_found():
	for k, bad, line in FOUND:
		left = [b for b in bad if not resolved(k, b)]
		if left:
			print(line % ' * '.join(named(k, b) for b in left) + ' not constant')

# kvfree_rcu_mightsleep(p), kfree_rcu_mightsleep(p), kfree_rcu(p, f),
# kvfree_rcu(p, f). A declaration's initialiser matches the assignment.
@rcu depends on report exists@
identifier alloc = {kmalloc, kzalloc, kvmalloc, kvzalloc, kmalloc_node,
	kzalloc_node, kvmalloc_node, kvzalloc_node, kmalloc_nolock,
	kmalloc_track_caller, kmalloc_node_track_caller, kmalloc_array, kcalloc,
	kvmalloc_array, kvcalloc, kmalloc_array_node, kcalloc_node,
	kvmalloc_array_node, kvcalloc_node, kmalloc_objs, kzalloc_objs,
	kvmalloc_objs, kvzalloc_objs, kmemdup, krealloc, krealloc_node, kvrealloc,
	kvrealloc_node, kmemdup_array, krealloc_array};
identifier api = {kvfree_rcu_mightsleep, kfree_rcu_mightsleep, kfree_rcu, kvfree_rcu};
expression list es;
expression P, E;
position pa, pf;
@@
P = alloc@pa(es)
... when != P = E
api@pf(P, ...)

@script:python depends on rcu@
es << rcu.es;
api << rcu.api;
alloc << rcu.alloc;
P << rcu.P;
pa << rcu.pa;
pf << rcu.pf;
@@
found_alloc(pf, api, P, alloc, es, pa)

@single depends on report exists@
identifier alloc = {kmalloc, kzalloc, kvmalloc, kvzalloc, kmalloc_node,
	kzalloc_node, kvmalloc_node, kvzalloc_node, kmalloc_nolock,
	kmalloc_track_caller, kmalloc_node_track_caller, kmalloc_array, kcalloc,
	kvmalloc_array, kvcalloc, kmalloc_array_node, kcalloc_node,
	kvmalloc_array_node, kvcalloc_node, kmalloc_objs, kzalloc_objs,
	kvmalloc_objs, kvzalloc_objs, kmemdup, krealloc, krealloc_node, kvrealloc,
	kvrealloc_node, kmemdup_array, krealloc_array};
expression list es;
expression P, S, E;
position pa, pf;
@@
P = alloc@pa(es)
... when != P = E
kmem_cache_free@pf(S, P)

@script:python depends on single@
es << single.es;
alloc << single.alloc;
P << single.P;
pa << single.pa;
pf << single.pf;
@@
found_alloc(pf, 'kmem_cache_free', P, alloc, es, pa)

# The bulk frees: an element of the array.
@kbulk depends on report exists@
identifier alloc = {kmalloc, kzalloc, kvmalloc, kvzalloc, kmalloc_node,
	kzalloc_node, kvmalloc_node, kvzalloc_node, kmalloc_nolock,
	kmalloc_track_caller, kmalloc_node_track_caller, kmalloc_array, kcalloc,
	kvmalloc_array, kvcalloc, kmalloc_array_node, kcalloc_node,
	kvmalloc_array_node, kvcalloc_node, kmalloc_objs, kzalloc_objs,
	kvmalloc_objs, kvzalloc_objs, kmemdup, krealloc, krealloc_node, kvrealloc,
	kvrealloc_node, kmemdup_array, krealloc_array};
expression list es;
expression A, I, N, E;
position pa, pf;
@@
A[I] = alloc@pa(es)
... when != A = E
kfree_bulk@pf(N, A)

@script:python depends on kbulk@
es << kbulk.es;
alloc << kbulk.alloc;
A << kbulk.A;
pa << kbulk.pa;
pf << kbulk.pf;
@@
found_alloc(pf, 'kfree_bulk', A + '[]', alloc, es, pa)

@cbulk depends on report exists@
identifier alloc = {kmalloc, kzalloc, kvmalloc, kvzalloc, kmalloc_node,
	kzalloc_node, kvmalloc_node, kvzalloc_node, kmalloc_nolock,
	kmalloc_track_caller, kmalloc_node_track_caller, kmalloc_array, kcalloc,
	kvmalloc_array, kvcalloc, kmalloc_array_node, kcalloc_node,
	kvmalloc_array_node, kvcalloc_node, kmalloc_objs, kzalloc_objs,
	kvmalloc_objs, kvzalloc_objs, kmemdup, krealloc, krealloc_node, kvrealloc,
	kvrealloc_node, kmemdup_array, krealloc_array};
expression list es;
expression A, I, N, S, E;
position pa, pf;
@@
A[I] = alloc@pa(es)
... when != A = E
kmem_cache_free_bulk@pf(S, N, A)

@script:python depends on cbulk@
es << cbulk.es;
alloc << cbulk.alloc;
A << cbulk.A;
pa << cbulk.pa;
pf << cbulk.pf;
@@
found_alloc(pf, 'kmem_cache_free_bulk', A + '[]', alloc, es, pa)

# Size-0 kmalloc mempools.
@pool depends on report@
identifier api = {mempool_create_kmalloc_pool};
expression N, S;
position p;
@@
api@p(N, S)

@script:python depends on pool@
api << pool.api;
S << pool.S;
p << pool.p;
@@
found_pool(p, api, S)

@ipool depends on report@
identifier api = {mempool_init_kmalloc_pool};
expression M, N, S;
position p;
@@
api@p(M, N, S)

@script:python depends on ipool@
api << ipool.api;
S << ipool.S;
p << ipool.p;
@@
found_pool(p, api, S)

@cpool depends on report@
identifier api = {mempool_create, mempool_create_node};
symbol mempool_kmalloc, mempool_kfree;
expression N, S;
position p;
@@
api@p(N, mempool_kmalloc, mempool_kfree, S, ...)

@script:python depends on cpool@
api << cpool.api;
S << cpool.S;
p << cpool.p;
@@
found_pool(p, api, S)

@npool depends on report@
identifier api = {mempool_init, mempool_init_node};
symbol mempool_kmalloc, mempool_kfree;
expression M, N, S;
position p;
@@
api@p(M, N, mempool_kmalloc, mempool_kfree, S, ...)

@script:python depends on npool@
api << npool.api;
S << npool.S;
p << npool.p;
@@
found_pool(p, api, S)

# A size held in a variable (or field): what the function assigns to it
# before the call, on some path with no other change of it on the way.
# A declaration's initialiser matches too; so does a cast argument.
@defs depends on report exists@
identifier fn = {kmalloc, kzalloc, kvmalloc, kvzalloc, kmalloc_node,
	kzalloc_node, kvmalloc_node, kvzalloc_node, kmalloc_nolock,
	kmalloc_track_caller, kmalloc_node_track_caller, kmalloc_array, kcalloc,
	kvmalloc_array, kvcalloc, kmalloc_array_node, kcalloc_node,
	kvmalloc_array_node, kvcalloc_node, kmalloc_objs, kzalloc_objs,
	kvmalloc_objs, kvzalloc_objs, kmemdup, krealloc, krealloc_node, kvrealloc,
	kvrealloc_node, kmemdup_array, krealloc_array,
	mempool_create_kmalloc_pool, mempool_init_kmalloc_pool, mempool_create,
	mempool_create_node, mempool_init, mempool_init_node};
expression S, E, E2;
type T;
position pu;
@@
S = E
... when != S = E2
    when != S += E2
    when != S -= E2
    when != S *= E2
    when != S /= E2
    when != S <<= E2
    when != S >>= E2
    when != S++
    when != S--
    when != ++S
    when != --S
    when != &S
(
fn@pu(..., S, ...)
|
fn@pu(..., (T)S, ...)
)

@script:python depends on defs@
fn << defs.fn;
S << defs.S;
E << defs.E;
pu << defs.pu;
@@
# Any argument: only a size factor's entry is ever looked up.
DEFS.setdefault((key(pu), squash(S)), []).append(squash(E))

@finalize:python depends on report@
@@
print_found()
