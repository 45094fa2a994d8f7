/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * test-list - the conveniences: mntkit_stat / mntkit_stat_buf (growth,
 * byte equality with the raw reply), mntkit_stat_many (the replies of
 * mntkit_stat() one after another, where it stops, every backend),
 * mntkit_list in every order against a
 * raw listmount loop and the parent relation of /proc/self/mountinfo,
 * mntkit_path_id / mntkit_stat_path against statx, mntkit_root_id, and
 * listing while mounts come and go.
 */
#include <stdbool.h>
#include <sys/prctl.h>
#include <time.h>

#include <mntkit.h>

#include "harness.h"
#include "tree.h"

/* the test tree in a private namespace (no system call needed) */
static void setup_tree(struct t_tree *t)
{
	t_private_ns();
	t_tree_build(t);
}

static void setup(struct t_tree *t)
{
	t_require_statmount();
	setup_tree(t);
}

/* ---- mntkit_stat / mntkit_stat_buf ---- */

T_CASE(stat_equals_raw)
{
	static const uint64_t masks[] = {
		0,
		0x3,
		MNTKIT_STATMOUNT_MNT_POINT,
		MNTKIT_STATMOUNT_ALL,
		MNTKIT_STATMOUNT_OPT_ARRAY | MNTKIT_STATMOUNT_MNT_OPTS,
	};
	struct t_tree t;

	setup(&t);
	for (int i = 0; i < T_NMOUNTS; i++) {
		for (size_t k = 0; k < sizeof(masks) / sizeof(masks[0]); k++) {
			struct mntkit_statmount *sm = (void *)1, *raw;

			/* the kernel's groups of the mask (a kernel
			 * without some has the hybrid fill them) */
			raw = t_sm(t.id[i], masks[k]);
			T_EQ_I(mntkit_stat(t.id[i], t_kmask(masks[k]), NULL,
					   &sm),
			       0);
			T_ASSERT(sm != NULL);
			T_EQ_U(sm->size, raw->size);
			T_ASSERTF(!memcmp(sm, raw, raw->size),
				  "mount %d mask %#" PRIx64 ": differs", i,
				  masks[k]);
			free(raw);
			free(sm);
		}
	}
}

/* a reply larger than any first guess: a long path, several id maps */
T_CASE(stat_grows_big_reply)
{
	static const char map[] =
		"0 100000 1000\n1000 200000 1000\n2000 300000 1000\n";
	struct t_tree t;
	struct mntkit_statmount *sm = NULL, *raw;
	char *deep, *p, *idm;
	uint64_t id;
	int ufd;

	setup(&t);
	t_require_groups(MNTKIT_STATMOUNT_MNT_UIDMAP | MNTKIT_STATMOUNT_MNT_GIDMAP,
			 "MNT_UIDMAP/MNT_GIDMAP (the maps of an idmapped mount)");
	/* a mount point path of ~3000 bytes makes a big mnt_point string */
	deep = t_xstrdup(t.dir);
	for (int i = 0; i < 30; i++) {
		p = t_path("%s/%0100d", deep, i);
		t_mkdir(p);
		free(deep);
		deep = p;
	}
	t_tmpfs(deep, 0, "size=1m");
	/* and an idmapped bind of it with three ranges */
	ufd = t_userns_fd(map);
	idm = t_path("%s/idmapped", deep);
	id = t_idmap_mount(deep, idm, ufd);
	close(ufd);
	raw = t_sm(id, MNTKIT_STATMOUNT_ALL);
	T_ASSERT(raw->size > 3000);
	T_EQ_I(mntkit_stat(id, MNTKIT_STATMOUNT_ALL, NULL, &sm), 0);
	T_EQ_U(sm->size, raw->size);
	T_ASSERT(!memcmp(sm, raw, raw->size));
	T_EQ_STR(t_sm_s(sm, sm->mnt_point), idm);
	T_EQ_U(sm->mnt_uidmap_num, 3);
	T_EQ_U(sm->mnt_gidmap_num, 3);
	p = (char *)t_sm_s(sm, sm->mnt_uidmap);
	T_EQ_STR(p, "0 100000 1000");
	p += strlen(p) + 1;
	T_EQ_STR(p, "1000 200000 1000");
	p += strlen(p) + 1;
	T_EQ_STR(p, "2000 300000 1000");
	free(sm);
	free(raw);
}

T_CASE(stat_errors)
{
	struct t_tree t;
	struct mntkit_statmount *sm = (void *)1;
	uint64_t gone;
	char *p;

	setup(&t);
	p = t_path("%s/gone", t.dir);
	gone = t_tmpfs(p, 0, NULL);
	t_umount(p);
	T_NEG(mntkit_stat(gone, MNTKIT_STATMOUNT_ALL, NULL, &sm), ENOENT);
	T_NULL(sm);
	sm = (void *)1;
	T_NEG(mntkit_stat(t_old_id(t.path[T_A]), 0x3, NULL, &sm), EINVAL);
	T_NULL(sm);
	sm = (void *)1;
	T_NEG(mntkit_stat(0, 0x3, NULL, &sm), EINVAL);
	T_NULL(sm);
}

T_CASE(stat_buf_grows_and_reuses)
{
	struct t_tree t;
	struct mntkit_statmount *buf = NULL, *raw;
	size_t size = 0, big;
	char *deep;

	setup(&t);
	deep = t_path("%s/%0200d/%0200d/%0200d/%0200d", t.dir, 1, 2, 3, 4);
	t_mkdir(t_path("%s/%0200d", t.dir, 1));
	t_mkdir(t_path("%s/%0200d/%0200d", t.dir, 1, 2));
	t_mkdir(t_path("%s/%0200d/%0200d/%0200d", t.dir, 1, 2, 3));
	t_tmpfs(deep, 0, NULL);

	/* from nothing */
	T_EQ_I(mntkit_stat_buf(t.id[T_A], t_kmask(MNTKIT_STATMOUNT_ALL), NULL,
			       &buf, &size),
	       0);
	T_ASSERT(buf && size >= buf->size);
	raw = t_sm(t.id[T_A], MNTKIT_STATMOUNT_ALL);
	T_ASSERT(!memcmp(buf, raw, raw->size));
	free(raw);
	/* reused for every mount of the tree */
	for (int i = 0; i < T_NMOUNTS; i++) {
		T_EQ_I(mntkit_stat_buf(t.id[i], t_kmask(MNTKIT_STATMOUNT_ALL),
				       NULL, &buf, &size),
		       0);
		raw = t_sm(t.id[i], MNTKIT_STATMOUNT_ALL);
		T_ASSERT(size >= raw->size);
		T_ASSERT(!memcmp(buf, raw, raw->size));
		free(raw);
	}
	/* grows for the deep mount */
	T_EQ_I(mntkit_stat_buf(t_uid(deep), MNTKIT_STATMOUNT_ALL, NULL, &buf,
			       &size),
	       0);
	T_ASSERT(size >= buf->size && buf->size > 800);
	T_EQ_STR(t_sm_s(buf, buf->mnt_point), deep);
	big = size;
	/* a failure leaves the buffer the caller's */
	T_NEG(mntkit_stat_buf(1, MNTKIT_STATMOUNT_ALL, NULL, &buf, &size),
	      EINVAL);
	T_ASSERT(buf != NULL && size == big);
	free(buf);
}

T_CASE(stat_buf_small_start)
{
	struct t_tree t;
	struct mntkit_statmount *buf, *raw;
	size_t size = 16;

	setup(&t);
	/* a caller's 16-byte buffer: the reply must not be truncated */
	buf = t_xmalloc(size);
	T_EQ_I(mntkit_stat_buf(t.id[T_AB], 0x3, NULL, &buf, &size), 0);
	T_ASSERT(size >= 512);
	T_EQ_U(buf->size, 512);
	raw = t_sm(t.id[T_AB], 0x3);
	T_ASSERT(!memcmp(buf, raw, 512));
	free(raw);
	free(buf);
}

/* ---- mntkit_stat_many ---- */

static const uint64_t many_masks[] = {
	0x3,
	0x3bb, /* lsmnt's default columns */
	MNTKIT_STATMOUNT_MNT_POINT,
	MNTKIT_STATMOUNT_ALL,
};

/*
 * every mount of the listing, @per_call at a time: the replies one after
 * another, each byte for byte mntkit_stat()'s of the same ID. @kernel:
 * only the groups the running kernel has (the mountinfo backend answers
 * the others too, also where the kernel has no statmount)
 */
static void many_equals_stat(size_t per_call, bool kernel)
{
	size_t bufsize = 1 << 20;
	char *buf = t_xmalloc(bufsize);
	uint64_t *ids;
	ssize_t n = mntkit_list(MNTKIT_LSMT_ROOT, 0, NULL, &ids);

	T_ASSERTF(n > 0, "mntkit_list: %s", strerror(errno));
	for (size_t m = 0; m < sizeof(many_masks) / sizeof(*many_masks); m++) {
		uint64_t mask = kernel ? t_kmask(many_masks[m]) : many_masks[m];

		for (size_t i = 0; i < (size_t)n;) {
			size_t want = (size_t)n - i < per_call ? (size_t)n - i :
								 per_call;
			ssize_t got = mntkit_stat_many(ids + i, want, mask, 0,
						       NULL, buf, bufsize);
			size_t at = 0;

			T_ASSERTF(got == (ssize_t)want,
				  "mask %#" PRIx64 ": %zd of %zu: %s", mask,
				  got, want, got < 0 ? strerror(errno) : "");
			for (ssize_t k = 0; k < got; k++) {
				const struct mntkit_statmount *sm =
					(const void *)(buf + at);
				struct mntkit_statmount *one = NULL;

				T_EQ_I(mntkit_stat(ids[i], mask, NULL, &one),
				       0);
				T_EQ_U(sm->size, one->size);
				T_ASSERTF(!memcmp(sm, one, one->size),
					  "mount %#" PRIx64 " mask %#" PRIx64
					  ": differs from mntkit_stat()",
					  ids[i], mask);
				free(one);
				at += mntkit_stat_span(sm);
				T_EQ_U(at % 8, 0);
				i++;
			}
		}
	}
	free(ids);
	free(buf);
}

T_CASE(stat_many_equals_stat)
{
	struct t_tree t;

	setup(&t);
	many_equals_stat(1, true);
	many_equals_stat(7, true);
	many_equals_stat(4096, true);
	/* the replies are the kernel's */
	{
		char buf[2048] __attribute__((aligned(8)));
		struct mntkit_statmount *raw = t_sm(t.id[T_A], 0x3bb);

		T_EQ_I(mntkit_stat_many(&t.id[T_A], 1, t_kmask(0x3bb), 0,
					NULL, buf, sizeof(buf)),
		       1);
		T_ASSERT(!memcmp(buf, raw, raw->size));
		free(raw);
	}
}

/*
 * a kernel whose statmount lacks groups (MNTKIT_TEST_KERNEL_MASK): the
 * hybrid's replies, the kernel's groups and the emulation's in one
 */
T_CASE(stat_many_hybrid)
{
	struct t_tree t;
	char buf[4096] __attribute__((aligned(8)));
	const struct mntkit_statmount *sm = (const void *)buf;

	t_require_statmount();
	setenv("MNTKIT_TEST_KERNEL_MASK", "0x3f", 1);
	setup(&t);
	many_equals_stat(1, true);
	many_equals_stat(7, true);
	T_EQ_I(mntkit_stat_many(&t.id[T_A], 1, MNTKIT_STATMOUNT_MNT_BASIC |
						      MNTKIT_STATMOUNT_MNT_OPTS,
				0, NULL, buf, sizeof(buf)),
	       1);
	T_ASSERT(sm->mask & MNTKIT_STATMOUNT_MNT_OPTS);
	T_ASSERT(strstr(t_sm_s(sm, sm->mnt_opts), "size=1024k") != NULL);
}

/* the emulation's replies, on every kernel */
T_CASE(stat_many_mountinfo)
{
	struct t_tree t;

	setup_tree(&t);
	if (mntkit_set_backend(MNTKIT_BACKEND_MOUNTINFO))
		t_fail("mntkit_set_backend: %s", strerror(errno));
	many_equals_stat(1, false);
	many_equals_stat(4096, false);
}

/* where a reply does not fit, or a mount is gone, it stops there */
static void many_stops(bool kernel)
{
	struct t_tree t;
	uint64_t mask = kernel ? t_kmask(MNTKIT_STATMOUNT_ALL) :
				 MNTKIT_STATMOUNT_ALL;
	uint64_t gone, ids[4];
	struct mntkit_statmount *sm[3];
	size_t span[3], bufsize = 1 << 16;
	char *buf = t_xmalloc(bufsize), *p;

	setup_tree(&t);
	p = t_path("%s/gone", t.dir);
	gone = t_tmpfs(p, 0, NULL);
	t_umount(p);
	ids[0] = t.id[T_A];
	ids[1] = t.id[T_AB];
	ids[2] = t.id[T_ABC];
	for (int k = 0; k < 3; k++) {
		T_EQ_I(mntkit_stat(ids[k], mask, NULL, &sm[k]), 0);
		span[k] = mntkit_stat_span(sm[k]);
		T_ASSERT(sm[k]->size > 512); /* strings: more than 512 */
	}
	/* room for two and not the whole third */
	T_EQ_I(mntkit_stat_many(ids, 3, mask, 0, NULL, buf,
				span[0] + span[1] + sm[2]->size - 1),
	       2);
	T_ASSERT(!memcmp(buf + span[0], sm[1], sm[1]->size));
	/* room for two and less than a fixed part */
	T_EQ_I(mntkit_stat_many(ids, 3, mask, 0, NULL, buf,
				span[0] + span[1] + 511),
	       2);
	/* the first does not fit: the caller needs a larger buffer */
	T_NEG(mntkit_stat_many(ids + 2, 1, mask, 0, NULL, buf,
			       sm[2]->size - 1),
	      EOVERFLOW);
	T_NEG(mntkit_stat_many(ids, 3, mask, 0, NULL, buf, 100), EOVERFLOW);
	/* a mount gone: the ones before it, then its ENOENT, then on */
	ids[1] = gone;
	T_EQ_I(mntkit_stat_many(ids, 3, mask, 0, NULL, buf, bufsize), 1);
	T_NEG(mntkit_stat_many(ids + 1, 2, mask, 0, NULL, buf, bufsize),
	      ENOENT);
	T_EQ_I(mntkit_stat_many(ids + 2, 1, mask, 0, NULL, buf, bufsize), 1);
	T_ASSERT(!memcmp(buf, sm[2], sm[2]->size));
	/* the arguments */
	T_EQ_I(mntkit_stat_many(NULL, 0, mask, 0, NULL, buf, bufsize), 0);
	T_NEG(mntkit_stat_many(NULL, 1, mask, 0, NULL, buf, bufsize), EINVAL);
	T_NEG(mntkit_stat_many(ids, 1, mask, 0, NULL, NULL, bufsize), EINVAL);
	T_NEG(mntkit_stat_many(ids, 1, mask, 0, NULL, buf + 4, bufsize - 4),
	      EINVAL);
	T_NEG(mntkit_stat_many(ids, 1, mask, 1, NULL, buf, bufsize), EINVAL);
	for (int k = 0; k < 3; k++)
		free(sm[k]);
	free(buf);
}

T_CASE(stat_many_stops)
{
	t_require_statmount();
	many_stops(true);
}

T_CASE(stat_many_stops_mountinfo)
{
	if (mntkit_set_backend(MNTKIT_BACKEND_MOUNTINFO))
		t_fail("mntkit_set_backend: %s", strerror(errno));
	many_stops(false);
}

/* ---- mntkit_list ---- */

static size_t lib_list(uint64_t start, unsigned int flags, uint64_t **ids)
{
	ssize_t n;

	*ids = (void *)1;
	n = mntkit_list(start, flags, NULL, ids);
	T_ASSERTF(n >= 0, "mntkit_list(%#" PRIx64 ", %#x): %s", start, flags,
		  strerror(errno));
	if (n == 0)
		T_NULL(*ids);
	return (size_t)n;
}

T_CASE(list_default_and_reverse_equal_raw)
{
	struct t_tree t;
	uint64_t *got, *want;
	size_t n, m;
	const uint64_t starts[] = {MNTKIT_LSMT_ROOT, 0, 0, 0};
	uint64_t s[4];

	setup(&t);
	memcpy(s, starts, sizeof(s));
	s[1] = t.scratch;
	s[2] = t.id[T_A];
	s[3] = t.id[T_ABC];
	for (int i = 0; i < 4; i++) {
		for (unsigned int rev = 0; rev < 2; rev++) {
			m = t_lm(s[i], rev, &want);
			n = lib_list(s[i], rev ? MNTKIT_LIST_F_REVERSE : 0, &got);
			t_expect_ids(got, n, want, m,
				    rev ? "reverse" : "default");
			free(got);
			free(want);
		}
	}
}

/* the expected depth-first order below @top from the parent relation */
static size_t dfs(const struct t_mnt *v, size_t n, uint64_t top, int rev,
		  uint64_t *out, size_t k)
{
	uint64_t *kids = t_xcalloc(n, 8);
	size_t m = 0;

	for (size_t i = 0; i < n; i++)
		if (v[i].parent == top && v[i].id != top)
			kids[m++] = v[i].id;
	t_sort_u64(kids, m);
	for (size_t i = 0; i < m; i++) {
		uint64_t kid = rev ? kids[m - 1 - i] : kids[i];

		out[k++] = kid;
		k = dfs(v, n, kid, rev, out, k);
	}
	free(kids);
	return k;
}

T_CASE(list_children)
{
	struct t_tree t;
	struct t_mnt *v;
	uint64_t *got, *want;
	size_t n, m, all;

	setup(&t);
	all = t_all_mounts(&v);
	want = t_xcalloc(all, 8);
	for (int s = 0; s < 4; s++) {
		uint64_t top = s == 0	? t.scratch
			       : s == 1 ? t.id[T_A]
			       : s == 2 ? t.id[T_AD]
					: t.id[T_ABC];

		m = 0;
		for (size_t i = 0; i < all; i++)
			if (v[i].parent == top && v[i].id != top)
				want[m++] = v[i].id;
		t_sort_u64(want, m);
		n = lib_list(top, MNTKIT_LIST_F_CHILDREN, &got);
		t_expect_ids(got, n, want, m, "children");
		free(got);
		/* descending with REVERSE */
		n = lib_list(top, MNTKIT_LIST_F_CHILDREN | MNTKIT_LIST_F_REVERSE,
			     &got);
		T_EQ_U(n, m);
		for (size_t i = 0; i < n; i++)
			T_EQ_U(got[i], want[m - 1 - i]);
		free(got);
	}
	/* the tree's own shape: a has b and d; the scratch has 6 */
	T_EQ_U(lib_list(t.id[T_A], MNTKIT_LIST_F_CHILDREN, &got), 2);
	T_EQ_U(got[0], t.id[T_AB]);
	T_EQ_U(got[1], t.id[T_AD]);
	free(got);
	T_EQ_U(lib_list(t.scratch, MNTKIT_LIST_F_CHILDREN, &got), 6);
	free(got);
	free(want);
	free(v);
}

/* a valid DFS of the subtree below @top: independent structural checks */
static void check_dfs_shape(const struct t_mnt *v, size_t all,
			    const uint64_t *got, size_t n, uint64_t top,
			    int rev)
{
	for (size_t i = 0; i < n; i++) {
		uint64_t p = 0;

		for (size_t j = 0; j < all; j++)
			if (v[j].id == got[i])
				p = v[j].parent;
		/* the parent is the start or an earlier entry */
		if (p != top) {
			size_t j;

			for (j = 0; j < i && got[j] != p; j++)
				;
			T_ASSERTF(j < i, "[%zu] %#" PRIx64 " before its parent",
				  i, got[i]);
			/* subtrees contiguous: everything between is below p */
			for (size_t k = j + 1; k < i; k++)
				T_ASSERT(t_below(v, all, got[k], p));
		}
		/* siblings ordered */
		for (size_t k = 0; k < i; k++) {
			uint64_t q = 0;

			for (size_t j = 0; j < all; j++)
				if (v[j].id == got[k])
					q = v[j].parent;
			if (q == p)
				T_ASSERT(rev ? got[k] > got[i]
					     : got[k] < got[i]);
		}
	}
}

T_CASE(list_tree)
{
	struct t_tree t;
	struct t_mnt *v;
	uint64_t *got, *want;
	size_t n, m, all;

	setup(&t);
	all = t_all_mounts(&v);
	want = t_xcalloc(all + 1, 8);
	for (int s = 0; s < 3; s++) {
		uint64_t top = s == 0	? t.scratch
			       : s == 1 ? t.id[T_A]
					: t.id[T_ABC];

		for (int rev = 0; rev < 2; rev++) {
			m = dfs(v, all, top, rev, want, 0);
			n = lib_list(top,
				     MNTKIT_LIST_F_TREE |
					     (rev ? MNTKIT_LIST_F_REVERSE : 0),
				     &got);
			check_dfs_shape(v, all, got, n, top, rev);
			t_expect_ids(got, n, want, m,
				    rev ? "tree reverse" : "tree");
			free(got);
		}
	}
	/* the tree's own shape below a: b, b/c, d, d's stacked mount */
	T_EQ_U(lib_list(t.id[T_A], MNTKIT_LIST_F_TREE, &got), 4);
	T_EQ_U(got[0], t.id[T_AB]);
	T_EQ_U(got[1], t.id[T_ABC]);
	T_EQ_U(got[2], t.id[T_AD]);
	T_EQ_U(got[3], t.id[T_STACK]);
	free(got);
	/* which is not ascending-ID order (T_SPACE came between) */
	T_ASSERT(t.id[T_ABC] > t.id[T_SPACE]);
	free(want);
	free(v);
}

/*
 * list_tree_from_root in a chroot whose root directory is no mount point:
 * the mount that holds / is outside the root, so listmount(LSMT_ROOT)
 * leaves it out and each of its children the root reaches is a root of
 * the tree (t_all_mounts() gives them parent 0): each in turn by ascending
 * ID, with its subtree. From the root's ID (CAP_SYS_ADMIN) the kernel
 * lists also the mounts below it outside the root: their tree is the one
 * of their parents as statmount(2) gives them.
 */
static void chroot_tree_from_root(struct t_mnt *v, size_t all, uint64_t root,
				  uint64_t *want)
{
	uint64_t *got, *below, *want2;
	struct t_mnt *u;
	size_t n, m;

	m = dfs(v, all, 0, 0, want, 0);
	T_EQ_U(m, all);
	n = lib_list(MNTKIT_LSMT_ROOT, MNTKIT_LIST_F_TREE, &got);
	t_expect_ids(got, n, want, m, "tree from LSMT_ROOT (chroot)");
	free(got);
	m = t_lm(root, 0, &below);
	u = t_xcalloc(m + 1, sizeof(*u));
	for (size_t i = 0; i < m; i++) {
		struct mntkit_statmount *sm = t_sm(below[i], 0x2);

		u[i].id = below[i];
		u[i].parent = sm->mnt_parent_id;
		free(sm);
	}
	want2 = t_xcalloc(m + 1, 8);
	T_EQ_U(dfs(u, m, root, 0, want2, 0), m);
	n = lib_list(root, MNTKIT_LIST_F_TREE, &got);
	t_expect_ids(got, n, want2, m, "tree from the root's ID (chroot)");
	free(got);
	free(want2);
	free(below);
	free(u);
}

T_CASE(list_tree_from_root)
{
	struct t_tree t;
	struct t_mnt *v;
	uint64_t *got, *want, root;
	size_t n, m, all;

	setup(&t);
	all = t_all_mounts(&v);
	root = t_uid("/");
	want = t_xcalloc(all + 1, 8);
	if (!t_root_in_mountinfo()) {
		chroot_tree_from_root(v, all, root, want);
		free(want);
		free(v);
		return;
	}
	want[0] = root;
	m = dfs(v, all, root, 0, want, 1);
	T_EQ_U(m, all);
	n = lib_list(MNTKIT_LSMT_ROOT, MNTKIT_LIST_F_TREE, &got);
	t_expect_ids(got, n, want, m, "tree from LSMT_ROOT");
	free(got);
	/* the root's ID as a start: the same without the root */
	n = lib_list(root, MNTKIT_LIST_F_TREE, &got);
	t_expect_ids(got, n, want + 1, m - 1, "tree from the root's ID");
	free(got);
	free(want);
	free(v);
}

T_CASE(list_bad_flags)
{
	uint64_t *ids = (void *)1;

	t_require_statmount();
	T_NEG(mntkit_list(MNTKIT_LSMT_ROOT,
			  MNTKIT_LIST_F_CHILDREN | MNTKIT_LIST_F_TREE, NULL, &ids),
	      EINVAL);
	T_NEG(mntkit_list(MNTKIT_LSMT_ROOT,
			  MNTKIT_LIST_F_CHILDREN | MNTKIT_LIST_F_TREE |
				  MNTKIT_LIST_F_REVERSE,
			  NULL, &ids),
	      EINVAL);
	/* flags the header does not define */
	T_NEG(mntkit_list(MNTKIT_LSMT_ROOT, 0x10, NULL, &ids), EINVAL);
	T_NEG(mntkit_list(MNTKIT_LSMT_ROOT, 0x80000000U, NULL, &ids), EINVAL);
	/* an old-style ID, as the system call */
	T_NEG(mntkit_list(5, 0, NULL, &ids), EINVAL);
	T_NEG(mntkit_list(0, 0, NULL, &ids), EINVAL);
}

T_CASE(list_leaf_is_empty)
{
	struct t_tree t;
	uint64_t *ids;

	setup(&t);
	T_EQ_I(lib_list(t.id[T_ABC], 0, &ids), 0);
	T_EQ_I(lib_list(t.id[T_ABC], MNTKIT_LIST_F_TREE, &ids), 0);
	T_EQ_I(lib_list(t.id[T_ABC], MNTKIT_LIST_F_CHILDREN, &ids), 0);
}

T_CASE(list_many_mounts)
{
	struct t_tree t;
	uint64_t *got, *want, many;
	size_t n, m;

	setup(&t);
	/* more than one page of any reasonable size */
	many = t_tmpfs(t_path("%s/many", t.dir), 0, NULL);
	for (int i = 0; i < 1500; i++) {
		char p[PATH_MAX];

		snprintf(p, sizeof(p), "%s/many/m%d", t.dir, i);
		t_mkdir(p);
		t_mount("x", p, "tmpfs", 0, "size=4k");
	}
	m = t_lm(MNTKIT_LSMT_ROOT, 0, &want);
	n = lib_list(MNTKIT_LSMT_ROOT, 0, &got);
	t_expect_ids(got, n, want, m, "default");
	free(got);
	free(want);
	m = t_lm(many, 0, &want);
	T_EQ_U(m, 1500);
	n = lib_list(many, MNTKIT_LIST_F_CHILDREN, &got);
	t_expect_ids(got, n, want, m, "children");
	free(got);
	n = lib_list(many, MNTKIT_LIST_F_TREE, &got);
	t_expect_ids(got, n, want, m, "tree");
	free(got);
	n = lib_list(many, MNTKIT_LIST_F_REVERSE, &got);
	T_EQ_U(n, m);
	for (size_t i = 0; i < n; i++)
		T_EQ_U(got[i], want[m - 1 - i]);
	free(got);
	free(want);
}

/* ---- paths ---- */

T_CASE(path_id_equals_statx)
{
	struct t_tree t;
	uint64_t id;
	int dfd;
	char *link;

	setup(&t);
	for (int i = 0; i < T_NMOUNTS; i++) {
		if (i == T_AD)
			continue; /* overmounted */
		T_EQ_I(mntkit_path_id(AT_FDCWD, t.path[i], 0, &id), 0);
		T_EQ_U(id, t_uid(t.path[i]));
		T_EQ_U(id, t.id[i]);
	}
	T_EQ_I(mntkit_path_id(AT_FDCWD, "/", 0, &id), 0);
	T_EQ_U(id, t_uid("/"));
	T_EQ_I(mntkit_path_id(AT_FDCWD, t.dir, 0, &id), 0);
	T_EQ_U(id, t.scratch);
	/* relative to a dirfd, and the dirfd itself */
	dfd = open(t.path[T_A], O_PATH | O_DIRECTORY | O_CLOEXEC);
	T_ASSERT(dfd >= 0);
	T_EQ_I(mntkit_path_id(dfd, "b/c", 0, &id), 0);
	T_EQ_U(id, t.id[T_ABC]);
	T_EQ_I(mntkit_path_id(dfd, "", AT_EMPTY_PATH, &id), 0);
	T_EQ_U(id, t.id[T_A]);
	T_EQ_I(mntkit_path_id(dfd, "sub", 0, &id), 0);
	T_EQ_U(id, t.id[T_A]);
	close(dfd);
	/* a symlink on a, pointing into b/c */
	link = t_path("%s/lnk", t.path[T_A]);
	T_OK(symlink(t.path[T_ABC], link));
	T_EQ_I(mntkit_path_id(AT_FDCWD, link, 0, &id), 0);
	T_EQ_U(id, t.id[T_ABC]);
	T_EQ_I(mntkit_path_id(AT_FDCWD, link, AT_SYMLINK_NOFOLLOW, &id), 0);
	T_EQ_U(id, t.id[T_A]);
	/* errors */
	T_NEG(mntkit_path_id(AT_FDCWD, t_path("%s/nope", t.dir), 0, &id),
	      ENOENT);
	T_NEG(mntkit_path_id(-1, "rel", 0, &id), EBADF);
}

T_CASE(stat_path)
{
	struct t_tree t;
	struct mntkit_statmount *sm = NULL, *raw;

	setup(&t);
	for (int i = 0; i < T_NMOUNTS; i++) {
		if (i == T_AD)
			continue;
		T_EQ_I(mntkit_stat_path(AT_FDCWD, t.path[i], 0,
					t_kmask(MNTKIT_STATMOUNT_ALL), &sm),
		       0);
		raw = t_sm(t.id[i], MNTKIT_STATMOUNT_ALL);
		T_EQ_U(sm->size, raw->size);
		T_ASSERT(!memcmp(sm, raw, raw->size));
		T_EQ_U(sm->mnt_id, t.id[i]);
		free(sm);
		free(raw);
	}
	sm = (void *)1;
	T_NEG(mntkit_stat_path(AT_FDCWD, "/nonexistent/mntkit", 0, 0x3, &sm),
	      ENOENT);
	T_NULL(sm);
}

/* ---- the root ---- */

T_CASE(root_id)
{
	struct t_tree t;
	uint64_t id, root, ns_root;
	pid_t pid;

	setup(&t);
	root = t_uid("/");
	ns_root = t_true_root();
	T_EQ_I(mntkit_root_id(0, NULL, &id), 0);
	T_EQ_U(id, root);
	T_EQ_I(mntkit_root_id(MNTKIT_TABLE_F_UNREACHABLE, NULL, &id), 0);
	T_EQ_U(id, ns_root);
	T_NEG(mntkit_root_id(0x2, NULL, &id), EINVAL);
	T_NEG(mntkit_root_id(MNTKIT_TABLE_F_UNREACHABLE, NULL, NULL), EINVAL);

	/* in a chroot to a: the caller's root is a, the true root above */
	pid = fork();
	T_ASSERT(pid >= 0);
	if (pid == 0) {
		T_OK(chroot(t.path[T_A]));
		T_OK(chdir("/"));
		T_EQ_U(t_uid("/"), t.id[T_A]);
		T_EQ_I(mntkit_root_id(0, NULL, &id), 0);
		T_EQ_U(id, t.id[T_A]);
		T_EQ_I(mntkit_root_id(MNTKIT_TABLE_F_UNREACHABLE, NULL, &id), 0);
		T_EQ_U(id, ns_root);
		/* without CAP_SYS_ADMIN the true root is out of reach */
		t_drop_sys_admin();
		T_EQ_I(mntkit_root_id(0, NULL, &id), 0);
		T_EQ_U(id, t.id[T_A]);
		T_NEG(mntkit_root_id(MNTKIT_TABLE_F_UNREACHABLE, NULL, &id), EPERM);
		_exit(0);
	}
	t_wait_child(pid, "chroot child");
}

/* ---- mounts that vanish while listing ---- */

static const unsigned int churn_modes[] = {
	MNTKIT_LIST_F_TREE,
	0,
	MNTKIT_LIST_F_REVERSE,
	MNTKIT_LIST_F_CHILDREN,
	MNTKIT_LIST_F_TREE | MNTKIT_LIST_F_REVERSE,
};

#define NMODES (sizeof(churn_modes) / sizeof(churn_modes[0]))

/*
 * A child mounts and unmounts (nested) in the same namespace as fast as it
 * can while the case lists in every mode and stats every listed mount with
 * the backend @b: no listing may fail, every mount that was there before
 * the churn (and stays) is listed exactly once, and a stat of a listed
 * mount either succeeds or finds it gone (ENOENT).
 */
static void vanishing(enum mntkit_backend b)
{
	struct t_tree t;
	uint64_t *ids, *before[NMODES], listed = 0, stats = 0;
	uint64_t enoent = 0;
	struct mntkit_statmount *buf = NULL;
	size_t size = 0, nbefore[NMODES];
	struct t_churn ch;
	char *churn;
	double t0;

	/* the mountinfo backend needs no system call: on old kernels too */
	if (b == MNTKIT_BACKEND_NATIVE)
		setup(&t);
	else
		setup_tree(&t);
	if (mntkit_set_backend(b))
		t_fail("mntkit_set_backend(%d): %s", (int)b, strerror(errno));
	churn = t_path("%s/churn", t.dir);
	t_mkdir(churn);
	for (size_t k = 0; k < NMODES; k++) {
		uint64_t start = churn_modes[k] == MNTKIT_LIST_F_CHILDREN
					 ? t.scratch
					 : MNTKIT_LSMT_ROOT;
		ssize_t n =
			mntkit_list(start, churn_modes[k], NULL, &before[k]);

		T_ASSERTF(n > 0, "mntkit_list: %s", strerror(errno));
		nbefore[k] = (size_t)n;
	}
	t_churn_start(&ch, churn, t_churn_cap(1.5), 0);
	t0 = t_now();
	while (t_churn_reading(t0, 1.4, listed)) {
		for (size_t k = 0; k < NMODES; k++) {
			uint64_t start = churn_modes[k] == MNTKIT_LIST_F_CHILDREN
						 ? t.scratch
						 : MNTKIT_LSMT_ROOT;
			ssize_t n =
				mntkit_list(start, churn_modes[k], NULL, &ids);
			uint64_t *sorted;

			T_ASSERTF(n >= 0, "mntkit_list(%#x) under churn: %s",
				  churn_modes[k], strerror(errno));
			listed++;
			/* no ID twice */
			sorted = t_xcalloc((size_t)n, 8);
			if (n)
				memcpy(sorted, ids, (size_t)n * 8);
			t_sort_u64(sorted, (size_t)n);
			for (ssize_t j = 1; j < n; j++)
				T_ASSERTF(sorted[j] != sorted[j - 1],
					  "mode %#x: %#" PRIx64 " listed twice",
					  churn_modes[k], sorted[j]);
			free(sorted);
			/* the mounts of before are all still there */
			for (size_t i = 0; i < nbefore[k]; i++)
				T_ASSERTF(t_contains_u64(ids, (size_t)n,
							 before[k][i]),
					  "mode %#x: stable mount %#" PRIx64
					  " missing under churn",
					  churn_modes[k], before[k][i]);
			if (churn_modes[k] == 0)
				for (ssize_t j = 1; j < n; j++)
					T_ASSERT(ids[j] > ids[j - 1]);
			/* every listed ID: a reply, or gone since */
			for (ssize_t j = 0; j < n; j++) {
				int r = mntkit_stat_buf(ids[j],
							MNTKIT_STATMOUNT_ALL,
							NULL, &buf, &size);

				T_ASSERTF(r == 0 || r == -ENOENT,
					  "stat of listed %#" PRIx64 ": %s",
					  ids[j], strerror(-r));
				stats++;
				enoent += r == -ENOENT;
				if (r == 0)
					T_EQ_U(buf->mnt_id, ids[j]);
			}
			free(ids);
		}
	}
	t_churn_end(&ch, t_path("vanishing(%s)", mntkit_backend_name(b)));
	t_log("vanishing(%s): %" PRIu64 " listings, %" PRIu64
	      " stats (%" PRIu64 " ENOENT)\n",
	      mntkit_backend_name(b), listed, stats, enoent);
	T_ASSERT(listed > 10);
	for (size_t k = 0; k < NMODES; k++)
		free(before[k]);
	free(buf);
}

T_CASE(vanishing_mounts)
{
	vanishing(MNTKIT_BACKEND_NATIVE);
}

T_CASE(vanishing_mounts_mountinfo)
{
	vanishing(MNTKIT_BACKEND_MOUNTINFO);
}

int main(int argc, char **argv)
{
	return t_run(argc, argv);
}
