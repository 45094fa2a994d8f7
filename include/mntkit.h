/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * mntkit.h - ask the kernel about mounts: listmount(2), statmount(2) and
 * unique mount IDs on every Linux kernel, with snapshots, lookups, diffs
 * and watches. Link with -lmntkit (pkg-config mntkit).
 *
 * START HERE. The everyday jobs, each a call or two:
 *
 *   the mount a path is on      mntkit_stat_path(AT_FDCWD, path, 0, mask, &sm)
 *   one mount by ID             mntkit_stat(id, mask, NULL, &sm)
 *   every mount, as a table     mntkit_table_new(mask, flags, NULL, &t), then
 *                               mntkit_table_count(), mntkit_table_get(),
 *                               the tree (mntkit_table_first_root(), ...)
 *   find in a table             mntkit_table_find_target(), _find_source(),
 *                               _find_containing(), _find_devno()
 *   the IDs below a mount       mntkit_list(id, flags, NULL, &ids)
 *   every mount below a path,   mntkit_list_under(path,
 *   in unmount order              MNTKIT_LIST_F_CHILDREN_FIRST, NULL, &ids)
 *   what changed                mntkit_diff(before, after, ...), or a watch:
 *                               mntkit_watch_new(), mntkit_watch_fd(),
 *                               mntkit_watch_read()
 *   the table, always current   mntkit_live_new(), mntkit_live_process(),
 *                               mntkit_live_snapshot()
 *   read a reply's strings      mntkit_sm_get(sm, field)
 *   findmnt's OPTIONS columns   mntkit_sm_options(sm, MNTKIT_OPTIONS_ALL, ...)
 *   findmnt's words for flags   mntkit_attr_str(), mntkit_propagation_str()
 *   the mount of a findmnt ID   mntkit_id_from_old(old_id, NULL, &id)
 *   another mount namespace     struct mntkit_opts (MNTKIT_OPTS(o, .pid = N))
 *
 * For example, the mount point and type of every mount:
 *
 *	struct mntkit_table *t;
 *
 *	if (mntkit_table_new(MNTKIT_STATMOUNT_MNT_POINT |
 *			     MNTKIT_STATMOUNT_FS_TYPE, 0, NULL, &t) < 0)
 *		err(1, "mntkit_table_new");
 *	for (size_t i = 0; i < mntkit_table_count(t); i++) {
 *		const struct mntkit_statmount *sm = mntkit_table_get(t, i);
 *
 *		printf("%s %s\n", mntkit_sm_get(sm, MNTKIT_FIELD_MNT_POINT),
 *		       mntkit_sm_get(sm, MNTKIT_FIELD_FS_TYPE));
 *	}
 *	mntkit_table_free(t);
 *
 * A reply is the kernel's own struct mntkit_statmount (mntkit/abi.h):
 * @mask says which groups it holds; the groups are asked for with a mask
 * of MNTKIT_STATMOUNT_* bits. mntkit(3) is the overview; each call has
 * its page (man 3 mntkit_table_new, ...); whole programs, one per
 * everyday job, are in /usr/share/doc/libmntkit-dev/examples/ (examples/
 * of the source tree).
 *
 * MOUNT IDS. A mount has two IDs. @mnt_id (and @mnt_parent_id) is the
 * unique 64-bit ID (Linux 6.8+): above 2^31 (MNTKIT_MNT_UNIQUE_ID_OFFSET),
 * never reused until reboot. It is what every call takes and gives, and
 * the one to store. @mnt_id_old (and @mnt_parent_id_old) is the old,
 * 31-bit ID the kernel reuses: the first field of /proc/PID/mountinfo,
 * findmnt's and lsmnt's ID column. Show it where users compare with
 * those tools; never keep it to find a mount again later. On the
 * mountinfo emulation (mntkit_get_backend()) a mount whose unique ID
 * cannot be read without a risk of blocking (a mount hidden under
 * another, one of a network or FUSE filesystem) has its old ID as
 * @mnt_id, and on a kernel before 6.8 every mount has
 * (MNTKIT_FEAT_UNIQUE_IDS says which kind a backend gives), and so does
 * every mount on it for a call that asks MNTKIT_OPTS_F_CHEAP_IDS. Listings
 * come by ascending @mnt_id, so those old IDs come first;
 * mntkit_list_order() puts IDs in mountinfo's order (findmnt's), and
 * MNTKIT_TABLE_F_OLD_ORDER gives a table's tree findmnt's sibling order.
 *
 * THE RULES every call follows:
 *
 *  1. Errors. The two system calls' stand-ins, mntkit_statmount() and
 *     mntkit_listmount(), behave exactly like the system calls: they
 *     return -1 and set errno. Every other function that returns int or
 *     ssize_t returns a value >= 0 on success and a negative errno value
 *     on failure, and also sets errno to the positive value (the libbpf
 *     convention); a function returning a pointer returns NULL and sets
 *     errno. So "errno" is right after a failure of any call, and
 *     strerror(-ret) is right for all but those two. "No such item" (no
 *     parent, no child, not found) is -ENOENT; a NULL where a pointer is
 *     required, an unknown flag or a bad index is -EINVAL. -EFAULT is
 *     only ever the kernel's answer (through the two system calls).
 *  2. Arguments come in the order: the subject (a mount ID, a path, a
 *     table, a watch), then selectors (mask, flags), then
 *     `const struct mntkit_opts *opts` (NULL: the caller's namespace),
 *     then the outputs (the pointers the call fills).
 *  3. A struct that may grow starts with a `size` field. Declare it with
 *     its macro, which zeroes it and sets the size: MNTKIT_OPTS(o),
 *     MNTKIT_OPTS(o, .pid = 42), MNTKIT_WATCH_OPTS(), MNTKIT_TAB_OPTS(),
 *     MNTKIT_TAB_ENTRY(), MNTKIT_EVENT(), MNTKIT_FEATURES(). The library
 *     reads and writes only the fields both it and the caller know; a
 *     size below the struct's first version (its _SIZE_VER0) is -EINVAL
 *     (a struct declared without its macro has size 0), an input struct
 *     whose tail beyond what the library knows is not zero is -E2BIG, and
 *     an output struct's tail beyond what the library knows is zeroed
 *     (a newer field an older library cannot fill reads as 0).
 *  4. Names. A call on an object is mntkit_OBJ_VERB() (mntkit_table_new(),
 *     mntkit_watch_read()); a getter of an enum or struct mntkit_X is
 *     mntkit_get_X() or mntkit_OBJ_get_X() (mntkit_get_backend(),
 *     mntkit_watch_get_source()). A flag, a bit a caller ORs into a
 *     flags argument or field, is MNTKIT_OWNER_F_NAME (MNTKIT_LIST_F_TREE,
 *     MNTKIT_TABLE_F_COMPACT, MNTKIT_WATCH_F_INITIAL); an enum value has
 *     no _F_ (MNTKIT_WATCH_POLL, MNTKIT_TAB_FSTAB); bits that describe
 *     rather than ask are named for what they describe (MNTKIT_FEAT_*,
 *     MNTKIT_REFUSED_*, MNTKIT_CHANGED_*, MNTKIT_TABLE_STATE_*). The
 *     kernel's ABI keeps the kernel's names behind MNTKIT_
 *     (MNTKIT_STATMOUNT_MNT_POINT, MNTKIT_LISTMOUNT_REVERSE).
 *
 * THREADS, object by object:
 *  - Calls that take no object (mntkit_stat(), mntkit_list(), the
 *    namespace, decoder and feature calls, ...) may be made from any
 *    thread at any time. The backend is chosen once per process (the
 *    first call probes); mntkit_set_backend() may change it at any time:
 *    each call runs on one backend from start to end, a watch on the one
 *    it was made on.
 *  - struct mntkit_table: immutable once made. Its calls may run in many
 *    threads at once; mntkit_table_free() only when no other thread uses
 *    it. (A table taken with MNTKIT_TABLE_F_COMPACT makes a mount's reply
 *    at its first mntkit_table_get(): that is safe from many threads, and
 *    can fail with ENOMEM.)
 *  - struct mntkit_watch: one thread at a time (it holds no lock); the
 *    records an event points to live until the next mntkit_watch_read()
 *    or mntkit_watch_free() of the watch. Different watches are
 *    independent.
 *  - struct mntkit_live: one thread at a time, as a watch; its snapshots
 *    are tables as above, which any thread may also free while the live
 *    table applies events.
 *  - Replies (struct mntkit_statmount) and the structs a caller passes
 *    are the caller's: the library reads them during the call only.
 *  - The print hook (mntkit_set_print()) may be called from any thread.
 *
 * ENVIRONMENT. The library reads MNTKIT_BACKEND (mntkit_set_backend()),
 * MNTKIT_HYBRID (mntkit_set_backend(3), "Hybrid replies"), MNTKIT_DEBUG
 * (the debug trace, mntkit_set_print()) and testing knobs (MNTKIT_TEST_*),
 * each once, with secure_getenv(3): a setuid or setgid program reads none.
 */
#ifndef MNTKIT_H
#define MNTKIT_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <mntkit/abi.h>

#ifdef __cplusplus
extern "C" {
#endif

#define MNTKIT_VERSION_MAJOR 0
#define MNTKIT_VERSION_MINOR 1
#define MNTKIT_VERSION_PATCH 0

/*
 * mntkit_version - the release of the library a program runs with,
 * "MAJOR.MINOR.PATCH" (a static string); MNTKIT_VERSION_* above are the
 * release it was compiled against. Never fails.
 */
const char *mntkit_version(void);

/*
 * MNTKIT__SIZED(type, name, ...): the one shape of every sized struct's
 * declaration macro: @name, a struct @type zeroed but for its size and
 * the ".field = value" designators after the name. (The name travels
 * inside __VA_ARGS__ so that the one-argument form is valid ISO C. In C++
 * designators need C++20; or write: struct mntkit_opts o{};
 * o.size = sizeof(o);)
 */
#define MNTKIT__SIZED(type, name, ...)                                         \
	struct type name = { .size = sizeof(struct type), __VA_ARGS__ }

/* ---- Which mount namespace: the options every query takes ---- */

/*
 * struct mntkit_opts - which mount namespace a convenience queries.
 * Declare it with MNTKIT_OPTS(), which zeroes it and sets @size; a NULL
 * pointer means "the caller's namespace". At most one of @mnt_ns_id,
 * @mnt_ns_fd and @pid may be set (-EINVAL otherwise).
 *
 * @size:      sizeof(struct mntkit_opts), set by MNTKIT_OPTS().
 * @mnt_ns_id: a mount namespace ID (mntkit_ns_id_from_fd()), 0 for none.
 * @mnt_ns_fd: an fd of /proc/PID/ns/mnt, 0 for none (as in the kernel ABI).
 * @pid:       a process whose mount namespace is queried, 0 for none.
 * @flags:     MNTKIT_OPTS_F_* (0: none; an unknown bit is -EINVAL).
 */
struct mntkit_opts {
	size_t size;
	uint64_t mnt_ns_id;
	int mnt_ns_fd;
	pid_t pid;
	uint64_t flags;
};

/*
 * MNTKIT_OPTS_F_CHEAP_IDS: name mounts by their old IDs where a unique ID
 * costs a look at each mount point: on the mountinfo backend (a kernel
 * before 6.11, or statmount(2) refused), the call's replies, listings and
 * tables give every mount's old ID as @mnt_id and its parent's old ID as
 * @mnt_parent_id, as on a kernel before 6.8, and look at no mount point
 * to learn IDs (one system call or more a mount): for a listing that
 * shows no unique ID, as lsmnt's default columns. Such an ID names its mount
 * only while the mount lives (old IDs are reused): do not keep it. A
 * unique ID asked for (mnt_id, a cursor) is still taken, and that call
 * names mounts as without the flag. The native backend gives unique IDs
 * with or without it. Not for a watch or a live view (-EINVAL): they
 * compare the IDs of many loads.
 */
#define MNTKIT_OPTS_F_CHEAP_IDS 0x01ULL

/* the size of the first struct mntkit_opts (a smaller one: -EINVAL) */
#define MNTKIT_OPTS_SIZE_VER0 (offsetof(struct mntkit_opts, pid) + sizeof(pid_t))

/* MNTKIT_OPTS(name) or MNTKIT_OPTS(name, .field = value, ...) */
#define MNTKIT_OPTS(...) MNTKIT__SIZED(mntkit_opts, __VA_ARGS__, )

/* ---- One mount ---- */

/*
 * mntkit_stat - statmount one mount into a reply allocated to fit.
 *
 * Asks for @mask (MNTKIT_STATMOUNT_*) about @mnt_id, growing the buffer on
 * EOVERFLOW. Returns 0 with *@out a malloc'd reply of at least
 * (*out)->size bytes (free it with free(3)); on failure a negative errno
 * and *@out NULL. Errors: statmount(2)'s (-ENOENT: no such mount in the
 * namespace, it is gone; -EINVAL: @mnt_id is not a unique ID, or @out is
 * NULL; -EPERM: not reachable from the caller's root, or another
 * namespace without CAP_SYS_ADMIN over it), @opts' (-EINVAL, -E2BIG, see
 * struct mntkit_opts; -ESRCH: no such process), -ENOMEM.
 */
int mntkit_stat(uint64_t mnt_id, uint64_t mask, const struct mntkit_opts *opts,
		struct mntkit_statmount **out);

/*
 * mntkit_stat_buf - statmount into a caller-owned buffer, growing it.
 *
 * Like getline(3): *@buf may be NULL (with *@bufsize 0) or a malloc'd buffer
 * of *@bufsize bytes; it is realloc'd on EOVERFLOW and both are updated. The
 * buffer stays the caller's to free, also after a failure. Reusing one
 * buffer across calls costs no allocation per mount. Returns 0, or a
 * negative errno as mntkit_stat() (-EINVAL also for a NULL @buf or
 * @bufsize).
 */
int mntkit_stat_buf(uint64_t mnt_id, uint64_t mask,
		    const struct mntkit_opts *opts,
		    struct mntkit_statmount **buf, size_t *bufsize);

/*
 * mntkit_stat_fd - mntkit_stat() of the mount @fd (any fd, O_PATH too) is
 * on: statmount(2) with MNTKIT_STATMOUNT_BY_FD on 7.0+, else the mount of
 * the fd's mount ID (statx, or /proc/self/fdinfo/FD) in the caller's
 * namespace, answered as mntkit_stat() answers it. On success *@out is a
 * malloc'd reply (free(3)) and 0 is returned; else a negative errno
 * (-EBADF: no such fd; -EINVAL: @out is NULL, or the fd is on an internal
 * mount: a pipe, socket, nsfs file; -ENOENT before 7.0: the mount is not
 * in the caller's namespace, e.g. detached) and *@out is NULL.
 */
int mntkit_stat_fd(int fd, uint64_t mask, struct mntkit_statmount **out);

/*
 * mntkit_path_id - the unique mount ID of the mount a path is on.
 *
 * @dirfd, @path and @at_flags as for statx(2) (AT_FDCWD, AT_EMPTY_PATH,
 * AT_SYMLINK_NOFOLLOW, ...; other bits than statx takes: -EINVAL). Uses
 * statx(STATX_MNT_ID_UNIQUE), falling back to
 * name_to_handle_at(AT_HANDLE_MNT_ID_UNIQUE). Returns 0 and *@mnt_id, or
 * a negative errno: -EOPNOTSUPP when the kernel has no unique IDs (the
 * mountinfo backend then answers with the reused ID: see MOUNT IDS above),
 * -EINVAL (NULL @path or @mnt_id, other @at_flags), and statx(2)'s
 * (-ENOENT, -EACCES, -ENOTDIR, -ELOOP, -EBADF, ...).
 */
int mntkit_path_id(int dirfd, const char *path, int at_flags,
		   uint64_t *mnt_id);

/*
 * mntkit_path_served - could looking @path up block on a filesystem's
 * server? 1 when a prefix of the absolute @path (ending at a '/', or the
 * whole path) is the mount point of a mount in the caller's namespace
 * whose filesystem a server or daemon answers for (nfs, cifs, fuse, ...:
 * see mntkit_set_backend(3)), 0 when none is, a negative errno on failure
 * (-EINVAL for a relative path). A served filesystem on "/" does not
 * count. For a program that looks up mount points (statvfs, as lsmnt's
 * SIZE does) and must not hang on a dead server. Reads mountinfo, never
 * the path.
 */
int mntkit_path_served(const char *path);

/*
 * mntkit_stat_path - mntkit_stat() of the mount a path is on: the mount
 * mntkit_path_id() names (@dirfd, @path and @at_flags as there), in the
 * caller's namespace and root. Returns 0 and *@out (malloc'd, free(3)),
 * or a negative errno of either call (-EINVAL for a NULL @out) and *@out
 * NULL.
 */
int mntkit_stat_path(int dirfd, const char *path, int at_flags,
		     uint64_t mask, struct mntkit_statmount **out);

/* ---- Reading a reply ---- */

/* the string and string-array fields of struct mntkit_statmount */
enum mntkit_field {
	MNTKIT_FIELD_FS_TYPE = 1,
	MNTKIT_FIELD_MNT_ROOT,
	MNTKIT_FIELD_MNT_POINT,
	MNTKIT_FIELD_MNT_OPTS,
	MNTKIT_FIELD_FS_SUBTYPE,
	MNTKIT_FIELD_SB_SOURCE,
	MNTKIT_FIELD_OPT_ARRAY,     /* string arrays from here */
	MNTKIT_FIELD_OPT_SEC_ARRAY,
	MNTKIT_FIELD_MNT_UIDMAP,
	MNTKIT_FIELD_MNT_GIDMAP,
};

/*
 * mntkit_sm_str - a string field of a reply, checked.
 *
 * @len is the number of valid bytes at @sm (the bufsize given to statmount,
 * or sm->size for a reply of mntkit_stat()). On success *@out points into
 * @sm. Errors: -EINVAL unknown or array field; -ENODATA the field's group is
 * not in sm->mask; -EBADMSG the reply is malformed (size outside
 * [512, @len], offset outside the string area, string not NUL-terminated).
 */
int mntkit_sm_str(const struct mntkit_statmount *sm, size_t len,
		  enum mntkit_field field, const char **out);

/*
 * mntkit_sm_strv - a string-array field of a reply, checked.
 *
 * Stores up to @nvec string pointers in @vec (which may be NULL when @nvec
 * is 0) and returns the number of strings in the field, so a call with
 * @nvec 0 counts them. Every string is checked, also those not stored.
 * Errors as mntkit_sm_str() (-EINVAL for a non-array field); -EBADMSG also
 * when the count runs past the end of the reply.
 */
ssize_t mntkit_sm_strv(const struct mntkit_statmount *sm, size_t len,
		       enum mntkit_field field, const char **vec, size_t nvec);

/*
 * mntkit_sm_get - string field @field of reply @sm, read with the reply's
 * own size (mntkit_sm_str(sm, sm->size, field, &s)): for the replies the
 * library hands out (mntkit_stat(), mntkit_table_get(), a watch's events),
 * whose size is right. Returns the string (pointing into @sm), or NULL
 * with errno set: ENODATA (the reply lacks the field's group, e.g. an
 * empty FS_SUBTYPE, or no options), EINVAL (NULL @sm, an unknown or
 * array field), EBADMSG (a malformed reply).
 */
const char *mntkit_sm_get(const struct mntkit_statmount *sm,
			  enum mntkit_field field);

/* mntkit_field_name - "fs_type", "opt_array", ...; NULL (errno EINVAL)
 * if unknown. */
const char *mntkit_field_name(enum mntkit_field field);

/* ---- Decoding flags to the words of findmnt and /proc ---- */

/* flags of mntkit_attr_str() */
#define MNTKIT_DECODE_F_PROC 0x01U /* as /proc/PID/mountinfo: no strictatime */

/*
 * The decoders (these three and mntkit_changed_str()) share one signature,
 * mntkit_decoder: the value, flags (0, or MNTKIT_DECODE_F_PROC for
 * mntkit_attr_str(); others: -EINVAL), then the buffer. They write
 * comma-separated words into @buf like snprintf(3): they return the length
 * of the whole text (without the NUL) even when @len was too small, and
 * always NUL-terminate when @len > 0 (@buf may be NULL when @len is 0).
 *
 * mntkit_attr_str: mnt_attr -> "ro|rw[,nosuid][,nodev][,noexec]
 *   [,noatime|,strictatime][,nodiratime][,relatime][,nosymfollow]
 *   [,idmapped]", in the order of /proc/PID/mountinfo. With
 *   MNTKIT_DECODE_F_PROC strictatime is left out, as mountinfo does.
 * mntkit_sb_flags_str: sb_flags -> "ro|rw[,sync][,dirsync][,lazytime]".
 * mntkit_propagation_str: mnt_propagation -> "shared" or "private", then
 *   ",slave" and ",unbindable" when set: "private,slave", "shared,slave",
 *   "private,unbindable" (findmnt's PROPAGATION column).
 */
typedef int (*mntkit_decoder)(uint64_t value, unsigned int flags, char *buf,
			     size_t len);

int mntkit_attr_str(uint64_t mnt_attr, unsigned int flags, char *buf,
		    size_t len);
int mntkit_sb_flags_str(uint64_t sb_flags, unsigned int flags, char *buf,
			size_t len);
int mntkit_propagation_str(uint64_t mnt_propagation, unsigned int flags,
			   char *buf, size_t len);

/* which of findmnt's option strings mntkit_sm_options() writes */
enum mntkit_options {
	MNTKIT_OPTIONS_ALL = 0, /* OPTIONS: the two below merged, as libmount
				   merges them ("ro" first when either is) */
	MNTKIT_OPTIONS_VFS = 1, /* VFS-OPTIONS: the mount's flags */
	MNTKIT_OPTIONS_FS = 2,  /* FS-OPTIONS: the superblock's flags, then
				   the filesystem's own options */
};

/*
 * mntkit_sm_options - findmnt's OPTIONS, VFS-OPTIONS or FS-OPTIONS (by
 * @which) of reply @sm, into @buf like the decoders above (snprintf(3):
 * the length of the whole text; @buf NULL only with @len 0). VFS-OPTIONS
 * needs MNTKIT_STATMOUNT_MNT_BASIC in the reply, FS-OPTIONS
 * MNTKIT_STATMOUNT_SB_BASIC (and MNT_OPTS for the filesystem's options:
 * a reply without it has none), OPTIONS both. The filesystem's options
 * come with their \ooo escapes undone, as findmnt shows them. Errors:
 * -ENODATA (a group missing), -EINVAL (NULL @sm, an unknown @which, a
 * NULL @buf with a @len), -EBADMSG (a malformed reply).
 */
int mntkit_sm_options(const struct mntkit_statmount *sm,
		      enum mntkit_options which, char *buf, size_t len);

/*
 * Names of the statmount groups, lower case without prefix ("sb_basic",
 * "mnt_basic", ..., "mnt_gidmap"). mntkit_mask_name() returns the name of a
 * single bit, NULL otherwise. mntkit_mask_parse() parses a comma-separated
 * list of names, "all", or a number (decimal or 0x hex); it returns 0 and
 * stores the mask, or -EINVAL and stores in *@bad (if not NULL) the offset
 * of the first unknown name (-EINVAL also for a NULL @text or @mask).
 */
const char *mntkit_mask_name(uint64_t bit);
int mntkit_mask_parse(const char *text, uint64_t *mask, size_t *bad);

/* ---- Many mounts ---- */

/* flags of mntkit_list() */
#define MNTKIT_LIST_F_REVERSE  0x01U /* descending order */
#define MNTKIT_LIST_F_CHILDREN 0x02U /* only direct children of the start */
#define MNTKIT_LIST_F_TREE     0x04U /* whole subtree, depth-first tree order */
#define MNTKIT_LIST_F_CHILDREN_FIRST 0x08U /* every mount before its parent,
					    and before what it covers: an
					    order to unmount them in */

/*
 * mntkit_list - every mount ID below @mnt_id, all pages fetched.
 *
 * @mnt_id is a unique mount ID (the start itself is not listed) or
 * MNTKIT_LSMT_ROOT (the caller's root mount, which is listed).
 * Default order: ascending ID, as listmount(2); MNTKIT_LIST_F_REVERSE:
 * descending. MNTKIT_LIST_F_CHILDREN: only direct children of the start, by
 * ascending ID (the seed's listmount). MNTKIT_LIST_F_TREE: the subtree
 * depth-first, a parent before its children, siblings by ascending ID (the
 * seed's LISTMOUNT_RECURSIVE); with MNTKIT_LSMT_ROOT the root comes first.
 * With REVERSE, siblings come by descending ID.
 * MNTKIT_LIST_F_CHILDREN_FIRST: the subtree in the reverse of TREE's order,
 * so that each mount comes before its parent and before an older sibling
 * it may cover: an order in which each can be unmounted. CHILDREN and
 * TREE or CHILDREN_FIRST exclude each other (-EINVAL).
 *
 * Mounts that vanish between the pages or while the tree is built are
 * left out, never reported as failures. CHILDREN and TREE walk a snapshot
 * (mntkit_table_new()); a mount it placed as a root is below the start,
 * where exactly it could not tell: TREE lists it with its subtree after
 * the start's (and the root's) subtree, CHILDREN lists it as a child of
 * the start. So no live mount below the start is left out.
 * On success *@ids is a malloc'd array (free(3); NULL when empty) and the
 * count is returned; on failure a negative errno.
 */
ssize_t mntkit_list(uint64_t mnt_id, unsigned int flags,
		    const struct mntkit_opts *opts, uint64_t **ids);

/*
 * mntkit_list_order - put @n mount IDs (of @opts' namespace) in the order
 * listmount(2) lists them on the backend in effect, in place: ascending on
 * the native backend (the kernel's order: by unique ID); on the mountinfo
 * backend, the emulation's listing order, which is mountinfo's (findmnt's
 * list order) with each hidden mount, named by its old ID, in its place
 * (in ID order the old IDs would come first). An ID not in the table goes
 * where a listing with it as the cursor goes on; with
 * MNTKIT_OPTS_F_CHEAP_IDS, where the emulation lists old IDs, mountinfo's
 * order, and an ID not in the table goes last. For a program that holds
 * IDs (a snapshot's, which is sorted by ID) and lists them as findmnt
 * does. 0 or a negative errno (-EINVAL: @ids NULL with @n > 0).
 */
int mntkit_list_order(uint64_t *ids, size_t n, const struct mntkit_opts *opts);

/*
 * mntkit_stat_many - the replies of many mounts, one after another in one
 * buffer: the cheapest way to ask about thousands.
 *
 * statmount of the groups @mask of @ids[0], @ids[1], ... (in @opts'
 * namespace), each answered as mntkit_statmount() answers it. The replies
 * go into @buf one after another, each mntkit_stat_span() bytes after the
 * one before (8-byte aligned, as @buf must be: malloc's is). Returns the
 * number written, reply k being that of @ids[k]. It stops early at a
 * mount it cannot answer, or whose reply (at least the 512-byte fixed
 * part) does not fit in what is left of the @bufsize bytes; the next
 * call, from that ID, says why. When it cannot answer @ids[0] it returns
 * that failure: -ENOENT (the mount is gone), -EOVERFLOW (its reply needs
 * more than @bufsize bytes), or another of statmount's. 0 for @nr_ids 0.
 * @flags must be 0; a NULL @ids (with @nr_ids > 0) or @buf, or an
 * unaligned @buf, is -EINVAL.
 *
 * On the native backend each mount is one system call, made by a loop
 * that does nothing else between one and the next (bench/: the lists of
 * lsmnt, which reads a listing this way, against a bare loop).
 */
ssize_t mntkit_stat_many(const uint64_t *ids, size_t nr_ids, uint64_t mask,
			 unsigned int flags, const struct mntkit_opts *opts,
			 void *buf, size_t bufsize);

/*
 * mntkit_stat_span - the bytes reply @sm takes in the buffer of
 * mntkit_stat_many(): its size (never less than the fixed part), rounded
 * up to a multiple of 8. The next reply starts there.
 */
static inline size_t mntkit_stat_span(const struct mntkit_statmount *sm)
{
	size_t size = sm->size < MNTKIT_STATMOUNT_FIXED_SIZE ?
			      MNTKIT_STATMOUNT_FIXED_SIZE :
			      sm->size;

	return (size + 7) & ~(size_t)7;
}

/*
 * mntkit_root_id - the unique ID of the mount a snapshot taken with
 * @flags starts at (mntkit_table_new()): the caller's root mount (@flags
 * 0), or with MNTKIT_TABLE_F_UNREACHABLE the namespace's true root, above
 * any chroot (which needs CAP_SYS_ADMIN when the two differ). Returns 0
 * and *@mnt_id, or a negative errno: -EINVAL (NULL @mnt_id, another
 * flag), -EPERM (the true root without CAP_SYS_ADMIN), @opts' errors.
 */
int mntkit_root_id(unsigned int flags, const struct mntkit_opts *opts,
		   uint64_t *mnt_id);

/*
 * mntkit_list_under - every mount whose mount point is @path or below it,
 * every mount stacked on @path included: the job of tearing down a
 * container's or a pod's mounts. Parents come first (a snapshot's tree
 * order); with MNTKIT_LIST_F_CHILDREN_FIRST (the only flag) in an order in
 * which each can be unmounted: every mount before its parent and before a
 * mount it covers. @path is made canonical with mntkit_path_canon() (so
 * it is never resolved through a served filesystem) in the caller's
 * namespace; for another namespace (@opts) it is taken lexically, as
 * that namespace's mount points read. On success *@ids is a malloc'd
 * array (free(3); NULL when none) and the count is returned; else a
 * negative errno: -EINVAL (NULL or empty @path, NULL @ids, another flag),
 * mntkit_table_new()'s and mntkit_path_canon()'s.
 */
ssize_t mntkit_list_under(const char *path, unsigned int flags,
			  const struct mntkit_opts *opts, uint64_t **ids);

/*
 * mntkit_id_from_old - the ID (@mnt_id, what every other call takes) of
 * the mount whose old ID is @old_id: the ID of mountinfo's first field,
 * of findmnt's and lsmnt's ID column, of statx(2)'s STATX_MNT_ID. On every
 * backend (on the emulation of an old kernel the two are the same).
 * Reads a snapshot (mntkit_table_new(): one statmount per mount) of
 * @opts' namespace. Returns 0 and *@mnt_id, or a negative errno: -ENOENT
 * (no mount has that old ID), -EINVAL (@old_id 0 or above 2^31, NULL
 * @mnt_id), mntkit_table_new()'s.
 */
int mntkit_id_from_old(uint64_t old_id, const struct mntkit_opts *opts,
		       uint64_t *mnt_id);

/* ---- Snapshots: every mount, an ID index and the tree ---- */

/*
 * struct mntkit_table - a snapshot of a mount namespace's table: one reply
 * per mount (the groups asked for), ordered by ascending mount ID, with an
 * index by ID and the parent/child links of the mount tree. Built with one
 * listing and one statmount per mount (and, when mounts moved meanwhile,
 * a few re-reads: see "The tree" below); mounts that vanish meanwhile are
 * left out. Immutable once built, so it may be read from many threads.
 * Records are addressed by index, 0 .. mntkit_table_count() - 1.
 */
struct mntkit_table;

/* flags of mntkit_table_new() */
#define MNTKIT_TABLE_F_UNREACHABLE 0x01U /* from the namespace's true root,
					  above the caller's chroot
					  (CAP_SYS_ADMIN) */
#define MNTKIT_TABLE_F_COMPACT 0x02U /* keep each reply without its reserved
				      fixed bytes (see mntkit_table_get()) */
#define MNTKIT_TABLE_F_OLD_ORDER 0x04U /* siblings by their old IDs, as
					findmnt's tree (see "The tree") */

/*
 * mntkit_table_new - take a snapshot of the mounts at and below the
 * caller's root (or the namespace's true root with
 * MNTKIT_TABLE_F_UNREACHABLE), statmount'ing each with @mask.
 * MNTKIT_STATMOUNT_MNT_BASIC is always added (the tree needs it).
 * MNTKIT_TABLE_F_COMPACT: keep the replies compact (see mntkit_table_get()).
 * MNTKIT_TABLE_F_OLD_ORDER: the tree's sibling order (see "The tree").
 * Returns 0 and *@out (free it with mntkit_table_free()), or a negative
 * errno and *@out NULL: -EINVAL (NULL @out, an unknown flag),
 * -EPERM (MNTKIT_TABLE_F_UNREACHABLE without CAP_SYS_ADMIN where the
 * true root is above the caller's; another namespace without it),
 * -ENOENT (UNREACHABLE on the emulation in a chroot: mountinfo does not
 * show what is above the caller's root), @opts' errors, -ENOMEM.
 */
int mntkit_table_new(uint64_t mask, unsigned int flags,
		     const struct mntkit_opts *opts, struct mntkit_table **out);

/* mntkit_table_free - free a snapshot (NULL is fine). Never fails. */
void mntkit_table_free(struct mntkit_table *table);

/* mntkit_table_count - the number of mounts in the snapshot (0 for NULL). */
size_t mntkit_table_count(const struct mntkit_table *table);

/*
 * mntkit_table_get - the reply of mount @idx (NULL and errno EINVAL when
 * out of range or @table is NULL).
 * Its strings are read with mntkit_sm_str(sm, sm->size, ...). The reply
 * lives as long as the table.
 *
 * A table taken with MNTKIT_TABLE_F_COMPACT keeps each reply in about a
 * third of the memory: the 8-byte words of its fixed part that are not
 * zero (most are: the reserved ones, the groups not asked for) and its
 * strings. The first
 * mntkit_table_get() of a mount makes its reply from that, the same bytes
 * as a table taken without the flag, and keeps it for the table's life
 * (NULL and errno ENOMEM when that fails); it is safe from many threads.
 * To read every mount once, mntkit_table_get_buf() costs no memory per
 * mount.
 */
const struct mntkit_statmount *
mntkit_table_get(const struct mntkit_table *table, size_t idx);

/*
 * mntkit_table_get_buf - the reply of mount @idx copied into a
 * caller-owned buffer, growing it as mntkit_stat_buf() does (*@buf NULL
 * with *@bufsize 0, or a malloc'd buffer of *@bufsize bytes, the caller's
 * to free also after a failure). The same bytes as mntkit_table_get()'s,
 * of any table, but the table keeps nothing. 0, or -EINVAL (NULL table,
 * @buf or @bufsize, @idx out of range) or -ENOMEM.
 */
int mntkit_table_get_buf(const struct mntkit_table *table, size_t idx,
			 struct mntkit_statmount **buf, size_t *bufsize);

/*
 * mntkit_table_find - the index of mount @mnt_id, or -ENOENT (-EINVAL for a
 * NULL table). O(log n).
 */
ssize_t mntkit_table_find(const struct mntkit_table *table, uint64_t mnt_id);

/*
 * The tree. Every mount of a snapshot hangs from a root, also when mounts
 * moved while it was read. A root is the mount the snapshot starts at (the
 * caller's root mount, or the namespace's true root with
 * MNTKIT_TABLE_F_UNREACHABLE), or a mount whose parent the caller's root does
 * not reach (in a chroot whose root is no mount point: the mounts below
 * it), or a mount the backend could not read (no MNT_BASIC in its mask).
 * Children and roots come by ascending mount ID; with
 * MNTKIT_TABLE_F_OLD_ORDER by ascending old ID (mnt_id_old, mountinfo's
 * first field; then by ID), the order of findmnt's tree (libmount takes a
 * mount's children by their mountinfo IDs). The two differ only where the
 * kernel gave a mount an old ID that an earlier mount had freed.
 *
 * A snapshot is not atomic: each mount is read where it was at its own
 * statmount. Before it is returned it is checked, in O(n), for parent
 * links that would leave live mounts out of the tree - a cycle (two mounts
 * that swapped places, each read as the other's parent), a parent that is
 * not in the listing (made after it) or that vanished - and then the
 * mounts involved are read again, then the listing too, a few rounds. A
 * mount that still does not fit (the table kept changing under every
 * re-read) is *placed* as a root: its record keeps the mnt_parent_id it
 * was read with, mntkit_table_placed() is 1 for it, the table's state has
 * MNTKIT_TABLE_STATE_PLACED, and the placed roots come after the others.
 * A cycle is cut at its lowest ID; the mounts below stay where they are.
 *
 * mntkit_table_parent: the parent's index, or -ENOENT for a root.
 * mntkit_table_first_child / mntkit_table_next_sibling: an index, or
 *   -ENOENT when there is none.
 * mntkit_table_first_root: the first root's index, or -ENOENT when the
 *   table is empty; the next roots follow with mntkit_table_next_sibling().
 * mntkit_table_depth: 0 for a root, parent's depth + 1 otherwise (never 0
 *   for a mount with a parent).
 * mntkit_table_next_preorder: the mount after @idx in the pre-order walk
 *   of the subtree of @root (a parent before its children, children in
 *   the order above): the first child of @idx, else the next sibling of
 *   @idx or of the nearest mount on the way up to @root that has one;
 *   -ENOENT when the subtree is done (never a sibling of @root). @idx is
 *   @root or a mount below it (unchecked: the climb stops at @root's
 *   depth).
 * All six fail with -EINVAL for a NULL table or an index out of range,
 * and set errno on failure; "for (i = first_child(t, p); i >= 0;
 * i = next_sibling(t, i))" walks the children, "for (i = r; i >= 0;
 * i = next_preorder(t, i, r))" the subtree of r (r and every mount
 * below it), and the same over every root the whole table.
 */
ssize_t mntkit_table_parent(const struct mntkit_table *table, size_t idx);
ssize_t mntkit_table_first_child(const struct mntkit_table *table, size_t idx);
ssize_t mntkit_table_next_sibling(const struct mntkit_table *table,
				  size_t idx);
ssize_t mntkit_table_first_root(const struct mntkit_table *table);
ssize_t mntkit_table_depth(const struct mntkit_table *table, size_t idx);
ssize_t mntkit_table_next_preorder(const struct mntkit_table *table,
				   size_t idx, size_t root);

/* mntkit_table_state() bits */
#define MNTKIT_TABLE_STATE_PLACED 0x01U /* some mounts are placed as roots */

/* mntkit_table_state - MNTKIT_TABLE_STATE_* of a snapshot (0 for NULL). */
unsigned int mntkit_table_state(const struct mntkit_table *table);

/*
 * mntkit_table_placed - 1 when mount @idx is a root only because the
 * snapshot could not tell where it hangs (see above), else 0; -EINVAL for
 * an index out of range or a NULL table.
 */
int mntkit_table_placed(const struct mntkit_table *table, size_t idx);

/* ---- Lookups: a mount by target, source, device; a path's mount ---- */

/*
 * The lookups of libmount's mnt_table_find_*(), moby/mountinfo's and
 * Kubernetes' mount-utils' Mounted/IsMountPoint, over any table (a
 * snapshot or a table read from a file). They never block on a
 * filesystem's server: nothing is looked up through a served filesystem
 * (nfs, cifs, fuse, ...: mntkit_path_served()).
 *
 * Paths are compared as libmount compares them: equal but for trailing
 * slashes ("/mnt/" is "/mnt"). A record is read with mntkit_sm_str(sm,
 * sm->size, ...): one without the group a lookup needs (MNT_POINT,
 * SB_SOURCE, SB_BASIC) never matches. Records are those of the table,
 * with their strings as the table has them (unescaped).
 *
 * Flags (each call says which it takes; any other: -EINVAL):
 */
#define MNTKIT_LOOKUP_F_FIRST    0x01U /* the first match in table order,
					not the last (the visible one) */
#define MNTKIT_LOOKUP_F_CANON    0x02U /* when nothing matches as given,
					try the canonical form (below) */
#define MNTKIT_LOOKUP_F_NOFOLLOW 0x04U /* a final symlink is not followed */

/*
 * mntkit_path_canon - the canonical form of @path, as realpath(3) gives
 * it but without ever blocking: the path (relative to the working
 * directory, or absolute) is resolved a component at a time in the
 * caller's namespace and root, symlinks followed (at most 40: -ELOOP),
 * "." and ".." taken off. A component that does not exist or cannot be
 * looked at, and every component inside a served filesystem (its mount
 * point crossed), is not looked up: it and the rest are taken as
 * written, lexically ("a/../b" is "b"), so the result is always an
 * absolute path without "//", "." or "..", and without a trailing slash
 * (but "/"). MNTKIT_LOOKUP_F_NOFOLLOW: a final symlink is kept. On success
 * 0 and *@out (malloc'd, free(3)); else a negative errno (-EINVAL: NULL
 * or empty @path, NULL @out, a flag other than NOFOLLOW) and *@out NULL.
 */
int mntkit_path_canon(const char *path, unsigned int flags, char **out);

/*
 * mntkit_table_find_target - the mount whose mount point is @path.
 * By default the visible one of those mounted there: the last in table
 * order, then the mount on top of it (a child on the same mount point)
 * up the stack; with MNTKIT_LOOKUP_F_FIRST the first in table order. With
 * MNTKIT_LOOKUP_F_CANON, when no mount point is @path as given, the
 * mounts are looked up again with mntkit_path_canon(@path). Returns the
 * index, -ENOENT when none, -EINVAL (NULL argument, other flags).
 */
ssize_t mntkit_table_find_target(const struct mntkit_table *table,
				 const char *path, unsigned int flags);

/*
 * mntkit_table_find_source - the mount whose source (SB_SOURCE) is
 * @source: a path ("/dev/sda1"), any other string ("tmpfs",
 * "server:/export"), or a tag LABEL=, UUID=, PARTLABEL=, PARTUUID= (value
 * maybe in double quotes). The last match in table order, or the first
 * with MNTKIT_LOOKUP_F_FIRST. As libmount, first the sources as given are
 * compared, through the whole table; then, with MNTKIT_LOOKUP_F_CANON,
 * the canonical forms: a tag is the device udev's link
 * /dev/disk/by-{label,uuid,partlabel,partuuid}/VALUE names (the value
 * escaped as udev escapes it), a path its mntkit_path_canon(); it
 * matches a record whose source is that device as given, or whose
 * source (a path, or a tag) has that canonical form. The library has no
 * libblkid: a tag no udev link names (no udev: a container, an initrd)
 * matches only a source written as that tag. Returns the index, -ENOENT
 * when none, -EINVAL (NULL argument, other flags).
 */
ssize_t mntkit_table_find_source(const struct mntkit_table *table,
				 const char *source, unsigned int flags);

/*
 * mntkit_table_find_devno - the mount whose superblock device
 * (sb_dev_major:sb_dev_minor, SB_BASIC) is @devno: the last in table
 * order, or the first with MNTKIT_LOOKUP_F_FIRST. 0 is a device number
 * like others (not "none"). Of the tables read from a file only a
 * mountinfo file's records have device numbers (fstab's and utab's never
 * match). Returns the index, -ENOENT when
 * none, -EINVAL (NULL table, other flags).
 */
ssize_t mntkit_table_find_devno(const struct mntkit_table *table, dev_t devno,
				unsigned int flags);

/*
 * mntkit_table_find_containing - the mount that contains @path: the
 * mount whose mount point is the longest prefix of @path (ending at a
 * '/', or all of it), and of several there the visible one (as
 * mntkit_table_find_target()). @path is made absolute (relative to the
 * working directory) and taken lexically, without looking at the
 * filesystem ("//", "." and trailing slashes dropped, ".." taking off
 * the component before it), or with MNTKIT_LOOKUP_F_CANON through
 * mntkit_path_canon(). Like findmnt -T and libmount's
 * mnt_table_find_mountpoint(), a mount point hidden by a mount over one
 * of its ancestors still counts (the kernel's own answer for a path:
 * mntkit_path_id()). Returns the index, -ENOENT when no mount point is a
 * prefix, -EINVAL (NULL argument, empty @path, other flags).
 */
ssize_t mntkit_table_find_containing(const struct mntkit_table *table,
				     const char *path, unsigned int flags);

/*
 * mntkit_sm_match_target / mntkit_sm_match_source - does record @sm
 * (@len valid bytes, as mntkit_sm_str()) have @path as its mount point,
 * @source as its source, compared as given but for runs of slashes and a
 * trailing slash ("/a//b/" is "/a/b", "" is "/")?
 * libmount's mnt_fs_streq_target() and mnt_fs_streq_srcpath(), for a
 * walk over a table (or a watch's records) that keeps every match:
 * "for (i = 0; i < n; i++) if (mntkit_sm_match_target(...) == 1)".
 * 1 or 0; a negative errno: -EINVAL (NULL argument, @flags not 0),
 * -ENODATA (the record lacks the group), -EBADMSG (as mntkit_sm_str()).
 */
int mntkit_sm_match_target(const struct mntkit_statmount *sm, size_t len,
			   const char *path, unsigned int flags);
int mntkit_sm_match_source(const struct mntkit_statmount *sm, size_t len,
			   const char *source, unsigned int flags);

/*
 * mntkit_is_mountpoint - is @path (relative to the working directory,
 * or absolute) the root of a mount in the caller's namespace: a mount
 * point, a bind-mounted file, the root "/" (when it is a mount's root,
 * as outside a chroot)? Exact, as moby/mountinfo's Mounted() and
 * mount-utils' IsMountPoint() are not: statx(2)'s
 * STATX_ATTR_MOUNT_ROOT of the path (5.8+), else the mount IDs of the
 * path and of its parent directory compared (mntkit_path_id()). A final
 * symlink is followed, or with MNTKIT_LOOKUP_F_NOFOLLOW looked at itself.
 * The path is resolved with mntkit_path_canon() first; when it crosses
 * a served filesystem it is not looked at: the answer is then the
 * caller's mount table's (1 when a mount's mount point is the canonical
 * path). Returns 1 or 0, or a negative errno (-ENOENT: no such path,
 * -EINVAL: NULL or empty @path, other flags; statx's).
 */
int mntkit_is_mountpoint(const char *path, unsigned int flags);

/* ---- Tables read from a file: fstab, mtab, mountinfo, utab ---- */

/* the formats of a table file */
enum mntkit_tab_format {
	MNTKIT_TAB_AUTO = 0,      /* guess from the first entry, as findmnt
				     does: "N N ..." is mountinfo, anything
				     else fstab */
	MNTKIT_TAB_MOUNTINFO = 1, /* /proc/PID/mountinfo */
	MNTKIT_TAB_FSTAB = 2,     /* fstab(5), also mtab and /proc/mounts */
	MNTKIT_TAB_UTAB = 3,      /* libmount's /run/mount/utab: ID= SRC=
				     TARGET= ROOT= BINDSRC= OPTS= ATTRS= */
};

/* flags of struct mntkit_tab_opts */
#define MNTKIT_TAB_F_SKIP_BAD 0x01U /* pass over malformed lines (as
				     libmount does), counting them */

/*
 * struct mntkit_tab_opts - how to read a table file, and what was found.
 * Declare with MNTKIT_TAB_OPTS(); NULL means AUTO, fail on a bad line.
 *
 * @size:     sizeof(struct mntkit_tab_opts), set by MNTKIT_TAB_OPTS().
 * @format:   in: the format, or MNTKIT_TAB_AUTO; out: the one read.
 * @flags:    MNTKIT_TAB_*.
 * @nr_bad:   out: the number of malformed lines (passed over with
 *            MNTKIT_TAB_F_SKIP_BAD, else at most 1: the one that failed).
 * @err_line: out: the first malformed line (from 1), 0 when none;
 * @err_col:  its column (from 1, in bytes);
 * @err_msg:  what is wrong with it (a static string), NULL when none.
 */
struct mntkit_tab_opts {
	size_t size;
	enum mntkit_tab_format format;
	unsigned int flags;
	size_t nr_bad;
	size_t err_line;
	size_t err_col;
	const char *err_msg;
};

/* the size of the first struct mntkit_tab_opts (a smaller one: -EINVAL) */
#define MNTKIT_TAB_OPTS_SIZE_VER0                                              \
	(offsetof(struct mntkit_tab_opts, err_msg) + sizeof(const char *))

/* MNTKIT_TAB_OPTS(name) or MNTKIT_TAB_OPTS(name, .field = value, ...) */
#define MNTKIT_TAB_OPTS(...) MNTKIT__SIZED(mntkit_tab_opts, __VA_ARGS__, )

/*
 * mntkit_table_read_file / mntkit_table_read_buf - a table (struct
 * mntkit_table, served by the same calls as a snapshot) of the entries
 * of a table file (@path), or of @len bytes at @buf (no NUL needed).
 *
 * Every entry is a record of the statmount shape: fstab and mtab give
 * SB_SOURCE, MNT_POINT, FS_TYPE (and FS_SUBTYPE for "type.subtype"),
 * MNT_OPTS and OPT_ARRAY (the filesystem's options), SB_BASIC (sb_flags)
 * and MNT_BASIC (mnt_attr from the VFS options); mountinfo gives what
 * the mountinfo emulation gives; utab gives MNT_BASIC, MNT_ROOT,
 * MNT_POINT, SB_SOURCE. Strings are unescaped (\ooo). The records are
 * named mnt_id 1, 2, ... in file order (the table's order); mnt_id_old
 * is the file's mount ID (mountinfo, utab), else 0. A mountinfo file
 * makes a tree (mnt_parent_id links by the file's parent IDs; a mount
 * whose parent is not in the file, or is on a cycle, is a root); the
 * roots come in file order but the root of the tree first (libmount's
 * root: the entry of the lowest parent ID, and up from it). Other
 * formats make roots only. Blank lines and '#' comments are skipped.
 *
 * A malformed line fails the call with -EBADMSG (and @topts' err_*
 * fields say where), or with MNTKIT_TAB_F_SKIP_BAD is passed over and
 * counted. Other errors: -EINVAL (NULL @out, unknown format or flags),
 * -E2BIG (see rule 3), -EFBIG (above 4 GiB), -ENOMEM, open(2)'s and
 * read(2)'s. On success 0 and *@out (free it with mntkit_table_free()).
 */
int mntkit_table_read_file(const char *path, struct mntkit_tab_opts *topts,
			   struct mntkit_table **out);
int mntkit_table_read_buf(const char *buf, size_t len,
			  struct mntkit_tab_opts *topts,
			  struct mntkit_table **out);

/*
 * struct mntkit_tab_entry - what a table file says of an entry beyond
 * its record. Declare with MNTKIT_TAB_ENTRY().
 *
 * @size:         sizeof(struct mntkit_tab_entry), set by the macro.
 * @format:       the file's format.
 * @line:         the entry's line in the file (from 1).
 * @freq, @passno: fstab's fields 5 and 6 (0 when absent); 0 otherwise.
 * @options:      fstab: field 4 as written (unescaped), NULL when absent.
 * @vfs_options:  fstab: the VFS options of it (ro, nosuid, noatime, ...),
 * @fs_options:   the filesystem's options, and
 * @user_options: the userspace ones (noauto, user, x-*, _netdev, ...),
 *                split as libmount splits them, each NULL when empty;
 *                utab: OPTS= in @user_options.
 * @attrs:        utab's ATTRS=, else NULL.
 * The strings live as long as the table.
 */
struct mntkit_tab_entry {
	size_t size;
	enum mntkit_tab_format format;
	size_t line;
	int freq;
	int passno;
	const char *options;
	const char *vfs_options;
	const char *fs_options;
	const char *user_options;
	const char *attrs;
};

/* the size of the first struct mntkit_tab_entry (a smaller one: -EINVAL) */
#define MNTKIT_TAB_ENTRY_SIZE_VER0                                             \
	(offsetof(struct mntkit_tab_entry, attrs) + sizeof(const char *))

/* MNTKIT_TAB_ENTRY(name): a zeroed struct mntkit_tab_entry, its @size set */
#define MNTKIT_TAB_ENTRY(...) MNTKIT__SIZED(mntkit_tab_entry, __VA_ARGS__, )

/*
 * mntkit_table_tab_entry - the file data of entry @idx of a table read
 * from a file. 0, or -ENODATA for a snapshot of a namespace, -EINVAL for
 * a NULL argument, an index out of range or a @size below the first
 * struct's.
 */
int mntkit_table_tab_entry(const struct mntkit_table *table, size_t idx,
			   struct mntkit_tab_entry *entry);

/* mntkit_tab_format_name - "auto", "mountinfo", "fstab", "utab"; NULL */
const char *mntkit_tab_format_name(enum mntkit_tab_format format);

/* ---- Diffs and watches ---- */

/*
 * What happened to a mount between two views of a namespace's table.
 * See mntkit_watch(3) for the full rules.
 *
 * MNTKIT_EVENT_ATTACH  a mount appeared (@after only).
 * MNTKIT_EVENT_DETACH  a mount went away (@before only: the last record seen).
 * MNTKIT_EVENT_MOVE    same mount, its parent or its mount point changed
 *                      (also a mount below a moved one, whose mount point
 *                      changed with it); @changed may hold other bits too.
 * MNTKIT_EVENT_CHANGE  same mount, same place, other fields changed
 *                      (mnt_attr, propagation, sb flags, options, ...).
 * MNTKIT_EVENT_RESYNC  watches only: events may have been lost (queue
 *                      overflow, failed read); the events that follow,
 *                      up to the next read that returns 0, bring the
 *                      watcher's view up to the current table. No records.
 * MNTKIT_EVENT_NS_ADD   all-namespace watches (MNTKIT_WATCH_F_ALL_NS): a
 *                      mount namespace is watched from now on (@mnt_ns_id,
 *                      @ns_pid); its mounts' events follow. No records.
 * MNTKIT_EVENT_NS_GONE all-namespace watches: no process is in the
 *                      namespace any more; it is no longer watched. Its
 *                      last events came before. No records.
 */
enum mntkit_event_kind {
	MNTKIT_EVENT_ATTACH = 1,
	MNTKIT_EVENT_DETACH = 2,
	MNTKIT_EVENT_MOVE = 3,
	MNTKIT_EVENT_CHANGE = 4,
	MNTKIT_EVENT_RESYNC = 5,
	MNTKIT_EVENT_NS_ADD = 6,
	MNTKIT_EVENT_NS_GONE = 7,
};

/* struct mntkit_event.changed: which parts of a record differ */
#define MNTKIT_CHANGED_PARENT      0x0001U /* mnt_parent_id(_old) */
#define MNTKIT_CHANGED_MNT_POINT   0x0002U /* mnt_point */
#define MNTKIT_CHANGED_ATTR        0x0004U /* mnt_attr */
#define MNTKIT_CHANGED_PROPAGATION 0x0008U /* mnt_propagation, mnt_peer_group,
					      mnt_master, propagate_from */
#define MNTKIT_CHANGED_SB_FLAGS    0x0010U /* sb_flags */
#define MNTKIT_CHANGED_OPTIONS     0x0020U /* mnt_opts, opt_array,
					      opt_sec_array */
#define MNTKIT_CHANGED_SOURCE      0x0040U /* sb_source */
#define MNTKIT_CHANGED_IDMAP       0x0080U /* mnt_uidmap, mnt_gidmap */
#define MNTKIT_CHANGED_OTHER       0x8000U /* anything else (mask, ...) */

/* struct mntkit_event.flags */
#define MNTKIT_EVENT_F_GONE 0x01U /* the kernel reported the mount, but it
				     was gone before it could be stat'ed:
				     the record holds only mnt_id (mask 0) */

/*
 * struct mntkit_event - one event of a diff or a watch. Extensible: the
 * caller sets @size (declare it with MNTKIT_EVENT()), the library writes
 * the fields that fit in it, zeroes a newer caller's tail beyond them, and
 * never writes @size itself.
 *
 * @size:    sizeof(struct mntkit_event) as the caller knows it; at least
 *           MNTKIT_EVENT_SIZE_VER0 (-EINVAL otherwise).
 * @kind:    MNTKIT_EVENT_*.
 * @changed: MNTKIT_CHANGED_* for MOVE and CHANGE, else 0.
 * @flags:   MNTKIT_EVENT_F_*.
 * @mnt_id:  the mount (0 for RESYNC).
 * @before:  the record before (DETACH, MOVE, CHANGE), else NULL.
 * @after:   the record after (ATTACH, MOVE, CHANGE), else NULL.
 * Read the records' strings with mntkit_sm_str(sm, sm->size, ...).
 *
 * Watches only (a diff leaves them 0):
 * @seq:          1, 2, 3, ... in the order of the watch's events, with no
 *                gap: an event a consumer did not get is one it did not
 *                read.
 * @realtime_ns:  CLOCK_REALTIME when the watch learned of the change (the
 *                kernel's signal was read or the rescan made), in ns.
 * @monotonic_ns: CLOCK_MONOTONIC of the same moment, in ns.
 * @resync_end:   RESYNC: the @seq of the last event of the resync. Events
 *                may have been lost before it; the events @seq + 1 ..
 *                @resync_end (none when equal to @seq) are the diff that
 *                replaces them, bringing the view to the current table.
 *                0 for other kinds.
 *
 * All-namespace watches only (MNTKIT_WATCH_F_ALL_NS; 0 otherwise):
 * @mnt_ns_id:    the mount namespace of the event: its ID (ioctl
 *                NS_GET_MNTNS_ID, 6.10+; before, the inode number of its
 *                nsfs file, as in /proc/PID/ns/mnt's "mnt:[N]").
 * @ns_pid:       the lowest process in the namespace at the watch's last
 *                scan of /proc (the PID namespace of the library's /proc).
 */
struct mntkit_event {
	size_t size;
	enum mntkit_event_kind kind;
	uint32_t changed;
	uint32_t flags;
	uint64_t mnt_id;
	const struct mntkit_statmount *before;
	const struct mntkit_statmount *after;
	uint64_t seq;
	uint64_t realtime_ns;
	uint64_t monotonic_ns;
	uint64_t resync_end;
	uint64_t mnt_ns_id;
	pid_t ns_pid;
};

/* the size of the first struct mntkit_event (without @seq and after) */
#define MNTKIT_EVENT_SIZE_VER0 (offsetof(struct mntkit_event, seq))

/* MNTKIT_EVENT(name): a zeroed struct mntkit_event with its @size set */
#define MNTKIT_EVENT(...) MNTKIT__SIZED(mntkit_event, __VA_ARGS__, )

/*
 * mntkit_diff - the events that turn snapshot @before into @after.
 *
 * Both tables should be taken with the same mask. Mounts are matched by
 * ID, merging the two ID-sorted tables in O(n). One event per ID, by
 * ascending ID, except a reused ID (below): DETACH then ATTACH.
 * An ID above 2^31 is a unique ID: the same ID is the same mount. An ID
 * <= 2^31 is an old, reusable ID (kernels without unique IDs, or a mount
 * the emulation cannot name otherwise): the same ID is taken for the same
 * mount only when parent, mount point, sb device, sb magic, mnt_root and
 * fs type (and subtype) agree; otherwise DETACH + ATTACH. For every ID, a
 * different sb device, sb magic, mnt_root, fs type or old ID also gives
 * DETACH + ATTACH. A reused old ID whose record is byte-identical is not
 * reported (it cannot be told from the same mount).
 * @flags must be 0. @event_size is sizeof(struct mntkit_event) as the
 * caller knows it (at least MNTKIT_EVENT_SIZE_VER0): the array's elements
 * are that big, each with its @size set to it. On success *@events is a
 * malloc'd array (free(3); NULL when empty) whose record pointers point
 * into the two tables (keep them alive), and the count is returned; else
 * a negative errno.
 */
ssize_t mntkit_diff(const struct mntkit_table *before,
		    const struct mntkit_table *after, unsigned int flags,
		    size_t event_size, struct mntkit_event **events);

/* mntkit_event_kind_name - "attach", "detach", ...; NULL if unknown. */
const char *mntkit_event_kind_name(enum mntkit_event_kind kind);

/*
 * mntkit_changed_str - MNTKIT_CHANGED_* bits as "parent,mnt_point,attr,
 * propagation,sb_flags,options,source,idmap,other" (those set), a decoder
 * like those above (mntkit_decoder; @flags must be 0).
 */
int mntkit_changed_str(uint64_t changed, unsigned int flags, char *buf,
		       size_t len);

/* ---- Watching a namespace ---- */

struct mntkit_watch;

/* where a watch gets its events */
enum mntkit_watch_source {
	MNTKIT_WATCH_AUTO = 0,     /* fanotify if possible, else poll */
	MNTKIT_WATCH_FANOTIFY = 1, /* fanotify mount events (6.15+) + diffs
				      for what fanotify does not report */
	MNTKIT_WATCH_POLL = 2,     /* POLLPRI on mountinfo + diffs */
};

/* flags of struct mntkit_watch_opts */
#define MNTKIT_WATCH_F_INITIAL 0x01U /* start with an ATTACH event for
				      every mount of the first snapshot */
#define MNTKIT_WATCH_F_ALL_NS  0x02U /* every mount namespace the caller can
				      reach (mntkit_watch_new(): @opts must
				      be NULL) */

/* rescan_ms: never rescan without a signal */
#define MNTKIT_WATCH_NO_RESCAN 0xffffffffU

/*
 * struct mntkit_watch_opts - how to watch. Declare with
 * MNTKIT_WATCH_OPTS(); a NULL pointer means all defaults.
 *
 * @size:      sizeof(struct mntkit_watch_opts), set by
 *             MNTKIT_WATCH_OPTS().
 * @source:    MNTKIT_WATCH_AUTO, or a source to force (the watch fails
 *             with -EOPNOTSUPP, -EPERM, ... when it cannot be had).
 * @mask:      the statmount groups of the records (MNT_BASIC is always
 *             added); 0: every group but SUPPORTED_MASK.
 * @flags:     MNTKIT_WATCH_*.
 * @rescan_ms: changes the kernel signals to no one (propagation changes
 *             made with mount(2)) are found by a rescan at least this
 *             often while nothing else happens (0: 1000 ms; the interval
 *             grows to 100 times the cost of a rescan, so a big table
 *             costs at most 1% CPU); MNTKIT_WATCH_NO_RESCAN: never.
 */
struct mntkit_watch_opts {
	size_t size;
	enum mntkit_watch_source source;
	uint64_t mask;
	unsigned int flags;
	uint32_t rescan_ms;
};

/* the size of the first struct mntkit_watch_opts (a smaller one: -EINVAL) */
#define MNTKIT_WATCH_OPTS_SIZE_VER0                                            \
	(offsetof(struct mntkit_watch_opts, rescan_ms) + sizeof(uint32_t))

/* MNTKIT_WATCH_OPTS(name) or MNTKIT_WATCH_OPTS(name, .field = value, ...) */
#define MNTKIT_WATCH_OPTS(...) MNTKIT__SIZED(mntkit_watch_opts, __VA_ARGS__, )

/*
 * mntkit_watch_new - watch the mounts of a namespace (@opts: the caller's,
 * or one by ID, fd or PID as for the other calls), from its root as
 * mntkit_table_new() sees it. Takes the first snapshot. Needs
 * CAP_SYS_ADMIN over the namespace for fanotify; AUTO falls back to poll.
 * Returns 0 and *@out, or a negative errno.
 */
int mntkit_watch_new(const struct mntkit_watch_opts *wopts,
		     const struct mntkit_opts *opts, struct mntkit_watch **out);

/*
 * With MNTKIT_WATCH_F_ALL_NS in @wopts->flags (and @opts NULL, -EINVAL
 * otherwise) one watch serves every mount namespace a process is in
 * (found in /proc): each by a watch of its own as above (its source,
 * mask and rescans), all behind the one fd. Every event names its
 * namespace (@mnt_ns_id, @ns_pid). The first reads bring an NS_ADD for
 * every namespace (each followed by ATTACH events of its mounts with
 * MNTKIT_WATCH_F_INITIAL); a namespace found later brings NS_ADD and the
 * ATTACH events of all its mounts (what the caller knows of it starts
 * empty); one no process is in any more brings NS_GONE after its last
 * events. The kernel signals no new namespace (checked on 6.18:
 * unshare(2) gives no fanotify event on a marked namespace), so /proc is
 * scanned at least every @rescan_ms (1000 ms by default, also with
 * MNTKIT_WATCH_NO_RESCAN) and no more often than 100 times the scan's
 * cost: that is the latency of NS_ADD. A namespace's watch keeps it
 * alive (its open mountinfo files), so namespaces no process is in (kept
 * by an fd or a bind mount) are not watched, and one whose last process
 * left is let go at the next scan, which the exit of its lowest process
 * brings forward (a pidfd): NS_GONE comes at once. The rescans of
 * @rescan_ms take the namespaces in turn, at most 1% of a CPU in all. A
 * namespace that cannot be watched (EACCES, EPERM, EMFILE, a forced
 * source refused, ...) is skipped, with its reason in the debug trace
 * (MNTKIT_PRINT_INFO) and counted by mntkit_watch_ns_skipped(); it is
 * never an error of the watch. Each namespace takes about six fds.
 */

/*
 * mntkit_watch_ns_skipped - how many namespaces an all-namespace watch
 * currently skips (it could not watch them); 0 for a watch of one
 * namespace, -EINVAL for NULL.
 */
ssize_t mntkit_watch_ns_skipped(const struct mntkit_watch *watch);

/* mntkit_watch_free - close a watch (NULL is fine). Never fails. */
void mntkit_watch_free(struct mntkit_watch *watch);

/*
 * mntkit_watch_fd - an fd that polls readable (POLLIN) when the watch may
 * have events. Call mntkit_watch_read() until it returns 0 before polling
 * again (a wakeup may bring no event). The fd is the watch's: do not
 * close it. Returns it, or -EINVAL for a NULL @watch.
 */
int mntkit_watch_fd(const struct mntkit_watch *watch);

/* mntkit_watch_get_source - the source serving the watch (never AUTO;
 * AUTO only for a NULL @watch). */
enum mntkit_watch_source
mntkit_watch_get_source(const struct mntkit_watch *watch);

/* mntkit_watch_source_name - "auto", "fanotify", "poll"; NULL if unknown */
const char *mntkit_watch_source_name(enum mntkit_watch_source source);

/*
 * mntkit_watch_read - the next event, without blocking.
 * Returns 1 and fills *@ev (the fields that fit in @ev->size, which the
 * caller sets: MNTKIT_EVENT()), 0 when there is none now, or a negative
 * errno (-EINVAL for an @ev->size below MNTKIT_EVENT_SIZE_VER0).
 * The records @ev points to stay valid until the next call of
 * mntkit_watch_read() or mntkit_watch_free() on this watch.
 */
int mntkit_watch_read(struct mntkit_watch *watch, struct mntkit_event *ev);

/*
 * mntkit_watch_rescan - compare the watch's view with a fresh snapshot now
 * and queue the events of the differences (e.g. after changing the
 * propagation of a mount, which the kernel does not signal). Returns 0,
 * or a negative errno: -EINVAL (NULL @watch), mntkit_table_new()'s (the
 * watch then owes a RESYNC, which its next reads bring).
 */
int mntkit_watch_rescan(struct mntkit_watch *watch);

/* ---- A live table: a namespace's table kept current by a watch ---- */

/*
 * struct mntkit_live - the mount table of a namespace (or of every
 * namespace), kept current by the events of a watch: what a daemon that
 * follows the mounts holds instead of a snapshot taken again at every
 * change. Each event costs what it changes (a record copied, a few map
 * updates), not the size of the table; a snapshot of it
 * (mntkit_live_snapshot()) is a struct mntkit_table that shares the
 * records, made without a system call.
 *
 * The state is exactly what the events applied so far made it: the
 * watch's view (mntkit_watch(3)). A RESYNC is handled inside: the watch
 * reads the table again and diffs it against that state, so the events
 * that follow bring it to the kernel's table, none lost or invented;
 * mntkit_live_process() hands the RESYNC to the caller too.
 *
 * Threads: one thread at a time calls the live table's functions (the
 * writer). Its snapshots are immutable tables: they may be read in many
 * threads at once and freed (mntkit_table_free()) in any thread, also
 * while the writer applies events; a record a snapshot holds stays as it
 * was. The records the lookups and the events give stay valid until the
 * next mntkit_live_process() or mntkit_live_free().
 */
struct mntkit_live;

/*
 * mntkit_live_new - a live table of the namespace of @opts (NULL: the
 * caller's; by ID, fd or PID as for the other calls), or with
 * MNTKIT_WATCH_F_ALL_NS in @wopts->flags (and @opts NULL) of every
 * namespace a process is in, watched as mntkit_watch_new() watches
 * (@wopts: the source, the records' mask, the rescans). Takes the first
 * state: the table now, applied without events; with
 * MNTKIT_WATCH_F_INITIAL the state starts empty and the first
 * mntkit_live_process() brings an ATTACH for every mount. With
 * MNTKIT_WATCH_F_ALL_NS each namespace's state starts empty and comes as
 * its NS_ADD and the ATTACH events of its mounts (INITIAL or not).
 * Returns 0 and *@out (free it with mntkit_live_free()), or a negative
 * errno and *@out NULL: -EINVAL (NULL @out), mntkit_watch_new()'s.
 */
int mntkit_live_new(const struct mntkit_watch_opts *wopts,
		    const struct mntkit_opts *opts, struct mntkit_live **out);

/*
 * mntkit_live_free - free a live table (NULL is fine); the snapshots
 * taken of it stay valid until they are freed. Never fails.
 */
void mntkit_live_free(struct mntkit_live *live);

/*
 * mntkit_live_fd - an fd that polls readable (POLLIN) when the table may
 * have changed: call mntkit_live_process() then (a wakeup may bring no
 * event). The fd is the live table's: do not close it. Returns it, or
 * -EINVAL for a NULL @live.
 */
int mntkit_live_fd(const struct mntkit_live *live);

/*
 * mntkit_live_process - apply the events pending, without blocking, and
 * return them. With @events NULL and @max 0, every pending event is
 * applied and their number returned. Otherwise at most @max are applied,
 * each written to @events[i] as mntkit_watch_read() writes one (the
 * fields that fit in @events[0].size, which the caller sets:
 * MNTKIT_EVENT(); every element is that big, and gets that @size); the
 * rest stay pending for the next call. An event's @before and @after are
 * the live table's records, valid until the next mntkit_live_process()
 * or mntkit_live_free(). A RESYNC is returned like the others (the
 * state is right once the events up to its @resync_end are applied).
 * Returns the number of events applied, 0 when none is pending, or a
 * negative errno: -EINVAL (NULL @live, NULL @events with @max > 0, an
 * @events[0].size below MNTKIT_EVENT_SIZE_VER0), -ENOMEM,
 * mntkit_watch_read()'s. A failure after some events were applied is
 * not returned: the call returns their number. An event read but not applied for want of
 * memory leaves the state behind the kernel for good: every later call
 * fails with -ENOMEM (make a new live table).
 */
ssize_t mntkit_live_process(struct mntkit_live *live,
			    struct mntkit_event *events, size_t max);

/*
 * mntkit_live_rescan - mntkit_watch_rescan() of the live table's watch:
 * a diff now, its events pending (for a change the kernel does not
 * signal, e.g. propagation set with mount(2)). 0, or a negative errno
 * (-EINVAL for a NULL @live; mntkit_watch_rescan()'s).
 */
int mntkit_live_rescan(struct mntkit_live *live);

/*
 * mntkit_live_snapshot - the state now, as an immutable table that every
 * table call takes (mntkit_table_get(), the tree, the lookups,
 * mntkit_diff()): the records by ascending ID, linked into the tree as
 * mntkit_table_new() links them. Made without a system call and without
 * copying a record: the table shares the live table's (a record
 * replaced later stays as it was in the snapshot). While nothing
 * changes, every call returns the same table. Free it with
 * mntkit_table_free() (in any thread). mntkit_live_snapshot_ns() is that
 * of the namespace @mnt_ns_id of an all-namespace live table (the ID of
 * its events; 0: that of a live table of one namespace). Returns 0 and
 * *@out, or a negative errno and *@out NULL: -EINVAL (NULL argument;
 * mntkit_live_snapshot() of an all-namespace live table), -ENOENT (no
 * such namespace, or gone), -ENOMEM.
 */
int mntkit_live_snapshot(struct mntkit_live *live, struct mntkit_table **out);
int mntkit_live_snapshot_ns(struct mntkit_live *live, uint64_t mnt_ns_id,
			    struct mntkit_table **out);

/*
 * Lookups on the state of a live table of one namespace (-EINVAL or
 * errno EINVAL for an all-namespace one: take mntkit_live_snapshot_ns()
 * and the table's calls). The records they give stay valid until the
 * next mntkit_live_process() or mntkit_live_free().
 *
 * mntkit_live_get: the record of mount @mnt_id; NULL with errno ENOENT
 *   (no such mount) or EINVAL. O(1).
 * mntkit_live_parent: 0 and the parent's ID in *@parent_id; -ENOENT when
 *   the mount has no parent in the table (a root) or is not in it. O(1).
 * mntkit_live_children: the IDs of the mounts whose parent is @mnt_id,
 *   ascending, into *@ids (malloc'd, free(3); NULL when none); their
 *   number, or a negative errno (-ENOENT: no such mount). O(children).
 * mntkit_live_find_target / mntkit_live_find_source: the record
 *   mntkit_table_find_target() / mntkit_table_find_source() (@flags as
 *   there) finds in mntkit_live_snapshot() of the state (taken again
 *   only when the state changed); NULL with errno ENOENT, EINVAL, ENOMEM.
 */
const struct mntkit_statmount *mntkit_live_get(const struct mntkit_live *live,
					       uint64_t mnt_id);
int mntkit_live_parent(const struct mntkit_live *live, uint64_t mnt_id,
		       uint64_t *parent_id);
ssize_t mntkit_live_children(const struct mntkit_live *live, uint64_t mnt_id,
			     uint64_t **ids);
const struct mntkit_statmount *
mntkit_live_find_target(struct mntkit_live *live, const char *path,
			unsigned int flags);
const struct mntkit_statmount *
mntkit_live_find_source(struct mntkit_live *live, const char *source,
			unsigned int flags);

/* ---- Mount namespaces ---- */

/*
 * mntkit_ns_open_pid - open /proc/PID/ns/mnt (O_RDONLY|O_CLOEXEC); @pid 0
 * is the caller. Returns the fd (the caller closes it), or a negative
 * errno: -EINVAL (@pid below 0), open(2)'s (-ENOENT: no such process,
 * -EACCES/-EPERM: not the caller's to look at).
 */
int mntkit_ns_open_pid(pid_t pid);

/*
 * mntkit_ns_id_from_fd - the 64-bit ID of mount namespace fd @ns_fd
 * (ioctl NS_GET_MNTNS_ID, 6.10+). Returns 0 and *@mnt_ns_id, or a
 * negative errno: -EOPNOTSUPP (a kernel without namespace IDs), -EINVAL
 * (NULL @mnt_ns_id, an fd of another kind of namespace or file), -EBADF.
 */
int mntkit_ns_id_from_fd(int ns_fd, uint64_t *mnt_ns_id);

/*
 * mntkit_ns_id_from_pid - the mount namespace ID of process @pid (0: the
 * caller). Returns 0 and *@mnt_ns_id, or the errors of
 * mntkit_ns_open_pid() and mntkit_ns_id_from_fd().
 */
int mntkit_ns_id_from_pid(pid_t pid, uint64_t *mnt_ns_id);

/*
 * mntkit_ns_open_id - an fd (O_RDONLY|O_CLOEXEC) of the mount namespace
 * with ID @ns_id, also one no process is in (kept alive by an fd or a bind
 * mount), or a negative errno. Found by stepping through the namespaces
 * with NS_MNT_GET_NEXT/PREV (6.12+; those the caller has CAP_SYS_ADMIN
 * over), else through a process in it (/proc/PID/ns/mnt). -ENOENT: not
 * found; -EOPNOTSUPP: the kernel has no namespace IDs (before 6.10);
 * -EINVAL: @ns_id is 0.
 */
int mntkit_ns_open_id(uint64_t ns_id);

/*
 * mntkit_ns_list - the IDs of every mount namespace the caller can find:
 * its own, those listns(2) lists (6.19+: every active one the caller has
 * CAP_SYS_ADMIN over, also one no process is in, kept by an fd or a bind
 * mount of its nsfs file), else those NS_MNT_GET_NEXT/PREV reach (6.12+:
 * the walk stops at the first one the caller has no CAP_SYS_ADMIN over),
 * and those of every process in /proc. Ascending, each once. Returns their number and a
 * malloc'd array in *@ids (free(3) it; NULL when 0), or a negative errno
 * (-EOPNOTSUPP before 6.10).
 */
ssize_t mntkit_ns_list(uint64_t **ids);

/*
 * mntkit_ns_list_pids - mntkit_ns_list(), and in *@pids a malloc'd array
 * of as many PIDs (free(3) it; NULL when 0): (*@pids)[i] is the lowest
 * process in /proc whose mount namespace is (*@ids)[i], 0 when none is
 * (a namespace kept by an fd or a bind mount, or whose processes the
 * caller cannot look at). One scan of /proc serves both. PIDs are those
 * of the PID namespace of the library's /proc (mntkit_init()).
 */
ssize_t mntkit_ns_list_pids(uint64_t **ids, pid_t **pids);

/* ---- Backends and features ---- */

enum mntkit_backend {
	MNTKIT_BACKEND_AUTO = 0,      /* probe: native if the kernel can */
	MNTKIT_BACKEND_NATIVE = 1,    /* the statmount/listmount syscalls */
	MNTKIT_BACKEND_MOUNTINFO = 2, /* emulation over /proc/PID/mountinfo */
};

/*
 * mntkit_set_backend - force a backend for the whole process.
 *
 * MNTKIT_BACKEND_AUTO returns to probing. Forcing NATIVE on a kernel without
 * the system calls (or where a seccomp filter refuses either: see
 * mntkit_refused()) fails with -ENOSYS; an unknown value with -EINVAL. The
 * environment variable MNTKIT_BACKEND=native|mountinfo|auto has the same
 * effect at the first call that needs a backend, by the same rule: a value
 * this call would refuse (an unknown name, native where it fails with
 * -ENOSYS) is ignored, as if unset (the debug trace says so). This call
 * overrides the variable. Calls already running in other threads finish
 * on the backend they started with.
 */
int mntkit_set_backend(enum mntkit_backend backend);

/*
 * mntkit_init - get ready for a chroot (or a namespace) without /proc.
 *
 * The emulation (and the hybrid replies) read procfs. At its first use the
 * library opens /proc (an O_PATH, O_CLOEXEC fd it holds for the life of
 * the process) and reads every procfs file through it, so that calls keep
 * working after the process chroots into a directory without /proc. A
 * program that chroots before its first call makes this call first: it
 * takes the handle and chooses the backend now. @flags must be 0. Returns
 * 0, -EINVAL for unknown flags, or the negative errno of opening /proc
 * (-ENOENT where it is not a procfs in which the calling thread is
 * visible). Calling it again (or after other calls) is harmless. What a
 * process that never saw /proc gets is in mntkit_set_backend(3).
 */
int mntkit_init(unsigned int flags);

/* mntkit_get_backend - the backend in effect (never MNTKIT_BACKEND_AUTO). */
enum mntkit_backend mntkit_get_backend(void);

/* mntkit_backend_name - "native", "mountinfo" or "auto"; NULL if unknown. */
const char *mntkit_backend_name(enum mntkit_backend backend);

/* feature bits of struct mntkit_features.flags */
#define MNTKIT_FEAT_STATMOUNT       0x0001U /* kernel has statmount(2) */
#define MNTKIT_FEAT_LISTMOUNT       0x0002U /* kernel has listmount(2) */
#define MNTKIT_FEAT_UNIQUE_IDS      0x0004U /* IDs are unique 64-bit IDs */
#define MNTKIT_FEAT_STATX_UNIQUE    0x0008U /* statx STATX_MNT_ID_UNIQUE */
#define MNTKIT_FEAT_HANDLE_UNIQUE   0x0010U /* name_to_handle_at unique ID */
#define MNTKIT_FEAT_NS_ID           0x0020U /* ioctl NS_GET_MNTNS_ID */
#define MNTKIT_FEAT_REQ_NS_ID       0x0040U /* mnt_id_req.mnt_ns_id (VER1) */
#define MNTKIT_FEAT_REQ_NS_FD       0x0080U /* mnt_id_req.mnt_ns_fd */
#define MNTKIT_FEAT_LIST_REVERSE    0x0100U /* LISTMOUNT_REVERSE */
#define MNTKIT_FEAT_FANOTIFY_MNT    0x0200U /* fanotify mount events */
#define MNTKIT_FEAT_NS_ITER         0x0400U /* NS_MNT_GET_NEXT/PREV */
#define MNTKIT_FEAT_HYBRID          0x0800U /* native replies completed by
					       the emulation (emul_mask) */
#define MNTKIT_FEAT_STATMOUNT_BY_FD 0x1000U /* statmount STATMOUNT_BY_FD
					       (7.0+) */
#define MNTKIT_FEAT_LISTNS          0x2000U /* listns(2) (6.19+) */

/*
 * struct mntkit_features - what this process can ask and get. Declare it
 * with MNTKIT_FEATURES() (its @size set: at least
 * MNTKIT_FEATURES_SIZE_VER0); the library writes the fields both know,
 * zeroes a newer caller's tail beyond them, and never writes @size.
 *
 * @backend:        the backend in effect.
 * @supported_mask: the statmount groups the backend in effect can return.
 * @kernel_mask:    the groups the kernel's own statmount supports (0 when
 *                  the kernel has no statmount).
 * @flags:          MNTKIT_FEAT_* of the running kernel.
 * @emul_mask:      on a kernel whose statmount lacks groups (6.8 - 6.14),
 *                  the groups the native backend takes from the emulation
 *                  to complete its replies (MNTKIT_FEAT_HYBRID); 0 when
 *                  none. The groups of a reply that came from the
 *                  emulation are sm->mask & emul_mask.
 * @refused:        MNTKIT_REFUSED_* of the system calls this process may
 *                  not make (see mntkit_refused()); the library does
 *                  without them where it can.
 */
struct mntkit_features {
	size_t size;
	enum mntkit_backend backend;
	uint32_t flags;
	uint64_t supported_mask;
	uint64_t kernel_mask;
	uint64_t emul_mask;
	uint32_t refused;
};

/* the size of the first struct mntkit_features (a smaller one: -EINVAL) */
#define MNTKIT_FEATURES_SIZE_VER0                                              \
	(offsetof(struct mntkit_features, refused) + sizeof(uint32_t))

/* MNTKIT_FEATURES(name): a zeroed struct mntkit_features, its @size set */
#define MNTKIT_FEATURES(...) MNTKIT__SIZED(mntkit_features, __VA_ARGS__, )

/*
 * mntkit_get_features - fill *@features (see above). Returns 0, or
 * -EINVAL for a NULL @features or a @size below MNTKIT_FEATURES_SIZE_VER0
 * (nothing written then).
 */
int mntkit_get_features(struct mntkit_features *features);

/*
 * System calls a seccomp filter (a container runtime's profile) may refuse,
 * and what the library does without each (mntkit_get_features(3),
 * "Refused system calls"):
 */
#define MNTKIT_REFUSED_STATMOUNT 0x0001U /* statmount(2): the emulation */
#define MNTKIT_REFUSED_LISTMOUNT 0x0002U /* listmount(2): the emulation */
#define MNTKIT_REFUSED_STATX     0x0004U /* statx(2): name_to_handle_at,
					    fdinfo */
#define MNTKIT_REFUSED_HANDLE    0x0008U /* name_to_handle_at(2): statx */
#define MNTKIT_REFUSED_NS_IOCTL  0x0010U /* ioctl(2) NS_GET_MNTNS_ID: no
					    namespace IDs */
#define MNTKIT_REFUSED_FANOTIFY  0x0020U /* fanotify_init/_mark(2): the
					    poll source of watches */
#define MNTKIT_REFUSED_EPOLL     0x0040U /* epoll_create1(2): no watch */
#define MNTKIT_REFUSED_PIDFD     0x0080U /* pidfd_open(2): without /proc,
					    no namespace fd */

/*
 * mntkit_refused - does this process get to make system call @call (one
 * MNTKIT_REFUSED_* bit)? 0 when it does, else the errno the system answers
 * for it: EPERM, EACCES, EINVAL (a filter: the call answers that errno for
 * any input, where the kernel's answers differ) or ENOSYS (a filter, or a
 * kernel without the call). *@name (if not NULL) gets the call's name
 * ("statmount"). -EINVAL (errno set) when @call is not one bit of them.
 */
int mntkit_refused(uint32_t call, const char **name);

/* ---- The debug trace ---- */

/*
 * The library takes some decisions without telling its caller: the backend
 * and why, hybrid replies (which groups came from the kernel and which from
 * the emulation), provisional IDs, reloads of mountinfo, re-reads of a
 * snapshot while mounts move, a watch's fallback from fanotify to poll,
 * system calls a seccomp filter refuses. Each is reported as one line
 * (no newline) to a print function, at a level:
 *
 * MNTKIT_PRINT_WARN   something the caller may not expect (a refused
 *                     system call, an environment variable ignored).
 * MNTKIT_PRINT_INFO   a decision taken once (the backend, the hybrid
 *                     groups, a watch's source).
 * MNTKIT_PRINT_DEBUG  a decision taken per call (a hybrid reply, a
 *                     reload, a re-read, a provisional ID).
 *
 * By default the lines go to stderr ("mntkit: LEVEL: TEXT") for the levels
 * the environment variable MNTKIT_DEBUG asks for: warn (or 1), info (2) or
 * debug (3) and those above; unset or 0: none. MNTKIT_DEBUG, like every
 * variable the library reads, is ignored in a setuid/setgid program
 * (secure_getenv(3)).
 *
 * mntkit_set_print - send the lines to @fn instead, every level (@fn
 * filters); NULL: nowhere. Returns the previous function. @fn may be
 * called from any thread, with library locks held: it must not call into
 * libmntkit. Its return value is ignored.
 */
enum mntkit_print_level {
	MNTKIT_PRINT_WARN = 0,
	MNTKIT_PRINT_INFO = 1,
	MNTKIT_PRINT_DEBUG = 2,
};

typedef int (*mntkit_print_fn)(enum mntkit_print_level level,
			       const char *fmt, va_list ap);

mntkit_print_fn mntkit_set_print(mntkit_print_fn fn);

/* mntkit_print_level_name - "warn", "info", "debug"; NULL if unknown. */
const char *mntkit_print_level_name(enum mntkit_print_level level);

/* ---- The system calls themselves, on every kernel ---- */

/*
 * mntkit_statmount - statmount(2) on every kernel.
 *
 * Same arguments, return value and errno as the system call: 0 on success,
 * -1 and errno on failure (EINVAL, E2BIG, EFAULT, ENOENT, EPERM, EOVERFLOW,
 * ENOMEM, ...). Served by the backend in effect (mntkit_get_backend()).
 */
int mntkit_statmount(const struct mntkit_mnt_id_req *req,
		     struct mntkit_statmount *buf, size_t bufsize,
		     unsigned int flags);

/*
 * mntkit_listmount - listmount(2) on every kernel.
 *
 * Same arguments, return value and errno as the system call: the number of
 * IDs written to @mnt_ids, or -1 and errno (EINVAL, E2BIG, EFAULT, ENOENT,
 * EPERM, EOVERFLOW for more than MNTKIT_LISTMOUNT_MAX_NR IDs, ...).
 */
ssize_t mntkit_listmount(const struct mntkit_mnt_id_req *req,
			 uint64_t *mnt_ids, size_t nr_mnt_ids,
			 unsigned int flags);

#ifdef __cplusplus
}
#endif

#endif /* MNTKIT_H */
