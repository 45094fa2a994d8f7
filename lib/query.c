// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The conveniences over the kernel-ABI entry points: replies that grow to
 * fit, listings with the pages fetched, the seed's children-only and
 * depth-first listings, path -> ID, the root mount.
 */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "internal.h"

/* first buffer of a reply with strings: most replies fit in it */
#define STAT_FIRST_BUFSIZE 4096
/* no reply is larger than this (the kernel's strings are page-bounded) */
#define STAT_MAX_BUFSIZE (64U << 20)
/* IDs asked per listmount call at first; doubles up to the kernel's max */
#define LIST_FIRST_PAGE 1024

static int stat_into(const struct mntkit_mnt_id_req *base, uint64_t mnt_id,
		     uint64_t mask, struct mntkit_statmount **buf,
		     size_t *bufsize)
{
	const struct mntkit_backend_ops *ops = mntkit__ops();
	struct mntkit_mnt_id_req req = *base;
	struct mntkit_statmount *nbuf;
	size_t size = *bufsize;

	req.mnt_id = mnt_id;
	req.param = mask;
	if (!*buf || size < MNTKIT_STATMOUNT_FIXED_SIZE)
		size = STAT_FIRST_BUFSIZE;
	for (;;) {
		if (size != *bufsize || !*buf) {
			nbuf = realloc(*buf, size);
			if (!nbuf)
				return -ENOMEM;
			*buf = nbuf;
			*bufsize = size;
		}
		if (ops->statmount(&req, *buf, size, 0) == 0)
			return 0;
		if (errno != EOVERFLOW || size >= STAT_MAX_BUFSIZE)
			return -errno;
		size *= 2;
	}
}

int mntkit_stat_buf(uint64_t mnt_id, uint64_t mask,
		    const struct mntkit_opts *opts,
		    struct mntkit_statmount **buf, size_t *bufsize)
{
	struct mntkit_mnt_id_req req;
	int fd, ret;

	if (!buf || !bufsize)
		return mntkit__fail(EFAULT);
	ret = mntkit__req_init(&req, opts, &fd);
	if (ret)
		return mntkit__fail(-ret);
	ret = stat_into(&req, mnt_id, mask, buf, bufsize);
	if (fd >= 0)
		close(fd);
	return ret ? mntkit__fail(-ret) : 0;
}

/* shrink a reply to its size (never below the fixed part) */
static struct mntkit_statmount *fit(struct mntkit_statmount *sm)
{
	size_t size = sm->size;
	struct mntkit_statmount *n;

	if (size < MNTKIT_STATMOUNT_FIXED_SIZE)
		size = MNTKIT_STATMOUNT_FIXED_SIZE;
	n = realloc(sm, size);
	return n ? n : sm;
}

int mntkit_stat(uint64_t mnt_id, uint64_t mask, const struct mntkit_opts *opts,
		struct mntkit_statmount **out)
{
	struct mntkit_statmount *sm = NULL;
	size_t size = 0;
	int ret;

	if (!out)
		return mntkit__fail(EFAULT);
	*out = NULL;
	ret = mntkit_stat_buf(mnt_id, mask, opts, &sm, &size);
	if (ret) {
		free(sm);
		return mntkit__fail(-ret);
	}
	*out = fit(sm);
	return 0;
}

int mntkit_path_id(int dirfd, const char *path, int at_flags,
		   uint64_t *mnt_id)
{
	int ret;

	if (!path || !mnt_id)
		return mntkit__fail(EFAULT);
	ret = mntkit__ops()->path_id(dirfd, path, at_flags, mnt_id);
	return ret ? mntkit__fail(-ret) : 0;
}

int mntkit_stat_path(int dirfd, const char *path, int at_flags,
		     uint64_t mask, struct mntkit_statmount **out)
{
	uint64_t id;
	int ret;

	if (!out)
		return mntkit__fail(EFAULT);
	*out = NULL;
	ret = mntkit_path_id(dirfd, path, at_flags, &id);
	if (ret)
		return ret;
	return mntkit_stat(id, mask, NULL, out);
}

/* ---- listing ---- */

struct idvec {
	uint64_t *v;
	size_t n, cap;
};

static int idvec_reserve(struct idvec *iv, size_t want)
{
	uint64_t *nv;
	size_t cap;

	if (iv->cap - iv->n >= want)
		return 0;
	cap = iv->cap ? iv->cap : LIST_FIRST_PAGE;
	while (cap - iv->n < want)
		cap *= 2;
	nv = realloc(iv->v, cap * sizeof(*nv));
	if (!nv)
		return -ENOMEM;
	iv->v = nv;
	iv->cap = cap;
	return 0;
}

/* every ID below @mnt_id (and the root with LSMT_ROOT), all pages */
static int list_flat(const struct mntkit_mnt_id_req *base, uint64_t mnt_id,
		     unsigned int lflags, struct idvec *iv)
{
	const struct mntkit_backend_ops *ops = mntkit__ops();
	struct mntkit_mnt_id_req req = *base;
	size_t page = LIST_FIRST_PAGE;
	ssize_t got;
	int ret;

	req.mnt_id = mnt_id;
	req.param = 0;
	for (;;) {
		ret = idvec_reserve(iv, page);
		if (ret)
			return ret;
		got = ops->listmount(&req, iv->v + iv->n, page, lflags);
		if (got < 0)
			return -errno;
		iv->n += (size_t)got;
		if ((size_t)got < page)
			return 0;
		req.param = iv->v[iv->n - 1];
		if (page < MNTKIT_LISTMOUNT_MAX_NR / 2)
			page *= 2;
	}
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* index of @id in the ascending @v, or -1 */
static ssize_t find_id(const uint64_t *v, size_t n, uint64_t id)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (v[mid] == id)
			return (ssize_t)mid;
		if (v[mid] < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return -1;
}

/*
 * The mount tree of a flat listing: for mount i (ids ascending), its
 * children are kids[first[i] .. first[i+1]), ascending. Mounts that vanished
 * before their parent could be read are marked gone.
 */
struct tree {
	size_t n;
	uint64_t *ids;
	ssize_t *parent; /* index, -1 when the parent is not in the listing */
	unsigned char *gone;
	size_t *first;   /* n + 1 entries */
	size_t *kids;
};

static void tree_free(struct tree *t)
{
	free(t->parent);
	free(t->gone);
	free(t->first);
	free(t->kids);
}

static int tree_parents(struct tree *t, const struct mntkit_mnt_id_req *base)
{
	const struct mntkit_backend_ops *ops = mntkit__ops();
	struct mntkit_mnt_id_req req = *base;
	struct mntkit_statmount sm;

	req.param = MNTKIT_STATMOUNT_MNT_BASIC;
	for (size_t i = 0; i < t->n; i++) {
		req.mnt_id = t->ids[i];
		t->parent[i] = -1;
		if (ops->statmount(&req, &sm, sizeof(sm), 0) != 0) {
			if (errno != ENOENT)
				return -errno;
			t->gone[i] = 1; /* unmounted since the listing */
			continue;
		}
		if (sm.mnt_parent_id != sm.mnt_id)
			t->parent[i] = find_id(t->ids, t->n, sm.mnt_parent_id);
	}
	return 0;
}

static int tree_build(struct tree *t, const struct mntkit_mnt_id_req *base,
		      uint64_t *ids, size_t n)
{
	int ret;

	memset(t, 0, sizeof(*t));
	t->n = n;
	t->ids = ids;
	t->parent = calloc(n + 1, sizeof(*t->parent));
	t->gone = calloc(n + 1, 1);
	t->first = calloc(n + 2, sizeof(*t->first));
	t->kids = calloc(n + 1, sizeof(*t->kids));
	if (!t->parent || !t->gone || !t->first || !t->kids)
		return -ENOMEM;
	ret = tree_parents(t, base);
	if (ret)
		return ret;
	/* counting sort of children by parent; i ascending keeps IDs sorted */
	for (size_t i = 0; i < n; i++)
		if (t->parent[i] >= 0)
			t->first[t->parent[i] + 1]++;
	for (size_t i = 0; i < n; i++)
		t->first[i + 1] += t->first[i];
	for (size_t i = 0; i < n; i++)
		if (t->parent[i] >= 0)
			t->kids[t->first[t->parent[i]]++] = i;
	/* the fill moved each first[p] to the start of p+1's run: undo */
	for (size_t i = n; i > 0; i--)
		t->first[i] = t->first[i - 1];
	t->first[0] = 0;
	return 0;
}

/*
 * Depth-first from the roots @roots[0..nroots), writing IDs to @out.
 * Children come by ascending ID, or descending with @reverse.
 */
static ssize_t tree_dfs(const struct tree *t, const size_t *roots,
			size_t nroots, int reverse, uint64_t *out)
{
	size_t *stack = malloc((t->n + 1) * sizeof(*stack));
	size_t sp = 0, nout = 0;

	if (!stack)
		return -ENOMEM;

	/* push in the opposite order of the wanted visit order */
	for (size_t r = 0; r < nroots; r++)
		stack[sp++] = roots[reverse ? r : nroots - 1 - r];
	while (sp) {
		size_t i = stack[--sp];
		size_t b = t->first[i], e = t->first[i + 1];

		if (!t->gone[i])
			out[nout++] = t->ids[i];
		for (size_t k = 0; k < e - b; k++)
			stack[sp++] = t->kids[reverse ? b + k : e - 1 - k];
	}
	free(stack);
	return (ssize_t)nout;
}

/* the listed mounts whose parent is not listed (the top of a LSMT_ROOT
 * listing; several only when the table changed during the listing) */
static size_t tree_roots(const struct tree *t, size_t *roots)
{
	size_t n = 0;

	for (size_t i = 0; i < t->n; i++)
		if (t->parent[i] < 0 && !t->gone[i])
			roots[n++] = i;
	return n;
}

static int list_shaped(const struct mntkit_mnt_id_req *base, uint64_t mnt_id,
		       unsigned int flags, struct idvec *iv)
{
	int reverse = !!(flags & MNTKIT_LIST_REVERSE);
	size_t *roots = NULL, nroots, nout = 0;
	uint64_t *out = NULL;
	struct tree t;
	int ret;

	/* the start joins the listing so that its children can be found */
	if (mnt_id != MNTKIT_LSMT_ROOT) {
		ret = idvec_reserve(iv, 1);
		if (ret)
			return ret;
		iv->v[iv->n++] = mnt_id;
	}
	qsort(iv->v, iv->n, sizeof(*iv->v), cmp_u64);
	ret = tree_build(&t, base, iv->v, iv->n);
	if (ret)
		goto out;
	ret = -ENOMEM;
	roots = malloc((iv->n + 1) * sizeof(*roots));
	out = malloc((iv->n + 1) * sizeof(*out));
	if (!roots || !out)
		goto out;
	if (mnt_id == MNTKIT_LSMT_ROOT) {
		nroots = tree_roots(&t, roots);
	} else {
		ssize_t s = find_id(t.ids, t.n, mnt_id);

		if (t.gone[s]) {
			ret = -ENOENT;
			goto out;
		}
		t.gone[s] = 1; /* the start is not listed */
		nroots = 1;
		roots[0] = (size_t)s;
	}
	if (flags & MNTKIT_LIST_CHILDREN) {
		for (size_t r = 0; r < nroots; r++) {
			size_t i = roots[r];
			size_t b = t.first[i], e = t.first[i + 1];

			for (size_t k = 0; k < e - b; k++) {
				size_t c = t.kids[reverse ? e - 1 - k : b + k];

				if (!t.gone[c])
					out[nout++] = t.ids[c];
			}
		}
	} else {
		ssize_t got = tree_dfs(&t, roots, nroots, reverse, out);

		if (got < 0) {
			ret = (int)got;
			goto out;
		}
		nout = (size_t)got;
	}
	memcpy(iv->v, out, nout * sizeof(*out));
	iv->n = nout;
	ret = 0;
out:
	free(out);
	free(roots);
	tree_free(&t);
	return ret;
}

static void reverse_ids(uint64_t *v, size_t n)
{
	for (size_t i = 0; i < n / 2; i++) {
		uint64_t x = v[i];

		v[i] = v[n - 1 - i];
		v[n - 1 - i] = x;
	}
}

ssize_t mntkit_list(uint64_t mnt_id, unsigned int flags,
		    const struct mntkit_opts *opts, uint64_t **ids)
{
	unsigned int known = MNTKIT_LIST_REVERSE | MNTKIT_LIST_CHILDREN |
			     MNTKIT_LIST_TREE;
	unsigned int shape = flags & (MNTKIT_LIST_CHILDREN | MNTKIT_LIST_TREE);
	struct mntkit_mnt_id_req req;
	struct idvec iv = { 0 };
	unsigned int lflags = 0;
	int fd, ret;

	if (!ids)
		return mntkit__fail(EFAULT);
	*ids = NULL;
	if ((flags & ~known) || shape == (MNTKIT_LIST_CHILDREN | MNTKIT_LIST_TREE))
		return mntkit__fail(EINVAL);
	ret = mntkit__req_init(&req, opts, &fd);
	if (ret)
		return mntkit__fail(-ret);
	/* the kernel reverses when it can; shaped listings sort themselves */
	if ((flags & MNTKIT_LIST_REVERSE) && !shape &&
	    (mntkit__kernel_features() & MNTKIT_FEAT_LIST_REVERSE))
		lflags = MNTKIT_LISTMOUNT_REVERSE;
	ret = list_flat(&req, mnt_id, lflags, &iv);
	if (!ret && shape)
		ret = list_shaped(&req, mnt_id, flags, &iv);
	else if (!ret && (flags & MNTKIT_LIST_REVERSE) && !lflags)
		reverse_ids(iv.v, iv.n);
	if (fd >= 0)
		close(fd);
	if (ret) {
		free(iv.v);
		return mntkit__fail(-ret);
	}
	if (!iv.n) {
		free(iv.v);
		iv.v = NULL;
	}
	*ids = iv.v;
	return (ssize_t)iv.n;
}

/* ---- the root mount ---- */

/* the parent of @id (itself for a namespace's root) */
static int parent_of(const struct mntkit_mnt_id_req *base, uint64_t id,
		     uint64_t *parent)
{
	struct mntkit_mnt_id_req req = *base;
	struct mntkit_statmount sm;

	req.mnt_id = id;
	req.param = MNTKIT_STATMOUNT_MNT_BASIC;
	if (mntkit__ops()->statmount(&req, &sm, sizeof(sm), 0) != 0)
		return -errno;
	*parent = sm.mnt_parent_id;
	return 0;
}

/* the caller's root, in its own namespace or in the one of @req */
static int reachable_root(const struct mntkit_mnt_id_req *req, uint64_t *id)
{
	struct idvec iv = { 0 };
	size_t *roots = NULL;
	struct tree t;
	int ret;

	if (!req->mnt_ns_id && !req->mnt_ns_fd)
		return mntkit__ops()->path_id(AT_FDCWD, "/", 0, id);
	/* another namespace: the top of its LSMT_ROOT listing */
	ret = list_flat(req, MNTKIT_LSMT_ROOT, 0, &iv);
	if (ret) {
		free(iv.v);
		return ret;
	}
	qsort(iv.v, iv.n, sizeof(*iv.v), cmp_u64);
	ret = tree_build(&t, req, iv.v, iv.n);
	if (!ret) {
		roots = malloc((iv.n + 1) * sizeof(*roots));
		ret = roots ? 0 : -ENOMEM;
	}
	if (!ret)
		ret = tree_roots(&t, roots) ? 0 : -ENOENT;
	if (!ret)
		*id = t.ids[roots[0]];
	free(roots);
	tree_free(&t);
	free(iv.v);
	return ret;
}

int mntkit_root_id(const struct mntkit_opts *opts, int unreachable,
		   uint64_t *mnt_id)
{
	struct mntkit_mnt_id_req req;
	uint64_t id, parent;
	int fd, ret;

	if (!mnt_id)
		return mntkit__fail(EFAULT);
	ret = mntkit__req_init(&req, opts, &fd);
	if (ret)
		return mntkit__fail(-ret);
	ret = reachable_root(&req, &id);
	/* climb to the mount that is its own parent */
	while (!ret && unreachable) {
		ret = parent_of(&req, id, &parent);
		if (ret || parent == id)
			break;
		id = parent;
	}
	if (fd >= 0)
		close(fd);
	if (ret)
		return mntkit__fail(-ret);
	*mnt_id = id;
	return 0;
}
