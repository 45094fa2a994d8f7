/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * test-ns - queries of a foreign mount namespace. A child unshares a new
 * mount namespace, builds the test tree there, sends its own listmount
 * result (and IDs) through a pipe and waits; the case, still in the
 * original namespace (it mounts nothing), lists and stats the child's
 * mounts by mnt_ns_id (VER1 request), by mnt_ns_fd, and through struct
 * mntkit_opts with .mnt_ns_id, .mnt_ns_fd and .pid.
 */
#include <mntkit.h>
#include <grp.h>
#include <poll.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/wait.h>

#include "harness.h"
#include "tree.h"
#include "foreign-errno.h"

#define MAX_IDS T_NS_MAX_IDS

/* the child with the test tree in its own namespace (see tree.h) */
static void start_child(struct t_ns_tree *c)
{
	t_require_statmount();
	t_require_root();
	t_ns_tree_start(c);
	T_EQ_U(t_ns_id(c->ch.pid), c->rep.ns_id);
}

T_CASE(ns_ids)
{
	struct t_ns_tree c;
	uint64_t id = 0;
	int fd;

	start_child(&c);
	T_EQ_I(mntkit_ns_id_from_fd(c.ch.ns_fd, &id), 0);
	T_EQ_U(id, c.rep.ns_id);
	id = 0;
	T_EQ_I(mntkit_ns_id_from_pid(c.ch.pid, &id), 0);
	T_EQ_U(id, c.rep.ns_id);
	T_EQ_I(mntkit_ns_id_from_pid(0, &id), 0);
	T_EQ_U(id, t_ns_id(0));
	T_EQ_I(mntkit_ns_id_from_pid(getpid(), &id), 0);
	T_EQ_U(id, t_ns_id(0));

	fd = mntkit_ns_open_pid(c.ch.pid);
	T_ASSERTF(fd >= 0, "mntkit_ns_open_pid: %s", strerror(-fd));
	T_ASSERT(fcntl(fd, F_GETFD) & FD_CLOEXEC);
	T_EQ_I(mntkit_ns_id_from_fd(fd, &id), 0);
	T_EQ_U(id, c.rep.ns_id);
	close(fd);
	fd = mntkit_ns_open_pid(0);
	T_ASSERT(fd >= 0);
	T_EQ_I(mntkit_ns_id_from_fd(fd, &id), 0);
	T_EQ_U(id, t_ns_id(0));
	close(fd);
	t_ns_tree_stop(&c);
}

T_CASE(ns_id_errors)
{
	uint64_t id;
	int fd;

	t_require_statmount();
	fd = open("/", O_RDONLY | O_CLOEXEC);
	T_ASSERT(fd >= 0);
	/* not a namespace fd */
	T_ASSERT(mntkit_ns_id_from_fd(fd, &id) < 0);
	close(fd);
	T_NEG(mntkit_ns_id_from_fd(-1, &id), EBADF);
	/* a pid that does not exist */
	T_NEG(mntkit_ns_open_pid(INT32_MAX), ENOENT);
	T_NEG(mntkit_ns_id_from_pid(INT32_MAX, &id), ENOENT);
}

/* listmount and statmount by mnt_ns_id in a VER1 request */
T_CASE(abi_by_ns_id)
{
	struct t_ns_tree c;
	struct mntkit_mnt_id_req r;
	uint64_t *ids = t_xcalloc(MAX_IDS, 8);
	ssize_t n;

	start_child(&c);
	memset(&r, 0, sizeof(r));
	r.size = MNTKIT_MNT_ID_REQ_SIZE_VER1;
	r.mnt_id = MNTKIT_LSMT_ROOT;
	r.mnt_ns_id = c.rep.ns_id;
	n = mntkit_listmount(&r, ids, MAX_IDS, 0);
	T_ASSERTF(n >= 0, "%s", strerror(errno));
	t_expect_ids(ids, (size_t)n, c.rep.ids, c.rep.n, "listmount by ns id");
	for (ssize_t i = 0; i < n; i++) {
		struct mntkit_statmount *sm = t_xcalloc(1, 65536), *raw;

		r.mnt_id = ids[i];
		/* the kernel's groups (a kernel without some: the hybrid) */
		r.param = t_kmask(MNTKIT_STATMOUNT_ALL);
		T_EQ_I(mntkit_statmount(&r, sm, 65536, 0), 0);
		T_EQ_U(sm->mnt_id, ids[i]);
		T_ASSERT(sm->mask & MNTKIT_STATMOUNT_MNT_NS_ID);
		T_EQ_U(sm->mnt_ns_id, c.rep.ns_id);
		raw = t_sm_raw_ns(ids[i], MNTKIT_STATMOUNT_ALL, c.rep.ns_id, 0);
		T_ASSERT(raw);
		T_EQ_U(sm->size, raw->size);
		T_ASSERT(!memcmp(sm, raw, raw->size));
		free(raw);
		free(sm);
	}
	/* the child's mounts are not in ours */
	{
		struct mntkit_mnt_id_req own;
		char buf[1024];

		memset(&own, 0, sizeof(own));
		own.size = MNTKIT_MNT_ID_REQ_SIZE_VER0;
		own.mnt_id = c.rep.tree[T_A];
		own.param = 0x3;
		T_ERRNO(mntkit_statmount(&own, (void *)buf, sizeof(buf), 0),
			ENOENT);
	}
	free(ids);
	t_ns_tree_stop(&c);
}

/* the same by mnt_ns_fd (a VER0 field) */
T_CASE(abi_by_ns_fd)
{
	struct t_ns_tree c;
	struct mntkit_mnt_id_req r;
	uint64_t *ids = t_xcalloc(MAX_IDS, 8);
	ssize_t n;

	start_child(&c);
	memset(&r, 0, sizeof(r));
	r.size = MNTKIT_MNT_ID_REQ_SIZE_VER0;
	r.mnt_ns_fd = (uint32_t)c.ch.ns_fd;
	r.mnt_id = MNTKIT_LSMT_ROOT;
	n = mntkit_listmount(&r, ids, MAX_IDS, 0);
	if (n < 0 && errno == EINVAL && t_sys_listmount(&r, ids, 1, 0) < 0)
		t_skip("kernel has no mnt_ns_fd requests");
	T_ASSERTF(n >= 0, "%s", strerror(errno));
	t_expect_ids(ids, (size_t)n, c.rep.ids, c.rep.n, "listmount by ns fd");
	/* in pages of two */
	{
		size_t k = 0;

		r.param = 0;
		for (;;) {
			ssize_t got = mntkit_listmount(&r, ids + k, 2, 0);

			T_ASSERT(got >= 0);
			if (!got)
				break;
			k += (size_t)got;
			r.param = ids[k - 1];
		}
		t_expect_ids(ids, k, c.rep.ids, c.rep.n, "pages by ns fd");
	}
	for (int i = 0; i < T_NMOUNTS; i++) {
		struct mntkit_statmount *sm = t_xcalloc(1, 65536), *raw;

		r.mnt_id = c.rep.tree[i];
		r.param = t_kmask(MNTKIT_STATMOUNT_ALL);
		T_EQ_I(mntkit_statmount(&r, sm, 65536, 0), 0);
		T_EQ_U(sm->mnt_ns_id, c.rep.ns_id);
		/* the kernel's reply for that namespace, by its ID (before
		 * 6.18 the kernel ignores mnt_ns_fd) */
		raw = t_sm_raw_ns(c.rep.tree[i], MNTKIT_STATMOUNT_ALL,
				  c.rep.ns_id, 0);
		T_ASSERT(raw);
		T_ASSERT(!memcmp(sm, raw, raw->size));
		free(raw);
		free(sm);
	}
	free(ids);
	t_ns_tree_stop(&c);
}

/* the conveniences through struct mntkit_opts, each way */
static void check_opts(struct t_ns_tree *c, const struct mntkit_opts *o,
		       const char *what)
{
	struct mntkit_statmount *sm = NULL;
	uint64_t *ids, root;
	ssize_t n;

	n = mntkit_list(MNTKIT_LSMT_ROOT, 0, o, &ids);
	T_ASSERTF(n >= 0, "%s: mntkit_list: %s", what, strerror(errno));
	t_expect_ids(ids, (size_t)n, c->rep.ids, c->rep.n, what);
	free(ids);
	n = mntkit_list(MNTKIT_LSMT_ROOT, MNTKIT_LIST_F_REVERSE, o, &ids);
	T_ASSERT(n >= 0 && (size_t)n == c->rep.n);
	for (ssize_t i = 0; i < n; i++)
		T_EQ_U(ids[i], c->rep.ids[n - 1 - i]);
	free(ids);
	/* the child's tree below its a: b, b/c, d, d's stacked mount */
	n = mntkit_list(c->rep.tree[T_A], MNTKIT_LIST_F_TREE, o, &ids);
	T_ASSERTF(n == 4, "%s: tree: %zd (%s)", what, n,
		  n < 0 ? strerror(errno) : "");
	T_EQ_U(ids[0], c->rep.tree[T_AB]);
	T_EQ_U(ids[1], c->rep.tree[T_ABC]);
	T_EQ_U(ids[2], c->rep.tree[T_AD]);
	T_EQ_U(ids[3], c->rep.tree[T_STACK]);
	free(ids);
	n = mntkit_list(c->rep.scratch, MNTKIT_LIST_F_CHILDREN, o, &ids);
	T_ASSERTF(n == 6, "%s: children: %zd", what, n);
	free(ids);

	for (int i = 0; i < T_NMOUNTS; i++) {
		struct mntkit_statmount *raw;

		T_EQ_I(mntkit_stat(c->rep.tree[i],
				   t_kmask(MNTKIT_STATMOUNT_ALL), o, &sm),
		       0);
		T_EQ_U(sm->mnt_id, c->rep.tree[i]);
		T_EQ_U(sm->mnt_ns_id, c->rep.ns_id);
		raw = t_sm_raw_ns(c->rep.tree[i], MNTKIT_STATMOUNT_ALL,
				  c->rep.ns_id, 0);
		T_ASSERT(raw && raw->size == sm->size);
		T_ASSERT(!memcmp(sm, raw, raw->size));
		free(raw);
		free(sm);
	}
	/* our own root is not in the child's namespace */
	sm = (void *)1;
	T_NEG(mntkit_stat(t_uid("/"), 0x3, o, &sm), ENOENT);
	T_NULL(sm);
	T_EQ_I(mntkit_root_id(0, o, &root), 0);
	T_EQ_U(root, c->rep.root);
}

T_CASE(opts_mnt_ns_id)
{
	struct t_ns_tree c;

	start_child(&c);
	{
		MNTKIT_OPTS(o, .mnt_ns_id = c.rep.ns_id);

		check_opts(&c, &o, "opts.mnt_ns_id");
	}
	t_ns_tree_stop(&c);
}

T_CASE(opts_mnt_ns_fd)
{
	struct t_ns_tree c;

	start_child(&c);
	{
		MNTKIT_OPTS(o, .mnt_ns_fd = c.ch.ns_fd);

		check_opts(&c, &o, "opts.mnt_ns_fd");
	}
	t_ns_tree_stop(&c);
}

T_CASE(opts_pid)
{
	struct t_ns_tree c;

	start_child(&c);
	{
		MNTKIT_OPTS(o, .pid = c.ch.pid);

		check_opts(&c, &o, "opts.pid");
	}
	t_ns_tree_stop(&c);
}

T_CASE(opts_own_namespace)
{
	uint64_t *a, *b;
	ssize_t n, m;
	MNTKIT_OPTS(empty);
	MNTKIT_OPTS(self, .pid = getpid());

	t_require_statmount();
	n = mntkit_list(MNTKIT_LSMT_ROOT, 0, NULL, &a);
	T_ASSERT(n > 0);
	m = mntkit_list(MNTKIT_LSMT_ROOT, 0, &empty, &b);
	t_expect_ids(b, (size_t)m, a, (size_t)n, "empty opts");
	free(b);
	self.pid = getpid();
	m = mntkit_list(MNTKIT_LSMT_ROOT, 0, &self, &b);
	t_expect_ids(b, (size_t)m, a, (size_t)n, "opts.pid = self");
	free(b);
	free(a);
}

T_CASE(opts_two_fields_einval)
{
	struct t_ns_tree c;
	struct mntkit_statmount *sm;
	uint64_t *ids, id;

	start_child(&c);
	{
		MNTKIT_OPTS(a, .mnt_ns_id = c.rep.ns_id,
			    .mnt_ns_fd = c.ch.ns_fd);
		MNTKIT_OPTS(b, .mnt_ns_id = c.rep.ns_id, .pid = c.ch.pid);
		MNTKIT_OPTS(d, .mnt_ns_fd = c.ch.ns_fd, .pid = c.ch.pid);
		MNTKIT_OPTS(e, .mnt_ns_id = c.rep.ns_id, .mnt_ns_fd = c.ch.ns_fd,
			    .pid = c.ch.pid);
		const struct mntkit_opts *bad[] = {&a, &b, &d, &e};

		for (size_t i = 0; i < 4; i++) {
			T_NEG(mntkit_list(MNTKIT_LSMT_ROOT, 0, bad[i], &ids),
			      EINVAL);
			sm = (void *)1;
			T_NEG(mntkit_stat(c.rep.tree[T_A], 0x3, bad[i], &sm),
			      EINVAL);
			T_NULL(sm);
			T_NEG(mntkit_root_id(0, bad[i], &id), EINVAL);
		}
	}
	t_ns_tree_stop(&c);
}

T_CASE(opts_bad_namespace)
{
	struct mntkit_statmount *sm;
	uint64_t *ids, id;
	int notns;

	t_require_statmount();
	t_require_root();
	id = t_uid("/");
	{
		MNTKIT_OPTS(o, .mnt_ns_id = 1); /* no namespace has ID 1 */

		T_NEG(mntkit_list(MNTKIT_LSMT_ROOT, 0, &o, &ids), ENOENT);
		sm = (void *)1;
		T_NEG(mntkit_stat(id, 0x3, &o, &sm), ENOENT);
		T_NULL(sm);
	}
	{
		MNTKIT_OPTS(o, .pid = INT32_MAX); /* no such process */

		T_NEG(mntkit_list(MNTKIT_LSMT_ROOT, 0, &o, &ids), ENOENT);
		sm = (void *)1;
		T_NEG(mntkit_stat(id, 0x3, &o, &sm), ENOENT);
		T_NULL(sm);
	}
	notns = open("/", O_RDONLY | O_CLOEXEC);
	T_ASSERT(notns > 0);
	{
		MNTKIT_OPTS(o, .mnt_ns_fd = notns); /* not a namespace */

		T_NEG(mntkit_list(MNTKIT_LSMT_ROOT, 0, &o, &ids), EINVAL);
		sm = (void *)1;
		T_NEG(mntkit_stat(id, 0x3, &o, &sm), EINVAL);
		T_NULL(sm);
	}
	close(notns);
}

/* the child's namespace by pid is not ours */
T_CASE(opts_pid_differs_from_own)
{
	struct t_ns_tree c;
	uint64_t *ids;
	ssize_t n;

	start_child(&c);
	{
		MNTKIT_OPTS(o, .pid = c.ch.pid);

		n = mntkit_list(MNTKIT_LSMT_ROOT, 0, &o, &ids);
		T_ASSERT(n >= 0 && (size_t)n == c.rep.n);
		free(ids);
		/* our own namespace is a different list */
		n = mntkit_list(MNTKIT_LSMT_ROOT, 0, NULL, &ids);
		T_ASSERT(n >= 0);
		for (ssize_t i = 0; i < n; i++)
			T_ASSERT(
				!t_contains_u64(c.rep.tree, T_NMOUNTS, ids[i]));
		free(ids);
	}
	t_ns_tree_stop(&c);
}

/* the mountinfo backend reads the child's namespace the same way */
static void check_opts_emulated(struct t_ns_tree *c,
				const struct mntkit_opts *o, const char *what)
{
	uint64_t *ids;
	ssize_t n;

	n = mntkit_list(MNTKIT_LSMT_ROOT, 0, o, &ids);
	T_ASSERTF(n >= 0, "%s: mntkit_list: %s", what, strerror(errno));
	T_ASSERTF((size_t)n == c->rep.n,
		  "%s: %zd mounts, the child has %" PRIu64, what, n, c->rep.n);
	for (ssize_t i = 0; i < n; i++) {
		struct mntkit_statmount *sm = NULL;
		int r = mntkit_stat(ids[i], MNTKIT_STATMOUNT_ALL, o, &sm);

		T_ASSERTF(r == 0, "%s: mntkit_stat(%#" PRIx64 "): %s", what,
			  ids[i], strerror(-r));
		T_ASSERT(sm->mask & MNTKIT_STATMOUNT_MNT_BASIC);
		ids[i] = sm->mnt_id_old;
		if (sm->mask & MNTKIT_STATMOUNT_MNT_NS_ID)
			T_EQ_U(sm->mnt_ns_id, c->rep.ns_id);
		free(sm);
	}
	t_sort_u64(ids, (size_t)n);
	for (ssize_t i = 0; i < n; i++)
		T_EQ_U(ids[i], c->rep.olds[i]);
	free(ids);
}

T_CASE(opts_mountinfo_backend)
{
	struct t_ns_tree c;
	uint64_t *ids;
	ssize_t n;

	start_child(&c);
	T_EQ_I(mntkit_set_backend(MNTKIT_BACKEND_MOUNTINFO), 0);
	n = mntkit_list(MNTKIT_LSMT_ROOT, 0, NULL, &ids);
	T_ASSERTF(n > 0, "emulated mntkit_list: %s", strerror(errno));
	free(ids);
	{
		MNTKIT_OPTS(o, .pid = c.ch.pid);

		check_opts_emulated(&c, &o, "mountinfo, opts.pid");
	}
	{
		MNTKIT_OPTS(o, .mnt_ns_fd = c.ch.ns_fd);

		check_opts_emulated(&c, &o, "mountinfo, opts.mnt_ns_fd");
	}
	{
		MNTKIT_OPTS(o, .mnt_ns_id = c.rep.ns_id);

		check_opts_emulated(&c, &o, "mountinfo, opts.mnt_ns_id");
	}
	t_ns_tree_stop(&c);
}

/*
 * A process whose namespace file the caller may not open (the kernel's
 * ptrace check: here the caller is another user) but whose mountinfo it
 * may read: opts.pid reads that, on either backend, with the mounts
 * named by their old IDs; a table of it too.
 */
static void ns_file_refused(const char *backend)
{
	struct t_ns_tree c;
	pid_t pid;

	start_child(&c);
	pid = fork();
	T_ASSERT(pid >= 0);
	if (pid == 0) {
		MNTKIT_OPTS(o, .pid = c.ch.pid);
		struct mntkit_table *t;
		int fd;

		if (setgroups(0, NULL) || setresgid(65534, 65534, 65534) ||
		    setresuid(65534, 65534, 65534))
			t_fail("become nobody: %s", strerror(errno));
		fd = open(t_path("/proc/%d/ns/mnt", (int)c.ch.pid),
			  O_RDONLY | O_CLOEXEC);
		T_ASSERTF(fd < 0 && (errno == EACCES || errno == EPERM),
			  "the namespace file opened (%d, %s)", fd,
			  strerror(errno));
		if (!strcmp(backend, "mountinfo"))
			T_OK(mntkit_set_backend(MNTKIT_BACKEND_MOUNTINFO));
		check_opts_emulated(&c, &o, backend);
		T_OK(mntkit_table_new(MNTKIT_STATMOUNT_ALL, 0, &o, &t));
		T_EQ_U(mntkit_table_count(t), c.rep.n);
		mntkit_table_free(t);
		/* the caller's own namespace is still its own */
		T_OK(mntkit_table_new(0, 0, NULL, &t));
		T_ASSERT(mntkit_table_count(t) != c.rep.n ||
			 mntkit_table_get(t, 0)->mnt_id_old != c.rep.olds[0]);
		mntkit_table_free(t);
		_exit(0);
	}
	t_wait_child(pid, "the case as nobody");
	t_ns_tree_stop(&c);
}

/*
 * A watch of such a process's namespace: the poll source over its
 * mountinfo; a mount made there is told (fanotify needs the namespace
 * file to mark it: refused when forced).
 */
static void watch_ns_file_refused(const char *backend)
{
	struct t_ns_tree c;
	int ready[2];
	pid_t watcher, mounter;
	char ch = 0;

	start_child(&c);
	T_OK(pipe(ready));
	watcher = fork();
	T_ASSERT(watcher >= 0);
	if (watcher == 0) {
		MNTKIT_OPTS(o, .pid = c.ch.pid);
		MNTKIT_WATCH_OPTS(wf, .source = MNTKIT_WATCH_FANOTIFY);
		MNTKIT_WATCH_OPTS(wo, .rescan_ms = MNTKIT_WATCH_NO_RESCAN);
		struct mntkit_watch *w = NULL;
		struct pollfd p;
		MNTKIT_EVENT(ev);
		int seen = 0;

		if (setgroups(0, NULL) || setresgid(65534, 65534, 65534) ||
		    setresuid(65534, 65534, 65534))
			t_fail("become nobody: %s", strerror(errno));
		if (!strcmp(backend, "mountinfo"))
			T_OK(mntkit_set_backend(MNTKIT_BACKEND_MOUNTINFO));
		T_NEG(mntkit_watch_new(&wf, &o, &w), EPERM);
		T_OK(mntkit_watch_new(&wo, &o, &w));
		T_EQ_I(mntkit_watch_get_source(w), MNTKIT_WATCH_POLL);
		while (mntkit_watch_read(w, &ev) > 0)
			;
		T_EQ_I(write(ready[1], "r", 1), 1);
		p = (struct pollfd){ .fd = mntkit_watch_fd(w), .events = POLLIN };
		for (int i = 0; i < 100 && !seen; i++) {
			poll(&p, 1, 100);
			while (!seen && mntkit_watch_read(w, &ev) > 0)
				seen = ev.kind == MNTKIT_EVENT_ATTACH &&
				       ev.after &&
				       !strcmp(mntkit_sm_get(ev.after,
					       MNTKIT_FIELD_MNT_POINT) ?: "",
					       t_base);
		}
		T_ASSERTF(seen, "no ATTACH of the mount on %s", t_base);
		mntkit_watch_free(w);
		_exit(0);
	}
	T_EQ_I(read(ready[0], &ch, 1), 1);
	mounter = fork();
	T_ASSERT(mounter >= 0);
	if (mounter == 0) {
		/* in the child's namespace (private: no case mounts
		 * outside one), over its scratch tmpfs */
		if (setns(c.ch.ns_fd, CLONE_NEWNS))
			t_fail("setns: %s", strerror(errno));
		t_private = 1;
		t_mount("watched", t_base, "tmpfs", 0, NULL);
		_exit(0);
	}
	t_wait_child(mounter, "the mount in the child's namespace");
	t_wait_child(watcher, "the watch as nobody");
	t_ns_tree_stop(&c);
}

T_CASE(watch_pid_ns_file_refused_native)
{
	watch_ns_file_refused("native");
}

T_CASE(watch_pid_ns_file_refused_mountinfo)
{
	watch_ns_file_refused("mountinfo");
}

T_CASE(opts_pid_ns_file_refused_native)
{
	ns_file_refused("native");
}

T_CASE(opts_pid_ns_file_refused_mountinfo)
{
	ns_file_refused("mountinfo");
}

/* the kernel's features, for the cases that need one */
static uint32_t features(void)
{
	struct mntkit_features f = { .size = sizeof(f) };

	T_EQ_I(mntkit_get_features(&f), 0);
	return f.flags;
}

T_CASE(ns_open_id_own_and_errors)
{
	uint64_t own = t_ns_id(0), id = 0, *ids;
	ssize_t n;
	int fd;

	t_require_statmount();
	fd = mntkit_ns_open_id(own);
	T_ASSERTF(fd >= 0, "mntkit_ns_open_id(own): %s", strerror(-fd));
	T_ASSERT(fcntl(fd, F_GETFD) & FD_CLOEXEC);
	T_EQ_I(mntkit_ns_id_from_fd(fd, &id), 0);
	T_EQ_U(id, own);
	close(fd);
	T_NEG(mntkit_ns_open_id(0), EINVAL);
	/* an ID above every namespace there is */
	n = mntkit_ns_list(&ids);
	T_ASSERTF(n > 0, "mntkit_ns_list: %s", strerror((int)-n));
	T_NEG(mntkit_ns_open_id(ids[n - 1] + 1000000), ENOENT);
	for (ssize_t i = 1; i < n; i++)
		T_ASSERTF(ids[i - 1] < ids[i], "not ascending at %zd", i);
	free(ids);
	T_NEG(mntkit_ns_list(NULL), EINVAL);
}

/*
 * mntkit_ns_list_pids(): the namespaces with the lowest process of each,
 * one that is in it; the child's namespace has the child (or a lower
 * process of it), ours a process no higher than us.
 */
T_CASE(ns_list_pids)
{
	struct t_ns_tree c;
	uint64_t *ids, id, own = t_ns_id(0);
	pid_t *pids;
	ssize_t n, i, mine = -1, child = -1;

	start_child(&c);
	n = mntkit_ns_list_pids(&ids, &pids);
	T_ASSERTF(n > 0, "mntkit_ns_list_pids: %s", strerror((int)-n));
	for (i = 0; i < n; i++) {
		int r;

		if (i)
			T_ASSERTF(ids[i - 1] < ids[i], "not ascending at %zd", i);
		if (ids[i] == own)
			mine = i;
		if (ids[i] == c.rep.ns_id)
			child = i;
		if (!pids[i])
			continue;
		/* a process may have gone since */
		r = mntkit_ns_id_from_pid(pids[i], &id);
		T_ASSERTF(r == 0 || r == -ENOENT || r == -ESRCH,
			  "PID %d: %s", (int)pids[i], strerror(-r));
		if (r == 0)
			T_EQ_U(id, ids[i]);
	}
	T_ASSERTF(mine >= 0 && child >= 0, "own %zd, the child's %zd", mine,
		  child);
	T_ASSERTF(pids[mine] > 0 && pids[mine] <= getpid(), "own: PID %d",
		  (int)pids[mine]);
	T_ASSERTF(pids[child] > 0 && pids[child] <= c.ch.pid,
		  "the child's: PID %d, the child %d", (int)pids[child],
		  (int)c.ch.pid);
	free(ids);
	free(pids);
	T_NEG(mntkit_ns_list_pids(NULL, &pids), EINVAL);
	T_NEG(mntkit_ns_list_pids(&ids, NULL), EINVAL);
	t_ns_tree_stop(&c);
}

/*
 * A namespace no process is in, kept alive by an fd only: found by its ID
 * (NS_MNT_GET_NEXT/PREV), listed, and the fd it gives reads its mounts.
 */
T_CASE(ns_open_id_without_process)
{
	struct t_ns_tree c;
	uint64_t id = 0, *ids, *got;
	ssize_t n, k;
	int fd;

	if (!(features() & MNTKIT_FEAT_NS_ITER))
		t_skip("no NS_MNT_GET_NEXT/PREV (6.12+)");
	start_child(&c);
	/* keep only the fd: the child leaves its namespace behind */
	{
		int keep = dup(c.ch.ns_fd);

		T_ASSERT(keep >= 0);
		t_ns_tree_stop(&c);
		c.ch.ns_fd = keep;
	}
	T_NEG(mntkit_ns_id_from_pid(c.ch.pid, &id), ENOENT);
	fd = mntkit_ns_open_id(c.rep.ns_id);
	T_ASSERTF(fd >= 0, "mntkit_ns_open_id: %s", strerror(-fd));
	T_EQ_I(mntkit_ns_id_from_fd(fd, &id), 0);
	T_EQ_U(id, c.rep.ns_id);
	/* its mounts, through the fd it gave, are the child's */
	{
		MNTKIT_OPTS(o, .mnt_ns_fd = fd);

		n = mntkit_list(MNTKIT_LSMT_ROOT, 0, &o, &got);
		T_ASSERTF(n >= 0, "mntkit_list(fd): %s", strerror((int)-n));
		t_expect_ids(got, (size_t)n, c.rep.ids, c.rep.n,
			     "the namespace without a process");
		free(got);
	}
	n = mntkit_ns_list(&ids);
	T_ASSERT(n > 0);
	for (k = 0; k < n && ids[k] != c.rep.ns_id; k++)
		;
	T_ASSERTF(k < n, "mntkit_ns_list lacks %#" PRIx64, c.rep.ns_id);
	free(ids);
	{
		pid_t *pids;

		n = mntkit_ns_list_pids(&ids, &pids);
		T_ASSERT(n > 0);
		for (k = 0; k < n && ids[k] != c.rep.ns_id; k++)
			;
		T_ASSERTF(k < n && pids[k] == 0,
			  "mntkit_ns_list_pids: %zd of %zd, PID %d", k, n,
			  k < n ? (int)pids[k] : -1);
		free(ids);
		free(pids);
	}
	close(fd);
	close(c.ch.ns_fd);
}

/*
 * The mountinfo backend reads a namespace no process is in, kept alive by
 * an fd: by that fd (entered with setns, its mountinfo read as a process
 * in it would), and by its ID where the kernel's walk reaches it. The
 * mounts are those the kernel listed while the child lived. Before, the
 * emulation looked for a process in it only, and answered ENOENT.
 */
T_CASE(mountinfo_without_process)
{
	struct t_ns_tree c;
	int keep, fd;

	start_child(&c);
	keep = dup(c.ch.ns_fd);
	T_ASSERT(keep >= 0);
	t_ns_tree_stop(&c);
	c.ch.ns_fd = keep;
	T_EQ_I(mntkit_set_backend(MNTKIT_BACKEND_MOUNTINFO), 0);
	{
		MNTKIT_OPTS(o, .mnt_ns_fd = keep);

		check_opts_emulated(&c, &o, "no process, opts.mnt_ns_fd");
	}
	fd = (features() & MNTKIT_FEAT_NS_ITER) ?
		     mntkit_ns_open_id(c.rep.ns_id) : -1;
	if (fd >= 0) {
		MNTKIT_OPTS(o, .mnt_ns_id = c.rep.ns_id);

		check_opts_emulated(&c, &o, "no process, opts.mnt_ns_id");
		close(fd);
	}
	close(keep);
}

static int in_list(uint64_t id)
{
	uint64_t *ids;
	ssize_t n = mntkit_ns_list(&ids), k;

	T_ASSERTF(n > 0, "mntkit_ns_list: %s", strerror((int)-n));
	for (k = 0; k < n && ids[k] != id; k++)
		;
	free(ids);
	return k < n;
}

/*
 * A namespace kept only by a bind mount of its nsfs file (no process,
 * no fd): listns (6.19+) lists it, the NS_MNT_GET_NEXT walk (6.12+)
 * reaches it (root has CAP_SYS_ADMIN over every namespace).
 */
T_CASE(ns_list_kept_by_bind)
{
	struct t_ns_tree c;
	char path[64], *file;
	int fd;

	if (!(features() & (MNTKIT_FEAT_LISTNS | MNTKIT_FEAT_NS_ITER)))
		t_skip("neither listns(2) (6.19+) nor NS_MNT_GET_NEXT (6.12+)");
	/*
	 * The kernel binds a namespace's file only into an older namespace
	 * (mnt_ns_loop(): by sequence number). Those numbers come in
	 * per-CPU batches (6.18: a namespace made later on another CPU can
	 * have a lower one; 1 run in 4 failed): make both on one CPU.
	 */
	{
		cpu_set_t one;

		CPU_ZERO(&one);
		CPU_SET((size_t)sched_getcpu(), &one);
		T_OK(sched_setaffinity(0, sizeof(one), &one));
	}
	t_private_ns();
	start_child(&c);
	file = t_path("%s/ns-kept", t_base);
	fd = open(file, O_CREAT | O_WRONLY | O_CLOEXEC, 0600);
	T_ASSERT(fd >= 0);
	close(fd);
	snprintf(path, sizeof(path), "/proc/%d/ns/mnt", (int)c.ch.pid);
	T_ASSERTF(mount(path, file, NULL, MS_BIND, NULL) == 0,
		  "bind %s (ns %#" PRIx64 ", ours %#" PRIx64 "): %s", path,
		  c.rep.ns_id, t_ns_id(0), strerror(errno));
	t_ns_tree_stop(&c);
	close(c.ch.ns_fd);
	T_ASSERTF(in_list(c.rep.ns_id), "mntkit_ns_list lacks %#" PRIx64
		  " (kept by a bind mount only)", c.rep.ns_id);
	T_OK(umount2(file, MNT_DETACH));
	free(file);
}

/*
 * listns(2) (6.19+) lists the mount namespaces the caller is in, or all
 * of them for CAP_SYS_ADMIN in the initial user and pid namespaces (7.0's
 * may_see_all_namespaces(), also in 6.19.y). Every one it lists, asked
 * here of the raw call, is in mntkit_ns_list(), also one kept by an fd
 * only.
 */
struct t_ns_id_req {
	uint32_t size, spare;
	uint64_t ns_id;
	uint32_t ns_type, spare2;
	uint64_t user_ns_id;
};

T_CASE(ns_list_has_what_listns_lists)
{
	struct t_ns_id_req req = { .size = 32, .ns_type = CLONE_NEWNS };
	uint64_t raw[1024], *ids;
	struct t_ns_tree c;
	ssize_t n, k, nraw;
	int keep;

	if (!(features() & MNTKIT_FEAT_LISTNS))
		t_skip("no listns(2) (6.19+)");
	start_child(&c);
	keep = dup(c.ch.ns_fd);
	T_ASSERT(keep >= 0);
	t_ns_tree_stop(&c);
	close(c.ch.ns_fd);
	nraw = syscall(470, &req, raw, 1024, 0);
	T_ASSERTF(nraw > 0, "listns: %s", strerror(errno));
	T_ASSERT(t_contains_u64(raw, (size_t)nraw, t_ns_id(0)));
	T_ASSERTF(t_contains_u64(raw, (size_t)nraw, c.rep.ns_id),
		  "listns lacks %#" PRIx64 " (kept by an fd)", c.rep.ns_id);
	n = mntkit_ns_list(&ids);
	T_ASSERT(n > 0);
	for (k = 0; k < nraw; k++)
		T_ASSERTF(t_contains_u64(ids, (size_t)n, raw[k]),
			  "mntkit_ns_list lacks %#" PRIx64 " of listns", raw[k]);
	free(ids);
	close(keep);
}

/* the errno of a request by ID without CAP_SYS_ADMIN (foreign-errno.h) */
T_CASE(foreign_by_id_without_cap)
{
	struct t_ns_tree c;

	start_child(&c);
	t_foreign_errno_check(c.ch.ns_fd, c.rep.ns_id, c.rep.ids[0]);
	t_ns_tree_stop(&c);
}

int main(int argc, char **argv)
{
	return t_run(argc, argv);
}
