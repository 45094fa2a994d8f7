/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * tree.h - a small mount tree for the tests, built in the case's private
 * mount namespace (t_private_ns() first).
 *
 * Mount creation order interleaves the branches, so ascending-ID order,
 * depth-first order and children-only differ:
 *
 *	D/a            tmpfs size=1m,mode=700          T_A
 *	D/a/b          tmpfs nosuid,nodev              T_AB
 *	D/sp ace       tmpfs, source "my src"          T_SPACE
 *	D/a/b/c        tmpfs noexec,noatime            T_ABC
 *	D/a/d          tmpfs                           T_AD
 *	D/ro           tmpfs ro,sync,dirsync,lazytime  T_RO
 *	D/bind         bind of D/a/sub (root "/sub")   T_BIND
 *	D/a/d          a second tmpfs on top           T_STACK
 *	D/shared       tmpfs, shared                   T_SHARED
 *	D/slave        bind of D/shared, slave         T_SLAVE
 *
 * D itself is a directory of the scratch tmpfs (T_SCRATCH, the parent of
 * D/a, D/sp ace, D/ro, D/bind, D/shared, D/slave).
 */
#ifndef MNTKIT_TEST_TREE_H
#define MNTKIT_TEST_TREE_H

#include "harness.h"

enum {
	T_A,
	T_AB,
	T_SPACE,
	T_ABC,
	T_AD,
	T_RO,
	T_BIND,
	T_STACK,
	T_SHARED,
	T_SLAVE,
	T_NMOUNTS,
};

struct t_tree {
	char *dir;
	uint64_t scratch; /* mount ID (t_uid()) of the mount D is on */
	char *path[T_NMOUNTS];
	uint64_t id[T_NMOUNTS];	    /* mount IDs (t_uid()) */
	uint64_t parent[T_NMOUNTS]; /* mount IDs of the parents */
};

static inline void t_tree_build(struct t_tree *t)
{
	char *d = t_tmpdir();

	memset(t, 0, sizeof(*t));
	t->dir = d;
	t->scratch = t_uid(d);
#define P(i, fmt) (t->path[i] = t_path(fmt, d))
	P(T_A, "%s/a");
	P(T_AB, "%s/a/b");
	P(T_SPACE, "%s/sp ace");
	P(T_ABC, "%s/a/b/c");
	P(T_AD, "%s/a/d");
	P(T_RO, "%s/ro");
	P(T_BIND, "%s/bind");
	P(T_STACK, "%s/a/d");
	P(T_SHARED, "%s/shared");
	P(T_SLAVE, "%s/slave");
#undef P
	t->id[T_A] = t_tmpfs(t->path[T_A], 0, "size=1m,mode=700");
	t->id[T_AB] = t_tmpfs(t->path[T_AB], MS_NOSUID | MS_NODEV, NULL);
	t_mkdir(t->path[T_SPACE]);
	t_mount("my src", t->path[T_SPACE], "tmpfs", 0, "mode=755");
	t->id[T_SPACE] = t_uid(t->path[T_SPACE]);
	t->id[T_ABC] = t_tmpfs(t->path[T_ABC], MS_NOEXEC | MS_NOATIME, NULL);
	t->id[T_AD] = t_tmpfs(t->path[T_AD], 0, "size=64k");
	t->id[T_RO] = t_tmpfs(
		t->path[T_RO],
		MS_RDONLY | MS_SYNCHRONOUS | MS_DIRSYNC | MS_LAZYTIME, NULL);
	t_mkdir(t_path("%s/a/sub", d));
	t->id[T_BIND] = t_bind(t_path("%s/a/sub", d), t->path[T_BIND], 0);
	t->id[T_STACK] = t_tmpfs(t->path[T_STACK], 0, "nr_inodes=100");
	t->id[T_SHARED] = t_tmpfs(t->path[T_SHARED], 0, NULL);
	t_mount(NULL, t->path[T_SHARED], NULL, MS_SHARED, NULL);
	t->id[T_SLAVE] = t_bind(t->path[T_SHARED], t->path[T_SLAVE], 0);
	t_mount(NULL, t->path[T_SLAVE], NULL, MS_SLAVE, NULL);

	t->parent[T_A] = t->scratch;
	t->parent[T_AB] = t->id[T_A];
	t->parent[T_SPACE] = t->scratch;
	t->parent[T_ABC] = t->id[T_AB];
	t->parent[T_AD] = t->id[T_A];
	t->parent[T_RO] = t->scratch;
	t->parent[T_BIND] = t->scratch;
	t->parent[T_STACK] = t->id[T_AD];
	t->parent[T_SHARED] = t->scratch;
	t->parent[T_SLAVE] = t->scratch;
}

/*
 * The unique IDs of every mount of the namespace and their parents,
 * through listmount + statmount (raw), checked complete against
 * /proc/self/mountinfo (whose parent relation is mapped through old IDs).
 */
struct t_mnt {
	uint64_t id, parent;
	uint32_t old, parent_old;
};

static inline size_t t_all_mounts(struct t_mnt **out)
{
	struct t_mitab tab;
	uint64_t *ids;
	size_t n = t_lm(T_LSMT_ROOT, 0, &ids);
	struct t_mnt *v = t_xcalloc(n, sizeof(*v));

	t_mi_read(0, &tab);
	if (tab.n != n)
		t_fail("listmount has %zu mounts, mountinfo %zu", n, tab.n);
	for (size_t i = 0; i < n; i++) {
		struct mntkit_statmount *sm = t_sm(ids[i], 0x2);
		struct t_mi *m = t_mi_by_id(&tab, sm->mnt_id_old);

		if (!m)
			t_fail("mount %u not in mountinfo", sm->mnt_id_old);
		v[i].id = ids[i];
		v[i].old = sm->mnt_id_old;
		v[i].parent_old = (uint32_t)m->parent;
		free(sm);
	}
	/* the parents' unique IDs, from mountinfo's relation */
	for (size_t i = 0; i < n; i++) {
		v[i].parent = 0;
		for (size_t j = 0; j < n; j++)
			if (v[j].old == v[i].parent_old && j != i)
				v[i].parent = v[j].id;
	}
	t_mi_free(&tab);
	free(ids);
	*out = v;
	return n;
}

/* is @id in the subtree strictly below @top? */
static inline int t_below(const struct t_mnt *v, size_t n, uint64_t id,
			  uint64_t top)
{
	for (size_t hops = 0; hops <= n; hops++) {
		uint64_t p = 0;

		for (size_t i = 0; i < n; i++)
			if (v[i].id == id)
				p = v[i].parent;
		if (!p || p == id)
			return 0;
		if (p == top)
			return 1;
		id = p;
	}
	return 0;
}

/*
 * The test tree in a foreign namespace: a child (t_ns_child_start()) builds
 * it in a new mount namespace of its own and reports what it sees there.
 */
#define T_NS_MAX_IDS 4096

struct t_ns_report {
	uint64_t ns_id; /* NS_GET_MNTNS_ID inside the child */
	uint64_t root;	/* statx("/") inside the child */
	uint64_t tree[T_NMOUNTS];
	uint64_t scratch;
	uint64_t n; /* listmount(LSMT_ROOT) count */
	uint64_t ids[T_NS_MAX_IDS];
	uint64_t olds[T_NS_MAX_IDS]; /* their old IDs, sorted */
};

struct t_ns_tree {
	struct t_ns_child ch;
	struct t_ns_report rep;
};

/* in the child: build the tree and fill the report (raw syscalls) */
static inline void t_ns_tree_fill(void *rep)
{
	struct t_ns_report *r = rep;
	struct t_tree t;
	uint64_t *ids;
	size_t n;

	t_tree_build(&t);
	r->ns_id = t_ns_id(0);
	r->root = t_uid("/");
	memcpy(r->tree, t.id, sizeof(r->tree));
	r->scratch = t.scratch;
	n = t_lm(T_LSMT_ROOT, 0, &ids);
	T_ASSERT(n <= T_NS_MAX_IDS);
	r->n = n;
	memcpy(r->ids, ids, n * 8);
	for (size_t i = 0; i < n; i++) {
		const struct t_sm_head *sm = t_sm(ids[i], T_STATMOUNT_MNT_BASIC);

		r->olds[i] = sm->mnt_id_old;
		free((void *)sm);
	}
	t_sort_u64(r->olds, n);
	free(ids);
}

/* start the child, which stays until t_ns_tree_stop(), and get its report */
static inline void t_ns_tree_start(struct t_ns_tree *c)
{
	t_ns_child_start(&c->ch, t_ns_tree_fill, &c->rep, sizeof(c->rep));
	T_ASSERT(c->rep.ns_id != t_ns_id(0));
}

static inline void t_ns_tree_stop(struct t_ns_tree *c)
{
	t_ns_child_stop(&c->ch);
}

#endif /* MNTKIT_TEST_TREE_H */
