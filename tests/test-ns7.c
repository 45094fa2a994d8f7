/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * test-ns7 - the mount namespaces of the kernels after 7.0:
 *
 *   open_tree(OPEN_TREE_NAMESPACE)   (7.0) a namespace fd whose namespace
 *                                    holds a copy of a tree, on top of a
 *                                    root mount of its own
 *   fsmount(FSMOUNT_NAMESPACE)       (7.1) a namespace whose root is a
 *                                    nullfs mount, the new mount on it
 *   unshare(UNSHARE_EMPTY_MNTNS)     (7.1) a namespace with nothing but a
 *   clone3(CLONE_EMPTY_MNTNS)              nullfs root (the caller stays on it)
 *
 * and a namespace whose top mount (the listing's root) has a larger
 * unique ID than the mounts below it, after pivot_root(2): 7.2 makes the
 * root of an OPEN_TREE_NAMESPACE or FSMOUNT_NAMESPACE namespace just
 * before the mounts it holds (one ID below the first), so only a move
 * puts a larger ID on top.
 *
 * A holder process lives in each namespace (tests/harness.h's namespace
 * child). From outside, by the holder's PID, its namespace fd and the
 * namespace's ID, each backend (native, and the mountinfo emulation
 * forced as test-ns forces it) must give the kernel's answers: the raw
 * listmount(2)/statmount(2) by namespace ID, and /proc/PID/mountinfo of
 * the holder for the emulation's order. Inside, the holder's own view
 * (opts NULL) is checked the same way against its own raw listing. Also
 * lsmnt (list, tree, --ns), statmnt -r, a watch of the namespace and the
 * all-namespace watch, and the errno of a foreign request without
 * CAP_SYS_ADMIN. On a kernel without a feature the case says SKIP naming
 * it.
 */
#include <mntkit.h>
#include <poll.h>

#include "harness.h"
#include "foreign-errno.h"

/* the kernel's constants (<linux/mount.h>, <linux/sched.h> of 7.1) */
#define NS7_OPEN_TREE_NAMESPACE 0x2U
#define NS7_FSMOUNT_CLOEXEC	0x1U
#define NS7_FSMOUNT_NAMESPACE	0x2U
#define NS7_FSCONFIG_CMD_CREATE 6U
#define NS7_UNSHARE_EMPTY_MNTNS 0x00100000
#define NS7_CLONE_EMPTY_MNTNS	(1ULL << 37) /* clone3(2) only */

#ifdef __NR_fsopen
#define NS7_NR_fsopen	__NR_fsopen
#define NS7_NR_fsconfig __NR_fsconfig
#define NS7_NR_fsmount	__NR_fsmount
#else
#define NS7_NR_fsopen	430
#define NS7_NR_fsconfig 431
#define NS7_NR_fsmount	432
#endif

#define MAXN 512

/* what the holder tells the case */
struct rep {
	uint64_t ns_id;
	uint64_t root_id; /* the namespace's root mount (ns->root) */
	uint64_t first_id; /* the first mount the namespace holds */
};

enum kind { K_OPEN_TREE, K_FSMOUNT, K_EMPTY, K_PRIVATE, K_EMPTY_BARE };

static const char *const kind_name[] = {"OPEN_TREE_NAMESPACE",
					"FSMOUNT_NAMESPACE",
					"UNSHARE_EMPTY_MNTNS",
					"CLONE_NEWNS", "UNSHARE_EMPTY_MNTNS"};

/* an O_PATH fd of /proc, opened before the holder leaves it behind */
static int proc_fd = -1;

/* ---- the kernel's view ---- */

struct kview {
	size_t n;
	uint64_t id[MAXN], parent[MAXN];
	uint32_t old[MAXN], old_parent[MAXN];
};

/* the raw listing from LSMT_ROOT (by @ns_id, 0: our own) and each parent */
static void kview_read(struct kview *k, uint64_t ns_id)
{
	uint64_t *ids;
	ssize_t n = t_lm_raw_ns(T_LSMT_ROOT, 0, ns_id, 0, &ids);

	T_ASSERTF(n > 0, "raw listmount(ns %#" PRIx64 "): %zd %s", ns_id, n,
		  strerror(errno));
	T_ASSERTF(n <= MAXN, "%zd mounts", n);
	k->n = (size_t)n;
	for (size_t i = 0; i < k->n; i++) {
		struct t_sm_head *sm = t_sm_raw_ns(ids[i], T_STATMOUNT_MNT_BASIC,
						   ns_id, 0);

		T_ASSERTF(sm, "raw statmount(%#" PRIx64 "): %s", ids[i],
			  strerror(errno));
		k->id[i] = ids[i];
		k->parent[i] = sm->mnt_parent_id;
		k->old[i] = sm->mnt_id_old;
		k->old_parent[i] = sm->mnt_parent_id_old;
		free(sm);
	}
	free(ids);
}

static ssize_t kview_by_old(const struct kview *k, uint64_t old)
{
	for (size_t i = 0; i < k->n; i++)
		if (k->old[i] == old)
			return (ssize_t)i;
	return -1;
}

/* the one mount whose parent is not listed (the listing's root) */
static size_t kview_root(const struct kview *k)
{
	ssize_t r = -1;

	for (size_t i = 0; i < k->n; i++) {
		if (kview_by_old(k, k->old_parent[i]) >= 0 &&
		    k->parent[i] != k->id[i])
			continue;
		T_ASSERTF(r < 0, "two roots: %#" PRIx64 " and %#" PRIx64,
			  k->id[r], k->id[i]);
		r = (ssize_t)i;
	}
	T_ASSERTF(r >= 0, "%s", "the listing has no root");
	return (size_t)r;
}

/* mountinfo through the /proc held since before the namespace */
static void mi_read(pid_t pid, struct t_mitab *tab)
{
	char path[64], *line, *save = NULL;
	size_t cap = MAXN;
	int fd;

	if (pid)
		snprintf(path, sizeof(path), "%d/mountinfo", (int)pid);
	else
		snprintf(path, sizeof(path), "thread-self/mountinfo");
	fd = openat(proc_fd, path, O_RDONLY | O_CLOEXEC);
	T_ASSERTF(fd >= 0, "open /proc/%s: %s", path, strerror(errno));
	/* all of it: a read(2) of mountinfo gives a page or so */
	tab->buf = t_read_fd(fd, path, NULL);
	tab->n = 0;
	tab->v = t_xcalloc(cap, sizeof(*tab->v));
	for (line = strtok_r(tab->buf, "\n", &save); line && tab->n < cap;
	     line = strtok_r(NULL, "\n", &save))
		t_mi_parse_line(line, &tab->v[tab->n++]);
}

/* the old IDs of mountinfo, in its order, that the kernel's view lists */
static size_t mi_order(const struct t_mitab *mi, const struct kview *k,
		       uint32_t *out)
{
	size_t m = 0;

	for (size_t i = 0; i < mi->n; i++)
		if (kview_by_old(k, mi->v[i].id) >= 0)
			out[m++] = (uint32_t)mi->v[i].id;
	return m;
}

/* mountinfo as "ID PARENT POINT; ..." (for a failure's message) */
static const char *mi_str(const struct t_mitab *mi)
{
	static char buf[2048];
	size_t len = 0;

	buf[0] = 0;
	for (size_t i = 0; i < mi->n && len < sizeof(buf) - 64; i++)
		len += (size_t)snprintf(buf + len, sizeof(buf) - len,
					"%" PRIu64 " %" PRIu64 " %s; ",
					mi->v[i].id, mi->v[i].parent,
					mi->v[i].point);
	return buf;
}

/* mountinfo agrees with the kernel's listing: same mounts, same parents */
static void mi_check(const struct t_mitab *mi, const struct kview *k,
		     const char *what)
{
	uint32_t order[MAXN];

	T_EQ_U(mi_order(mi, k, order), k->n);
	for (size_t i = 0; i < mi->n; i++) {
		ssize_t j = kview_by_old(k, mi->v[i].id);

		if (j >= 0)
			T_ASSERTF(mi->v[i].parent == k->old_parent[j],
				  "%s: mountinfo %" PRIu64 " parent %" PRIu64
				  ", statmount %u", what, mi->v[i].id,
				  mi->v[i].parent, k->old_parent[j]);
	}
}

/* ---- one view through the library ---- */

struct lview {
	size_t n;
	uint64_t id[MAXN];  /* mntkit_list()'s order */
	uint32_t old[MAXN]; /* their old IDs */
	ssize_t k[MAXN];    /* their index in the kernel's view */
	uint32_t lorder[MAXN]; /* old IDs in mntkit_list_order()'s order */
	uint64_t tree[MAXN]; /* MNTKIT_LIST_F_TREE's order, as expected */
	size_t ntree;
};

static ssize_t lview_by_old(const struct lview *l, uint64_t old)
{
	for (size_t i = 0; i < l->n; i++)
		if (l->old[i] == old)
			return (ssize_t)i;
	return -1;
}

static size_t lview_by_id(const struct lview *l, uint64_t id)
{
	for (size_t i = 0; i < l->n; i++)
		if (l->id[i] == id)
			return i;
	t_fail("ID %#" PRIx64 " not listed", id);
}

/* depth-first from @r, siblings by ascending library ID (mntkit_list(3)) */
static void tree_order(const struct kview *k, const struct lview *l,
		       size_t r, uint64_t *out, size_t *m)
{
	uint64_t kids[MAXN];
	size_t nk = 0;

	out[(*m)++] = l->id[r];
	for (size_t i = 0; i < l->n; i++)
		if (i != r && k->old_parent[l->k[i]] == l->old[r])
			kids[nk++] = l->id[i];
	t_sort_u64(kids, nk);
	for (size_t j = 0; j < nk; j++)
		for (size_t i = 0; i < l->n; i++)
			if (l->id[i] == kids[j])
				tree_order(k, l, i, out, m);
}

static void check_table(const struct kview *k, const struct lview *l,
			const struct mntkit_opts *o, int native,
			const char *what)
{
	struct mntkit_table *t = NULL;
	ssize_t root;
	size_t kr = kview_root(k);

	T_ASSERTF(mntkit_table_new(T_STATMOUNT_MNT_BASIC, 0, o, &t) == 0,
		  "%s: mntkit_table_new: %s", what, strerror(errno));
	T_EQ_U(mntkit_table_count(t), k->n);
	T_EQ_U(mntkit_table_state(t), 0);
	for (size_t i = 0; i < k->n; i++) {
		const struct mntkit_statmount *sm = mntkit_table_get(t, i);
		ssize_t j = kview_by_old(k, sm->mnt_id_old), p;

		T_ASSERTF(j >= 0, "%s: table mount old %u not the kernel's",
			  what, sm->mnt_id_old);
		if (native) {
			T_EQ_U(sm->mnt_id, k->id[j]);
			T_EQ_U(sm->mnt_parent_id, k->parent[j]);
		}
		T_EQ_U(sm->mnt_parent_id_old, k->old_parent[j]);
		p = mntkit_table_parent(t, i);
		if ((size_t)j == kr) {
			T_ASSERTF(p < 0, "%s: the root %u has a parent %zd",
				  what, sm->mnt_id_old, p);
			continue;
		}
		T_ASSERTF(p >= 0, "%s: %u has no parent in the table", what,
			  sm->mnt_id_old);
		T_EQ_U(mntkit_table_get(t, (size_t)p)->mnt_id_old,
		       k->old_parent[j]);
	}
	root = mntkit_table_first_root(t);
	T_ASSERTF(root >= 0, "%s: no root", what);
	T_EQ_U(mntkit_table_get(t, (size_t)root)->mnt_id_old, k->old[kr]);
	T_EQ_I(mntkit_table_next_sibling(t, (size_t)root), -ENOENT);
	T_EQ_I(mntkit_table_depth(t, (size_t)root), 0);
	T_ASSERT(lview_by_old(l, k->old[kr]) >= 0);
	mntkit_table_free(t);
}

/*
 * The library's answers for @o (NULL: the caller's own namespace) on the
 * backend in effect, against the kernel's view @k and, for the
 * emulation's order, mountinfo @mi. Fills @l.
 */
static void check_view(const struct kview *k, const struct t_mitab *mi,
		       const struct mntkit_opts *o, struct lview *l,
		       const char *what)
{
	int native = mntkit_get_backend() == MNTKIT_BACKEND_NATIVE;
	uint64_t *ids, *tree = l->tree, root;
	uint32_t order[MAXN];
	size_t m = 0, kr = kview_root(k);
	ssize_t n;

	n = mntkit_list(MNTKIT_LSMT_ROOT, 0, o, &ids);
	T_ASSERTF(n >= 0, "%s: mntkit_list: %s", what, strerror(errno));
	if ((size_t)n != k->n) {
		for (ssize_t i = 0; i < n; i++) {
			struct mntkit_statmount *sm = NULL;
			int e = mntkit_stat(ids[i], 0x12, o, &sm);

			t_log("%s: listed %#" PRIx64 " %d old %u parent %#"
			      PRIx64 " %s\n", what, ids[i], e,
			      sm ? sm->mnt_id_old : 0,
			      sm ? sm->mnt_parent_id : 0,
			      sm ? mntkit_sm_get(sm, MNTKIT_FIELD_MNT_POINT) :
				   "");
			free(sm);
		}
		t_fail("%s: %zd mounts, the kernel lists %zu (mountinfo %s)",
		       what, n, k->n, mi_str(mi));
	}
	l->n = (size_t)n;
	for (size_t i = 0; i < l->n; i++) {
		struct mntkit_statmount *sm = NULL;

		l->id[i] = ids[i];
		T_ASSERTF(mntkit_stat(ids[i], T_STATMOUNT_MNT_BASIC, o, &sm) == 0,
			  "%s: mntkit_stat(%#" PRIx64 "): %s", what, ids[i],
			  strerror(errno));
		T_EQ_U(sm->mnt_id, ids[i]);
		l->old[i] = sm->mnt_id_old;
		l->k[i] = kview_by_old(k, sm->mnt_id_old);
		T_ASSERTF(l->k[i] >= 0, "%s: old ID %u is not the kernel's",
			  what, sm->mnt_id_old);
		T_EQ_U(sm->mnt_parent_id_old, k->old_parent[l->k[i]]);
		if (native) {
			T_EQ_U(ids[i], k->id[i]);
			T_EQ_U(sm->mnt_parent_id, k->parent[i]);
		}
		free(sm);
	}
	free(ids);
	/* each parent, by the library's ID of it */
	for (size_t i = 0; i < l->n; i++) {
		struct mntkit_statmount *sm = NULL;
		ssize_t p = lview_by_old(l, k->old_parent[l->k[i]]);

		if ((size_t)l->k[i] == kr || p < 0)
			continue;
		T_OK(mntkit_stat(l->id[i], T_STATMOUNT_MNT_BASIC, o, &sm));
		T_ASSERTF(sm->mnt_parent_id == l->id[p],
			  "%s: parent of %#" PRIx64 ": %#" PRIx64
			  ", expected %#" PRIx64, what, l->id[i],
			  sm->mnt_parent_id, l->id[p]);
		free(sm);
	}
	/* by ascending ID, as listmount(2); mntkit_list_order() puts them
	 * in the backend's listing order: the kernel's on the native
	 * backend, mountinfo's on the emulation */
	for (size_t i = 1; i < l->n; i++)
		T_ASSERTF(l->id[i - 1] < l->id[i], "%s: [%zu] %#" PRIx64
			  " after %#" PRIx64, what, i, l->id[i], l->id[i - 1]);
	{
		uint64_t v[MAXN];

		memcpy(v, l->id, l->n * sizeof(v[0]));
		T_OK(mntkit_list_order(v, l->n, o));
		T_EQ_U(mi_order(mi, k, order), l->n);
		for (size_t i = 0; i < l->n; i++) {
			uint32_t old = l->old[lview_by_id(l, v[i])];

			l->lorder[i] = old;
			if (native)
				T_EQ_U(v[i], l->id[i]);
			else
				T_ASSERTF(old == order[i],
					  "%s: list order [%zu] old %u, "
					  "mountinfo has %u (%s)", what, i,
					  old, order[i], mi_str(mi));
		}
	}
	n = mntkit_list(MNTKIT_LSMT_ROOT, MNTKIT_LIST_F_REVERSE, o, &ids);
	T_ASSERTF((size_t)n == l->n, "%s: reverse: %zd", what, n);
	for (size_t i = 0; i < l->n; i++)
		T_EQ_U(ids[i], l->id[l->n - 1 - i]);
	free(ids);
	{
		ssize_t r = lview_by_old(l, k->old[kr]);

		T_ASSERT(r >= 0);
		tree_order(k, l, (size_t)r, tree, &m);
	}
	n = mntkit_list(MNTKIT_LSMT_ROOT, MNTKIT_LIST_F_TREE, o, &ids);
	T_ASSERTF(n >= 0, "%s: tree: %s", what, strerror(errno));
	t_expect_ids(ids, (size_t)n, tree, m, what);
	l->ntree = m;
	free(ids);
	T_EQ_I(mntkit_root_id(0, o, &root), 0);
	T_ASSERTF(root == tree[0], "%s: mntkit_root_id %#" PRIx64
		  ", the listing's root %#" PRIx64, what, root, tree[0]);
	check_table(k, l, o, native, what);
}

static void use_backend(int mountinfo)
{
	if (mountinfo) {
		T_OK(mntkit_set_backend(MNTKIT_BACKEND_MOUNTINFO));
		return;
	}
	if (mntkit_set_backend(MNTKIT_BACKEND_NATIVE) < 0)
		t_skip("no native backend (statmount/listmount)");
}

/* ---- the namespaces ---- */

static long sys_open_tree(const char *path, unsigned int flags)
{
	return syscall(T_NR_open_tree, AT_FDCWD, path, flags);
}

/* a new tmpfs, detached: its mount fd (@ns_flag: FSMOUNT_NAMESPACE) */
static int new_tmpfs(unsigned int ns_flag)
{
	int fs = (int)syscall(NS7_NR_fsopen, "tmpfs", 0x1 /* CLOEXEC */);
	int m;

	T_ASSERTF(fs >= 0, "fsopen(tmpfs): %s", strerror(errno));
	T_OK(syscall(NS7_NR_fsconfig, fs, NS7_FSCONFIG_CMD_CREATE, NULL, NULL,
		     0));
	m = (int)syscall(NS7_NR_fsmount, fs, NS7_FSMOUNT_CLOEXEC | ns_flag, 0);
	if (m < 0 && errno == EINVAL && ns_flag)
		t_skip("the kernel has no fsmount(FSMOUNT_NAMESPACE) (7.1+)");
	T_ASSERTF(m >= 0, "fsmount: %s", strerror(errno));
	close(fs);
	return m;
}

/* attach detached mount @m at @path of directory fd @dfd */
static void attach(int m, int dfd, const char *path)
{
	T_ASSERTF(syscall(T_NR_move_mount, m, "", dfd, path,
			  T_MOVE_MOUNT_F_EMPTY_PATH) == 0,
		  "move_mount to %s: %s", path, strerror(errno));
	close(m);
}

/* the kind the holder builds, and whether it pivots (set before the fork) */
static int kind_now, pivot_now;

/*
 * pivot_root(2) to a new tmpfs U: U takes the place of the root mount R on
 * the namespace's root, and R, with everything below it, goes below U.
 * The mount at the top of the listing (U) then has a larger ID than the
 * mounts below it.
 */
static void pivot(void)
{
	char *u = kind_now == K_PRIVATE ? t_path("%s/u", t_base) : "/u";

	t_tmpfs(u, 0, NULL);
	t_mkdir(t_path("%s/old", u));
	T_OK(chdir(u));
	T_ASSERTF(syscall(SYS_pivot_root, ".", "old") == 0, "pivot_root: %s",
		  strerror(errno));
	T_OK(chdir("/"));
}

/* the namespace's root mount and its first mount, seen from inside */
static void root_ids(struct rep *r)
{
	uint64_t *ids;
	ssize_t n = t_lm_raw_ns(T_LSMT_ROOT, 0, 0, 0, &ids);
	uint64_t id;

	T_ASSERT(n > 0);
	r->first_id = ids[0];
	/* climb to the mount that is its own parent */
	id = ids[0];
	for (int i = 0; i < 100; i++) {
		struct t_sm_head *sm = t_sm_raw_ns(id, T_STATMOUNT_MNT_BASIC, 0, 0);

		T_ASSERTF(sm, "statmount %#" PRIx64 ": %s", id, strerror(errno));
		if (sm->mnt_parent_id == id) {
			free(sm);
			break;
		}
		id = sm->mnt_parent_id;
		free(sm);
	}
	r->root_id = id;
	free(ids);
}

/* the holder's own view, in a child per backend */
static void inside_checks(void)
{
	for (int b = 0; b < 2; b++) {
		pid_t pid = fork();

		T_ASSERT(pid >= 0);
		if (pid == 0) {
			struct kview k;
			struct lview l;
			struct t_mitab mi;

			use_backend(b);
			kview_read(&k, 0);
			mi_read(0, &mi);
			mi_check(&mi, &k, "inside");
			check_view(&k, &mi, NULL, &l,
				   b ? "inside, mountinfo" : "inside, native");
			_exit(0);
		}
		t_wait_child(pid, "the checks inside");
	}
}

static void build_open_tree(void)
{
	char *d = t_tmpdir(), *a = t_path("%s/a", d);
	int fd;

	t_tmpfs(a, 0, NULL);
	t_tmpfs(t_path("%s/b", a), 0, NULL);
	t_tmpfs(t_path("%s/c", a), 0, NULL);
	t_tmpfs(t_path("%s/b/e", a), 0, NULL);
	fd = (int)sys_open_tree(a, NS7_OPEN_TREE_NAMESPACE | T_AT_RECURSIVE |
					   O_CLOEXEC);
	if (fd < 0 && errno == EINVAL)
		t_skip("the kernel has no open_tree(OPEN_TREE_NAMESPACE) (7.0+)");
	T_ASSERTF(fd >= 0, "open_tree(OPEN_TREE_NAMESPACE): %s",
		  strerror(errno));
	T_OK(setns(fd, CLONE_NEWNS));
	close(fd);
	T_OK(chdir("/"));
}

static void build_fsmount(void)
{
	int fd = new_tmpfs(NS7_FSMOUNT_NAMESPACE);

	T_OK(setns(fd, CLONE_NEWNS));
	close(fd);
	T_OK(chdir("/"));
	t_tmpfs("/x", 0, NULL);
	t_tmpfs("/x/y", 0, NULL);
	t_tmpfs("/z", 0, NULL);
}

static void unshare_empty(void)
{
	if (unshare(NS7_UNSHARE_EMPTY_MNTNS)) {
		if (errno == EINVAL)
			t_skip("the kernel has no unshare(UNSHARE_EMPTY_MNTNS) "
			       "(7.1+)");
		t_fail("unshare(UNSHARE_EMPTY_MNTNS): %s", strerror(errno));
	}
}

static void build_empty(void)
{
	int top, m;

	unshare_empty();
	/* a tmpfs on the nullfs root, two below it; the holder stays on
	 * the nullfs root (its own listing has the root, a foreign one
	 * starts at the tmpfs) */
	top = new_tmpfs(0);
	T_OK(mkdirat(top, "x", 0755));
	T_OK(mkdirat(top, "z", 0755));
	m = new_tmpfs(0);
	T_OK(mkdirat(m, "y", 0755));
	attach(m, top, "x");
	attach(new_tmpfs(0), top, "x/y");
	attach(new_tmpfs(0), top, "z");
	m = dup(top);
	attach(top, AT_FDCWD, "/");
	close(m);
}

/* the ID of the namespace the calling thread is in (no /proc in it) */
static uint64_t own_ns_id(void)
{
	int fd = openat(proc_fd, "thread-self/ns/mnt", O_RDONLY | O_CLOEXEC);
	uint64_t id = 0;

	T_ASSERTF(fd >= 0, "open /proc/thread-self/ns/mnt: %s",
		  strerror(errno));
	T_OK(ioctl(fd, T_NS_GET_MNTNS_ID, &id));
	close(fd);
	return id;
}

static void holder_fill(void *p)
{
	struct rep *r = p;

	/* the library's /proc and ours, held across the namespaces */
	T_OK(mntkit_init(0));
	proc_fd = open("/proc", O_PATH | O_DIRECTORY | O_CLOEXEC);
	T_ASSERT(proc_fd >= 0);
	switch (kind_now) {
	case K_OPEN_TREE:
		build_open_tree();
		break;
	case K_FSMOUNT:
		build_fsmount();
		break;
	case K_EMPTY:
		build_empty();
		break;
	case K_EMPTY_BARE:
		unshare_empty();
			break;
	default:
		break; /* the holder's private namespace */
	}
	if (pivot_now)
		pivot();
	r->ns_id = own_ns_id();
	if (kind_now == K_EMPTY_BARE) {
		/* the listing is the root alone, its own parent */
		uint64_t *ids;

		T_EQ_I(t_lm_raw_ns(T_LSMT_ROOT, 0, 0, 0, &ids), 1);
		r->root_id = r->first_id = ids[0];
		free(ids);
	} else {
		root_ids(r);
	}
	inside_checks();
}

static void holder_start(struct t_ns_child *c, struct rep *r, enum kind kind)
{
	t_require_statmount();
	t_require_root();
	kind_now = kind;
	proc_fd = open("/proc", O_PATH | O_DIRECTORY | O_CLOEXEC);
	T_ASSERT(proc_fd >= 0);
	t_ns_child_start(c, holder_fill, r, sizeof(*r));
	T_EQ_U(t_ns_id(c->pid), r->ns_id);
	t_log("%s: ns %#" PRIx64 ", root %#" PRIx64 ", first %#" PRIx64 "\n",
	      kind_name[kind], r->ns_id, r->root_id, r->first_id);
}

/* ---- the tools ---- */

/* the tools: MNTKIT_TOOLS, else /bin (the qemu guests), else the build's */
static const char *tool_path(const char *name)
{
	const char *dir = getenv("MNTKIT_TOOLS");
	char *p;

	if (dir)
		return t_path("%s/%s", dir, name);
	p = t_path("/bin/%s", name);
	if (!access(p, X_OK))
		return p;
	return t_build_file(2, t_path("tools/%s", name));
}

/* run a tool with MNTKIT_BACKEND=@backend; its stdout (malloc'd) */
static char *run_tool(const char *backend, const char *const *argv)
{
	char *path = t_path("%s/tool.XXXXXX", t_base);
	int fd = mkstemp(path), st;
	pid_t pid;

	T_ASSERTF(fd >= 0, "mkstemp: %s", strerror(errno));
	pid = fork();
	T_ASSERT(pid >= 0);
	if (pid == 0) {
		dup2(fd, 1);
		setenv("MNTKIT_BACKEND", backend, 1);
		execv(argv[0], (char *const *)argv);
		_exit(127);
	}
	close(fd);
	T_ASSERT(waitpid(pid, &st, 0) == pid);
	T_ASSERTF(WIFEXITED(st) && WEXITSTATUS(st) == 0,
		  "%s %s (%s) exited %#x", argv[0], argv[1], backend, st);
	return t_read_file(path, NULL);
}

/*
 * lsmnt --ns pid:PID: the list (-l) has the kernel's mounts with their
 * parents, in the backend's listing order (mntkit_list_order()); the tree (-J) has each mount
 * below its parent and the listing's root on top; statmnt -r lists the
 * subtree depth first as mntkit_list(TREE) does.
 */
static void check_lsmnt_list(const struct kview *k, const struct lview *l,
			     const char *ns, const char *backend)
{
	const char *list[] = {tool_path("lsmnt"), "--ns", ns, "-l", "-n", "-o",
			      "ID,PARENT", NULL};
	char *out = run_tool(backend, list), *p;
	uint64_t id, parent;
	size_t i = 0;


	for (p = out; sscanf(p, "%" SCNu64 " %" SCNu64, &id, &parent) == 2;
	     i++) {
		ssize_t j = kview_by_old(k, id);

		T_ASSERTF(i < l->n && id == l->lorder[i],
			  "lsmnt -l (%s): [%zu] %" PRIu64, backend, i, id);
		T_ASSERT(j >= 0);
		T_EQ_U(parent, k->old_parent[j]);
		p = strchr(p, '\n');
		if (!p)
			break;
		p++;
	}
	T_ASSERTF(i + (p == NULL) == l->n, "lsmnt -l (%s): %zu lines", backend,
		  i);
	free(out);
}

static void check_tools(const struct kview *k, const struct lview *l,
			pid_t holder, uint64_t ns_id, const char *backend)
{
	char *ns = t_path("pid:%d", (int)holder), *out, *p;
	const char *lsmnt = tool_path("lsmnt"), *statmnt = tool_path("statmnt");
	const char *json[] = {lsmnt, "--ns", ns, "-J", "-o", "ID,TARGET", NULL};
	const char *rec[] = {statmnt, "-r", "--ns", ns, NULL};
	uint64_t stack[MAXN], last = 0, id;
	size_t i = 0, depth = 0;

	/* the namespace by PID, by ID and by its nsfs file */
	check_lsmnt_list(k, l, ns, backend);
	check_lsmnt_list(k, l, t_path("%" PRIu64, ns_id), backend);
	check_lsmnt_list(k, l, t_path("/proc/%d/ns/mnt", (int)holder), backend);

	out = run_tool(backend, json);
	i = 0;
	for (p = out; *p; p++) {
		if (!strncmp(p, "\"children\": [", 13)) {
			stack[depth++] = last;
			p += 12;
		} else if (*p == ']' && depth) {
			depth--;
		} else if (!strncmp(p, "\"id\": ", 6)) {
			ssize_t j;

			last = strtoull(p + 6, NULL, 10);
			j = kview_by_old(k, last);
			T_ASSERTF(j >= 0, "lsmnt -J (%s): id %" PRIu64, backend,
				  last);
			if (depth)
				T_EQ_U(stack[depth - 1], k->old_parent[j]);
			else
				T_EQ_U(j, kview_root(k));
			i++;
		}
	}
	T_EQ_U(i, k->n);
	free(out);

	out = run_tool(backend, rec);
	i = 0;
	for (p = out; *p; i++) {
		T_ASSERTF(i < l->ntree, "statmnt -r (%s): more than %zu", backend,
			  l->ntree);
		id = strtoull(p, NULL, 0);
		T_ASSERTF(id == l->tree[i], "statmnt -r (%s): [%zu] %#" PRIx64
			  ", expected %#" PRIx64, backend, i, id, l->tree[i]);
		p = strchr(p, '\n');
		if (!p)
			break;
		p++;
	}
	T_EQ_U(i, l->ntree);
	free(out);
}

/* ---- watches ---- */

/* mount a tmpfs on @path in the namespace of @ns_fd (a child) */
static void mount_in(int ns_fd, const char *path)
{
	pid_t pid = fork();

	T_ASSERT(pid >= 0);
	if (pid == 0) {
		T_OK(setns(ns_fd, CLONE_NEWNS));
		T_OK(chdir("/"));
		t_private = 1; /* the namespace is the case's own */
		t_tmpfs(path, 0, NULL);
		_exit(0);
	}
	t_wait_child(pid, "the mount in the namespace");
}

/* the mount of @k2 that @k has not */
static size_t new_mount(const struct kview *k, const struct kview *k2)
{
	for (size_t i = 0; i < k2->n; i++)
		if (kview_by_old(k, k2->old[i]) < 0)
			return i;
	t_fail("%s", "no new mount");
}

/* wait for an event of @kind (of namespace @ns_id, 0: any) */
static int wait_event(struct mntkit_watch *w, enum mntkit_event_kind kind,
		      uint64_t ns_id, struct mntkit_event *ev)
{
	struct pollfd p = {.fd = mntkit_watch_fd(w), .events = POLLIN};
	double end = t_now() + (t_slow_machine() ? 40 : 10);

	while (t_now() < end) {
		int r;

		while ((r = mntkit_watch_read(w, ev)) > 0)
			if (ev->kind == kind &&
			    (!ns_id || ev->mnt_ns_id == ns_id))
				return 1;
		T_ASSERTF(r == 0, "mntkit_watch_read: %s", strerror(-r));
		poll(&p, 1, 100);
	}
	return 0;
}

/* the ATTACH of the mount the kernel added since @k is told, as it is */
static void check_attach(struct mntkit_watch *w, const struct kview *k,
			 uint64_t ns_id, uint64_t ev_ns, int native,
			 const char *what)
{
	MNTKIT_EVENT(ev);
	struct kview k2;
	size_t j;

	kview_read(&k2, ns_id);
	j = new_mount(k, &k2);
	for (;;) {
		T_ASSERTF(wait_event(w, MNTKIT_EVENT_ATTACH, ev_ns, &ev),
			  "%s: no ATTACH of old ID %u", what, k2.old[j]);
		if (ev.after && ev.after->mnt_id_old == k2.old[j])
			break;
	}
	T_EQ_U(ev.after->mnt_parent_id_old, k2.old_parent[j]);
	if (native) {
		T_EQ_U(ev.mnt_id, k2.id[j]);
		T_EQ_U(ev.after->mnt_parent_id, k2.parent[j]);
	}
}

/* a watch of the namespace by the holder's PID */
static void check_watch(struct t_ns_child *c, const struct rep *r,
			const struct kview *k, const char *path)
{
	MNTKIT_OPTS(op, .pid = c->pid);
	MNTKIT_WATCH_OPTS(wo, .rescan_ms = MNTKIT_WATCH_NO_RESCAN);
	struct mntkit_watch *w = NULL;
	MNTKIT_EVENT(ev);

	T_ASSERTF(mntkit_watch_new(&wo, &op, &w) == 0, "mntkit_watch_new: %s",
		  strerror(errno));
	while (mntkit_watch_read(w, &ev) > 0)
		;
	mount_in(c->ns_fd, path);
	check_attach(w, k, r->ns_id, 0,
		     mntkit_get_backend() == MNTKIT_BACKEND_NATIVE, "watch");
	mntkit_watch_free(w);
}

/*
 * The all-namespace watch: the namespace comes (NS_ADD) with the
 * kernel's mounts and parents (ATTACH, F_INITIAL), then a mount made in
 * it.
 */
static void check_watch_all(struct t_ns_child *c, const struct rep *r,
			    const struct kview *k, const char *path)
{
	MNTKIT_WATCH_OPTS(wa, .flags = MNTKIT_WATCH_F_ALL_NS |
				       MNTKIT_WATCH_F_INITIAL);
	int native = mntkit_get_backend() == MNTKIT_BACKEND_NATIVE;
	struct mntkit_watch *w = NULL;
	MNTKIT_EVENT(ev);
	uint8_t seen[MAXN] = {0};
	size_t nseen = 0;

	T_ASSERTF(mntkit_watch_new(&wa, NULL, &w) == 0,
		  "mntkit_watch_new(ALL_NS): %s", strerror(errno));
	T_ASSERTF(wait_event(w, MNTKIT_EVENT_NS_ADD, r->ns_id, &ev),
		  "no NS_ADD of %#" PRIx64, r->ns_id);
	T_EQ_I(ev.ns_pid, c->pid);
	while (nseen < k->n &&
	       wait_event(w, MNTKIT_EVENT_ATTACH, r->ns_id, &ev)) {
		ssize_t j = kview_by_old(k, ev.after->mnt_id_old);

		T_ASSERTF(j >= 0, "all namespaces: ATTACH of old %u, not the "
			  "kernel's", ev.after->mnt_id_old);
		T_EQ_U(ev.after->mnt_parent_id_old, k->old_parent[j]);
		if (native)
			T_EQ_U(ev.mnt_id, k->id[j]);
		T_ASSERTF(!seen[j], "all namespaces: two ATTACH of old %u",
			  ev.after->mnt_id_old);
		seen[j] = 1;
		nseen++;
	}
	T_ASSERTF(nseen == k->n, "all namespaces: %zu ATTACH, the kernel "
		  "lists %zu", nseen, k->n);
	/* nothing more of it than the kernel's mounts */
	while (mntkit_watch_read(w, &ev) > 0)
		T_ASSERTF(ev.mnt_ns_id != r->ns_id ||
			  ev.kind != MNTKIT_EVENT_ATTACH,
			  "all namespaces: an extra ATTACH (old %u)",
			  ev.after ? ev.after->mnt_id_old : 0);
	mount_in(c->ns_fd, path);
	check_attach(w, k, r->ns_id, r->ns_id, native, "all namespaces");
	mntkit_watch_free(w);
}

/* ---- outside: by PID, fd and ID, each backend ---- */

static void outside_checks(struct t_ns_child *c, const struct rep *r)
{
	for (int b = 0; b < 2; b++) {
		pid_t pid = fork();

		T_ASSERT(pid >= 0);
		if (pid == 0) {
			MNTKIT_OPTS(op, .pid = c->pid);
			MNTKIT_OPTS(of, .mnt_ns_fd = c->ns_fd);
			MNTKIT_OPTS(oi, .mnt_ns_id = r->ns_id);
			struct kview k;
			struct t_mitab mi;
			struct lview l;

			/* the kernel's view now (a pass before mounted) */
			kview_read(&k, r->ns_id);
			mi_read(c->pid, &mi);
			/* a foreign listing starts at the first mount on the
			 * namespace's root */
			T_ASSERTF(!t_contains_u64(k.id, k.n, r->root_id),
				  "the foreign listing has the root %#" PRIx64,
				  r->root_id);
			T_EQ_U(k.parent[kview_root(&k)], r->root_id);
			use_backend(b);
			check_view(&k, &mi, &op, &l, b ? "mountinfo, opts.pid" :
							 "native, opts.pid");
			check_view(&k, &mi, &of, &l, b ? "mountinfo, opts.fd" :
							 "native, opts.fd");
			check_view(&k, &mi, &oi, &l, b ? "mountinfo, opts.id" :
							 "native, opts.id");
			check_tools(&k, &l, c->pid, r->ns_id,
				    b ? "mountinfo" : "native");
			check_watch(c, r, &k, b ? "/w1" : "/w0");
			_exit(0);
		}
		t_wait_child(pid, "the checks outside");
	}
}

/* the all-namespace watch, each backend (after outside_checks) */
static void all_ns_checks(struct t_ns_child *c, const struct rep *r)
{
	for (int b = 0; b < 2; b++) {
		pid_t pid = fork();

		T_ASSERT(pid >= 0);
		if (pid == 0) {
			struct kview k;

			use_backend(b);
			kview_read(&k, r->ns_id);
			check_watch_all(c, r, &k, b ? "/a1" : "/a0");
			_exit(0);
		}
		t_wait_child(pid, "the all-namespace watch");
	}
}

/*
 * A namespace of @kind (after pivot_root(2) with @pivot_it): the holder's
 * own view, then from outside, then (@all_ns) the all-namespace watch.
 */
static void ns_case(enum kind kind, int pivot_it, int all_ns)
{
	struct t_ns_child c;
	struct rep r;

	t_private_ns();
	pivot_now = pivot_it;
	holder_start(&c, &r, kind);
	if (pivot_it) {
		struct kview k;
		size_t kr;

		kview_read(&k, r.ns_id);
		kr = kview_root(&k);
		T_ASSERTF(kr > 0 && k.id[0] < k.id[kr],
			  "the listing's root %#" PRIx64 " is not above %#"
			  PRIx64, k.id[kr], k.id[0]);
	}
	outside_checks(&c, &r);
	if (all_ns)
		all_ns_checks(&c, &r);
	t_ns_child_stop(&c);
}

T_CASE(open_tree_namespace)
{
	ns_case(K_OPEN_TREE, 0, 1);
}

T_CASE(fsmount_namespace)
{
	ns_case(K_FSMOUNT, 0, 1);
}

T_CASE(empty_namespace)
{
	ns_case(K_EMPTY, 0, 1);
}

/*
 * An empty namespace with nothing on its root, seen from outside: the
 * kernel finds no mount on the root to start from (listmount and
 * statmount: ENOENT), and both backends, by PID and by ID, answer that.
 */
static void check_bare_outside(pid_t holder, uint64_t ns_id, uint64_t root)
{
	for (int b = 0; b < 2; b++) {
		pid_t pid = fork();

		T_ASSERT(pid >= 0);
		if (pid == 0) {
			MNTKIT_OPTS(op, .pid = holder);
			MNTKIT_OPTS(oi, .mnt_ns_id = ns_id);
			const struct mntkit_opts *os[] = {&op, &oi};
			struct mntkit_statmount *sm = NULL;
			uint64_t *ids;

			T_ASSERT(t_lm_raw_ns(T_LSMT_ROOT, 0, ns_id, 0, &ids) < 0);
			T_EQ_I(errno, ENOENT);
			T_ASSERT(!t_sm_raw_ns(root, T_STATMOUNT_MNT_BASIC, ns_id,
					      0));
			T_EQ_I(errno, ENOENT);
			use_backend(b);
			for (int i = 0; i < 2; i++) {
				T_NEG(mntkit_list(MNTKIT_LSMT_ROOT, 0, os[i], &ids),
				      ENOENT);
				T_NEG(mntkit_stat(root, T_STATMOUNT_MNT_BASIC,
						  os[i], &sm), ENOENT);
			}
			_exit(0);
		}
		t_wait_child(pid, "the checks outside");
	}
}

/*
 * An empty namespace with nothing on its nullfs root: inside, the listing
 * is the root alone (both backends, inside_checks()); from outside, ENOENT.
 */
T_CASE(empty_namespace_bare)
{
	struct t_ns_child c;
	struct rep r;

	t_private_ns();
	holder_start(&c, &r, K_EMPTY_BARE);
	check_bare_outside(c.pid, r.ns_id, r.root_id);
	t_ns_child_stop(&c);
}

/* clone3(2)'s struct clone_args, its first version (64 bytes) */
struct ns7_clone_args {
	uint64_t flags, pidfd, child_tid, parent_tid, exit_signal, stack,
		stack_size, tls;
};

/*
 * clone3(CLONE_EMPTY_MNTNS) (7.1+): the child starts in an empty
 * namespace, on its nullfs root. Inside, both backends list that root
 * alone, its own parent (the kernel's own listing, mountinfo); from
 * outside, ENOENT (check_bare_outside()).
 */
T_CASE(clone3_empty_mntns)
{
	struct ns7_clone_args ca = {.flags = NS7_CLONE_EMPTY_MNTNS,
				    .exit_signal = SIGCHLD};
	int go[2], ready[2];
	uint64_t ns_id = 0, root = 0;
	char x = 0;
	pid_t pid;

	t_require_statmount();
	t_private_ns();
	T_OK(mntkit_init(0));
	proc_fd = open("/proc", O_PATH | O_DIRECTORY | O_CLOEXEC);
	T_ASSERT(proc_fd >= 0);
	T_OK(pipe(go));
	T_OK(pipe(ready));
	pid = (pid_t)syscall(SYS_clone3, &ca, sizeof(ca));
	if (pid < 0 && (errno == EINVAL || errno == ENOSYS))
		t_skip("the kernel has no clone3(CLONE_EMPTY_MNTNS) (7.1+): %s",
		       strerror(errno));
	T_ASSERTF(pid >= 0, "clone3(CLONE_EMPTY_MNTNS): %s", strerror(errno));
	if (pid == 0) {
		uint64_t *ids;
		struct t_sm_head *sm;

		close(go[1]);
		close(ready[0]);
		T_EQ_I(t_lm_raw_ns(T_LSMT_ROOT, 0, 0, 0, &ids), 1);
		sm = t_sm_raw_ns(ids[0], T_STATMOUNT_MNT_BASIC | 0x20, 0, 0);
		T_ASSERT(sm);
		T_EQ_U(sm->mnt_parent_id, ids[0]);
		T_EQ_STR(t_sm_s(sm, sm->fs_type), "nullfs");
		free(sm);
		ns_id = own_ns_id();
		root = ids[0];
		inside_checks();
		t_write_full(ready[1], &ns_id, sizeof(ns_id));
		t_write_full(ready[1], &root, sizeof(root));
		(void)!read(go[0], &x, 1);
		_exit(0);
	}
	close(go[0]);
	close(ready[1]);
	if (read(ready[0], &ns_id, sizeof(ns_id)) != sizeof(ns_id) ||
	    read(ready[0], &root, sizeof(root)) != sizeof(root))
		t_wait_child(pid, "the child in the empty namespace");
	T_EQ_U(t_ns_id(pid), ns_id);
	check_bare_outside(pid, ns_id, root);
	close(go[1]);
	t_wait_child(pid, "the child in the empty namespace");
}

/*
 * A namespace whose top mount (the listing's root, on the namespace's
 * root) has a larger unique ID than the mounts below it, as a container
 * has it after pivot_root(2): in an FSMOUNT_NAMESPACE namespace (7.1+),
 * and in a namespace of CLONE_NEWNS (any kernel). The listing's root is
 * neither the smallest ID nor the first in ID order.
 */
T_CASE(root_larger_fsmount_namespace)
{
	ns_case(K_FSMOUNT, 1, 1);
}

T_CASE(root_larger_pivot_root)
{
	ns_case(K_PRIVATE, 1, 0);
}

/*
 * A namespace of OPEN_TREE_NAMESPACE asked for by ID without
 * CAP_SYS_ADMIN over it: the kernel's errno (EPERM from 7.0 on), the
 * same on both backends (foreign-errno.h).
 */
T_CASE(foreign_errno_without_cap)
{
	struct t_ns_child c;
	struct rep r;

	t_private_ns();
	holder_start(&c, &r, K_OPEN_TREE);
	t_foreign_errno_check(c.ns_fd, r.ns_id, r.first_id);
	t_ns_child_stop(&c);
}

int main(int argc, char **argv)
{
	return t_run(argc, argv);
}
