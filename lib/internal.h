/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Private to libmntkit: the backend seam and small helpers shared by the
 * library's layers.
 */
#ifndef MNTKIT_INTERNAL_H
#define MNTKIT_INTERNAL_H

#include <errno.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include "mntkit.h"
#include "util.h"

/*
 * A backend serves the kernel-ABI entry points. Both functions follow the
 * system call convention (-1 and errno).
 */
struct mntkit_backend_ops {
	const char *name;
	int (*statmount)(const struct mntkit_mnt_id_req *req,
			 struct mntkit_statmount *buf, size_t bufsize,
			 unsigned int flags);
	ssize_t (*listmount)(const struct mntkit_mnt_id_req *req,
			     uint64_t *mnt_ids, size_t nr_mnt_ids,
			     unsigned int flags);
	/* path -> mount ID in this backend's ID space; 0 or -errno */
	int (*path_id)(int dirfd, const char *path, int at_flags,
		       uint64_t *mnt_id);
	/*
	 * Optional: statmount of @n IDs (@req's namespace, @mask) against
	 * one view of the table, for snapshots. @each gets every reply
	 * whole (fixed part and strings, sm->size bytes) with the ID asked
	 * for; an ID not in the table is passed over. @each must not call
	 * into the library (a lock is held); its non-zero return ends the
	 * walk and is returned. 0 or -errno. NULL: one statmount per ID.
	 */
	int (*stat_many)(const struct mntkit_mnt_id_req *req,
			 const uint64_t *ids, size_t n, uint64_t mask,
			 int (*each)(void *ctx, uint64_t id,
				     const struct mntkit_statmount *sm),
			 void *ctx);
	/*
	 * Optional: the replies of @ids[0..@n) to @req (its mnt_id is
	 * overwritten) one after another in @buf, as mntkit_stat_many()
	 * writes them: the number written, stopping at the first ID it
	 * cannot answer, or that ID's -errno. NULL: one statmount per ID.
	 */
	ssize_t (*stat_fill)(struct mntkit_mnt_id_req *req,
			     const uint64_t *ids, size_t n, char *buf,
			     size_t bufsize);
};

extern const struct mntkit_backend_ops mntkit_native_ops;
extern const struct mntkit_backend_ops mntkit_mountinfo_ops;

/* the backend in effect (probes once; the pinned one inside a call) */
/* clock @clk now, in nanoseconds */
static inline int64_t mntkit__clock_ns(clockid_t clk)
{
	struct timespec ts;

	clock_gettime(clk, &ts);
	return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

const struct mntkit_backend_ops *mntkit__ops(void);

/*
 * A thread-local of the library: the initial-exec model, one load from
 * the thread pointer, where the default model of a shared library calls
 * __tls_get_addr() at each use (mntkit__ops() runs once per mount of a
 * snapshot: 1.7 % of lsmnt's own time at 50,000 mounts). The few bytes
 * come from the static TLS glibc keeps for libraries that are dlopen()ed.
 */
#define MNTKIT__TLS __thread __attribute__((tls_model("initial-exec")))

/*
 * One backend per call. mntkit_set_backend() may run in another thread at
 * any moment; a call that asks mntkit__ops() several times (a listing,
 * then a statmount per ID) must get one answer from all of them, or it
 * mixes two backends' IDs. So every public call that makes more than one
 * backend call starts with MNTKIT__PIN(): the calling thread's backend is
 * taken once and held (thread-local) until the function returns; nested
 * pins keep the outer one. MNTKIT__PIN_OPS(ops) pins a given backend (a
 * watch keeps the one it was created on). mntkit_get_backend() answers
 * the pinned backend too.
 */
struct mntkit__pin {
	int pinned;
};

struct mntkit__pin mntkit__pin_begin(const struct mntkit_backend_ops *ops);
void mntkit__pin_end(struct mntkit__pin *pin);

/*
 * Where a process's namespace file is refused (/proc/PID/ns/mnt: the
 * kernel's ptrace access check) but its mountinfo is not, a call that
 * asked for that namespace by PID reads the mountinfo alone:
 * mntkit__pin_mountinfo_of() pins the emulation for the rest of the
 * pinned call (-EPERM when no call is pinned), and the emulation takes
 * the namespace of such a request from mntkit__pinned_pid() (0: none).
 */
int mntkit__pin_mountinfo_of(pid_t pid);
pid_t mntkit__pinned_pid(void);

/*
 * MNTKIT_OPTS_F_CHEAP_IDS of the pinned call's struct mntkit_opts
 * (mntkit__req_init()): the emulation names its mounts by old IDs for
 * the rest of the call. -EPERM when no call is pinned.
 */
int mntkit__pin_cheap_ids(void);
int mntkit__pinned_cheap_ids(void);
/*
 * the emulation's side of them (emul-cache.c): the PID and the cheap IDs,
 * set by backend.c
 */
void mntkit__emul_set_pid(pid_t pid);
pid_t mntkit__emul_pid(void);
void mntkit__emul_set_cheap_ids(int on);
int mntkit__emul_cheap_ids(void);

/* is @req about another namespace than the calling thread's? (ns.c) */
int mntkit__req_foreign(const struct mntkit_mnt_id_req *req);

#define MNTKIT__PIN_OPS(ops)                                                   \
	struct mntkit__pin mntkit__pin_                                        \
		__attribute__((cleanup(mntkit__pin_end), unused)) =            \
			mntkit__pin_begin(ops)
#define MNTKIT__PIN() MNTKIT__PIN_OPS(NULL)
/* MNTKIT__PIN_OPS(), and the mountinfo of @pid alone when it is not 0 */
struct mntkit__pin mntkit__pin_begin_pid(const struct mntkit_backend_ops *ops,
					 pid_t pid);
#define MNTKIT__PIN_OPS_PID(ops, pid)                                          \
	struct mntkit__pin mntkit__pin_                                        \
		__attribute__((cleanup(mntkit__pin_end), unused)) =            \
			mntkit__pin_begin_pid(ops, pid)

/*
 * kernel feature bits (MNTKIT_FEAT_*), probed once (lib/features.c): all
 * but MNTKIT_FEAT_FANOTIFY_MNT, which mntkit__kernel_fanotify() answers
 * (probed at its first call: what a watch asks, not a query);
 * mntkit__kernel_calls() only those of the system calls (LISTMOUNT,
 * STATMOUNT, UNIQUE_IDS, LIST_REVERSE, the ID sources), without the
 * namespace probe a listing does not need
 */
uint32_t mntkit__kernel_features(void);
uint32_t mntkit__kernel_calls(void);
uint32_t mntkit__kernel_fanotify(void);

/* native path -> unique ID (statx, then name_to_handle_at, then fdinfo:
 * lib/native-ids.c) */
int mntkit__native_path_id(int dirfd, const char *path, int at_flags,
			   uint64_t *mnt_id);

/* the errno statx (MNTKIT_REFUSED_STATX) or name_to_handle_at
 * (MNTKIT_REFUSED_HANDLE) is refused with, 0 if it is not (lib/sys.c) */
int mntkit__native_refused(uint32_t call);

/* a path's unique mount ID by statx / name_to_handle_at alone (lib/sys.c);
 * 0 or -errno (-EOPNOTSUPP: statx gives none) */
int mntkit__statx_unique_id(int dirfd, const char *path, int at_flags,
			    uint64_t *mnt_id);
int mntkit__handle_unique_id(int dirfd, const char *path, int at_flags,
			     uint64_t *mnt_id);

/*
 * An O_PATH fd of @path as *at() resolve it with @at_flags
 * (AT_SYMLINK_NOFOLLOW; AT_EMPTY_PATH with "" gives @dirfd itself, which
 * the caller must not close), or -errno.
 */
int mntkit__open_at(int dirfd, const char *path, int at_flags);

/*
 * fstatat()'s st_dev and st_ino, 0 or -errno. glibc's stat family calls
 * statx first on 32-bit ABIs (64-bit times) and fails when a filter
 * refuses it with anything but ENOSYS: where statx is refused, the legacy
 * system call is made directly.
 */
int mntkit__stat_ident(int dirfd, const char *path, int at_flags, dev_t *dev,
		       ino_t *ino);

/*
 * The at_flags statx(2) accepts (its rule in vfs_statx(): no other bit,
 * and not both sync types), which mntkit_path_id() follows on every
 * backend: 0 or -EINVAL.
 */
static inline int mntkit__path_flags_check(int at_flags)
{
	const int sync = 0x6000; /* AT_STATX_SYNC_TYPE */
	const int ok = 0x100 | 0x800 | 0x1000 | sync;

	if ((at_flags & ~ok) || (at_flags & sync) == sync)
		return -EINVAL;
	return 0;
}

/* how many MNTKIT_REFUSED_* bits there are */
#define MNTKIT_NR_REFUSALS 8

/*
 * An fd of the calling thread's mount namespace: /proc/thread-self/ns/mnt,
 * or without /proc, pidfd_open(2) and PIDFD_GET_MNT_NAMESPACE (6.11+)
 * (lib/nsfs.c).
 * An fd or -errno.
 */
int mntkit__own_ns_fd(void);

/*
 * An nsfs fd of mount namespace @id, found by the kernel's walk of the
 * namespaces from the caller's (NS_MNT_GET_NEXT / _PREV, 6.12+), with or
 * without a process in it (lib/nsfs.c). An fd, -ENOENT when the walk does
 * not reach it (before 6.12; another owner's), or -errno.
 */
int mntkit__nsfs_open_id(uint64_t id);

/*
 * Enter mount namespace @ns_fd in a thread of its own (setns(2) wants a
 * thread that shares no root and cwd: unshare(CLONE_FS)) and open there
 * @nmi files of its mountinfo (through the /proc handle's thread-self)
 * and, when @root_fd is not NULL, its root (O_PATH). An open mountinfo
 * keeps reading its namespace after the thread is gone, also once no
 * process is in it (lib/nsfs.c). 0, or -errno with nothing left open
 * (the fds set to -1).
 */
int mntkit__ns_enter_open(int ns_fd, int *mi, size_t nmi, int *root_fd);

/*
 * Open the procfs file @what of @pid (0: the calling thread, as
 * /proc/thread-self) through the library's /proc handle (held from the
 * first use, so that a chroot without /proc keeps procfs: lib/proc.c),
 * else under /proc. O_CLOEXEC is added. An fd or -errno.
 */
int mntkit__proc_open(pid_t pid, const char *what, int flags);

/*
 * The /proc handle (lib/proc.c). mntkit__proc_grab: take /proc as the
 * handle unless one is held, 0 or -errno. mntkit__proc_handle: the handle,
 * or -1 (none: the caller uses "/proc/..."). mntkit__proc_check: let the
 * handle go (and take /proc again) when its fd number names another file
 * now. mntkit__proc_path: the path of procfs file @what of @pid (0: the
 * calling thread) in @out, and the dirfd it is relative to.
 */
int mntkit__proc_grab(void);
int mntkit__proc_handle(void);
void mntkit__proc_check(void);
int mntkit__proc_path(char *out, size_t len, pid_t pid, const char *what);

/*
 * The one scan of /proc (lib/proc.c): @each gets every PID of the /proc
 * handle (else of "/proc"), until it returns non-zero, which is returned;
 * 0 at the end, -errno when /proc cannot be read. Open a process's files
 * with mntkit__proc_open(), which goes through the same procfs.
 */
int mntkit__proc_each_pid(int (*each)(void *ctx, pid_t pid), void *ctx);

/* which of MNTKIT_FEAT_STATX_UNIQUE / _HANDLE_UNIQUE give unique IDs
 * (lib/sys.c) */
uint32_t mntkit__native_id_source(void);

/*
 * The emulation's probes, once per process (lib/features.c): run them
 * with mntkit__emul_caps(), then read the results.
 */
extern int mntkit__emul_have_unique;  /* statx STATX_MNT_ID_UNIQUE, and no knob */
extern int mntkit__emul_have_ns_id;   /* ioctl NS_GET_MNTNS_ID */
void mntkit__emul_caps(void);

/* the groups the mountinfo emulation can fill */
uint64_t mntkit__emul_supported_mask(void);

/* does the emulation name mounts by unique IDs? (not on kernels without
 * them, nor with the testing knob MNTKIT_TEST_OLD_IDS=1: lib/features.c) */
int mntkit__emul_unique_ids(void);

/* does the backend in effect name mounts by unique IDs? (lib/backend.c) */
int mntkit__unique_ids(void);

/*
 * mntkit__emul_snapshot(1) ... (0): a snapshot window of the calling
 * thread: the emulation reads mountinfo once for it (no re-read because
 * the table changed while it was read) and answers every call of the
 * window from that read. For watches, which learn of later changes from
 * their own POLLPRI.
 */
void mntkit__emul_snapshot(int begin);

/*
 * A namespace held by a watch through nsfs fd @ns_fd (duplicated; its
 * identity in *@dev, *@ino for the release): once no process is left in
 * it, the emulation still reads it, by entering it (lib/emul-cache.c).
 * 0 or -errno. Each hold is released once, with its identity.
 */
int mntkit__emul_ns_hold(int ns_fd, dev_t *dev, ino_t *ino);
void mntkit__emul_ns_release(dev_t dev, ino_t ino);

/*
 * Is @id, which the emulation does not find, the parent of a mount of its
 * current table that mountinfo does not show (above the caller's root)?
 * 1, 0 (a mount gone, or renamed), or -errno (lib/emul-ops.c; for snapshots)
 */
int mntkit__emul_parent_outside(const struct mntkit_mnt_id_req *req,
				uint64_t id);

/*
 * statmount(2) with STATMOUNT_BY_FD where the kernel has it not (before
 * 7.0): the kernel's checks of the request, then the mount of the fd's
 * ID in @ops's ID space (its path_id), by ID in the caller's namespace.
 * Syscall convention (lib/by-fd.c). mntkit__kernel_by_fd: the kernel has
 * the flag (lib/features.c).
 */
int mntkit__stat_by_fd(const struct mntkit_backend_ops *ops,
		       const struct mntkit_mnt_id_req *req,
		       struct mntkit_statmount *buf, size_t bufsize,
		       unsigned int flags);
int mntkit__kernel_by_fd(void);

/*
 * Does the caller have CAP_SYS_ADMIN over the owner of the namespace of
 * @ns_fd (the kernel's check for a foreign namespace by ID)? 1, 0, -errno
 * (lib/nsfs.c)
 */
int mntkit__ns_admin(int ns_fd);

/* listns(2) is there (6.19+; lib/features.c) */
int mntkit__kernel_listns(void);

/* mntkit_list_order() on the emulation (lib/emul-ops.c): @ids sorted in
 * the listing's order of @req's table; 0 or -errno */
int mntkit__emul_list_order(const struct mntkit_mnt_id_req *req,
			    uint64_t *ids, size_t n);

/* the errno of each refused call as a mask of MNTKIT_REFUSED_* bits
 * (lib/features.c) */
uint32_t mntkit__refused_mask(void);

/*
 * A reply's copies (lib/reply.c). mntkit__sm_size: the bytes it takes,
 * its size but never less than the fixed part. mntkit__sm_copy: it into
 * @dst (mntkit__sm_size() bytes), a short fixed part padded with zeros.
 * mntkit__sm_dup: the same into a malloc'd copy, or NULL.
 */
size_t mntkit__sm_size(const struct mntkit_statmount *sm);
void mntkit__sm_copy(void *dst, const struct mntkit_statmount *sm);
struct mntkit_statmount *mntkit__sm_dup(const struct mntkit_statmount *sm);
/* a malloc'd reply shrunk to mntkit__sm_size() (as it was if that fails) */
struct mntkit_statmount *mntkit__sm_fit(struct mntkit_statmount *sm);

/*
 * lib/reply.c: the kernel's copy of a request (copy_mnt_id_req): -EFAULT
 * for NULL, -E2BIG above a page or with a tail that is not zero, -EINVAL
 * below MNTKIT_MNT_ID_REQ_SIZE_VER0; else 0 and *@req (zero-extended).
 */
int mntkit__req_copy(const struct mntkit_mnt_id_req *ureq,
		     struct mntkit_mnt_id_req *req);

/* a statmount: a backend's, the system call's, mntkit_statmount() */
typedef int mntkit__statmount_fn(const struct mntkit_mnt_id_req *req,
				 struct mntkit_statmount *buf, size_t bufsize,
				 unsigned int flags);

/*
 * lib/reply.c: the reply of @fn to @req (@flags) in *@buf, a malloc'd
 * buffer of *@bufsize bytes (NULL with 0 to begin with, or one to reuse),
 * grown by doubling on EOVERFLOW, from 4 KiB, up to 64 MiB. 0 or the
 * -errno of @fn (or -ENOMEM); the buffer stays the caller's either way.
 */
int mntkit__stat_grown(mntkit__statmount_fn *fn,
		       const struct mntkit_mnt_id_req *req, unsigned int flags,
		       struct mntkit_statmount **buf, size_t *bufsize);

/*
 * The replies of @ids[0..@n) one after another in @buf, as
 * mntkit_stat_many() writes them, each asked by @one (a backend's
 * statmount, syscall convention) with @req (its mnt_id overwritten): the
 * number written, stopping at the first ID it cannot answer, or that
 * ID's -errno (-EOVERFLOW: less than a fixed part left). lib/reply.c.
 */
typedef int mntkit__statmount_fn(const struct mntkit_mnt_id_req *req,
				 struct mntkit_statmount *buf, size_t bufsize,
				 unsigned int flags);
ssize_t mntkit__fill_each(mntkit__statmount_fn *one,
			  struct mntkit_mnt_id_req *req, const uint64_t *ids,
			  size_t n, char *buf, size_t bufsize);

/* the mnt_id line of /proc/self/fdinfo/@fd (3.15+); 0 or -errno */
int mntkit__fdinfo_mnt_id(int fd, uint64_t *id);

/*
 * Hybrid replies (a kernel whose statmount lacks groups the emulation can
 * fill). mntkit__kernel_mask: the groups of the kernel's statmount (0
 * without it; MNTKIT_TEST_KERNEL_MASK applies). mntkit__hybrid: whether
 * native replies for groups the kernel lacks take the hybrid path (not
 * with MNTKIT_HYBRID=0); mntkit__hybrid_mask: the groups they then get
 * from the emulation.
 * mntkit__emul_hybrid: statmount(2) with the groups of @kmask from the
 * kernel and the others from the emulation, as one reply laid out as the
 * kernel lays it (syscall convention).
 */
uint64_t mntkit__kernel_mask(void);
uint64_t mntkit__hybrid_mask(void);
int mntkit__hybrid(void);
/* the groups a native request may ask and still go to the kernel as it
 * is: all without the hybrid, else the kernel's (not SUPPORTED_MASK) */
uint64_t mntkit__direct_mask(void);
int mntkit__emul_hybrid(const struct mntkit_mnt_id_req *req, uint64_t kmask,
			struct mntkit_statmount *buf, size_t bufsize);

/*
 * Resolve struct mntkit_opts into the namespace part of a request.
 * *@fd_to_close is set to an fd the caller must close after its last use of
 * @req, or -1. Returns 0 or -errno.
 */
int mntkit__req_init(struct mntkit_mnt_id_req *req,
		     const struct mntkit_opts *opts, int *fd_to_close);

/* ---- lib/fetch.c: under the conveniences (query.c), snapshots (table*.c)
 * and watches (watch.c) ---- */

/*
 * The replies of @ids[0..@n) (groups @mask, @base's namespace) one after
 * another in @buf, as mntkit_stat_many() writes them; its return value
 */
ssize_t mntkit__stat_fill(const struct mntkit_mnt_id_req *base,
			  const uint64_t *ids, size_t n, uint64_t mask,
			  char *buf, size_t bufsize);

/* a sink of replies: @sm whole (sm->size bytes), asked as @id; non-zero
 * ends the walk */
typedef int mntkit__reply_fn(void *ctx, uint64_t id,
			     const struct mntkit_statmount *sm);

/*
 * The replies of @ids[0..@n) (groups @mask, @base's namespace), each to
 * @each; an ID gone since it was listed is passed over. @each must not
 * call into the library. 0, @each's non-zero return, or -errno.
 */
int mntkit__stat_each(const struct mntkit_mnt_id_req *base,
		      const uint64_t *ids, size_t n, uint64_t mask,
		      mntkit__reply_fn *each, void *ctx);

/* statmount @mnt_id into *@buf, growing it on EOVERFLOW; 0 or -errno */
int mntkit__stat_into(const struct mntkit_mnt_id_req *base, uint64_t mnt_id,
		      uint64_t mask, struct mntkit_statmount **buf,
		      size_t *bufsize);

struct mntkit_idvec {
	uint64_t *v;
	size_t n, cap;
};

int mntkit__idvec_reserve(struct mntkit_idvec *iv, size_t want);

/* every ID below @mnt_id (the root too with LSMT_ROOT), all pages */
int mntkit__list_flat(const struct mntkit_mnt_id_req *base, uint64_t mnt_id,
		      unsigned int lflags, struct mntkit_idvec *iv);

/* climb from *@id to the namespace's true root */
int mntkit__true_root(const struct mntkit_mnt_id_req *req, uint64_t *id);

/* ---- the snapshots (lib/table*.c), for query.c, watch.c ---- */

/* the caller's root, in its own namespace or in the one of @req (the top
 * of that namespace's LSMT_ROOT listing) */
int mntkit__reachable_root(const struct mntkit_mnt_id_req *req, uint64_t *id);

/*
 * A snapshot of @start and its subtree (@start = LSMT_ROOT: the caller's
 * root listing), each mount stat'ed with @mask | MNT_BASIC.
 */
int mntkit__table_build(const struct mntkit_mnt_id_req *req, uint64_t start,
			uint64_t mask, struct mntkit_table **out);

/*
 * Shared records (lib/table-shared.c): a reply with a reference count
 * before it, held by a live table (lib/live.c) and by every snapshot
 * made of it, freed by the last owner, from any thread.
 * mntkit__srec_new: a copy of @sm, one reference (NULL: -ENOMEM).
 * mntkit__srec_get / _put: one reference more, one less (NULL is fine).
 * mntkit__table_shared: a snapshot of @n shared records, sorted by
 * ascending mnt_id, each ID once, linked as mntkit_table_new() links
 * them; it takes a reference to each (and none on failure). A table
 * made so has a count of owners: mntkit__table_hold() adds one, and
 * mntkit_table_free() frees it when the last lets go. 0 or -ENOMEM.
 */
struct mntkit_statmount *mntkit__srec_new(const struct mntkit_statmount *sm);
void mntkit__srec_get(const struct mntkit_statmount *sm);
void mntkit__srec_put(const struct mntkit_statmount *sm);
int mntkit__table_shared(const struct mntkit_statmount *const *recs,
			 size_t n, struct mntkit_table **out);
void mntkit__table_hold(struct mntkit_table *t);

/*
 * mntkit_list()'s MNTKIT_LIST_F_CHILDREN and MNTKIT_LIST_F_TREE listings of
 * @mnt_id (@flags) into @iv, over a snapshot; 0 or -errno
 */
int mntkit__table_list_shaped(const struct mntkit_mnt_id_req *req,
			      uint64_t mnt_id, unsigned int flags,
			      struct mntkit_idvec *iv);

/*
 * The environment variables the library reads (lib/env.c), each with
 * secure_getenv(3): none of them in a setuid/setgid program.
 *  MNTKIT_BACKEND=native|mountinfo|auto   the backend (as
 *                                        mntkit_set_backend(), lib/backend.c)
 *  MNTKIT_HYBRID=0                        no hybrid replies (lib/features.c)
 *  MNTKIT_DEBUG=LEVEL                     the debug trace (lib/debug.c)
 *  MNTKIT_TEST_KERNEL_MASK=MASK           testing: a kernel with only these
 *                                        groups (lib/features.c)
 *  MNTKIT_TEST_OLD_IDS=1                  testing: old IDs (lib/features.c)
 *  MNTKIT_TEST_SETTLE_ROUNDS=N            testing: re-reads of a snapshot
 *                                        (lib/table-settle.c)
 */
enum mntkit__knob {
	MNTKIT__ENV_BACKEND,
	MNTKIT__ENV_HYBRID,
	MNTKIT__ENV_DEBUG,
	MNTKIT__ENV_TEST_KERNEL_MASK,
	MNTKIT__ENV_TEST_OLD_IDS,
	MNTKIT__ENV_TEST_SETTLE_ROUNDS,
	MNTKIT__NR_KNOBS
};

/* the value of @knob (NULL: unset, or a secure-execution process) */
const char *mntkit__env(enum mntkit__knob knob);

/*
 * The debug trace (lib/debug.c): one line, without its newline, to the
 * printer of mntkit_set_print() (or stderr, by MNTKIT_DEBUG). errno is
 * kept. mntkit__debug_on() tells whether a line of @level goes anywhere
 * (to skip the work of a message nobody reads).
 */
void mntkit__debug(enum mntkit_print_level level, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
int mntkit__debug_on(enum mntkit_print_level level);

/*
 * A caller's mistake (lib/debug.c): say why at MNTKIT_PRINT_WARN, as
 * "FUNCTION: REASON", and fail with @err (-err, errno set).
 * MNTKIT__MISUSE(err, fmt, ...) names the calling function.
 */
int mntkit__misuse(const char *func, int err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
#define MNTKIT__MISUSE(err, ...) mntkit__misuse(__func__, (err), __VA_ARGS__)

/*
 * mntkit__sized_in() of the caller's struct @type (its name, e.g.
 * "mntkit_opts", whose declaration macro is @macro), with the reason of a
 * refusal in the trace: a size below the first version's (a struct not
 * declared with its macro has size 0), or fields this library does not
 * know set.
 */
int mntkit__sized_arg(void *out, size_t out_size, const void *in,
		      size_t in_size, size_t ver0, const char *type,
		      const char *macro);

/* the refusal of a sized struct @type of @size below @ver0, with its
 * reason (declare it with @macro) in the trace: -EINVAL */
int mntkit__short_size(const char *type, size_t size, size_t ver0,
		       const char *macro);

/* return -err and set errno = err (err > 0) */
static inline int mntkit__fail(int err)
{
	errno = err;
	return -err;
}

#define MNTKIT_ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

#endif
