// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The emulation's cache: one parsed table of the calling thread's
 * namespace and one of the last foreign namespace, kept open and checked
 * at each call; their load, the snapshot windows, and the table a request
 * is about. (lib/emul.h says how the emulation works.)
 */
#include <dirent.h>
#include <stddef.h>
#include <fcntl.h>
#include <poll.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#include "emul.h"
#include "syscall.h"

/*
 * Changes the kernel does not signal through poll (propagation type
 * changes: make-shared/slave/private/unbindable) are caught by age: a table
 * is re-read when it is older than AGE_FACTOR times the time its last read
 * took, within [AGE_MIN_NS, AGE_MAX_NS]. A listing of N mounts then costs a
 * few parses at most, whatever N.
 */
#define AGE_FACTOR 8
#define AGE_MIN_NS 2000000LL    /* 2 ms */
#define AGE_MAX_NS 250000000LL  /* 250 ms */

pthread_mutex_t mntkit__emul_lock = PTHREAD_MUTEX_INITIALIZER;

/*
 * Snapshot windows (mntkit__emul_snapshot(), for watches): between its
 * begin and end, a thread's first load reads mountinfo once, even if the
 * table changed meanwhile (one read is whole: every mount that lives
 * throughout it is in it, once, under its own line), and that table
 * serves the rest of the window unchecked, so a listing and the
 * statmounts of its IDs are of one read. The watch learns of what changed
 * since from its own POLLPRI.
 */
static MNTKIT__TLS unsigned int snap_cur; /* 0: not in a window */
static unsigned int snap_serial;       /* under @mntkit__emul_lock */
pthread_once_t mntkit__emul_atfork_once = PTHREAD_ONCE_INIT;
static struct table self_tab = { .fd = -1, .ep = -1 };
static struct table other_tab = { .fd = -1, .ep = -1 };

static void table_drop(struct table *t)
{
	t->loaded = 0;
	t->next_pos = 0;
	mntkit__mindex_free(&t->ix);
	t->mi.n = 0; /* its entries' room stays for the next parse */
	free(t->probe);
	t->probe = NULL;
	free(t->type);
	t->type = NULL;
	t->ntypes = 0;
	free(t->keys);
	t->keys = NULL;
	free(t->served);
	t->served = NULL;
	t->nserved = 0;
	free(t->groups);
	t->groups = NULL;
	t->ngroups = 0;
}

static void table_close(struct table *t)
{
	table_drop(t);
	mntkit__mi_free(&t->mi);
	free(t->memo);
	t->memo = NULL;
	t->nmemo = 0;
	if (t->ep >= 0)
		close(t->ep);
	t->ep = -1;
	if (t->fd >= 0)
		close(t->fd);
	t->fd = -1;
	if (t->held) {
		close(t->ns_fd);
		close(t->at);
		t->at = AT_FDCWD;
		t->held = 0;
	}
	t->pid_only = 0;
	free(t->buf);
	t->buf = NULL;
	t->cap = t->len = 0;
}

/*
 * fork: the child shares the open mountinfo file (and its poll state) with
 * the parent; it must neither poll it nor trust the tables.
 */
static void atfork_prepare(void)
{
	pthread_mutex_lock(&mntkit__emul_lock);
}

static void atfork_parent(void)
{
	pthread_mutex_unlock(&mntkit__emul_lock);
}

static void atfork_child(void)
{
	table_close(&self_tab);
	table_close(&other_tab);
	pthread_mutex_unlock(&mntkit__emul_lock);
}

void mntkit__emul_setup_atfork(void)
{
	pthread_atfork(atfork_prepare, atfork_parent, atfork_child);
}

static int ns_inode(pid_t pid, dev_t *dev, ino_t *ino)
{
	char path[64];

	int at;

	*dev = 0; /* set on failure too: -errno is not known non-zero */
	*ino = 0;
	at = mntkit__proc_path(path, sizeof(path), pid, "ns/mnt");
	return mntkit__stat_ident(at, path, 0, dev, ino);
}

/* statx refused: the root's device, inode (stat) and old mount ID
 * (fdinfo); 0 or -errno */
static int root_ident_nostatx(dev_t *dev, ino_t *ino, uint64_t *mnt)
{
	int fd, ret;

	fd = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	ret = mntkit__stat_ident(fd, "", AT_EMPTY_PATH, dev, ino);
	if (!ret)
		ret = mntkit__fdinfo_mnt_id(fd, mnt);
	close(fd);
	return ret;
}

/*
 * The caller's root: its inode and the ID of its mount. With unique IDs
 * the root mount's unique ID also names the namespace (a mount belongs to
 * one namespace, and setns() and unshare() give the thread another root
 * mount), so this one statx stands for the namespace check.
 */
static int root_ident(dev_t *dev, ino_t *ino, uint64_t *mnt)
{
	unsigned int want = mntkit__emul_have_unique ? MNTKIT_STATX_MNT_ID_UNIQUE :
					  MNTKIT_STATX_MNT_ID;
	struct statx stx; /* every call: not zeroed, the kernel writes it all */

	*dev = 0; /* set on failure too: -errno is not known non-zero */
	*ino = 0;
	*mnt = 0;
	if (mntkit__native_refused(MNTKIT_REFUSED_STATX)) /* seccomp */
		return root_ident_nostatx(dev, ino, mnt);
	if (statx(AT_FDCWD, "/", AT_STATX_DONT_SYNC, STATX_INO | want, &stx))
		return -errno;
	*dev = makedev(stx.stx_dev_major, stx.stx_dev_minor);
	*ino = stx.stx_ino;
	*mnt = (stx.stx_mask & want) ? stx.stx_mnt_id : 0;
	return 0;
}

/* the change signal of the open mountinfo: POLLPRI through an epoll set
 * (one epoll_wait, no poll table per check), or poll() without one */
static void table_follow(struct table *t)
{
	t->ep = epoll_create1(EPOLL_CLOEXEC);
	if (t->ep >= 0) {
		struct epoll_event ev = { .events = EPOLLPRI };

		if (epoll_ctl(t->ep, EPOLL_CTL_ADD, t->fd, &ev)) {
			close(t->ep);
			t->ep = -1;
		}
	}
}

static int table_open(struct table *t, pid_t pid)
{
	dev_t d2;
	ino_t i2;
	int ret;

	table_close(t);
	t->pid = pid;
	mntkit__proc_check();
	ret = ns_inode(pid, &t->ns_dev, &t->ns_ino);
	if (ret)
		return ret;
	if (!pid) {
		ret = root_ident(&t->root_dev, &t->root_ino, &t->root_mnt);
		if (ret)
			return ret;
		t->prefix[0] = '\0';
		t->at = AT_FDCWD;
	} else {
		/* its mount points, below its root */
		t->at = mntkit__proc_path(t->prefix, sizeof(t->prefix), pid, "root");
	}
	t->fd = mntkit__proc_open(pid, "mountinfo", O_RDONLY);
	if (t->fd < 0)
		return t->fd == -EACCES ? -EPERM : t->fd;
	table_follow(t);
	/* the namespace did not change under the open */
	ret = ns_inode(pid, &d2, &i2);
	if (ret || d2 != t->ns_dev || i2 != t->ns_ino) {
		table_close(t);
		return ret ? ret : -EAGAIN;
	}
	return 0;
}

/*
 * The table of a namespace no process is in, kept alive by an nsfs fd
 * (@ns_fd, taken over: closed on failure too): read through a mountinfo
 * file opened by a thread that entered it (an open mountinfo keeps reading
 * its namespace), its mount points looked at from its root. The kernel's
 * checks are setns(2)'s: CAP_SYS_ADMIN over the namespace's owner and
 * CAP_SYS_CHROOT.
 */
static int table_open_held(struct table *t, int ns_fd)
{
	int mi_fd, root_fd;
	int ret;

	table_close(t);
	t->pid = -1;
	ret = mntkit__stat_ident(ns_fd, "", AT_EMPTY_PATH, &t->ns_dev,
				 &t->ns_ino);
	if (!ret)
		ret = mntkit__ns_enter_open(ns_fd, &mi_fd, 1, &root_fd);
	if (ret) {
		close(ns_fd);
		return ret == -EACCES ? -EPERM : ret;
	}
	t->held = 1;
	t->ns_fd = ns_fd;
	t->fd = mi_fd;
	t->at = root_fd;
	strcpy(t->prefix, ".");
	table_follow(t);
	mntkit__debug(MNTKIT_PRINT_DEBUG,
		      "emulation: a namespace with no process in it, read "
		      "by entering it");
	return 0;
}

/*
 * Has the table changed since the last look? (consumes the event: the
 * file's poll, which epoll calls once the namespace woke it, notes it seen)
 */
int mntkit__emul_table_changed(struct table *t)
{
	struct pollfd p = { .fd = t->fd, .events = POLLPRI };
	struct epoll_event ev;

	if (t->ep >= 0)
		return epoll_wait(t->ep, &ev, 1, 0) != 0;
	if (poll(&p, 1, 0) < 0)
		return 1;
	return !!(p.revents & (POLLPRI | POLLERR | POLLNVAL));
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

static int collect_groups(struct table *t)
{
	t->groups = malloc((t->mi.n + 1) * sizeof(*t->groups));
	if (!t->groups)
		return -ENOMEM;
	for (size_t i = 0; i < t->mi.n; i++)
		if (t->mi.v[i].shared)
			t->groups[t->ngroups++] = t->mi.v[i].shared;
	qsort(t->groups, t->ngroups, sizeof(*t->groups), cmp_u32);
	return 0;
}

/* ---- a foreign namespace's view ---- */

struct id_at {
	uint32_t id;
	uint32_t at;
};

static int cmp_id_at(const void *a, const void *b)
{
	const struct id_at *x = a, *y = b;

	return x->id < y->id ? -1 : x->id > y->id;
}

/* the entry of old ID @id (the first of a reused one), or -1 */
static ssize_t id_find(const struct id_at *v, size_t n, uint32_t id)
{
	struct id_at key = { .id = id };
	const struct id_at *f = bsearch(&key, v, n, sizeof(*v), cmp_id_at);

	return f ? (ssize_t)f->at : -1;
}

/* the mount on @root first in the file (the kernel's ID order), or -1 */
static ssize_t first_on(const struct mntkit_mi_table *mi, size_t root)
{
	for (size_t i = 0; i < mi->n; i++)
		if (i != root && mi->v[i].parent == mi->v[root].id)
			return (ssize_t)i;
	return -1;
}

/* keep what is below entry @top (marked in @keep), in passes */
static void keep_below(const struct mntkit_mi_table *mi, const struct id_at *v,
		       uint8_t *keep, size_t top)
{
	int more = 1;

	keep[top] = 1;
	while (more) {
		more = 0;
		for (size_t i = 0; i < mi->n; i++) {
			ssize_t p;

			if (keep[i] || i == top)
				continue;
			p = id_find(v, mi->n, mi->v[i].parent);
			if (p >= 0 && keep[p] && (size_t)p != i)
				more = keep[i] = 1;
		}
	}
}

/*
 * A foreign namespace read through a process that sits on the
 * namespace's root mount (one of UNSHARE_EMPTY_MNTNS on its nullfs, an
 * initramfs on rootfs): its mountinfo has that root, its own parent. The
 * kernel lists a foreign namespace from the first mount on its root
 * (grab_requested_root(): the lowest ID whose parent is the root; the
 * file's order is the kernel's ID order) and only what is below that
 * one: the rest is dropped here. -ENOENT when nothing is on the root, as
 * the kernel answers then.
 */
static int foreign_view(struct mntkit_mi_table *mi)
{
	struct id_at *v;
	uint8_t *keep;
	ssize_t root = -1, top;
	size_t n = 0;

	for (size_t i = 0; i < mi->n && root < 0; i++)
		if (mi->v[i].parent == mi->v[i].id)
			root = (ssize_t)i;
	if (root < 0)
		return 0;
	top = first_on(mi, (size_t)root);
	if (top < 0)
		return -ENOENT;
	v = malloc(mi->n * sizeof(*v));
	keep = calloc(mi->n, 1);
	if (!v || !keep) {
		free(v);
		free(keep);
		return -ENOMEM;
	}
	for (size_t i = 0; i < mi->n; i++)
		v[i] = (struct id_at){ .id = mi->v[i].id, .at = (uint32_t)i };
	qsort(v, mi->n, sizeof(*v), cmp_id_at);
	keep_below(mi, v, keep, (size_t)top);
	for (size_t i = 0; i < mi->n; i++)
		if (keep[i])
			mi->v[n++] = mi->v[i];
	mi->n = n;
	free(v);
	free(keep);
	return 0;
}

/*
 * One read, parse, ID resolution and index. -EAGAIN: the read was torn
 * (it does not parse or index) and must be redone; -ESTALE: the table is
 * whole but changed while it was read, so a newer one may be had.
 */
static int load_once(struct table *t, int ids)
{
	struct mntkit_mi_err err;
	int ret;

	ret = mntkit__emul_memo_save(t);
	if (ret)
		return ret;
	table_drop(t);
	t->gen++;
	t->clean = 0;
	mntkit__emul_table_changed(t); /* consume what happened before this read */
	ret = mntkit__mi_read(t->fd, &t->buf, &t->cap, &t->len);
	if (ret)
		return ret;
	ret = mntkit__mi_parse(&t->mi, t->buf, t->len, &err);
	if (ret)
		return ret == -EBADMSG ? -EAGAIN : ret;
	if (t != &self_tab) {
		ret = foreign_view(&t->mi);
		if (ret)
			return ret;
	}
	t->unique_mode = ids == IDS_BACKEND && mntkit__emul_have_unique;
	t->probe = calloc(t->mi.n + 1, sizeof(*t->probe));
	if (t->unique_mode)
		t->keys = calloc(t->mi.n + 1, sizeof(*t->keys));
	if (!t->probe || (t->unique_mode && !t->keys) || collect_groups(t) ||
	    mntkit__emul_type_magics(t) || mntkit__emul_mark_served_paths(t))
		return -ENOMEM;
	t->has_hidden = 0;
	if (t->unique_mode) {
		ret = mntkit__emul_resolve_ids(t);
		if (ret)
			return ret;
		mntkit__emul_note_places(t);
	}
	/* without unique IDs the keys are the old IDs (keys NULL) */
	ret = mntkit__mindex_build(&t->ix, t->mi.v, t->mi.n, t->keys);
	if (ret)
		return ret == -EBADMSG ? -EAGAIN : ret;
	ret = mntkit__emul_issue_outside_parents(t);
	if (ret)
		return ret;
	t->loaded = 1;
	t->clean = !mntkit__emul_table_changed(t);
	return t->clean ? 0 : -ESTALE;
}

/* how long a load takes: the precise clock */
static long long now_ns(void)
{
	return mntkit__clock_ns(CLOCK_MONOTONIC);
}

/*
 * A table's age, checked on every call: the coarse clock (a few ms
 * resolution, a third of the cost), which at worst sees a change the
 * kernel does not signal one tick later.
 */
static long long age_now_ns(void)
{
	return mntkit__clock_ns(CLOCK_MONOTONIC_COARSE);
}

/* too old to trust for the changes poll does not report */
static int table_aged(const struct table *t)
{
	return age_now_ns() - t->loaded_at > t->max_age;
}

/*
 * May @t serve a load as it is? In a snapshot window only when it was
 * read in this window: the window's first load reads mountinfo, so that
 * a change the kernel signals to no one (propagation set with mount(2),
 * a superblock's options changed from another namespace) is in a
 * watch's rescan. Else when nothing says it changed and it is not too
 * old.
 */
static int table_current(struct table *t)
{
	if (snap_cur)
		return t->snap == snap_cur;
	return !t->stale && !mntkit__emul_table_changed(t) && !table_aged(t);
}

static int table_load(struct table *t, int ids)
{
	long long start = now_ns();
	uint64_t id;
	int ret = -EAGAIN, fd, changed = 0;

	/*
	 * Under constant churn every read sees a change: after LOAD_TRIES a
	 * whole (if already changed) table is the answer. A torn read is
	 * never one; only input that keeps failing to parse is an error.
	 */
	int tries = 0;

	for (int i = 0; i < LOAD_TRIES_TORN; i++) {
		ret = load_once(t, ids);
		tries = i + 1;
		changed = ret == -ESTALE;
		if (ret == -ESTALE && (i + 1 >= LOAD_TRIES || snap_cur))
			ret = 0;
		if (ret != -EAGAIN && ret != -ESTALE)
			break;
	}
	mntkit__debug(MNTKIT_PRINT_DEBUG,
		      "emulation: mountinfo loaded: %zu mounts, %d read%s%s",
		      t->mi.n, tries,
		      tries == 1 ? "" : "s (changed while read)",
		      changed ? ", still changing: taken as it is" : "");
	if (ret == -EAGAIN || ret == -ESTALE)
		return -EBADMSG;
	if (ret)
		return ret;
	t->max_age = (now_ns() - start) * AGE_FACTOR;
	t->loaded_at = age_now_ns();
	/* the change seen during the read was consumed: the next call looks */
	t->stale = changed;
	t->snap = snap_cur;
	if (t->max_age < AGE_MIN_NS)
		t->max_age = AGE_MIN_NS;
	if (t->max_age > AGE_MAX_NS)
		t->max_age = AGE_MAX_NS;
	t->has_ns_id = 0;
	if (mntkit__emul_have_ns_id) {
		fd = t->held ? fcntl(t->ns_fd, F_DUPFD_CLOEXEC, 3) :
			       mntkit__proc_open(t->pid, "ns/mnt", O_RDONLY);
		if (fd >= 0) {
			if (ioctl(fd, MNTKIT_NS_GET_MNTNS_ID, &id) == 0) {
				t->has_ns_id = 1;
				t->ns_id = id;
			}
			close(fd);
		}
	}
	return 0;
}

/* a loaded table serves a request that needs @ids (see IDS_*) */
static int ids_ok(const struct table *t, int ids)
{
	if (ids == IDS_OLD)
		return !t->unique_mode;
	return ids == IDS_ANY || t->unique_mode == mntkit__emul_have_unique;
}

/*
 * What a backend call about @ids[0..@n) needs of the table: old IDs
 * (IDS_OLD) where its pinned call asked MNTKIT_OPTS_F_CHEAP_IDS and
 * none of @ids is a unique ID (an ID above 2^31 asked for is looked up
 * as without the flag), else IDS_BACKEND. ~0 (LSMT_ROOT, a reverse
 * listing's start) is no ID.
 */
int mntkit__emul_ids_wanted(const uint64_t *ids, size_t n)
{
	if (!mntkit__emul_have_unique || !mntkit__emul_cheap_ids())
		return IDS_BACKEND;
	for (size_t k = 0; k < n; k++)
		if (!low_id(ids[k]) && ids[k] != ~0ULL)
			return IDS_BACKEND;
	return IDS_OLD;
}

/*
 * The table of the calling thread's namespace, current.
 *
 * The common case costs two system calls: statx of "/" and poll on the
 * open mountinfo. The root's mount ID names the namespace: the cached
 * table's open mountinfo pins its namespace, and so that namespace's root
 * mount, whose ID therefore belongs to no other mount while the table is
 * open; setns() and unshare() give the thread another root mount. The
 * exception is a root mount detached from the namespace (pivot_root and
 * umount), which poll reports: so before a reload, and whenever statx
 * gives no mount ID, the namespace is checked through procfs too.
 */
int mntkit__emul_self_table(struct table **out, int ids)
{
	struct table *t = &self_tab;
	dev_t dev, rdev;
	ino_t ino, rino;
	uint64_t rmnt;
	int ret, same_root;

	ret = root_ident(&rdev, &rino, &rmnt);
	if (ret)
		return ret;
	same_root = t->fd >= 0 && rdev == t->root_dev && rino == t->root_ino &&
		    rmnt == t->root_mnt;
	if (same_root && rmnt && t->loaded && ids_ok(t, ids) &&
	    table_current(t)) {
		*out = t;
		return 0;
	}
	if (same_root) {
		ret = ns_inode(0, &dev, &ino);
		if (ret)
			return ret;
		same_root = dev == t->ns_dev && ino == t->ns_ino;
	}
	if (!same_root) {
		ret = table_open(t, 0);
		if (ret)
			return ret;
	} else if (!rmnt && t->loaded && ids_ok(t, ids) && table_current(t)) {
		*out = t;
		return 0;
	}
	ret = table_load(t, ids);
	if (ret)
		return ret;
	*out = t;
	return 0;
}

void mntkit__emul_snapshot(int begin)
{
	if (!begin) {
		snap_cur = 0;
		return;
	}
	pthread_mutex_lock(&mntkit__emul_lock);
	snap_cur = ++snap_serial ? snap_serial : ++snap_serial;
	pthread_mutex_unlock(&mntkit__emul_lock);
}

/* ---- foreign namespaces ---- */

struct ns_want {
	int by_id;            /* else by inode */
	int fd;               /* by inode: the request's nsfs fd */
	uint64_t id;
	dev_t dev;
	ino_t ino;
};

static int ns_id_of(pid_t pid, uint64_t *id)
{
	int fd, ret = 0;

	fd = mntkit__proc_open(pid, "ns/mnt", O_RDONLY);
	if (fd < 0)
		return fd;
	if (ioctl(fd, MNTKIT_NS_GET_MNTNS_ID, id))
		ret = -errno;
	close(fd);
	return ret;
}

/* the search of find_pid(): the namespaces seen, the best PID so far */
struct pid_find {
	const struct ns_want *w;
	struct ns_seen {
		dev_t dev;
		ino_t ino;
		int match;
	} seen[64];
	size_t nseen;
	long best;
};

static int find_each(void *ctx, pid_t pid)
{
	struct pid_find *f = ctx;
	const struct ns_want *w = f->w;
	long p = pid;
	dev_t dev;
	ino_t ino;
	size_t k;
	int match = 0;

	if (f->best > 0 && p >= f->best)
		return 0;
	if (ns_inode((pid_t)p, &dev, &ino))
		return 0;
	if (!w->by_id) {
		match = dev == w->dev && ino == w->ino;
	} else {
		for (k = 0; k < f->nseen; k++)
			if (f->seen[k].dev == dev && f->seen[k].ino == ino)
				break;
		if (k < f->nseen) {
			match = f->seen[k].match;
		} else {
			uint64_t id;

			match = ns_id_of((pid_t)p, &id) == 0 && id == w->id;
			if (f->nseen < MNTKIT_ARRAY_SIZE(f->seen))
				f->seen[f->nseen++] =
					(struct ns_seen){ dev, ino, match };
		}
	}
	if (match)
		f->best = p;
	return 0;
}

/* a process in the wanted namespace: the lowest PID; -ENOENT if none */
static int find_pid(const struct ns_want *w, pid_t *pid)
{
	struct pid_find f = { .w = w, .best = -1 };
	int ret = mntkit__proc_each_pid(find_each, &f);

	if (ret)
		return ret;
	if (f.best < 0)
		return -ENOENT;
	*pid = (pid_t)f.best;
	return 0;
}

/*
 * Namespaces held by the library's callers (watches: mntkit__emul_ns_hold())
 * through an nsfs fd each, by inode, with its ID where the kernel has them.
 * Under @mntkit__emul_lock.
 */
static struct held_ns {
	dev_t dev;
	ino_t ino;
	uint64_t id; /* 0: none */
	int fd;
	unsigned int refs;
} *held_v;
static size_t held_n, held_cap;

int mntkit__emul_ns_hold(int ns_fd, dev_t *dev, ino_t *ino)
{
	uint64_t id = 0;
	size_t i;
	int ret;

	ret = mntkit__stat_ident(ns_fd, "", AT_EMPTY_PATH, dev, ino);
	if (ret)
		return ret;
	mntkit__emul_caps();
	if (mntkit__emul_have_ns_id &&
	    ioctl(ns_fd, MNTKIT_NS_GET_MNTNS_ID, &id))
		id = 0;
	pthread_mutex_lock(&mntkit__emul_lock);
	for (i = 0; i < held_n; i++)
		if (held_v[i].dev == *dev && held_v[i].ino == *ino)
			break;
	if (i < held_n) {
		held_v[i].refs++;
	} else if (mntkit__reserve(&held_v, &held_cap, held_n + 1,
				   sizeof(*held_v), 8)) {
		ret = -ENOMEM;
	} else {
		int fd = fcntl(ns_fd, F_DUPFD_CLOEXEC, 3);

		if (fd < 0)
			ret = -errno;
		else
			held_v[held_n++] = (struct held_ns){
				.dev = *dev, .ino = *ino, .id = id,
				.fd = fd, .refs = 1 };
	}
	pthread_mutex_unlock(&mntkit__emul_lock);
	return ret;
}

void mntkit__emul_ns_release(dev_t dev, ino_t ino)
{
	pthread_mutex_lock(&mntkit__emul_lock);
	for (size_t i = 0; i < held_n; i++) {
		if (held_v[i].dev != dev || held_v[i].ino != ino)
			continue;
		if (!--held_v[i].refs) {
			close(held_v[i].fd);
			held_v[i] = held_v[--held_n];
		}
		break;
	}
	if (!held_n) {
		free(held_v);
		held_v = NULL;
		held_cap = 0;
	}
	pthread_mutex_unlock(&mntkit__emul_lock);
}

/*
 * An nsfs fd of the wanted namespace, which no process is in: a held
 * one's, the request's own, or the kernel's walk's (6.12+, from the
 * initial namespace: NS_MNT_GET_PREV answers EPERM from others on 6.18).
 */
static int held_find(const struct ns_want *w)
{
	for (size_t i = 0; i < held_n; i++)
		if (w->by_id ? held_v[i].id == w->id :
			       held_v[i].dev == w->dev && held_v[i].ino == w->ino)
			return fcntl(held_v[i].fd, F_DUPFD_CLOEXEC, 3);
	if (!w->by_id)
		return fcntl(w->fd, F_DUPFD_CLOEXEC, 3);
	return mntkit__nsfs_open_id(w->id);
}

/* does a watch hold @t's namespace? */
static int held_registered(const struct table *t)
{
	for (size_t i = 0; i < held_n; i++)
		if (held_v[i].dev == t->ns_dev && held_v[i].ino == t->ns_ino)
			return 1;
	return 0;
}

/* the cached foreign table, if it still is the wanted namespace */
static int other_matches(const struct ns_want *w)
{
	struct table *t = &other_tab;
	dev_t dev;
	ino_t ino;

	if (t->fd < 0 || !t->loaded || t->pid_only)
		return 0;
	if (w->by_id ? (!t->has_ns_id || t->ns_id != w->id) :
		       (t->ns_dev != w->dev || t->ns_ino != w->ino))
		return 0;
	/*
	 * Kept alive by its nsfs fd, which also pins it: by fd, the
	 * caller's keeps it; by ID, only while a watch holds it or the read
	 * is fresh, lest the pin keep answering for a namespace the caller
	 * has let go of (the kernel then says ENOENT)
	 */
	if (t->held)
		return !w->by_id || held_registered(t) || !table_aged(t);
	/* the process is still there and still in it */
	return ns_inode(t->pid, &dev, &ino) == 0 && dev == t->ns_dev &&
	       ino == t->ns_ino;
}

static int other_table(const struct ns_want *w, struct table **out, int ids)
{
	struct table *t = &other_tab;
	pid_t pid = 0;
	int ret;

	if (other_matches(w)) {
		if (!ids_ok(t, ids) || !table_current(t)) {
			ret = table_load(t, ids);
			if (ret)
				return ret;
		}
		*out = t;
		return 0;
	}
	if (t->held)
		table_close(t); /* its pins go before the namespace is sought */
	ret = find_pid(w, &pid);
	if (ret == -ENOENT) {
		/* kept by a file or a bind mount: entered, if reachable */
		int fd = held_find(w);

		if (fd < 0)
			return -ENOENT;
		ret = table_open_held(t, fd);
		if (!ret)
			ret = table_load(t, ids);
		if (ret) {
			table_close(t);
			return ret == -EPERM ? -EPERM : -ENOENT;
		}
		*out = t;
		return 0;
	}
	if (ret)
		return ret;
	ret = table_open(t, pid);
	if (!ret)
		ret = table_load(t, ids);
	if (ret) {
		table_close(t);
		return ret;
	}
	*out = t;
	return 0;
}

/*
 * The process whose mountinfo alone this thread's pinned call reads
 * (mntkit__pin_mountinfo_of() in backend.c sets it, the end of the pin
 * clears it); 0: none.
 */
static MNTKIT__TLS pid_t read_pid;

void mntkit__emul_set_pid(pid_t pid)
{
	read_pid = pid;
}

pid_t mntkit__emul_pid(void)
{
	return read_pid;
}

/*
 * This thread's pinned call asked MNTKIT_OPTS_F_CHEAP_IDS
 * (mntkit__pin_cheap_ids() in backend.c sets it, the end of the pin
 * clears it): the emulation names mounts by their old IDs.
 */
static MNTKIT__TLS int cheap_ids;

void mntkit__emul_set_cheap_ids(int on)
{
	cheap_ids = on;
}

int mntkit__emul_cheap_ids(void)
{
	return cheap_ids;
}

/*
 * The namespace of process @pid whose nsfs file the caller may not open
 * (read_pid, set by a pinned call: mntkit__pin_mountinfo_of()), read from its mountinfo alone: it cannot be
 * named, so the cached table is taken for it while it is the same
 * process's and its change signal and age say it is current. Its root is
 * refused too: its mount points are never looked at, so each mount is
 * named by its old ID.
 */
static int pid_table(pid_t pid, struct table **out, int ids)
{
	struct table *t = &other_tab;
	int ret;

	if (t->fd >= 0 && t->loaded && t->pid_only && t->pid == pid &&
	    ids_ok(t, ids) && table_current(t)) {
		*out = t;
		return 0;
	}
	table_close(t);
	t->pid = pid;
	t->pid_only = 1;
	t->at = mntkit__proc_path(t->prefix, sizeof(t->prefix), pid, "root");
	t->fd = mntkit__proc_open(pid, "mountinfo", O_RDONLY);
	if (t->fd < 0) {
		ret = t->fd == -EACCES ? -EPERM : t->fd;
		table_close(t);
		return ret;
	}
	table_follow(t);
	ret = table_load(t, ids);
	if (ret) {
		table_close(t);
		return ret;
	}
	*out = t;
	return 0;
}

/*
 * The table a request is about: the caller's namespace, or the one of
 * mnt_ns_id / mnt_ns_fd. Errors as the kernel's grab_requested_mnt_ns().
 */
int mntkit__emul_request_table(const struct mntkit_mnt_id_req *req,
			       struct table **out, int ids)
{
	struct ns_want w = { 0 };
	dev_t dev = 0;
	ino_t ino = 0;
	int ret, type;

	if (req->mnt_ns_id && req->mnt_ns_fd)
		return -EINVAL;
	if (!req->mnt_ns_id && !req->mnt_ns_fd && read_pid > 0)
		return pid_table(read_pid, out, ids);
	if (!req->mnt_ns_id && !req->mnt_ns_fd)
		return mntkit__emul_self_table(out, ids);
	if (req->mnt_ns_fd) {
		int fd = (int)req->mnt_ns_fd;

		if (fd < 0 ||
		    mntkit__stat_ident(fd, "", AT_EMPTY_PATH, &w.dev, &w.ino))
			return -EBADF;
		w.fd = fd;
		type = ioctl(fd, MNTKIT_NS_GET_NSTYPE);
		if (type < 0 || type != CLONE_NEWNS)
			return -EINVAL;
	} else {
		if (!mntkit__emul_have_ns_id)
			return -ENOENT;
		w.by_id = 1;
		w.id = req->mnt_ns_id;
	}
	/* our own namespace, named */
	ret = ns_inode(0, &dev, &ino);
	if (ret)
		return ret;
	if (w.by_id) {
		uint64_t own;

		if (ns_id_of(0, &own) == 0 && own == w.id)
			return mntkit__emul_self_table(out, ids);
	} else if (w.dev == dev && w.ino == ino) {
		return mntkit__emul_self_table(out, ids);
	}
	return other_table(&w, out, ids);
}

/*
 * A foreign namespace asked for by ID needs CAP_SYS_ADMIN over its
 * owner (6.8+; statmount answers EPERM, listmount ENOENT): is @t such a
 * namespace the caller may not look at? (kernels/lib/ns.c does the
 * check; by fd, the kernel checks nothing)
 */
int mntkit__emul_foreign_denied(const struct mntkit_mnt_id_req *req,
				const struct table *t)
{
	int fd, ret;

	if (!req->mnt_ns_id || t != &other_tab)
		return 0;
	if (t->held)
		return mntkit__ns_admin(t->ns_fd) == 0;
	fd = mntkit__proc_open(t->pid, "ns/mnt", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0; /* the table was read: as before */
	ret = mntkit__ns_admin(fd);
	close(fd);
	return ret == 0;
}
