// SPDX-License-Identifier: GPL-2.0
/*
 * matrix/cocci/sentinel-callers.cocci's fixture (test_callers.py): each
 * rule has functions pos_RULE* that it must report and neg_RULE* that it
 * must not (defs: the rule that reads a size held in a variable). Never
 * compiled: spatch only parses it.
 */

struct obj {
	int n;
	struct rcu_head rcu;
	char data[];
};

#define OBJ_MAX 64

/* rcu: kfree_rcu(), kvfree_rcu(), k(v)free_rcu_mightsleep() */
void pos_rcu_two_arg(int n)
{
	struct obj *o = kzalloc(n, GFP_KERNEL);

	kfree_rcu(o, rcu);
}

void pos_rcu_mightsleep(const void *src, size_t len)
{
	void *p;

	p = kmemdup(src, len, GFP_KERNEL);
	kvfree_rcu_mightsleep(p);
}

void pos_rcu_objs(unsigned int count)
{
	struct obj *o = kvzalloc_objs(*o, count);

	kvfree_rcu(o, rcu);
}

void neg_rcu_constant(void)
{
	struct obj *o = kzalloc(sizeof(*o), GFP_KERNEL);
	void *p = kmalloc(OBJ_MAX * 2, GFP_KERNEL);

	kfree_rcu(o, rcu);
	kfree_rcu_mightsleep(p);
}

void neg_rcu_never_zero(int n, size_t len)
{
	struct obj *o = kzalloc(struct_size(o, data, n), GFP_KERNEL);
	char *s = kmalloc(len + 1, GFP_KERNEL);

	kfree_rcu(o, rcu);
	kvfree_rcu_mightsleep(s);
}

/* defs: a size in a variable is what the function assigned to it */
void pos_rcu_local(int n)
{
	size_t sz = n * 4;
	void *p = kmalloc(sz, GFP_KERNEL);

	kvfree_rcu_mightsleep(p);
}

void neg_rcu_product(int max)
{
	__le16 *p = kvmalloc((max + 2) * sizeof(__le16), GFP_KERNEL);

	kvfree_rcu_mightsleep(p);
}

void neg_rcu_reassigned(int n, void *other)
{
	void *p = kmalloc(n, GFP_KERNEL);

	p = other;
	kvfree_rcu_mightsleep(p);
}

/* single: kmem_cache_free() */
void pos_single(struct kmem_cache *s, size_t len)
{
	void *p = kmalloc_array(len, sizeof(long), GFP_KERNEL);

	kmem_cache_free(s, p);
}

void neg_single(struct kmem_cache *s)
{
	void *p = kcalloc(OBJ_MAX, sizeof(long), GFP_KERNEL);

	kmem_cache_free(s, p);
}

/* kbulk: kfree_bulk() */
void pos_kbulk(void **arr, size_t nr, size_t *len)
{
	size_t i;

	for (i = 0; i < nr; i++)
		arr[i] = kmalloc(len[i], GFP_KERNEL);
	kfree_bulk(nr, arr);
}

void neg_kbulk(void **arr, size_t nr)
{
	size_t i;

	for (i = 0; i < nr; i++)
		arr[i] = kmalloc(32, GFP_KERNEL);
	kfree_bulk(nr, arr);
}

/* cbulk: kmem_cache_free_bulk() */
void pos_cbulk(struct kmem_cache *s, void **arr, size_t len)
{
	arr[0] = krealloc(arr[0], len, GFP_KERNEL);
	kmem_cache_free_bulk(s, 1, arr);
}

void neg_cbulk(struct kmem_cache *s, void **arr)
{
	arr[0] = kzalloc(sizeof(struct obj), GFP_KERNEL);
	kmem_cache_free_bulk(s, 1, arr);
}

/* pool: mempool_create_kmalloc_pool() */
mempool_t *pos_pool(int min_nr, size_t size)
{
	return mempool_create_kmalloc_pool(min_nr, size);
}

mempool_t *neg_pool(void)
{
	return mempool_create_kmalloc_pool(4, sizeof(struct obj));
}

mempool_t *pos_pool_one_path(int x, size_t len)
{
	size_t size = 16;

	if (x)
		size = len;
	return mempool_create_kmalloc_pool(1, size);
}

/* ipool: mempool_init_kmalloc_pool() */
int pos_ipool(mempool_t *pool, struct obj *o)
{
	return mempool_init_kmalloc_pool(pool, 2, o->n * 8);
}

int neg_ipool(mempool_t *pool)
{
	return mempool_init_kmalloc_pool(pool, 2, OBJ_MAX);
}

int neg_ipool_local(mempool_t *pool, int n)
{
	int iter_size = sizeof(struct obj) + (n * 4) * sizeof(long);

	return mempool_init_kmalloc_pool(pool, 1, iter_size);
}

/* cpool: mempool_create(_node)() with mempool_kmalloc */
mempool_t *pos_cpool(size_t alloc_size, int node)
{
	return mempool_create_node(1, mempool_kmalloc, mempool_kfree,
				   (void *)alloc_size, GFP_KERNEL, node);
}

mempool_t *neg_cpool(void)
{
	return mempool_create(1, mempool_kmalloc, mempool_kfree,
			      (void *)(unsigned long)OBJ_MAX);
}

mempool_t *neg_cpool_local(int node)
{
	size_t alloc_size = sizeof(struct obj) * OBJ_MAX;

	return mempool_create_node(1, mempool_kmalloc, mempool_kfree,
				   (void *)alloc_size, GFP_KERNEL, node);
}

/* npool: mempool_init(_node)() with mempool_kmalloc */
int pos_npool(mempool_t *pool, unsigned long size)
{
	return mempool_init(pool, 1, mempool_kmalloc, mempool_kfree, (void *)size);
}

int neg_npool(mempool_t *pool)
{
	return mempool_init(pool, 1, mempool_kmalloc, mempool_kfree,
			    (void *)sizeof(struct obj));
}
