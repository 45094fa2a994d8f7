// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The mountinfo backend: statmount(2) and listmount(2) emulated over
 * /proc/<pid>/mountinfo, for kernels without the system calls (or where a
 * seccomp filter hides them). It never calls statmount/listmount.
 *
 * IDs. Where statx(2) has STATX_MNT_ID_UNIQUE (6.8+), a mount is named by
 * its unique ID, read with statx on an O_PATH fd of its mount point after
 * checking, on that same fd, that STATX_MNT_ID is the mount's old ID (the
 * point resolves to this very mount). A mount whose point does not resolve
 * to it (overmounted, stacked under another mount, point deleted) has no
 * readable unique ID: it is named by its old ID (<= 2^31, which no unique
 * ID can be), and so is a parent that is not in the table (the parent of
 * the caller's root mount), and so is a mount of a network or FUSE
 * filesystem, or one whose mount point path crosses such a mount: no path
 * is ever resolved through a served filesystem (mark_served_paths()). Without
 * unique IDs, every mount is named by its old (reused) ID. An ID <= 2^31
 * is accepted as mnt_id (and as listmount's cursor) exactly when it can
 * name a mount of the table.
 *
 * Hidden mounts (the decision): a mount whose point does not resolve to it
 * keeps its old ID as its name here: its unique ID cannot be read without
 * statmount, and the old ID cannot collide with a unique one. listmount
 * lists it in that place (old IDs sort first; mntkit_list_order() gives
 * mountinfo's order, findmnt's), statmount answers for it, and
 * mntkit_path_id() of a path on it names it the same way. A mount that
 * moves is hidden for a moment, so one load names it by its old ID and the
 * next by its unique one: where the memo proves it the same mount (old ID
 * X was unique ID U, X still in the table on that device), statmount and
 * the snapshot batch find it by the name it had (renamed_entry()), and a
 * snapshot asks which of the IDs it does not find is a parent above the
 * caller's root (mntkit__emul_parent_outside()). The hybrid
 * replies (below) do not have this limit: they find the mount by the old
 * ID the kernel reports for the unique one asked about.
 *
 * Hybrid replies (mntkit__emul_hybrid(), for the native backend on kernels
 * whose statmount lacks groups): the kernel is asked for its groups and
 * MNT_BASIC, the emulation fills the others from the line of the kernel's
 * old ID, and the reply is laid out as a kernel with every group lays it
 * (its string order, sizes and EOVERFLOW rule). The line is that mount's
 * because the table was current when the kernel answered and poll reports
 * no change since, or (under churn) because the table was read between two
 * replies of the kernel about that mount (see hybrid_match()). A mount that
 * is not in mountinfo (outside the caller's root) gets the kernel's groups
 * only. supported_mask is the kernel's groups and the emulation's. The
 * hybrid needs no unique IDs from the table (IDS_ANY), so the tables it
 * loads look at no mount point.
 *
 * Cache. One parsed table of the calling thread's namespace (and one of
 * the last foreign namespace asked for), with its mountinfo file kept open.
 * Every call first checks, in two system calls, that the table is
 * current: the root and its mount (statx of "/", which also stands for the
 * namespace: see self_table()), and a poll of the open mountinfo, which
 * reports POLLPRI when the namespace's mount table changed (mount, umount,
 * move, remount): epoll_wait() on an epoll set that holds it, which costs
 * half a poll() when nothing happened (poll() where epoll is refused). So
 * listmount + statmount of every mount costs one parse.
 * A reload keeps what earlier loads proved (old ID X was unique ID U) and
 * re-proves it with one statx of the mount point (see probe_again()), so a
 * table that changed a little costs one lookup per mount, not four.
 * Staleness: a signalled change is seen by the next call. The kernel does
 * not signal propagation type changes (make-shared/-slave/-private/
 * -unbindable) nor superblock changes made by a filesystem itself (ext4
 * turning read-only after an error): those are seen once the table is
 * older than 8x the time its read took (2 ms .. 250 ms, see AGE_*).
 *
 * Testing knob: MNTKIT_TEST_OLD_IDS=1 in the environment, read once with
 * the probes (probe_caps()), makes the emulation take the kernel for one
 * without unique IDs (< 6.8): have_unique stays 0, and everything follows
 * from it as on such a kernel, on the same code path: every mount is named
 * by its old ID (no mount point is looked up to learn IDs), listmount
 * orders by old ID, path_id gives STATX_MNT_ID, and mntkit_get_features()
 * reports no unique IDs while this backend is in effect
 * (mntkit__emul_unique_ids()). It is for tests and benchmarks only: it lets
 * them check and measure the emulation of old kernels on a new one. The
 * native backend is unchanged (its hybrid replies take no IDs from here).
 */
#include <dirent.h>
#include <stddef.h>
#include <fcntl.h>
#include <poll.h>
#include <sys/epoll.h>
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

#include "internal.h"
#include "mountinfo.h"
#include "syscall.h"

#define NS_GET_NSTYPE _IO(MNTKIT_NSIO, 0x3)

/* the groups that need the string area (the kernel's STATMOUNT_STRING_REQ) */
#define STRING_REQ                                                             \
	(MNTKIT_STATMOUNT_MNT_ROOT | MNTKIT_STATMOUNT_MNT_POINT |              \
	 MNTKIT_STATMOUNT_FS_TYPE | MNTKIT_STATMOUNT_MNT_OPTS |                \
	 MNTKIT_STATMOUNT_FS_SUBTYPE | MNTKIT_STATMOUNT_SB_SOURCE |            \
	 MNTKIT_STATMOUNT_OPT_ARRAY | MNTKIT_STATMOUNT_OPT_SEC_ARRAY |         \
	 MNTKIT_STATMOUNT_MNT_UIDMAP | MNTKIT_STATMOUNT_MNT_GIDMAP)

/* re-reads of a table that keeps changing while it is read */
#define LOAD_TRIES 16
/* reads that do not parse before giving up (a torn read is rare) */
#define LOAD_TRIES_TORN 256

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

/*
 * What a request needs of a table's IDs. The backend's calls name mounts
 * by unique ID where the kernel has them (IDS_BACKEND: the table must be
 * loaded in unique mode then). The hybrid replies find the line by the
 * old ID the kernel reported (IDS_ANY): a table they load resolves no
 * unique IDs, so no mount point is walked (which could block on a dead
 * network server), and they use a table loaded either way.
 */
#define IDS_BACKEND 0
#define IDS_ANY     1

/* a key that is an old ID (a hidden mount's), not a unique ID */
static inline int low_key(uint64_t key)
{
	return key <= MNTKIT_MNT_UNIQUE_ID_OFFSET;
}

/* installs the /proc handle (the tables' lock may be held around it) */
static pthread_mutex_t lock_proc = PTHREAD_MUTEX_INITIALIZER;

/* ---- /proc, held ---- */

/*
 * Everything the emulation knows comes from procfs. A process that chroots
 * into a directory without /proc (the kernel's statmount selftests do)
 * keeps its answers when it could see /proc before: an O_PATH fd of /proc,
 * opened at the emulation's first use (or by mntkit_init()) and held for
 * the life of the process, through which every procfs file is opened with
 * *at(). It is O_CLOEXEC (a new program opens its own); a fork shares it,
 * and "thread-self" in it names the calling thread whoever that is, so it
 * serves children and threads alike. It is kept only when it is a procfs
 * in which the calling thread is visible (a procfs of another PID
 * namespace, e.g. an ancestor's, is fine; one that does not see us is not
 * kept), and it is used only while the fd number is still that procfs
 * (checked before each table is opened: a program may close fds it did not
 * open). The paths "/proc/..." serve when there is no handle.
 */
#define PROC_SUPER_MAGIC_ 0x9fa0

static int proc_fd = -1;    /* atomic; -1: none */
static dev_t proc_dev;      /* of proc_fd, written before it is */
static ino_t proc_ino;

/* open /proc and check it; an fd or -errno */
static int proc_open_dir(dev_t *dev, ino_t *ino)
{
	struct statfs sfs;
	dev_t d;
	ino_t i;
	int fd, ret;

	fd = open("/proc", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	ret = fstatfs(fd, &sfs) ? -errno : 0;
	if (!ret && sfs.f_type != PROC_SUPER_MAGIC_)
		ret = -ENOENT; /* not a procfs: no procfs files here */
	if (!ret)
		ret = mntkit__stat_ident(fd, "", AT_EMPTY_PATH, dev, ino);
	/* our thread must be visible in it */
	if (!ret)
		ret = mntkit__stat_ident(fd, "thread-self", 0, &d, &i);
	if (ret) {
		close(fd);
		return ret;
	}
	return fd;
}

/* take /proc as the handle unless one is held; 0 or -errno */
static int proc_grab(void)
{
	int fd, taken = 0;
	dev_t dev;
	ino_t ino;

	if (__atomic_load_n(&proc_fd, __ATOMIC_ACQUIRE) >= 0)
		return 0;
	fd = proc_open_dir(&dev, &ino);
	if (fd < 0)
		return fd;
	pthread_mutex_lock(&lock_proc);
	if (__atomic_load_n(&proc_fd, __ATOMIC_RELAXED) < 0) {
		proc_dev = dev;
		proc_ino = ino;
		__atomic_store_n(&proc_fd, fd, __ATOMIC_RELEASE);
		taken = 1;
	}
	pthread_mutex_unlock(&lock_proc);
	if (!taken)
		close(fd); /* another thread was first */
	return 0;
}

/* the handle, or -1 (none: the caller uses "/proc/...") */
static int proc_handle(void)
{
	int fd = __atomic_load_n(&proc_fd, __ATOMIC_ACQUIRE);

	if (fd < 0 && proc_grab() == 0)
		fd = __atomic_load_n(&proc_fd, __ATOMIC_ACQUIRE);
	return fd;
}

/*
 * Is the handle still the procfs it was opened on? If its fd number now
 * names another file (the program closed it), it is let go (not closed:
 * the number is someone else's now) and /proc is taken again.
 */
static void proc_check(void)
{
	int fd = __atomic_load_n(&proc_fd, __ATOMIC_ACQUIRE);
	dev_t dev;
	ino_t ino;

	if (fd < 0)
		return;
	if (mntkit__stat_ident(fd, "", AT_EMPTY_PATH, &dev, &ino) == 0 &&
	    dev == proc_dev && ino == proc_ino)
		return;
	pthread_mutex_lock(&lock_proc);
	if (__atomic_load_n(&proc_fd, __ATOMIC_RELAXED) == fd)
		__atomic_store_n(&proc_fd, -1, __ATOMIC_RELEASE);
	pthread_mutex_unlock(&lock_proc);
	proc_grab();
}

/*
 * The procfs file @what of @pid (0: the calling thread) for *at() calls:
 * writes the path to @out and returns the dirfd it is relative to.
 */
static int proc_path(char *out, size_t len, pid_t pid, const char *what)
{
	int at = proc_handle();
	const char *pre = at >= 0 ? "" : "/proc/";

	if (pid)
		snprintf(out, len, "%s%d/%s", pre, (int)pid, what);
	else
		snprintf(out, len, "%sthread-self/%s", pre, what);
	return at >= 0 ? at : AT_FDCWD;
}

/* open @rel below /proc ("self/fdinfo/3"); an fd or -errno */
static int proc_open_rel(const char *rel, int flags)
{
	char path[96];
	int at = proc_handle(), fd;

	if (at < 0) {
		snprintf(path, sizeof(path), "/proc/%s", rel);
		rel = path;
	}
	fd = openat(at >= 0 ? at : AT_FDCWD, rel, flags | O_CLOEXEC);
	return fd < 0 ? -errno : fd;
}

int mntkit__proc_open(pid_t pid, const char *what, int flags)
{
	char path[96];
	int at = proc_path(path, sizeof(path), pid, what);
	int fd = openat(at, path, flags | O_CLOEXEC);

	return fd < 0 ? -errno : fd;
}

static void caps(void);

int mntkit_init(unsigned int flags)
{
	int ret;

	if (flags)
		return mntkit__fail(EINVAL);
	caps();
	ret = proc_grab();
	mntkit__ops(); /* the backend is chosen now too */
	return ret ? mntkit__fail(-ret) : 0;
}

/* ---- probes, once per process ---- */

static pthread_once_t caps_once = PTHREAD_ONCE_INIT;
static int have_unique;  /* statx STATX_MNT_ID_UNIQUE, and no knob */
static int have_ns_id;   /* ioctl NS_GET_MNTNS_ID */
static long page_size;   /* the kernel's limit of a request's size */

/* MNTKIT_TEST_OLD_IDS=1: behave as on a kernel without unique IDs */
static int test_old_ids(void)
{
	const char *s = mntkit__env(MNTKIT__ENV_TEST_OLD_IDS);

	return s && !strcmp(s, "1");
}

static void probe_caps(void)
{
	struct statx stx;
	uint64_t id;
	int fd;

	page_size = sysconf(_SC_PAGESIZE);
	memset(&stx, 0, sizeof(stx));
	if (!test_old_ids() &&
	    statx(AT_FDCWD, "/", AT_STATX_DONT_SYNC, MNTKIT_STATX_MNT_ID_UNIQUE,
		  &stx) == 0 &&
	    (stx.stx_mask & MNTKIT_STATX_MNT_ID_UNIQUE))
		have_unique = 1;
	proc_grab(); /* the first use: hold /proc from now on */
	fd = mntkit__proc_open(0, "ns/mnt", O_RDONLY);
	if (fd < 0)
		fd = mntkit__own_ns_fd(); /* no /proc: pidfd (6.11+) */
	if (fd >= 0) {
		if (ioctl(fd, MNTKIT_NS_GET_MNTNS_ID, &id) == 0)
			have_ns_id = 1;
		close(fd);
	}
}

static void caps(void)
{
	pthread_once(&caps_once, probe_caps);
}

int mntkit__emul_unique_ids(void)
{
	caps();
	return have_unique;
}

uint64_t mntkit__emul_supported_mask(void)
{
	uint64_t mask = MNTKIT_STATMOUNT_SB_BASIC | MNTKIT_STATMOUNT_MNT_BASIC |
			MNTKIT_STATMOUNT_PROPAGATE_FROM |
			MNTKIT_STATMOUNT_MNT_ROOT | MNTKIT_STATMOUNT_MNT_POINT |
			MNTKIT_STATMOUNT_FS_TYPE | MNTKIT_STATMOUNT_MNT_OPTS |
			MNTKIT_STATMOUNT_FS_SUBTYPE |
			MNTKIT_STATMOUNT_SB_SOURCE |
			MNTKIT_STATMOUNT_OPT_ARRAY |
			MNTKIT_STATMOUNT_OPT_SEC_ARRAY |
			MNTKIT_STATMOUNT_SUPPORTED_MASK;

	caps();
	if (have_ns_id)
		mask |= MNTKIT_STATMOUNT_MNT_NS_ID;
	return mask;
}

/* ---- the tables ---- */

/* what the mount point of an entry told */
struct probe {
	uint8_t ids_done;
	uint8_t statfs_done;
	uint8_t verified;     /* the point resolves to this very mount */
	uint8_t has_unique;
	uint8_t has_f_type;
	uint8_t no_look;      /* its point is reached through a served mount */
	uint64_t unique;
	uint64_t f_type;
};

/* a mount point string of a table */
struct point_ref {
	const char *s;
	size_t len;
};

/* what fsmagic.c tells of a filesystem type */
struct fstype {
	struct mntkit_mi_span name; /* of one entry of that type */
	uint64_t magic;       /* when known */
	uint8_t known;        /* the type's magic is in fsmagic.c's table */
	uint8_t statfs_ok;    /* statfs tells the magic without side effects */
};

/* the distinct types a table keeps (more are looked up at each use) */
#define MAX_TYPES 64
#define NO_TYPE UINT8_MAX

/* a verified probe, remembered across reloads */
struct memo {
	uint32_t old;
	uint32_t has_f_type;
	uint32_t major, minor; /* the line's st_dev, when it was proved */
	uint64_t unique;
	uint64_t f_type;
};

struct table {
	int fd;               /* the open mountinfo; -1: empty slot */
	int ep;               /* epoll set of fd (POLLPRI), or -1: poll() */
	pid_t pid;            /* 0: the calling thread */
	dev_t ns_dev;         /* nsfs inode of the namespace */
	ino_t ns_ino;
	dev_t root_dev;       /* self: the root when opened */
	ino_t root_ino;
	uint64_t root_mnt;
	char prefix[48];      /* "" or "[/proc/]PID/root" */
	int at;               /* the dirfd the prefix is relative to */
	char *buf;
	size_t cap;
	size_t len;
	struct mntkit_mi_table mi;
	struct mntkit_mindex ix;
	struct probe *probe;  /* per entry; zero until its point is looked at */
	uint8_t *type;        /* per entry: its index in types[], or NO_TYPE */
	struct fstype types[MAX_TYPES];
	size_t ntypes;
	uint64_t *keys;
	struct point_ref *served; /* the served mounts' points, sorted */
	size_t nserved;
	/*
	 * What the last loads proved, kept across reloads: old ID X was the
	 * mount of unique ID U (a fact for as long as U lives), sorted by X.
	 */
	struct memo *memo;
	size_t nmemo;
	long long loaded_at;  /* CLOCK_MONOTONIC ns when the read ended */
	long long max_age;    /* re-read when older than this */
	uint32_t *groups;     /* the peer groups of the table, sorted */
	size_t ngroups;
	int loaded;
	unsigned int snap;    /* the snapshot window it was loaded in, or 0 */
	int stale;            /* known to be out of date: reload */
	int has_hidden;       /* some key is an old ID (unique mode) */
	int unique_mode;
	int has_ns_id;
	uint64_t ns_id;
	size_t next_pos;      /* by_key position after the last one found */
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

/*
 * Snapshot windows (mntkit__emul_snapshot(), for watches): between its
 * begin and end, a thread's first load reads mountinfo once, even if the
 * table changed meanwhile (one read is whole: every mount that lives
 * throughout it is in it, once, under its own line), and that table
 * serves the rest of the window unchecked, so a listing and the
 * statmounts of its IDs are of one read. The watch learns of what changed
 * since from its own POLLPRI.
 */
static __thread unsigned int snap_cur; /* 0: not in a window */
static unsigned int snap_serial;       /* under @lock */
static pthread_once_t atfork_once = PTHREAD_ONCE_INIT;
static struct table self_tab = { .fd = -1, .ep = -1 };
static struct table other_tab = { .fd = -1, .ep = -1 };

/*
 * The provisional (old) IDs this process was ever given for hidden mounts.
 * Once such a mount is gone its ID names nothing: asking for it then gets
 * ENOENT, like any vanished mount, not the EINVAL of an ID that was never
 * valid. With each, its place in the listing when it was last seen: the
 * unique ID listed before it (0: none), so that a listing whose cursor is
 * a hidden mount gone since goes on from there. Under @lock.
 */
struct issued_id {
	uint64_t id;
	uint64_t base;
};

static struct {
	struct issued_id *v;
	size_t n, cap;
} issued;

static ssize_t issued_pos(uint64_t id, int *found)
{
	size_t lo = 0, hi = issued.n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (issued.v[mid].id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	*found = lo < issued.n && issued.v[lo].id == id;
	return (ssize_t)lo;
}

static int issued_has(uint64_t id)
{
	int found;

	issued_pos(id, &found);
	return found;
}

/* the unique ID listed before hidden mount @id when it was last seen */
static uint64_t issued_base(uint64_t id)
{
	int found;
	ssize_t pos = issued_pos(id, &found);

	return found ? issued.v[pos].base : 0;
}

static void issued_set_base(uint64_t id, uint64_t base)
{
	int found;
	ssize_t pos = issued_pos(id, &found);

	if (found)
		issued.v[pos].base = base;
}

static int issued_add(uint64_t id)
{
	int found;
	size_t pos = (size_t)issued_pos(id, &found);

	if (found)
		return 0;
	if (issued.n == issued.cap) {
		size_t cap = issued.cap ? issued.cap * 2 : 64;
		struct issued_id *v = realloc(issued.v, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		issued.v = v;
		issued.cap = cap;
	}
	memmove(issued.v + pos + 1, issued.v + pos,
		(issued.n - pos) * sizeof(*issued.v));
	issued.v[pos] = (struct issued_id){ id, 0 };
	issued.n++;
	return 0;
}

/*
 * A parent outside the table (the one of "/", above a chroot) is named by
 * its old ID in mnt_parent_id (see parent_key()): that ID was handed out
 * too, so asking for it answers ENOENT (not in this table), not EINVAL.
 */
static int issue_outside_parents(const struct table *t)
{
	for (size_t i = 0; i < t->mi.n && t->unique_mode; i++) {
		const struct mntkit_mi *m = &t->mi.v[i];

		if (t->ix.parent[i] < 0 && m->parent != m->id &&
		    issued_add(m->parent))
			return -ENOMEM;
	}
	return 0;
}

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
	pthread_mutex_lock(&lock);
}

static void atfork_parent(void)
{
	pthread_mutex_unlock(&lock);
}

static void atfork_child(void)
{
	table_close(&self_tab);
	table_close(&other_tab);
	pthread_mutex_unlock(&lock);
}

static void setup_atfork(void)
{
	pthread_atfork(atfork_prepare, atfork_parent, atfork_child);
}

static int ns_inode(pid_t pid, dev_t *dev, ino_t *ino)
{
	char path[64];

	int at;

	*dev = 0; /* set on failure too: -errno is not known non-zero */
	*ino = 0;
	at = proc_path(path, sizeof(path), pid, "ns/mnt");
	return mntkit__stat_ident(at, path, 0, dev, ino);
}

/*
 * The caller's root: its inode and the ID of its mount. With unique IDs
 * the root mount's unique ID also names the namespace (a mount belongs to
 * one namespace, and setns() and unshare() give the thread another root
 * mount), so this one statx stands for the namespace check.
 */
static int root_ident(dev_t *dev, ino_t *ino, uint64_t *mnt)
{
	unsigned int want = have_unique ? MNTKIT_STATX_MNT_ID_UNIQUE :
					  MNTKIT_STATX_MNT_ID;
	struct statx stx; /* every call: not zeroed, the kernel writes it all */

	*dev = 0; /* set on failure too: -errno is not known non-zero */
	*ino = 0;
	*mnt = 0;
	if (mntkit__native_refused(MNTKIT_REFUSED_STATX)) /* seccomp */
		return mntkit__root_ident_nostatx(dev, ino, mnt);
	if (statx(AT_FDCWD, "/", AT_STATX_DONT_SYNC, STATX_INO | want, &stx))
		return -errno;
	*dev = makedev(stx.stx_dev_major, stx.stx_dev_minor);
	*ino = stx.stx_ino;
	*mnt = (stx.stx_mask & want) ? stx.stx_mnt_id : 0;
	return 0;
}

static int table_open(struct table *t, pid_t pid)
{
	dev_t d2;
	ino_t i2;
	int ret;

	table_close(t);
	t->pid = pid;
	proc_check();
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
		t->at = proc_path(t->prefix, sizeof(t->prefix), pid, "root");
	}
	t->fd = mntkit__proc_open(pid, "mountinfo", O_RDONLY);
	if (t->fd < 0)
		errno = -t->fd;
	if (t->fd < 0)
		return errno == EACCES ? -EPERM : -errno;
	t->ep = epoll_create1(EPOLL_CLOEXEC);
	if (t->ep >= 0) {
		struct epoll_event ev = { .events = EPOLLPRI };

		if (epoll_ctl(t->ep, EPOLL_CTL_ADD, t->fd, &ev)) {
			close(t->ep);
			t->ep = -1;
		}
	}
	/* the namespace did not change under the open */
	ret = ns_inode(pid, &d2, &i2);
	if (ret || d2 != t->ns_dev || i2 != t->ns_ino) {
		table_close(t);
		return ret ? ret : -EAGAIN;
	}
	return 0;
}

/*
 * Has the table changed since the last look? (consumes the event: the
 * file's poll, which epoll calls once the namespace woke it, notes it seen)
 */
static int table_changed(struct table *t)
{
	struct pollfd p = { .fd = t->fd, .events = POLLPRI };
	struct epoll_event ev;

	if (t->ep >= 0)
		return epoll_wait(t->ep, &ev, 1, 0) != 0;
	if (poll(&p, 1, 0) < 0)
		return 1;
	return !!(p.revents & (POLLPRI | POLLERR | POLLNVAL));
}

/* room for "prefix" + a mount point the kernel can resolve */
#define POINT_PATH_MAX (sizeof(((struct table *)0)->prefix) + PATH_MAX)

/*
 * "prefix" + mount point, NUL-terminated, in @buf (POINT_PATH_MAX bytes);
 * NULL when it holds a NUL or is too long for any path lookup (which would
 * fail with ENAMETOOLONG: the mount point cannot be looked at).
 */
static char *point_path(const struct table *t, size_t i, char *buf)
{
	const struct mntkit_mi *m = &t->mi.v[i];
	const char *pt = mntkit__mi_str(&t->mi, m->point);
	size_t pl = strlen(t->prefix);

	if (memchr(pt, '\0', m->point.len) || pl + m->point.len >= PATH_MAX)
		return NULL;
	memcpy(buf, t->prefix, pl);
	memcpy(buf + pl, pt, m->point.len);
	buf[pl + m->point.len] = '\0';
	return buf;
}

int mntkit__fdinfo_mnt_id(int fd, uint64_t *id)
{
	char path[64], buf[1024], *p, *end;
	unsigned long long v;
	ssize_t n;
	int f;

	/* the calling thread's fd table (3.17+), else the process's */
	snprintf(path, sizeof(path), "fdinfo/%d", fd);
	f = mntkit__proc_open(0, path, O_RDONLY);
	if (f == -ENOENT) {
		snprintf(path, sizeof(path), "self/fdinfo/%d", fd);
		f = proc_open_rel(path, O_RDONLY);
	}
	if (f < 0)
		return f;
	n = read(f, buf, sizeof(buf) - 1); /* a few short lines */
	close(f);
	if (n < 0)
		return -errno;
	buf[n] = '\0';
	/* "pos:" comes first, so the field starts a line after it */
	p = strstr(buf, "\nmnt_id:");
	if (!p)
		return -EOPNOTSUPP;
	p += strlen("\nmnt_id:");
	while (*p == ' ' || *p == '\t')
		p++;
	errno = 0;
	v = strtoull(p, &end, 10);
	if (end == p || errno || (*end != '\n' && *end != '\0'))
		return -EOPNOTSUPP;
	*id = v;
	return 0;
}

/*
 * The old mount ID of what @fd refers to: statx STATX_MNT_ID (5.8+), else
 * the fd's fdinfo (3.15+), so that path lookups work on RHEL 8's 4.18 or
 * Debian 10's 4.19 too. 0 or -errno.
 */
static int fd_old_id(int fd, uint64_t *id)
{
	struct statx stx;

	memset(&stx, 0, sizeof(stx));
	if (statx(fd, "", AT_EMPTY_PATH | AT_STATX_DONT_SYNC,
		  MNTKIT_STATX_MNT_ID, &stx) == 0 &&
	    (stx.stx_mask & MNTKIT_STATX_MNT_ID)) {
		*id = stx.stx_mnt_id;
		return 0;
	}
	return mntkit__fdinfo_mnt_id(fd, id);
}

/*
 * Look at the mount point of entry @i through one O_PATH fd: does it
 * resolve to this mount (STATX_MNT_ID == the old ID), its unique ID, and
 * (when @want_statfs) statfs's f_type.
 */
static void probe_point(struct table *t, size_t i, int want_statfs)
{
	struct probe *pr = &t->probe[i];
	char buf[POINT_PATH_MAX];
	struct statx stx;
	struct statfs sfs;
	uint64_t old;
	char *path;
	int fd;

	if (pr->ids_done && (pr->statfs_done || !want_statfs))
		return;
	if (pr->no_look) {
		pr->ids_done = pr->statfs_done = 1;
		return;
	}
	path = point_path(t, i, buf);
	fd = path ? openat(t->at, path, O_PATH | O_NOFOLLOW | O_CLOEXEC) : -1;
	pr->ids_done = 1;
	if (want_statfs)
		pr->statfs_done = 1;
	if (fd < 0)
		return;
	if (fd_old_id(fd, &old) == 0 && old == t->mi.v[i].id)
		pr->verified = 1;
	if (pr->verified && t->unique_mode && !pr->has_unique) {
		memset(&stx, 0, sizeof(stx));
		if (statx(fd, "", AT_EMPTY_PATH | AT_STATX_DONT_SYNC,
			  MNTKIT_STATX_MNT_ID_UNIQUE, &stx) == 0 &&
		    (stx.stx_mask & MNTKIT_STATX_MNT_ID_UNIQUE) &&
		    stx.stx_mnt_id > MNTKIT_MNT_UNIQUE_ID_OFFSET) {
			pr->has_unique = 1;
			pr->unique = stx.stx_mnt_id;
		}
	}
	if (pr->verified && want_statfs && fstatfs(fd, &sfs) == 0) {
		pr->has_f_type = 1;
		pr->f_type = (unsigned long)sfs.f_type;
	}
	close(fd);
}

/* what fsmagic.c tells of the type of entry @i */
static struct fstype type_lookup(const struct table *t, size_t i)
{
	const struct mntkit_mi *m = &t->mi.v[i];
	struct fstype ft = { .name = m->type };
	int ok;

	ft.known = (uint8_t)mntkit__fs_magic(mntkit__mi_str(&t->mi, m->type),
					     m->type.len, &ft.magic, &ok);
	ft.statfs_ok = (uint8_t)ok;
	if (!ft.known)
		ft.magic = 0;
	return ft;
}

static struct fstype type_of(const struct table *t, size_t i)
{
	if (t->type[i] != NO_TYPE)
		return t->types[t->type[i]];
	return type_lookup(t, i);
}

/*
 * Does the superblock magic of entry @i need statfs? Not when the type's
 * magic is fixed (fsmagic.c), nor when statfs would ask a server.
 */
static int needs_statfs(const struct table *t, size_t i)
{
	struct fstype ft = type_of(t, i);

	return !ft.known && ft.statfs_ok;
}

static int same_type(const struct table *t, struct mntkit_mi_span a,
		     struct mntkit_mi_span b)
{
	return a.len == b.len && !memcmp(mntkit__mi_str(&t->mi, a),
					 mntkit__mi_str(&t->mi, b), a.len);
}

/* look each distinct type up once per load (runs of one type are common) */
static int type_magics(struct table *t)
{
	uint8_t c = NO_TYPE;

	t->type = malloc(t->mi.n + 1);
	if (!t->type)
		return -ENOMEM;
	t->ntypes = 0;
	for (size_t i = 0; i < t->mi.n; i++) {
		struct mntkit_mi_span name = t->mi.v[i].type;

		if (!i || !same_type(t, name, t->mi.v[i - 1].type)) {
			for (c = 0; c < t->ntypes; c++)
				if (same_type(t, name, t->types[c].name))
					break;
			if (c == t->ntypes && t->ntypes < MAX_TYPES)
				t->types[t->ntypes++] = type_lookup(t, i);
			else if (c == t->ntypes)
				c = NO_TYPE;
		}
		t->type[i] = c;
	}
	return 0;
}

static const struct memo *memo_find(const struct table *t, uint32_t old)
{
	size_t lo = 0, hi = t->nmemo;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (t->memo[mid].old == old)
			return &t->memo[mid];
		if (t->memo[mid].old < old)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

/* keep what the loaded table proved (see struct table) */
static int memo_save(struct table *t)
{
	struct memo *m;
	size_t n = 0;

	if (!t->loaded || !t->unique_mode)
		return 0;
	m = malloc((t->mi.n + 1) * sizeof(*m));
	if (!m)
		return -ENOMEM;
	/* the index has the entries by ascending old ID already */
	for (size_t k = 0; k < t->ix.n; k++) {
		uint32_t i = t->ix.by_old[k];
		const struct probe *pr = &t->probe[i];
		const struct memo *was;

		if (!pr->has_unique) {
			/*
			 * hidden in this load (its point moved away for a
			 * moment): what an earlier load proved stays, for
			 * as long as the old ID is in the table on the same
			 * device (an old ID passed to a new mount at once
			 * is on another one, but for a bind mount)
			 */
			was = memo_find(t, t->mi.v[i].id);
			if (was && was->major == t->mi.v[i].major &&
			    was->minor == t->mi.v[i].minor)
				m[n++] = *was;
			continue;
		}
		m[n].old = t->mi.v[i].id;
		m[n].major = t->mi.v[i].major;
		m[n].minor = t->mi.v[i].minor;
		m[n].has_f_type = pr->has_f_type;
		m[n].unique = pr->unique;
		m[n].f_type = pr->f_type;
		n++;
	}
	free(t->memo);
	t->memo = m;
	t->nmemo = n;
	return 0;
}


/*
 * Entry @i again, when an earlier load proved its old ID X to be the mount
 * of unique ID U: if its mount point still resolves to U, the mount is U
 * (U lives, so X is still U's: old IDs are not shared between live
 * mounts). One statx instead of a full probe. 1 when it is settled.
 */
static int probe_again(struct table *t, size_t i, int want_statfs)
{
	const struct memo *mm = memo_find(t, t->mi.v[i].id);
	struct probe *pr = &t->probe[i];
	char buf[POINT_PATH_MAX];
	struct statx stx;
	char *path;
	int ret;

	if (!mm || (want_statfs && !mm->has_f_type) || pr->no_look)
		return 0;
	path = point_path(t, i, buf);
	if (!path)
		return 0;
	memset(&stx, 0, sizeof(stx));
	ret = statx(t->at, path,
		    AT_SYMLINK_NOFOLLOW | AT_NO_AUTOMOUNT | AT_STATX_DONT_SYNC,
		    MNTKIT_STATX_MNT_ID_UNIQUE, &stx);
	if (ret || !(stx.stx_mask & MNTKIT_STATX_MNT_ID_UNIQUE) ||
	    stx.stx_mnt_id != mm->unique)
		return 0;
	pr->ids_done = 1;
	pr->verified = 1;
	pr->has_unique = 1;
	pr->unique = mm->unique;
	if (want_statfs) {
		pr->statfs_done = 1;
		pr->has_f_type = 1;
		pr->f_type = mm->f_type;
	}
	return 1;
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

/*
 * Is entry @i of a filesystem whose server or daemon answers for it (nfs,
 * cifs, fuse, ...: fsmagic.c's statfs_ok 0)? Its mount point is not looked
 * at: an open of an NFS mount point revalidates its root with the server,
 * and a dead server would block the whole listing (findmnt never looks).
 */
static int served_fs(const struct table *t, size_t i)
{
	return !type_of(t, i).statfs_ok;
}

static int cmp_point(const void *a, const void *b)
{
	const struct point_ref *x = a, *y = b;
	int c = memcmp(x->s, y->s, x->len < y->len ? x->len : y->len);

	if (c)
		return c;
	return x->len < y->len ? -1 : x->len > y->len;
}

static int is_point(const struct point_ref *v, size_t n, const char *s,
		    size_t len)
{
	struct point_ref key = { s, len };

	return bsearch(&key, v, n, sizeof(*v), cmp_point) != NULL;
}

/* does the path @s cross a point of @v (a prefix ending at a '/', or all) */
static int crosses(const struct point_ref *v, size_t n, const char *s,
		   size_t len)
{
	if (!n)
		return 0;
	for (size_t k = 1; k < len; k++)
		if (s[k] == '/' && is_point(v, n, s, k))
			return 1;
	return is_point(v, n, s, len) || (len && is_point(v, n, s, 1));
}

/*
 * No call may block on a filesystem's server. Mark the entries whose
 * mount point path crosses the point of a served mount (served_fs()): a
 * lookup of that path could walk into the served filesystem (whose
 * d_revalidate or lookup asks the daemon, and a FUSE request waits for its
 * answer uninterruptibly: not even SIGKILL ends it). A mount point path is
 * the chain of its ancestors' points, and a path that crosses a served
 * point can also end up in the served mount when it is stacked there
 * (mounted over the mount's ancestor), so every prefix counts, whatever
 * the stacking: an overmounted served mount still marks what is below its
 * point (cheap and safe; those mounts only lose their unique IDs). These
 * entries are never looked at: probe_point() and probe_again() leave them,
 * so they are named by their old ID (as hidden mounts) and their magic
 * comes from fsmagic.c or is not reported. The served mounts themselves
 * are not looked at either. Exempt: a served mount on "/" of the caller's
 * own table, through which every lookup of the process goes (/proc too).
 */
static int mark_served_paths(struct table *t)
{
	struct point_ref *v;
	size_t n = 0;

	for (size_t i = 0; i < t->mi.n; i++)
		if (served_fs(t, i))
			n++;
	if (!n)
		return 0;
	v = malloc(n * sizeof(*v));
	if (!v)
		return -ENOMEM;
	n = 0;
	for (size_t i = 0; i < t->mi.n; i++) {
		const struct mntkit_mi *m = &t->mi.v[i];
		const char *pt = mntkit__mi_str(&t->mi, m->point);

		if (!served_fs(t, i) ||
		    (!t->pid && m->point.len == 1 && pt[0] == '/'))
			continue;
		v[n++] = (struct point_ref){ pt, m->point.len };
	}
	qsort(v, n, sizeof(*v), cmp_point);
	for (size_t i = 0; i < t->mi.n && n; i++) {
		const struct mntkit_mi *m = &t->mi.v[i];

		if (served_fs(t, i) ||
		    crosses(v, n, mntkit__mi_str(&t->mi, m->point),
			    m->point.len))
			t->probe[i].no_look = 1;
	}
	t->served = v; /* for mntkit_path_served() */
	t->nserved = n;
	return 0;
}

/* with unique IDs, the key of every entry: its unique ID where it can be
 * read, else its old ID (a hidden mount, or one of a served_fs()) */
static int resolve_ids(struct table *t)
{
	int ret = 0;

	for (size_t i = 0; i < t->mi.n; i++) {
		int want_statfs = needs_statfs(t, i);

		if (!probe_again(t, i, want_statfs))
			probe_point(t, i, want_statfs);
		if (t->probe[i].has_unique) {
			t->keys[i] = t->probe[i].unique;
			continue;
		}
		t->keys[i] = t->mi.v[i].id;
		t->has_hidden = 1;
		mntkit__debug(MNTKIT_PRINT_DEBUG,
			      "emulation: mount %" PRIu64 " has no unique ID "
			      "(its mount point is hidden): provisional old ID",
			      t->keys[i]);
		ret = issued_add(t->keys[i]);
		if (ret)
			break;
	}
	return ret;
}

/* where each hidden mount of the table stands in the listing (issued) */
static void note_places(const struct table *t)
{
	uint64_t base = 0;

	for (size_t i = 0; i < t->mi.n; i++) {
		if (!low_key(t->keys[i]))
			base = t->keys[i];
		else
			issued_set_base(t->keys[i], base);
	}
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

	ret = memo_save(t);
	if (ret)
		return ret;
	table_drop(t);
	table_changed(t); /* consume what happened before this read */
	ret = mntkit__mi_read(t->fd, &t->buf, &t->cap, &t->len);
	if (ret)
		return ret;
	ret = mntkit__mi_parse(&t->mi, t->buf, t->len, &err);
	if (ret)
		return ret == -EBADMSG ? -EAGAIN : ret;
	t->unique_mode = ids == IDS_BACKEND && have_unique;
	t->probe = calloc(t->mi.n + 1, sizeof(*t->probe));
	if (t->unique_mode)
		t->keys = calloc(t->mi.n + 1, sizeof(*t->keys));
	if (!t->probe || (t->unique_mode && !t->keys) || collect_groups(t) ||
	    type_magics(t) || mark_served_paths(t))
		return -ENOMEM;
	t->has_hidden = 0;
	if (t->unique_mode) {
		ret = resolve_ids(t);
		if (ret)
			return ret;
		note_places(t);
	}
	/* without unique IDs the keys are the old IDs (keys NULL) */
	ret = mntkit__mindex_build(&t->ix, t->mi.v, t->mi.n, t->keys);
	if (ret)
		return ret == -EBADMSG ? -EAGAIN : ret;
	ret = issue_outside_parents(t);
	if (ret)
		return ret;
	t->loaded = 1;
	return table_changed(t) ? -ESTALE : 0;
}

static long long clock_ns(clockid_t clk)
{
	struct timespec ts;

	clock_gettime(clk, &ts);
	return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* how long a load takes: the precise clock */
static long long now_ns(void)
{
	return clock_ns(CLOCK_MONOTONIC);
}

/*
 * A table's age, checked on every call: the coarse clock (a few ms
 * resolution, a third of the cost), which at worst sees a change the
 * kernel does not signal one tick later.
 */
static long long age_now_ns(void)
{
	return clock_ns(CLOCK_MONOTONIC_COARSE);
}

/* too old to trust for the changes poll does not report */
static int table_aged(const struct table *t)
{
	return age_now_ns() - t->loaded_at > t->max_age;
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
	if (have_ns_id) {
		fd = mntkit__proc_open(t->pid, "ns/mnt", O_RDONLY);
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
	return ids == IDS_ANY || t->unique_mode == have_unique;
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
static int self_table(struct table **out, int ids)
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
	    ((snap_cur && t->snap == snap_cur) ||
	     (!t->stale && !table_changed(t) && !table_aged(t)))) {
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
	} else if (!rmnt && t->loaded && !t->stale && ids_ok(t, ids) &&
		   !table_changed(t) && !table_aged(t)) {
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
	pthread_mutex_lock(&lock);
	snap_cur = ++snap_serial ? snap_serial : ++snap_serial;
	pthread_mutex_unlock(&lock);
}

/* ---- foreign namespaces ---- */

struct ns_want {
	int by_id;            /* else by inode */
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

/* a process in the wanted namespace: the lowest PID; -ENOENT if none */
static int find_pid(const struct ns_want *w, pid_t *pid)
{
	struct {
		dev_t dev;
		ino_t ino;
		int match;
	} seen[64];
	size_t nseen = 0;
	long best = -1;
	struct dirent *de;
	int at = proc_handle();
	DIR *d;

	if (at >= 0) {
		int fd = openat(at, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);

		d = fd >= 0 ? fdopendir(fd) : NULL;
		if (!d && fd >= 0)
			close(fd);
	} else {
		d = opendir("/proc");
	}
	if (!d)
		return -errno;
	while ((de = readdir(d))) {
		char *end;
		long p = strtol(de->d_name, &end, 10);
		dev_t dev;
		ino_t ino;
		size_t k;
		int match = 0;

		if (*end || p <= 0 || (best > 0 && p >= best))
			continue;
		if (ns_inode((pid_t)p, &dev, &ino))
			continue;
		if (!w->by_id) {
			match = dev == w->dev && ino == w->ino;
		} else {
			for (k = 0; k < nseen; k++)
				if (seen[k].dev == dev && seen[k].ino == ino)
					break;
			if (k < nseen) {
				match = seen[k].match;
			} else {
				uint64_t id;

				match = ns_id_of((pid_t)p, &id) == 0 &&
					id == w->id;
				if (nseen < MNTKIT_ARRAY_SIZE(seen))
					seen[nseen++] = (__typeof__(seen[0])){
						dev, ino, match
					};
			}
		}
		if (match)
			best = p;
	}
	closedir(d);
	if (best < 0)
		return -ENOENT;
	*pid = (pid_t)best;
	return 0;
}

/* the cached foreign table, if it still is the wanted namespace */
static int other_matches(const struct ns_want *w)
{
	struct table *t = &other_tab;
	dev_t dev;
	ino_t ino;

	if (t->fd < 0 || !t->loaded)
		return 0;
	if (w->by_id ? (!t->has_ns_id || t->ns_id != w->id) :
		       (t->ns_dev != w->dev || t->ns_ino != w->ino))
		return 0;
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
		if (!ids_ok(t, ids) ||
		    ((!snap_cur || t->snap != snap_cur) &&
		     (t->stale || table_changed(t) || table_aged(t)))) {
			ret = table_load(t, ids);
			if (ret)
				return ret;
		}
		*out = t;
		return 0;
	}
	ret = find_pid(w, &pid);
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
 * The table a request is about: the caller's namespace, or the one of
 * mnt_ns_id / mnt_ns_fd. Errors as the kernel's grab_requested_mnt_ns().
 */
static int request_table(const struct mntkit_mnt_id_req *req,
			 struct table **out, int ids)
{
	struct ns_want w = { 0 };
	dev_t dev = 0;
	ino_t ino = 0;
	int ret, type;

	if (req->mnt_ns_id && req->mnt_ns_fd)
		return -EINVAL;
	if (!req->mnt_ns_id && !req->mnt_ns_fd)
		return self_table(out, ids);
	if (req->mnt_ns_fd) {
		int fd = (int)req->mnt_ns_fd;

		if (fd < 0 ||
		    mntkit__stat_ident(fd, "", AT_EMPTY_PATH, &w.dev, &w.ino))
			return -EBADF;
		type = ioctl(fd, NS_GET_NSTYPE);
		if (type < 0 || type != CLONE_NEWNS)
			return -EINVAL;
	} else {
		if (!have_ns_id)
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
			return self_table(out, ids);
	} else if (w.dev == dev && w.ino == ino) {
		return self_table(out, ids);
	}
	return other_table(&w, out, ids);
}

/*
 * A foreign namespace asked for by ID needs CAP_SYS_ADMIN over its
 * owner (6.8+; statmount answers EPERM, listmount ENOENT): is @t such a
 * namespace the caller may not look at? (kernels/lib/ns.c does the
 * check; by fd, the kernel checks nothing)
 */
static int foreign_denied(const struct mntkit_mnt_id_req *req,
			  const struct table *t)
{
	int fd, ret;

	if (!req->mnt_ns_id || t != &other_tab)
		return 0;
	fd = mntkit__proc_open(t->pid, "ns/mnt", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0; /* the table was read: as before */
	ret = mntkit__ns_admin(fd);
	close(fd);
	return ret == 0;
}

/* ---- requests ---- */

/* copy_mnt_id_req(): size rules, zero tail; mnt_id is checked later */
static int copy_req(const struct mntkit_mnt_id_req *ureq,
		    struct mntkit_mnt_id_req *req)
{
	long page = page_size; /* caps() has run */
	uint32_t usize;

	if (!ureq)
		return -EFAULT;
	usize = ureq->size;
	if (page > 0 && usize > (unsigned long)page)
		return -E2BIG;
	if (usize < MNTKIT_MNT_ID_REQ_SIZE_VER0)
		return -EINVAL;
	for (size_t i = sizeof(*req); i < usize; i++)
		if (((const unsigned char *)ureq)[i])
			return -E2BIG;
	memset(req, 0, sizeof(*req));
	memcpy(req, ureq, usize < sizeof(*req) ? usize : sizeof(*req));
	return 0;
}

/* an ID the kernel would refuse (<= 2^31) that may still name a mount of
 * the emulation's table */
static int low_id(uint64_t id)
{
	return id <= MNTKIT_MNT_UNIQUE_ID_OFFSET;
}

/*
 * Is @id acceptable before the table is known? 0 yes, -EINVAL no, 1 only if
 * the table has a mount of that ID.
 */
static int id_precheck(uint64_t id)
{
	if (!id)
		return -EINVAL;
	if (low_id(id) && have_unique)
		return 1;
	return 0;
}

/* ---- statmount ---- */

struct reply {
	struct mntkit_statmount *sm; /* the fixed part, 512 bytes */
	char *str;
	size_t len;
	size_t cap;
	size_t bufsize;
};

/* room for @n more bytes and a spare one */
static int grow_str(struct reply *r, size_t n)
{
	size_t cap = r->cap ? r->cap : 1024;
	char *s;

	while (cap - r->len < n + 1)
		cap *= 2;
	s = realloc(r->str, cap);
	if (!s)
		return -ENOMEM;
	r->str = s;
	r->cap = cap;
	return 0;
}

static inline int put(struct reply *r, const void *p, size_t n)
{
	if (r->cap - r->len < n + 1 && grow_str(r, n))
		return -ENOMEM;
	memcpy(r->str + r->len, p, n);
	r->len += n;
	return 0;
}

static int str_end_always(struct reply *r, size_t start, uint64_t flag,
			  uint32_t *offp);

/* start a string: the area begins with an empty string (offset 0 = "") */
static int str_begin(struct reply *r, size_t *start)
{
	int ret = 0;

	if (!r->len)
		ret = put(r, "", 1);
	*start = r->len;
	return ret;
}

/* end a string: nothing emitted leaves the group out */
static int str_end(struct reply *r, size_t start, uint64_t flag,
		   uint32_t *offp)
{
	if (r->len == start)
		return 0;
	return str_end_always(r, start, flag, offp);
}

/* end a string, also an empty one (the kernel's words, copied) */
static int str_end_always(struct reply *r, size_t start, uint64_t flag,
			  uint32_t *offp)
{
	if (MNTKIT_STATMOUNT_FIXED_SIZE + r->len >= r->bufsize)
		return -EOVERFLOW;
	if (put(r, "", 1))
		return -ENOMEM;
	r->sm->mask |= flag;
	*offp = (uint32_t)start;
	return 0;
}

static int str_span(struct reply *r, const struct table *t,
		    struct mntkit_mi_span s, uint64_t flag, uint32_t *offp)
{
	size_t start;
	int ret = str_begin(r, &start);

	if (!ret)
		ret = put(r, mntkit__mi_str(&t->mi, s), s.len);
	return ret ? ret : str_end(r, start, flag, offp);
}

/* the kernel's statmount_opt_process(): split at ',' (and NUL), unescape */
static int str_opt_array(struct reply *r, const char *p, size_t n,
			 uint64_t flag, uint32_t *offp, uint32_t *nump)
{
	size_t start, i = 1;
	uint32_t count = 0;
	int ret = str_begin(r, &start);

	if (ret)
		return ret;
	while (n > 1 && i < n) {
		size_t b = i, l;
		char *dst;

		while (i < n && p[i] != ',' && p[i])
			i++;
		ret = put(r, p + b, i - b + 1);
		if (ret)
			return ret;
		dst = r->str + r->len - (i - b + 1);
		l = mntkit__unescape(dst, dst, i - b);
		dst[l] = '\0';
		r->len -= (i - b) - l;
		count++;
		i++;
	}
	if (count)
		r->len--; /* the last NUL is str_end's */
	ret = str_end(r, start, flag, offp);
	if (!ret && (r->sm->mask & flag))
		*nump = count;
	return ret;
}

/* the string groups, in the order the kernel writes them */
static const struct str_group {
	uint64_t flag;
	size_t off;     /* offsetof the [str] field */
	size_t num_off; /* offsetof the count of a [strv] field; 0: a string */
} str_groups[] = {
#define SG(flag, field) { MNTKIT_STATMOUNT_##flag, offsetof(struct mntkit_statmount, field), 0 }
#define SGV(flag, field, num)                                                 \
	{ MNTKIT_STATMOUNT_##flag, offsetof(struct mntkit_statmount, field),   \
	  offsetof(struct mntkit_statmount, num) }
	SG(FS_TYPE, fs_type),
	SG(MNT_ROOT, mnt_root),
	SG(MNT_POINT, mnt_point),
	SG(MNT_OPTS, mnt_opts),
	SGV(OPT_ARRAY, opt_array, opt_num),
	SGV(OPT_SEC_ARRAY, opt_sec_array, opt_sec_num),
	SG(FS_SUBTYPE, fs_subtype),
	SG(SB_SOURCE, sb_source),
	SGV(MNT_UIDMAP, mnt_uidmap, mnt_uidmap_num),
	SGV(MNT_GIDMAP, mnt_gidmap, mnt_gidmap_num),
#undef SG
#undef SGV
};

static uint32_t *sm_u32(struct mntkit_statmount *sm, size_t off)
{
	return (uint32_t *)((char *)sm + off);
}

/* one string group of entry @i of the table */
static int emul_string(struct reply *r, const struct table *t, size_t i,
		       const struct str_group *g)
{
	const struct mntkit_mi *m = &t->mi.v[i];
	const char *opts = mntkit__mi_str(&t->mi, m->opts);
	uint32_t *offp = sm_u32(r->sm, g->off);
	size_t start;
	int ret;

	switch (g->flag) {
	case MNTKIT_STATMOUNT_FS_TYPE:
		return str_span(r, t, m->type, g->flag, offp);
	case MNTKIT_STATMOUNT_MNT_ROOT:
		return str_span(r, t, m->root, g->flag, offp);
	case MNTKIT_STATMOUNT_MNT_POINT:
		return str_span(r, t, m->point, g->flag, offp);
	case MNTKIT_STATMOUNT_MNT_OPTS:
		/* LSM + fs options without the first ',' */
		ret = str_begin(r, &start);
		if (!ret && m->opts.len > 1)
			ret = put(r, opts + 1, m->opts.len - 1);
		return ret ? ret : str_end(r, start, g->flag, offp);
	case MNTKIT_STATMOUNT_OPT_ARRAY:
		return str_opt_array(r, opts + m->sec_len,
				     m->opts.len - m->sec_len, g->flag, offp,
				     sm_u32(r->sm, g->num_off));
	case MNTKIT_STATMOUNT_OPT_SEC_ARRAY:
		return str_opt_array(r, opts, m->sec_len, g->flag, offp,
				     sm_u32(r->sm, g->num_off));
	case MNTKIT_STATMOUNT_FS_SUBTYPE:
		return str_span(r, t, m->subtype, g->flag, offp);
	case MNTKIT_STATMOUNT_SB_SOURCE:
		return str_span(r, t, m->source, g->flag, offp);
	}
	/* idmappings are not in mountinfo: nothing is emitted, so the
	 * groups stay out of the mask (as for a mount without idmapping) */
	return str_begin(r, &start);
}

/*
 * One string group copied from a kernel reply @nat (of nat->size valid
 * bytes): what the kernel wrote, or nothing when it wrote nothing.
 */
static int native_string(struct reply *r, const struct mntkit_statmount *nat,
			 const struct str_group *g)
{
	size_t area, off, n = 0, start;
	uint32_t num = 1;
	const char *p;
	int ret = str_begin(r, &start);

	if (ret || !(nat->mask & g->flag))
		return ret;
	area = nat->size > MNTKIT_STATMOUNT_FIXED_SIZE ?
		       nat->size - MNTKIT_STATMOUNT_FIXED_SIZE :
		       0;
	off = *sm_u32((struct mntkit_statmount *)nat, g->off);
	if (g->num_off)
		num = *sm_u32((struct mntkit_statmount *)nat, g->num_off);
	if (off >= area || !num)
		return -EIO; /* the kernel's reply does not hold together */
	p = nat->str + off;
	/* the strings, each with its NUL; the last NUL is str_end's */
	for (uint32_t k = 0; k < num; k++) {
		const char *nul = memchr(p + n, '\0', area - off - n);

		if (!nul)
			return -EIO;
		n = (size_t)(nul - p) + 1;
	}
	/* 6.8 - 6.12's empty MNT_OPTS / MNT_POINT: left out, as on 6.18 */
	if (n == 1 && (g->flag & (MNTKIT_STATMOUNT_MNT_OPTS |
				  MNTKIT_STATMOUNT_MNT_POINT)))
		return 0;
	ret = put(r, p, n - 1);
	if (!ret)
		ret = str_end_always(r, start, g->flag, sm_u32(r->sm, g->off));
	if (!ret && g->num_off)
		*sm_u32(r->sm, g->num_off) = num;
	return ret;
}

/*
 * The string groups of @want in the kernel's order. Those of @kmask come
 * from the kernel's reply @nat (when not NULL), the others from entry @i
 * of @t; with neither (@t NULL), a group emits nothing.
 */
static int fill_strings(struct reply *r, const struct table *t, size_t i,
			uint64_t want, const struct mntkit_statmount *nat,
			uint64_t kmask)
{
	size_t start;
	int ret = 0;

	for (size_t k = 0; !ret && k < MNTKIT_ARRAY_SIZE(str_groups); k++) {
		const struct str_group *g = &str_groups[k];

		if (!(want & g->flag))
			continue;
		if (nat && (kmask & g->flag))
			ret = native_string(r, nat, g);
		else if (t)
			ret = emul_string(r, t, i, g);
		else
			ret = str_begin(r, &start);
	}
	return ret;
}

/* statfs's f_type through the mount point of entry @i, if it resolves */
static int point_f_type(struct table *t, size_t i, uint64_t *magic)
{
	probe_point(t, i, 1);
	if (!t->probe[i].has_f_type)
		return 0;
	*magic = t->probe[i].f_type;
	return 1;
}

/*
 * The superblock magic of entry @i: its type's fixed one (fsmagic.c), else
 * statfs through its mount point, else (hidden: the point does not lead
 * to it) through the point of another mount of the same superblock (same
 * st_dev and type: a devtmpfs hidden here and also on /dev). 0 when none
 * can tell; the rest of SB_BASIC (device, flags) is mountinfo's and is
 * answered all the same.
 */
static uint64_t sb_magic(struct table *t, size_t i)
{
	const struct mntkit_mi *m = &t->mi.v[i];
	struct fstype ft = type_of(t, i);
	uint64_t magic;

	if (ft.known)
		return ft.magic;
	if (!ft.statfs_ok)
		return 0; /* a served type: its statfs asks the server */
	if (point_f_type(t, i, &magic))
		return magic;
	for (size_t j = 0; j < t->mi.n; j++) {
		const struct mntkit_mi *o = &t->mi.v[j];

		if (j == i || o->major != m->major || o->minor != m->minor ||
		    !same_type(t, o->type, m->type))
			continue;
		if (point_f_type(t, j, &magic))
			return magic;
	}
	return 0;
}

/* the ID of the parent: its key if listed, else its old ID */
static uint64_t parent_key(const struct table *t, size_t i)
{
	int32_t p = t->ix.parent[i];

	if (p >= 0)
		return t->ix.key[p];
	if (t->mi.v[i].parent == t->mi.v[i].id)
		return t->ix.key[i];
	return t->mi.v[i].parent;
}

/* a slave's propagate_from when mountinfo does not print it */
static uint64_t dominating(const struct table *t, size_t i)
{
	const struct mntkit_mi *m = &t->mi.v[i];

	if (m->propagate_from)
		return m->propagate_from;
	/*
	 * Not printed: the dominating group is the master's when a peer of
	 * the master is visible here (then mountinfo omits it as equal),
	 * else there is none (0).
	 */
	size_t lo = 0, hi = t->ngroups;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (t->groups[mid] == m->master)
			return m->master;
		if (t->groups[mid] < m->master)
			lo = mid + 1;
		else
			hi = mid;
	}
	return 0;
}

static void fill_fixed(struct reply *r, struct table *t, size_t i,
		       uint64_t want)
{
	const struct mntkit_mi *m = &t->mi.v[i];
	struct mntkit_statmount *sm = r->sm;

	if ((want & MNTKIT_STATMOUNT_MNT_BASIC) && !m->unknown_attr &&
	    !m->unknown_tag) {
		sm->mask |= MNTKIT_STATMOUNT_MNT_BASIC;
		sm->mnt_id = t->ix.key[i];
		sm->mnt_parent_id = parent_key(t, i);
		sm->mnt_id_old = m->id;
		sm->mnt_parent_id_old = m->parent;
		sm->mnt_attr = m->attr;
		if (m->shared)
			sm->mnt_propagation |= MNTKIT_MS_SHARED;
		if (m->master)
			sm->mnt_propagation |= MNTKIT_MS_SLAVE;
		if (m->unbindable)
			sm->mnt_propagation |= MNTKIT_MS_UNBINDABLE;
		if (!sm->mnt_propagation)
			sm->mnt_propagation = MNTKIT_MS_PRIVATE;
		sm->mnt_peer_group = m->shared;
		sm->mnt_master = m->master;
	}
	if (want & MNTKIT_STATMOUNT_SB_BASIC) {
		sm->mask |= MNTKIT_STATMOUNT_SB_BASIC;
		sm->sb_dev_major = m->major;
		sm->sb_dev_minor = m->minor;
		sm->sb_magic = sb_magic(t, i);
		sm->sb_flags = m->sb_flags;
	}
	if ((want & MNTKIT_STATMOUNT_PROPAGATE_FROM) && !m->unknown_tag) {
		sm->mask |= MNTKIT_STATMOUNT_PROPAGATE_FROM;
		/* the kernel looks for the dominating peer under the
		 * caller's root: none is in a foreign namespace */
		if (m->master && !t->pid)
			sm->propagate_from = dominating(t, i);
	}
}

/* the fixed fields of each fixed-size group */
static const struct {
	uint64_t flag;
	size_t off, len;
} fixed_groups[] = {
	{ MNTKIT_STATMOUNT_SB_BASIC, offsetof(struct mntkit_statmount, sb_dev_major),
	  offsetof(struct mntkit_statmount, fs_type) -
		  offsetof(struct mntkit_statmount, sb_dev_major) },
	{ MNTKIT_STATMOUNT_MNT_BASIC, offsetof(struct mntkit_statmount, mnt_id),
	  offsetof(struct mntkit_statmount, propagate_from) -
		  offsetof(struct mntkit_statmount, mnt_id) },
	{ MNTKIT_STATMOUNT_PROPAGATE_FROM,
	  offsetof(struct mntkit_statmount, propagate_from), sizeof(uint64_t) },
	{ MNTKIT_STATMOUNT_MNT_NS_ID, offsetof(struct mntkit_statmount, mnt_ns_id),
	  sizeof(uint64_t) },
	{ MNTKIT_STATMOUNT_SUPPORTED_MASK,
	  offsetof(struct mntkit_statmount, supported_mask), sizeof(uint64_t) },
};

/*
 * A whole reply for @want: the groups of @kmask from the kernel's reply
 * @nat (when not NULL), the others from entry @i of @t (nothing when @t is
 * NULL). @supported is the supported_mask the emulation reports.
 */
static int fill_reply(struct reply *r, struct table *t, size_t i,
		      uint64_t want, const struct mntkit_statmount *nat,
		      uint64_t kmask, uint64_t supported)
{
	uint64_t emul = nat ? want & ~kmask : want;

	memset(r->sm, 0, MNTKIT_STATMOUNT_FIXED_SIZE);
	for (size_t k = 0; nat && k < MNTKIT_ARRAY_SIZE(fixed_groups); k++) {
		uint64_t flag = fixed_groups[k].flag;

		if (!(want & kmask & flag) || !(nat->mask & flag))
			continue;
		memcpy((char *)r->sm + fixed_groups[k].off,
		       (const char *)nat + fixed_groups[k].off,
		       fixed_groups[k].len);
		r->sm->mask |= flag;
	}
	if (t) {
		fill_fixed(r, t, i, emul);
		if ((emul & MNTKIT_STATMOUNT_MNT_NS_ID) && t->has_ns_id) {
			r->sm->mask |= MNTKIT_STATMOUNT_MNT_NS_ID;
			r->sm->mnt_ns_id = t->ns_id;
		}
	}
	/* what this statmount supports: the kernel's and the emulation's
	 * groups in a hybrid reply */
	if ((emul & MNTKIT_STATMOUNT_SUPPORTED_MASK) ||
	    (r->sm->mask & MNTKIT_STATMOUNT_SUPPORTED_MASK)) {
		r->sm->mask |= MNTKIT_STATMOUNT_SUPPORTED_MASK;
		r->sm->supported_mask = supported;
	}
	return fill_strings(r, t, i, want, nat, kmask);
}

/*
 * The entry of key @id, or -1. A listing asks for its IDs in the order
 * listmount gave them: the one after the last found is tried first.
 */
static ssize_t find_key(struct table *t, uint64_t id)
{
	const struct mntkit_mindex *ix = &t->ix;
	size_t pos = t->next_pos;

	if (pos >= ix->n || ix->key[ix->by_key[pos]] != id) {
		pos = mntkit__mindex_before(ix, id);
		if (pos >= ix->n || ix->key[ix->by_key[pos]] != id)
			return -1;
	}
	t->next_pos = pos + 1;
	return ix->by_key[pos];
}

/*
 * The entry of the mount named @id, when @id is no key of table @t but
 * was the mount's name in an earlier load: its other name now, or -1. A
 * mount is named by its old ID while its mount point does not lead to it
 * and by its unique ID otherwise, so a mount that moves is named one way
 * in one load and the other way in the next: a listing and the statmounts
 * of its IDs (two loads under churn) would lose a live mount. Only what
 * the memo proves (old ID X was the mount of unique ID U, kept while X is
 * in the table on the same device): unique U asked, X hidden now; or X
 * asked, the mount of old ID X is U now. statmount's reply keeps the ID
 * asked as mnt_id (its parent is named as now); the snapshot batch names
 * the mount by its key now (the table sorts it in). A mount hidden since
 * it was made (no memo) is not found by its unique ID, nor then its old
 * ID by it: those still answer ENOENT.
 */
static ssize_t renamed_entry(const struct table *t, uint64_t id)
{
	const struct memo *mm;
	ssize_t i;

	if (!t->unique_mode)
		return -1;
	if (low_id(id)) {
		mm = memo_find(t, (uint32_t)id);
		i = mntkit__mindex_find_old(&t->ix, id);
		return mm && i >= 0 && t->ix.key[i] == mm->unique ? i : -1;
	}
	for (size_t k = 0; k < t->nmemo; k++) {
		mm = &t->memo[k];
		if (mm->unique != id)
			continue;
		i = mntkit__mindex_find_old(&t->ix, mm->old);
		return i >= 0 && t->ix.key[i] == mm->old &&
			       t->mi.v[i].major == mm->major &&
			       t->mi.v[i].minor == mm->minor ?
			       i :
			       -1;
	}
	return -1;
}

static int emul_statmount_locked(const struct mntkit_mnt_id_req *ureq,
				 size_t bufsize, struct reply *r)
{
	struct mntkit_mnt_id_req req;
	struct table *t = NULL;
	uint64_t want;
	ssize_t i;
	int ret, pre;

	ret = copy_req(ureq, &req);
	if (ret)
		return ret;
	pre = id_precheck(req.mnt_id);
	if (pre < 0)
		return pre;
	ret = request_table(&req, &t, IDS_BACKEND);
	if (ret)
		return pre ? -EINVAL : ret;
	if (foreign_denied(&req, t))
		return -EPERM;
	i = find_key(t, req.mnt_id);
	if (i < 0)
		i = renamed_entry(t, req.mnt_id);
	if (pre && i < 0)
		return issued_has(req.mnt_id) ? -ENOENT : -EINVAL;
	want = req.param;
	if ((want & STRING_REQ) && bufsize == MNTKIT_STATMOUNT_FIXED_SIZE)
		return -EOVERFLOW;
	if (i < 0)
		return -ENOENT;

	r->bufsize = bufsize;
	ret = fill_reply(r, t, (size_t)i, want, NULL, 0,
			 mntkit__emul_supported_mask());
	/* found by a name it had (renamed_entry()): the reply is of the
	 * ID asked, as the kernel's always is */
	if (!ret && (r->sm->mask & MNTKIT_STATMOUNT_MNT_BASIC))
		r->sm->mnt_id = req.mnt_id;
	return ret;
}

/* the string area of the replies, reused from call to call (under @lock) */
static struct {
	char *str;
	size_t cap;
} scratch;

/* at most this much of the string area stays allocated between calls */
#define SCRATCH_KEEP 65536

/*
 * Give a reply to the caller (under @lock; @ret the outcome so far) and
 * return the scratch area. Syscall convention.
 */
static int reply_out(struct reply *r, int ret, struct mntkit_statmount *buf,
		     size_t bufsize)
{
	size_t copysize;

	if (ret)
		goto out;
	/*
	 * As copy_statmount_to_user(): the fixed part up to bufsize, then
	 * the strings. The kernel also writes the string area's leading
	 * NUL when no string was emitted and bufsize <= 512, i.e. past the
	 * buffer; the emulation never writes past bufsize.
	 */
	copysize = bufsize < MNTKIT_STATMOUNT_FIXED_SIZE ?
			   bufsize : MNTKIT_STATMOUNT_FIXED_SIZE;
	r->sm->size = (uint32_t)(copysize + r->len);
	if (!buf && (copysize || r->len)) {
		ret = -EFAULT;
		goto out;
	}
	if (copysize)
		memcpy(buf, r->sm, copysize);
	if (r->len && bufsize > MNTKIT_STATMOUNT_FIXED_SIZE) {
		size_t room = bufsize - MNTKIT_STATMOUNT_FIXED_SIZE;

		memcpy(buf->str, r->str, r->len < room ? r->len : room);
	}
out:
	if (r->cap > SCRATCH_KEEP) {
		free(r->str);
		r->str = NULL;
		r->cap = 0;
	}
	scratch.str = r->str;
	scratch.cap = r->cap;
	if (ret) {
		errno = -ret;
		return -1;
	}
	return 0;
}

static int emul_statmount(const struct mntkit_mnt_id_req *req,
			  struct mntkit_statmount *buf, size_t bufsize,
			  unsigned int flags)
{
	uint64_t fixed[MNTKIT_STATMOUNT_FIXED_SIZE / sizeof(uint64_t)];
	struct reply r = { .sm = (struct mntkit_statmount *)fixed };
	int ret;

	if (flags == MNTKIT_STATMOUNT_BY_FD) /* lib/native.c */
		return mntkit__stat_by_fd(&mntkit_mountinfo_ops, req, buf,
					  bufsize, flags);
	if (flags) {
		errno = EINVAL;
		return -1;
	}
	caps();
	pthread_once(&atfork_once, setup_atfork);
	pthread_mutex_lock(&lock);
	r.str = scratch.str;
	r.cap = scratch.cap;
	ret = emul_statmount_locked(req, bufsize, &r);
	ret = reply_out(&r, ret, buf, bufsize);
	pthread_mutex_unlock(&lock);
	return ret;
}

/*
 * statmount of many IDs for a snapshot (mntkit_table_new()): the table is
 * checked and, when stale, reloaded once for the whole batch, not once per
 * ID, so the replies are of one moment and a listing of N mounts costs one
 * check instead of N. Each reply is built as emul_statmount() builds it
 * with a buffer of any size, then handed to @each whole.
 */
static int emul_stat_many(const struct mntkit_mnt_id_req *ureq,
			  const uint64_t *ids, size_t n, uint64_t mask,
			  int (*each)(void *ctx, uint64_t id,
				      const struct mntkit_statmount *sm),
			  void *ctx)
{
	uint64_t fixed[MNTKIT_STATMOUNT_FIXED_SIZE / sizeof(uint64_t)];
	struct reply r = { .sm = (struct mntkit_statmount *)fixed };
	struct mntkit_mnt_id_req req;
	struct mntkit_statmount *out = NULL;
	size_t outcap = 0;
	struct table *t;
	int ret;

	caps();
	pthread_once(&atfork_once, setup_atfork);
	pthread_mutex_lock(&lock);
	r.str = scratch.str;
	r.cap = scratch.cap;
	ret = copy_req(ureq, &req);
	if (!ret)
		ret = request_table(&req, &t, IDS_BACKEND);
	if (!ret && foreign_denied(&req, t))
		ret = -EPERM;
	for (size_t k = 0; k < n && !ret; k++) {
		ssize_t i = find_key(t, ids[k]);
		size_t size;

		if (i < 0)
			i = renamed_entry(t, ids[k]);
		if (i < 0)
			continue; /* gone since it was listed, as ENOENT */
		r.len = 0;
		r.bufsize = SIZE_MAX;
		ret = fill_reply(&r, t, (size_t)i, mask, NULL, 0,
				 mntkit__emul_supported_mask());
		if (ret)
			break;
		size = MNTKIT_STATMOUNT_FIXED_SIZE + r.len;
		if (size > UINT32_MAX) {
			ret = -EOVERFLOW;
			break;
		}
		if (size > outcap) {
			void *p = realloc(out, size);

			if (!p) {
				ret = -ENOMEM;
				break;
			}
			out = p;
			outcap = size;
		}
		r.sm->size = (uint32_t)size;
		memcpy(out, r.sm, MNTKIT_STATMOUNT_FIXED_SIZE);
		if (r.len) /* r.str is NULL until a string was put */
			memcpy(out->str, r.str, r.len);
		ret = each(ctx, ids[k], out);
	}
	if (r.cap > SCRATCH_KEEP) {
		free(r.str);
		r.str = NULL;
		r.cap = 0;
	}
	scratch.str = r.str;
	scratch.cap = r.cap;
	pthread_mutex_unlock(&lock);
	free(out);
	return ret;
}

/*
 * A parent outside the table is named by its old ID (parent_key()), as a
 * hidden mount is, and once gone both answer ENOENT: a snapshot that meets
 * a root whose parent it cannot find asks here which one it is. Outside:
 * the parent of an entry of the current table without a line of its own
 * (the mounts above the caller's root; a table that holds the ID is no
 * such parent). A parent made and gone since the listing (a mount moved
 * under a new mount and back) is the parent of no entry now. One view:
 * the question is about now, not about the view the child was read in.
 */
int mntkit__emul_parent_outside(const struct mntkit_mnt_id_req *ureq,
				uint64_t id)
{
	struct mntkit_mnt_id_req req;
	struct table *t = NULL;
	int ret;

	caps();
	pthread_once(&atfork_once, setup_atfork);
	pthread_mutex_lock(&lock);
	ret = copy_req(ureq, &req);
	if (!ret)
		ret = request_table(&req, &t, IDS_BACKEND);
	if (!ret && (find_key(t, id) >= 0 ||
		     mntkit__mindex_find_old(&t->ix, id) >= 0))
		goto unlock; /* 0: a mount of the table */
	for (size_t i = 0; !ret && i < t->mi.n; i++) {
		const struct mntkit_mi *m = &t->mi.v[i];

		if (t->ix.parent[i] < 0 && m->parent != m->id &&
		    m->parent == id)
			ret = 1;
	}
unlock:
	pthread_mutex_unlock(&lock);
	return ret;
}

/* ---- hybrid replies: the kernel's, completed by the emulation ---- */

/* the kernel's reply, grown to fit (under @lock) */
static struct {
	struct mntkit_statmount *sm;
	size_t size;
} kreply;

/* the kernel's statmount of @req into kreply; 0 or -errno */
static int kernel_reply(const struct mntkit_mnt_id_req *req)
{
	size_t size = kreply.size ? kreply.size : 4096;

	for (;;) {
		if (size != kreply.size) {
			void *p = realloc(kreply.sm, size);

			if (!p)
				return -ENOMEM;
			kreply.sm = p;
			kreply.size = size;
		}
		if (sys_statmount(req, kreply.sm, size, 0) == 0)
			return 0;
		if (errno != EOVERFLOW || size >= (64U << 20))
			return -errno;
		size *= 2;
	}
}

/*
 * The table entry of the mount the kernel just described (kreply), proven
 * to be that mount, either way:
 *  - the table was current when the kernel answered and has not changed
 *    since (no mount event between its read and now), so its line with
 *    the kernel's old ID is that very mount;
 *  - or, under churn (the table changed meanwhile), the table was read
 *    between two replies of the kernel about the same mount (same unique
 *    ID, same old ID): the mount lived all along, a unique ID never comes
 *    back once its mount is gone, and no two live mounts share an old ID,
 *    so that old ID was this mount's while the table was read.
 * Requiring the first alone made a reply under constant churn (a mount
 * and unmount in a loop elsewhere in the namespace) give up after some
 * tries and come back with the kernel's groups only: truthful, but not
 * the newer kernel's reply (test-emul-hybrid's churn case, now and then).
 * 1 with *@tp and *@ip, 0 when the kernel answered but the emulation
 * cannot complete the reply (the mount is not in mountinfo), or -errno
 * from the kernel.
 */
static int hybrid_match(const struct mntkit_mnt_id_req *kreq, int need,
			struct table **tp, size_t *ip)
{
	uint64_t prev_old = 0;
	int have_prev = 0;

	if (!need)
		return kernel_reply(kreq);
	for (int tries = 0; tries < LOAD_TRIES; tries++) {
		struct table *t = NULL;
		uint64_t old;
		ssize_t i;
		int ret, have;

		/* after a change seen below, this re-reads the table */
		have = request_table(kreq, &t, IDS_ANY) == 0;
		ret = kernel_reply(kreq);
		if (ret)
			return ret;
		if (!have || !(kreply.sm->mask & MNTKIT_STATMOUNT_MNT_BASIC))
			return 0;
		old = kreply.sm->mnt_id_old;
		if (table_changed(t)) {
			t->stale = 1;
			if (!have_prev || prev_old != old) {
				prev_old = old;
				have_prev = 1;
				continue;
			}
			/* read between two replies of this mount: its line */
		}
		i = mntkit__mindex_find_old(&t->ix, old);
		if (i < 0)
			return 0;
		*tp = t;
		*ip = (size_t)i;
		return 1;
	}
	return 0;
}

int mntkit__emul_hybrid(const struct mntkit_mnt_id_req *ureq, uint64_t kmask,
			struct mntkit_statmount *buf, size_t bufsize)
{
	uint64_t fixed[MNTKIT_STATMOUNT_FIXED_SIZE / sizeof(uint64_t)];
	struct reply r = { .sm = (struct mntkit_statmount *)fixed };
	struct mntkit_mnt_id_req kreq;
	uint64_t want, supported;
	struct table *t = NULL;
	size_t i = 0;
	int ret;

	caps();
	/* the request's own faults are the kernel's to report */
	ret = copy_req(ureq, &kreq);
	if (ret) {
		errno = -ret;
		return -1;
	}
	if (kreq.size > sizeof(kreq))
		kreq.size = sizeof(kreq); /* its tail is zero: copy_req() */
	want = kreq.param;
	/* the kernel's groups, and MNT_BASIC to know the mount by (every
	 * statmount has it) */
	kmask |= MNTKIT_STATMOUNT_MNT_BASIC;
	kreq.param = (want & kmask) | MNTKIT_STATMOUNT_MNT_BASIC;
	supported = (kmask | mntkit__emul_supported_mask()) &
		    MNTKIT_STATMOUNT_ALL;
	pthread_once(&atfork_once, setup_atfork);
	pthread_mutex_lock(&lock);
	r.str = scratch.str;
	r.cap = scratch.cap;
	/* the table only when the emulation has something to add */
	ret = hybrid_match(&kreq, !!(want & ~kmask & supported), &t, &i);
	if ((ret >= 0 || ret == -ENOENT) && (want & STRING_REQ) &&
	    bufsize == MNTKIT_STATMOUNT_FIXED_SIZE)
		ret = -EOVERFLOW;
	if (ret >= 0) {
		r.bufsize = bufsize;
		ret = fill_reply(&r, ret ? t : NULL, i, want, kreply.sm, kmask,
				 supported);
	}
	if (kreply.size > SCRATCH_KEEP) {
		free(kreply.sm);
		kreply.sm = NULL;
		kreply.size = 0;
	}
	ret = reply_out(&r, ret, buf, bufsize);
	pthread_mutex_unlock(&lock);
	return ret;
}

/* ---- listmount ---- */

/*
 * listmount lists by ID, as the kernel does (snapshots rely on it), and so
 * the hidden mounts' old IDs come first. Their place in mountinfo (the
 * kernel's listing order, by unique ID, 6.8+; findmnt's list order) is
 * what mntkit_list_order() sorts by: the position in the file. For an ID
 * no longer in the table, the place where a listing would go on after it:
 * after the last unique ID at most it (a hidden mount's: at most the one
 * listed before it, issued_base()).
 */
static size_t file_place(const struct table *t, uint64_t id)
{
	uint64_t base = low_key(id) ? issued_base(id) : id;
	size_t pos = 0;

	for (size_t k = 0; k < t->mi.n; k++)
		if (!low_key(t->ix.key[k]) && t->ix.key[k] <= base)
			pos = k + 1;
	return pos;
}

static ssize_t emul_listmount_locked(const struct mntkit_mnt_id_req *ureq,
				     uint64_t *ids, size_t nr, int reverse)
{
	struct mntkit_mnt_id_req req;
	struct table *t = NULL;
	ssize_t start = -1;
	size_t pos, n = 0;
	uint64_t cursor;
	int ret, pre = 0;

	ret = copy_req(ureq, &req);
	if (ret)
		return ret;
	if (req.mnt_id != MNTKIT_LSMT_ROOT) {
		pre = id_precheck(req.mnt_id);
		if (pre < 0)
			return pre;
	}
	cursor = req.param;
	if (cursor && low_id(cursor) && have_unique)
		pre = 1;
	ret = request_table(&req, &t, IDS_BACKEND);
	if (ret)
		return pre ? -EINVAL : ret;
	if (foreign_denied(&req, t))
		return -ENOENT;
	/*
	 * The kernel refuses a cursor <= 2^31 (do_listmount(): no unique ID
	 * is that low). Here such a cursor can be the name of a hidden
	 * mount: accepted exactly when it was handed out as one (the
	 * table's hidden mounts and outside parents, and those gone since).
	 */
	if (cursor && low_id(cursor) && t->unique_mode && !issued_has(cursor))
		return -EINVAL;
	if (req.mnt_id != MNTKIT_LSMT_ROOT) {
		start = mntkit__mindex_find(&t->ix, req.mnt_id);
		if (start < 0)
			return low_id(req.mnt_id) && t->unique_mode &&
					       !issued_has(req.mnt_id) ?
				       -EINVAL :
				       -ENOENT;
	}
	if (!reverse) {
		/* the kernel looks for the first ID >= cursor + 1: ~0 wraps
		 * around to the start */
		pos = cursor && cursor != ~0ULL ?
			      mntkit__mindex_after(&t->ix, cursor) :
			      0;
		for (; pos < t->ix.n && n < nr; pos++) {
			uint32_t i = t->ix.by_key[pos];

			if (start < 0 || mntkit__mindex_below(&t->ix, i,
							      (size_t)start))
				ids[n++] = t->ix.key[i];
		}
	} else {
		pos = cursor ? mntkit__mindex_before(&t->ix, cursor) : t->ix.n;
		for (; pos > 0 && n < nr; pos--) {
			uint32_t i = t->ix.by_key[pos - 1];

			if (start < 0 || mntkit__mindex_below(&t->ix, i,
							      (size_t)start))
				ids[n++] = t->ix.key[i];
		}
	}
	return (ssize_t)n;
}

static ssize_t emul_listmount(const struct mntkit_mnt_id_req *req,
			      uint64_t *mnt_ids, size_t nr_mnt_ids,
			      unsigned int flags)
{
	uint64_t *tmp = NULL;
	ssize_t ret;

	if (flags & ~MNTKIT_LISTMOUNT_REVERSE) {
		errno = EINVAL;
		return -1;
	}
	if (nr_mnt_ids > MNTKIT_LISTMOUNT_MAX_NR) {
		errno = EOVERFLOW;
		return -1;
	}
	if (nr_mnt_ids) {
		tmp = malloc(nr_mnt_ids * sizeof(*tmp));
		if (!tmp) {
			errno = ENOMEM;
			return -1;
		}
	}
	caps();
	pthread_once(&atfork_once, setup_atfork);
	pthread_mutex_lock(&lock);
	ret = emul_listmount_locked(req, tmp, nr_mnt_ids,
				    !!(flags & MNTKIT_LISTMOUNT_REVERSE));
	pthread_mutex_unlock(&lock);
	if (ret > 0 && !mnt_ids)
		ret = -EFAULT;
	if (ret > 0)
		memcpy(mnt_ids, tmp, (size_t)ret * sizeof(*tmp));
	free(tmp);
	if (ret < 0) {
		errno = (int)-ret;
		return -1;
	}
	return ret;
}

/* ---- the listing order ---- */

struct ranked {
	uint64_t rank;
	uint64_t id;
};

static int cmp_ranked(const void *a, const void *b)
{
	const struct ranked *x = a, *y = b;

	if (x->rank != y->rank)
		return x->rank < y->rank ? -1 : 1;
	return x->id < y->id ? -1 : x->id > y->id;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* the emulation's listing ranks of @ids in @req's table (under @lock) */
static int rank_ids(const struct mntkit_mnt_id_req *req, const uint64_t *ids,
		    size_t n, struct ranked *v)
{
	struct table *t;
	int ret = request_table(req, &t, IDS_BACKEND);

	if (ret)
		return ret;
	for (size_t k = 0; k < n; k++) {
		ssize_t i = mntkit__mindex_find(&t->ix, ids[k]);

		v[k].id = ids[k];
		if (!t->unique_mode || !t->has_hidden)
			v[k].rank = ids[k]; /* key order */
		else if (i >= 0)
			v[k].rank = 2 * (uint64_t)i + 1;
		else /* where a listing would go on after it */
			v[k].rank = 2 * (uint64_t)file_place(t, ids[k]);
	}
	return 0;
}

int mntkit_list_order(uint64_t *ids, size_t n, const struct mntkit_opts *opts)
{
	struct mntkit_mnt_id_req req;
	struct ranked *v;
	int ret, fd = -1;

	if (!ids && n)
		return mntkit__fail(EINVAL);
	if (mntkit__ops() != &mntkit_mountinfo_ops) {
		if (n)
			qsort(ids, n, sizeof(*ids), cmp_u64);
		return 0;
	}
	ret = mntkit__req_init(&req, opts, &fd);
	if (ret)
		return mntkit__fail(-ret);
	v = malloc((n ? n : 1) * sizeof(*v));
	if (!v) {
		ret = -ENOMEM;
		goto out;
	}
	caps();
	pthread_once(&atfork_once, setup_atfork);
	pthread_mutex_lock(&lock);
	ret = rank_ids(&req, ids, n, v);
	pthread_mutex_unlock(&lock);
	if (ret)
		goto out;
	qsort(v, n, sizeof(*v), cmp_ranked);
	for (size_t k = 0; k < n; k++)
		ids[k] = v[k].id;
out:
	free(v);
	if (fd >= 0)
		close(fd);
	return ret ? mntkit__fail(-ret) : 0;
}

/* ---- path -> ID ---- */

static int emul_path_id(int dirfd, const char *path, int at_flags,
			uint64_t *mnt_id)
{
	struct statx stx;
	uint64_t old, uniq = 0;
	struct table *t;
	ssize_t i;
	int fd, ret;

	if (!path || !mnt_id)
		return -EINVAL;
	ret = mntkit__path_flags_check(at_flags);
	if (ret)
		return ret;
	caps();
	fd = mntkit__open_at(dirfd, path, at_flags);
	if (fd < 0)
		return fd;
	ret = fd_old_id(fd, &old);
	if (!ret && have_unique) {
		memset(&stx, 0, sizeof(stx));
		if (statx(fd, "", AT_EMPTY_PATH | AT_STATX_DONT_SYNC,
			  MNTKIT_STATX_MNT_ID_UNIQUE, &stx) == 0 &&
		    (stx.stx_mask & MNTKIT_STATX_MNT_ID_UNIQUE))
			uniq = stx.stx_mnt_id;
	}
	if (fd != dirfd)
		close(fd);
	if (ret)
		return ret;
	if (!have_unique) {
		*mnt_id = old;
		return 0;
	}
	/* the ID this backend names that mount by */
	pthread_once(&atfork_once, setup_atfork);
	pthread_mutex_lock(&lock);
	ret = self_table(&t, IDS_BACKEND);
	if (!ret) {
		i = mntkit__mindex_find_old(&t->ix, old);
		if (i >= 0 && (!uniq || t->ix.key[i] == uniq ||
			       t->ix.key[i] == old))
			uniq = t->ix.key[i];
	}
	pthread_mutex_unlock(&lock);
	if (!uniq)
		return ret ? ret : -EOPNOTSUPP;
	*mnt_id = uniq;
	return 0;
}

/*
 * Could a lookup of @path (absolute, as a mount point is written) walk
 * through a served filesystem of the caller's namespace? The rule of
 * mark_served_paths(), for the tools' own lookups of mount points (lsmnt's
 * statvfs); any backend, from the emulation's table (no unique IDs needed,
 * so loading it looks at no mount point).
 */
int mntkit_path_served(const char *path)
{
	struct table *t;
	int ret;

	if (!path)
		return mntkit__fail(EINVAL);
	if (path[0] != '/')
		return mntkit__fail(EINVAL);
	caps();
	pthread_once(&atfork_once, setup_atfork);
	pthread_mutex_lock(&lock);
	ret = self_table(&t, IDS_ANY);
	if (!ret)
		ret = crosses(t->served, t->nserved, path, strlen(path));
	pthread_mutex_unlock(&lock);
	return ret < 0 ? mntkit__fail(-ret) : ret;
}

const struct mntkit_backend_ops mntkit_mountinfo_ops = {
	.name = "mountinfo",
	.statmount = emul_statmount,
	.listmount = emul_listmount,
	.path_id = emul_path_id,
	.stat_many = emul_stat_many,
};
