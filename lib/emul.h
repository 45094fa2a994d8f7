/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Private to the mountinfo backend (lib/emul-*.c, and the hybrid replies
 * of lib/native-hybrid.c). The mountinfo backend: statmount(2) and listmount(2) emulated over
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
 * is ever resolved through a served filesystem (mntkit__emul_mark_served_paths()). Without
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
 * X was unique ID U, X still in the table on that device), and for any
 * old ID X whose mount is named by its unique ID now (uncovered: the
 * order a teardown unmounts in uncovers hidden mounts), statmount and
 * the snapshot batch find it by the name it had (mntkit__emul_renamed_entry()), and a
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
 * namespace: see mntkit__emul_self_table()), and a poll of the open mountinfo, which
 * reports POLLPRI when the namespace's mount table changed (mount, umount,
 * move, remount): epoll_wait() on an epoll set that holds it, which costs
 * half a poll() when nothing happened (poll() where epoll is refused). So
 * listmount + statmount of every mount costs one parse.
 * A reload keeps what earlier loads proved (old ID X was unique ID U) and
 * re-proves it with one statx of the mount point (see probe_again()) for
 * the mounts after the anchor: the last mount, from the end, still proved
 * (its point leads to the unique ID the memo has). The mounts before it
 * are named from the memo without a look: from 6.8 mountinfo lists mounts
 * by ascending unique ID, so each was made before the anchor and was the
 * mount of its old ID when the memo proved it (resolve_from_memo() says
 * why); the table alone tells whether its point leads to it. So a table
 * that changed a little costs a few lookups, not one a mount. A cold
 * load's probes close their fds by runs with close_range(2).
 * Staleness: a signalled change is seen by the next call. The kernel does
 * not signal propagation type changes (make-shared/-slave/-private/
 * -unbindable) nor superblock changes made by a filesystem itself (ext4
 * turning read-only after an error): those are seen once the table is
 * older than 8x the time its read took (2 ms .. 250 ms, see AGE_*).
 *
 * Testing knob: MNTKIT_TEST_OLD_IDS=1 in the environment, read once with
 * the probes (probe_caps()), makes the emulation take the kernel for one
 * without unique IDs (< 6.8): mntkit__emul_have_unique stays 0, and everything follows
 * from it as on such a kernel, on the same code path: every mount is named
 * by its old ID (no mount point is looked up to learn IDs), listmount
 * orders by old ID, path_id gives STATX_MNT_ID, and mntkit_get_features()
 * reports no unique IDs while this backend is in effect
 * (mntkit__emul_unique_ids()). It is for tests and benchmarks only: it lets
 * them check and measure the emulation of old kernels on a new one. The
 * native backend is unchanged (its hybrid replies take no IDs from here).
 *
 * Where each part lives:
 *  features.c       what the kernel has for it (unique IDs, namespace IDs),
 *                   probed once (mntkit__emul_caps(): internal.h)
 *  emul-cache.c     the tables: open, load, check, the snapshot windows,
 *                   foreign namespaces, the request's table
 *  emul-ids.c       the IDs: mount point probes, the memo, served paths,
 *                   the provisional IDs handed out, key lookups
 *  emul-reply.c     the reply writer (fixed part, string area, copy-out)
 *  emul-ops.c       the operations: statmount, listmount, path -> ID, the
 *                   listing order, the backend's ops table
 *  native-hybrid.c  hybrid replies (the native backend's, completed here)
 *  proc.c           the /proc handle, which all of them open procfs through
 */
#ifndef MNTKIT_EMUL_H
#define MNTKIT_EMUL_H

#include <limits.h>
#include <pthread.h>
#include <stdint.h>
#include <sys/types.h>

#include "groups.h"
#include "internal.h"
#include "mountinfo.h"

/* re-reads of a table that keeps changing while it is read */
#define LOAD_TRIES 16
/* reads that do not parse before giving up (a torn read is rare) */
#define LOAD_TRIES_TORN 256

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
/*
 * IDS_OLD: every mount named by its old ID, no mount point looked at, as
 * on a kernel before 6.8: what a call whose struct mntkit_opts asks
 * MNTKIT_OPTS_F_CHEAP_IDS gets (mntkit__emul_ids_wanted()).
 */
#define IDS_OLD     2

/* a key that is an old ID (a hidden mount's), not a unique ID */
static inline int low_key(uint64_t key)
{
	return key <= MNTKIT_MNT_UNIQUE_ID_OFFSET;
}

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
	uint64_t gen;         /* the load that proved it (struct table) */
	uint8_t anchor_ok;    /* that load read no change (see
			       * mntkit__emul_resolve_ids()) */
};

struct table {
	int fd;               /* the open mountinfo; -1: empty slot */
	int ep;               /* epoll set of fd (POLLPRI), or -1: poll() */
	pid_t pid;            /* 0: the calling thread; -1: held (below) */
	int held;             /* a namespace no process is in, entered by
			       * setns: ns_fd is its nsfs file, at its root */
	int ns_fd;
	dev_t ns_dev;         /* nsfs inode of the namespace */
	ino_t ns_ino;
	dev_t root_dev;       /* self: the root when opened */
	ino_t root_ino;
	uint64_t root_mnt;
	char prefix[48];      /* "", "[/proc/]PID/root" or "." (held) */
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
	int memo_ordered;     /* the memo's load had its unique IDs in
			       * line order (the kernel's, 6.8+) */
	uint64_t gen;         /* the loads, counted */
	int clean;            /* this load read no change */
	int ordered;          /* its unique keys ascend line by line */
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
	int pid_only;         /* a process's namespace known by its
			       * mountinfo alone (its nsfs file refused) */
	size_t next_pos;      /* by_key position after the last one found */
};

/* an ID the kernel would refuse (<= 2^31) that may still name a mount of
 * the emulation's table */
static inline int low_id(uint64_t id)
{
	return id <= MNTKIT_MNT_UNIQUE_ID_OFFSET;
}

/* a reply being written (lib/emul-reply.c) */
struct reply {
	struct mntkit_statmount *sm; /* the fixed part, 512 bytes */
	char *str;
	size_t len;
	size_t cap;
	size_t bufsize;
};

/* lib/emul-cache.c: the tables, under mntkit__emul_lock */
extern pthread_mutex_t mntkit__emul_lock;
extern pthread_once_t mntkit__emul_atfork_once;
void mntkit__emul_setup_atfork(void);
int mntkit__emul_table_changed(struct table *t);
int mntkit__emul_self_table(struct table **out, int ids);
int mntkit__emul_request_table(const struct mntkit_mnt_id_req *req,
			       struct table **out, int ids);
int mntkit__emul_foreign_denied(const struct mntkit_mnt_id_req *req,
				const struct table *t);
int mntkit__emul_ids_wanted(const uint64_t *ids, size_t n);

/* lib/emul-ids.c: IDs and mount point probes */
int mntkit__emul_issued_has(uint64_t id);
uint64_t mntkit__emul_issued_base(uint64_t id);
int mntkit__emul_issue_outside_parents(const struct table *t);
int mntkit__emul_memo_save(struct table *t);
int mntkit__emul_type_magics(struct table *t);
int mntkit__emul_mark_served_paths(struct table *t);
int mntkit__emul_resolve_ids(struct table *t);
void mntkit__emul_note_places(const struct table *t);
void mntkit__emul_probe_point(struct table *t, size_t i, int want_statfs);
struct fstype mntkit__emul_type_of(const struct table *t, size_t i);
int mntkit__emul_same_type(const struct table *t, struct mntkit_mi_span a,
			   struct mntkit_mi_span b);
ssize_t mntkit__emul_find_key(struct table *t, uint64_t id);
ssize_t mntkit__emul_renamed_entry(const struct table *t, uint64_t id);
int mntkit__emul_fd_old_id(int fd, uint64_t *id);
int mntkit__emul_crosses(const struct point_ref *v, size_t n, const char *s,
			 size_t len);

/* lib/emul-reply.c: the reply writer */

/* the string area of the replies, reused from call to call (under
 * mntkit__emul_lock) */
struct mntkit__emul_scratch {
	char *str;
	size_t cap;
};
extern struct mntkit__emul_scratch mntkit__emul_scratch;

/* at most this much of the string area stays allocated between calls */
#define SCRATCH_KEEP 65536

int mntkit__emul_fill_reply(struct reply *r, struct table *t, size_t i,
			    uint64_t want, const struct mntkit_statmount *nat,
			    uint64_t kmask, uint64_t supported);
int mntkit__emul_reply_out(struct reply *r, int ret,
			   struct mntkit_statmount *buf, size_t bufsize);

#endif
