// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The native backend: the kernel's statmount(2) and listmount(2).
 *
 * A request for groups the kernel's statmount does not have goes to the
 * hybrid path (lib/native-hybrid.c): the kernel's groups from the kernel, the others
 * from the mountinfo emulation, in one reply laid out as a kernel with
 * every group would lay it. Everything else goes to the kernel untouched.
 */
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>

#include "internal.h"
#include "syscall.h"

/* the [str] and [strv] offsets of a reply, and their groups */
static const struct {
	uint64_t flag;
	size_t off;
} str_fields[] = {
	{ MNTKIT_STATMOUNT_MNT_OPTS, offsetof(struct mntkit_statmount, mnt_opts) },
	{ MNTKIT_STATMOUNT_FS_TYPE, offsetof(struct mntkit_statmount, fs_type) },
	{ MNTKIT_STATMOUNT_MNT_ROOT, offsetof(struct mntkit_statmount, mnt_root) },
	{ MNTKIT_STATMOUNT_MNT_POINT, offsetof(struct mntkit_statmount, mnt_point) },
	{ MNTKIT_STATMOUNT_FS_SUBTYPE, offsetof(struct mntkit_statmount, fs_subtype) },
	{ MNTKIT_STATMOUNT_SB_SOURCE, offsetof(struct mntkit_statmount, sb_source) },
	{ MNTKIT_STATMOUNT_OPT_ARRAY, offsetof(struct mntkit_statmount, opt_array) },
	{ MNTKIT_STATMOUNT_OPT_SEC_ARRAY, offsetof(struct mntkit_statmount, opt_sec_array) },
	{ MNTKIT_STATMOUNT_MNT_UIDMAP, offsetof(struct mntkit_statmount, mnt_uidmap) },
	{ MNTKIT_STATMOUNT_MNT_GIDMAP, offsetof(struct mntkit_statmount, mnt_gidmap) },
};

/* the groups an older kernel answers with an empty string, where 6.18
 * leaves them out */
#define EMPTY_CUT (MNTKIT_STATMOUNT_MNT_OPTS | MNTKIT_STATMOUNT_MNT_POINT)

static uint32_t *field_u32(struct mntkit_statmount *sm, size_t off)
{
	return (uint32_t *)((char *)sm + off);
}

/*
 * A complete reply of sm->size bytes: drop the empty MNT_OPTS and
 * MNT_POINT strings 6.8 - 6.12 write (proc's options; the mount point of
 * a mount outside the caller's root), as 6.18 does: the bit cleared, the
 * byte cut from the string area, the later offsets moved down. Returns
 * the bytes cut.
 */
static size_t cut_empty(struct mntkit_statmount *sm)
{
	size_t cut = 0;

	for (size_t k = 0; k < MNTKIT_ARRAY_SIZE(str_fields); k++) {
		uint64_t flag = str_fields[k].flag;
		size_t area = sm->size - MNTKIT_STATMOUNT_FIXED_SIZE;
		uint32_t off;

		if (!(flag & EMPTY_CUT) || !(sm->mask & flag))
			continue;
		off = *field_u32(sm, str_fields[k].off);
		if (off >= area || sm->str[off])
			continue;
		memmove(sm->str + off, sm->str + off + 1, area - off - 1);
		sm->str[area - 1] = '\0';
		sm->size--;
		sm->mask &= ~flag;
		*field_u32(sm, str_fields[k].off) = 0;
		for (size_t j = 0; j < MNTKIT_ARRAY_SIZE(str_fields); j++) {
			uint32_t *o = field_u32(sm, str_fields[j].off);

			if ((sm->mask & str_fields[j].flag) && *o > off)
				(*o)--;
		}
		cut++;
	}
	return cut;
}

/*
 * The kernel's reply, with its empty strings cut. Where the kernel has
 * them (no FS_SUBTYPE: 6.8 - 6.12) a reply that overflows @bufsize by
 * what is cut still fits, as on 6.18: it is read again into a buffer
 * that holds the cut bytes too.
 */
static int direct_statmount(const struct mntkit_mnt_id_req *req,
			    struct mntkit_statmount *buf, size_t bufsize)
{
	struct mntkit_statmount *big;
	size_t more = 2; /* at most one byte for each group of EMPTY_CUT */
	int ret;

	ret = sys_statmount(req, buf, bufsize, 0);
	if (!(req->param & EMPTY_CUT))
		return ret;
	if (ret == 0) {
		if (bufsize > MNTKIT_STATMOUNT_FIXED_SIZE)
			cut_empty(buf);
		return 0;
	}
	if (errno != EOVERFLOW || bufsize <= MNTKIT_STATMOUNT_FIXED_SIZE ||
	    (mntkit__kernel_mask() & MNTKIT_STATMOUNT_FS_SUBTYPE))
		return -1;
	big = malloc(bufsize + more);
	if (!big) {
		errno = EOVERFLOW; /* what the kernel said */
		return -1;
	}
	ret = sys_statmount(req, big, bufsize + more, 0);
	if (ret == 0) {
		cut_empty(big);
		if (big->size <= bufsize)
			memcpy(buf, big, big->size);
		else
			ret = -1;
	}
	free(big);
	if (ret)
		errno = EOVERFLOW;
	return ret;
}

/* ---- STATMOUNT_BY_FD (7.0) ---- */

static pthread_once_t by_fd_once = PTHREAD_ONCE_INIT;
static int kernel_by_fd;

/* a kernel before 7.0 answers EINVAL for any flag */
static void probe_by_fd(void)
{
	struct mntkit_mnt_id_req req = {
		.size = MNTKIT_MNT_ID_REQ_SIZE_VER0,
		.param = MNTKIT_STATMOUNT_MNT_BASIC,
	};
	struct mntkit_statmount sm;
	int fd = open("/", O_PATH | O_CLOEXEC);

	if (fd < 0)
		return;
	req.mnt_ns_fd = (uint32_t)fd;
	kernel_by_fd = sys_statmount(&req, &sm, sizeof(sm),
				     MNTKIT_STATMOUNT_BY_FD) == 0;
	close(fd);
}

int mntkit__kernel_by_fd(void)
{
	pthread_once(&by_fd_once, probe_by_fd);
	return kernel_by_fd;
}

/* internal mounts (pipes, sockets, nsfs, ...): 7.x answers EINVAL */
static int internal_mount(int fd)
{
	static const long magic[] = {
		0x50495045, /* pipefs */
		0x534f434b, /* sockfs */
		0x6e736673, /* nsfs */
		0x09041934, /* anon_inodefs */
		0x50494446, /* pidfs */
	};
	struct statfs st;

	if (fstatfs(fd, &st))
		return 0;
	for (size_t k = 0; k < MNTKIT_ARRAY_SIZE(magic); k++)
		if ((long)st.f_type == magic[k])
			return 1;
	return 0;
}

/* copy_mnt_id_req() of 7.0 for STATMOUNT_BY_FD, then the fd: 0 or -errno */
static int by_fd_req(const struct mntkit_mnt_id_req *ureq, unsigned int flags,
		     struct mntkit_mnt_id_req *req)
{
	long page = sysconf(_SC_PAGESIZE);
	int fd;

	if (flags & ~MNTKIT_STATMOUNT_BY_FD)
		return -EINVAL;
	if (!ureq)
		return -EFAULT;
	if (page > 0 && ureq->size > (unsigned long)page)
		return -E2BIG;
	if (ureq->size < MNTKIT_MNT_ID_REQ_SIZE_VER0)
		return -EINVAL;
	for (size_t i = sizeof(*req); i < ureq->size; i++)
		if (((const unsigned char *)ureq)[i])
			return -E2BIG;
	memset(req, 0, sizeof(*req));
	memcpy(req, ureq, ureq->size < sizeof(*req) ? ureq->size : sizeof(*req));
	if (req->mnt_id || req->mnt_ns_id)
		return -EINVAL;
	fd = (int)req->mnt_ns_fd;
	if (fd < 0 || fcntl(fd, F_GETFD) < 0)
		return -EBADF;
	return 0;
}

int mntkit__stat_by_fd(const struct mntkit_backend_ops *ops,
		       const struct mntkit_mnt_id_req *ureq,
		       struct mntkit_statmount *buf, size_t bufsize,
		       unsigned int flags)
{
	struct mntkit_mnt_id_req req;
	uint64_t id;
	int fd, ret;

	/* the kernel's order: flags, the request's size and tail, its
	 * fields, then the fd */
	ret = by_fd_req(ureq, flags, &req);
	if (ret) {
		errno = -ret;
		return -1;
	}
	fd = (int)req.mnt_ns_fd;
	ret = ops->path_id(fd, "", AT_EMPTY_PATH, &id);
	if (ret) {
		errno = internal_mount(fd) ? EINVAL : -ret;
		return -1;
	}
	req.size = MNTKIT_MNT_ID_REQ_SIZE_VER0;
	req.mnt_ns_fd = 0;
	req.mnt_id = id;
	ret = ops->statmount(&req, buf, bufsize, 0);
	/* not in the caller's namespace (detached, another namespace's) */
	if (ret && errno == ENOENT && internal_mount(fd))
		errno = EINVAL;
	return ret;
}

static int native_statmount(const struct mntkit_mnt_id_req *req,
			    struct mntkit_statmount *buf, size_t bufsize,
			    unsigned int flags)
{
	uint64_t kmask;

	/* STATMOUNT_BY_FD: the kernel's where it has it and every group
	 * asked; else the mount's ID from the fd, asked as below */
	if (flags == MNTKIT_STATMOUNT_BY_FD &&
	    (!mntkit__kernel_by_fd() ||
	     (req && mntkit__hybrid() &&
	      (req->param & MNTKIT_STATMOUNT_ALL & ~mntkit__kernel_mask()))))
		return mntkit__stat_by_fd(&mntkit_native_ops, req, buf,
					  bufsize, flags);
	/* what the kernel refuses before it looks at the mask is its own */
	if (!req || flags || req->size < MNTKIT_MNT_ID_REQ_SIZE_VER0)
		return sys_statmount(req, buf, bufsize, flags);
	if (!mntkit__hybrid())
		return direct_statmount(req, buf, bufsize);
	kmask = mntkit__kernel_mask();
	/* supported_mask: the hybrid's, not the kernel's */
	if (!(req->param & MNTKIT_STATMOUNT_ALL &
	      (~kmask | MNTKIT_STATMOUNT_SUPPORTED_MASK)))
		return direct_statmount(req, buf, bufsize);
	mntkit__debug(MNTKIT_PRINT_DEBUG,
		      "hybrid reply for mount %#" PRIx64 ": groups %#" PRIx64
		      " from the kernel, %#" PRIx64 " from the emulation",
		      (uint64_t)req->mnt_id, (uint64_t)(req->param & kmask),
		      (uint64_t)(req->param & ~kmask & mntkit__hybrid_mask()));
	return mntkit__emul_hybrid(req, kmask, buf, bufsize);
}

static ssize_t native_listmount(const struct mntkit_mnt_id_req *req,
				uint64_t *mnt_ids, size_t nr_mnt_ids,
				unsigned int flags)
{
	return sys_listmount(req, mnt_ids, nr_mnt_ids, flags);
}

static int statx_unique_id(int dirfd, const char *path, int at_flags,
			   uint64_t *mnt_id)
{
	struct statx stx;

	if (statx(dirfd, path, at_flags, MNTKIT_STATX_MNT_ID_UNIQUE, &stx))
		return -errno;
	if (!(stx.stx_mask & MNTKIT_STATX_MNT_ID_UNIQUE))
		return -EOPNOTSUPP;
	*mnt_id = stx.stx_mnt_id;
	return 0;
}

/* name_to_handle_at(AT_HANDLE_MNT_ID_UNIQUE) writes a u64 mount ID */
static int handle_unique_id(int dirfd, const char *path, int at_flags,
			    uint64_t *mnt_id)
{
	struct {
		struct file_handle fh;
		unsigned char space[MAX_HANDLE_SZ];
	} h;
	int allowed = AT_EMPTY_PATH | AT_SYMLINK_FOLLOW;
	int flags;

	/* statx follows symlinks unless told not to; this call the reverse */
	flags = at_flags & AT_SYMLINK_NOFOLLOW ? 0 : AT_SYMLINK_FOLLOW;
	flags |= at_flags & allowed;
	memset(&h, 0, sizeof(h));
	h.fh.handle_bytes = MAX_HANDLE_SZ;
	*mnt_id = 0;
	if (syscall(SYS_name_to_handle_at, dirfd, path, &h.fh, mnt_id,
		    flags | MNTKIT_AT_HANDLE_MNT_ID_UNIQUE) == 0)
		return 0;
	/* a filesystem without handles still had the ID written */
	if ((errno == EOPNOTSUPP || errno == EOVERFLOW) &&
	    *mnt_id > MNTKIT_MNT_UNIQUE_ID_OFFSET)
		return 0;
	return -errno;
}

static pthread_once_t source_once = PTHREAD_ONCE_INIT;
static uint32_t id_source;
static int statx_refused;  /* its errno, 0 where statx works */
static int handle_refused; /* the same for name_to_handle_at */

/*
 * statx of "/" always works where the call does (4.11+): an error is a
 * refusal. name_to_handle_at answers EINVAL for AT_HANDLE_MNT_ID_UNIQUE
 * before 6.12, and EOPNOTSUPP on a filesystem without handles: a plain
 * call then tells the kernel (which answers it, or EOPNOTSUPP again) from
 * a filter (the same errno).
 */
static void probe_source(void)
{
	struct {
		struct file_handle fh;
		unsigned char space[MAX_HANDLE_SZ];
	} h;
	struct statx stx;
	uint64_t id;
	int mnt, ret, err;

	ret = statx_unique_id(AT_FDCWD, "/", 0, &id);
	if (ret == 0)
		id_source |= MNTKIT_FEAT_STATX_UNIQUE;
	/* glibc's statx() answers ENOSYS from stat(): the raw call tells */
	else if (syscall(SYS_statx, AT_FDCWD, "/", 0, STATX_INO, &stx))
		statx_refused = errno;
	ret = handle_unique_id(AT_FDCWD, "/", 0, &id);
	if (ret == 0) {
		id_source |= MNTKIT_FEAT_HANDLE_UNIQUE;
		return;
	}
	memset(&h, 0, sizeof(h));
	h.fh.handle_bytes = MAX_HANDLE_SZ;
	err = syscall(SYS_name_to_handle_at, AT_FDCWD, "/", &h.fh, &mnt, 0) ?
		      errno : 0;
	if (err && err != EOPNOTSUPP && err != EOVERFLOW)
		handle_refused = err;
}

uint32_t mntkit__native_id_source(void)
{
	pthread_once(&source_once, probe_source);
	return id_source;
}

int mntkit__native_refused(uint32_t call)
{
	pthread_once(&source_once, probe_source);
	if (call == MNTKIT_REFUSED_STATX)
		return statx_refused;
	return call == MNTKIT_REFUSED_HANDLE ? handle_refused : 0;
}

/* the mount below the caller's root whose old ID is @old (raw calls: the
 * backend probe comes here) */
static int old_to_unique(uint64_t old, uint64_t *mnt_id)
{
	struct mntkit_mnt_id_req lreq = {
		.size = MNTKIT_MNT_ID_REQ_SIZE_VER0,
		.mnt_id = MNTKIT_LSMT_ROOT,
	};
	struct mntkit_mnt_id_req req = {
		.size = MNTKIT_MNT_ID_REQ_SIZE_VER0,
		.param = MNTKIT_STATMOUNT_MNT_BASIC,
	};
	struct mntkit_statmount sm;
	uint64_t ids[256];
	ssize_t n;

	do {
		n = sys_listmount(&lreq, ids, MNTKIT_ARRAY_SIZE(ids), 0);
		if (n < 0)
			return -errno;
		for (ssize_t i = 0; i < n; i++) {
			req.mnt_id = ids[i];
			if (sys_statmount(&req, &sm, sizeof(sm), 0) == 0 &&
			    sm.mnt_id_old == old) {
				*mnt_id = sm.mnt_id;
				return 0;
			}
		}
		if (n > 0)
			lreq.param = ids[n - 1];
	} while (n == (ssize_t)MNTKIT_ARRAY_SIZE(ids));
	return -ENOENT;
}

/*
 * Neither statx nor name_to_handle_at gives the unique ID: the old one
 * from the fd's fdinfo (needs /proc), found among the mounts below the
 * caller's root by statmount's mnt_id_old. One listing and a statmount a
 * mount, for a process whose filter leaves it nothing better.
 */
int mntkit__open_at(int dirfd, const char *path, int at_flags)
{
	int fd;

	if ((at_flags & AT_EMPTY_PATH) && !*path)
		return dirfd;
	fd = openat(dirfd, path,
		    O_PATH | O_CLOEXEC |
			    (at_flags & AT_SYMLINK_NOFOLLOW ? O_NOFOLLOW : 0));
	return fd < 0 ? -errno : fd;
}

static int fdinfo_unique_id(int dirfd, const char *path, int at_flags,
			    uint64_t *mnt_id)
{
	uint64_t old;
	int fd, ret;

	fd = mntkit__open_at(dirfd, path, at_flags);
	if (fd < 0)
		return fd;
	ret = mntkit__fdinfo_mnt_id(fd, &old);
	if (fd != dirfd)
		close(fd);
	if (ret)
		return ret;
	return old_to_unique(old, mnt_id);
}

int mntkit__native_path_id(int dirfd, const char *path, int at_flags,
			   uint64_t *mnt_id)
{
	int ret;

	if (!path || !mnt_id)
		return -EINVAL;
	pthread_once(&source_once, probe_source);
	if (!statx_refused) {
		ret = statx_unique_id(dirfd, path, at_flags, mnt_id);
		if (ret != -EOPNOTSUPP)
			return ret;
	}
	if (!handle_refused) {
		ret = handle_unique_id(dirfd, path, at_flags, mnt_id);
		/* before 6.12, or no handles (procfs): fdinfo, whose open
		 * fails as this one did where the path is the problem */
		if (!statx_refused || !ret)
			return ret;
	}
	return fdinfo_unique_id(dirfd, path, at_flags, mnt_id);
}

/*
 * The legacy stat call, made directly. On i386 its reply is the kernel's
 * struct stat64 (u64 fields 4-aligned there, as in the kernel's i386
 * ABI); on 64-bit ABIs newfstatat writes what glibc's struct stat is.
 */
#if defined(__i386__) && defined(SYS_fstatat64)
struct kstat64 {
	unsigned long long st_dev;
	unsigned char pad0[4];
	unsigned long st_ino32;
	unsigned int st_mode, st_nlink;
	unsigned long st_uid, st_gid;
	unsigned long long st_rdev;
	unsigned char pad3[4];
	long long st_size;
	unsigned long st_blksize;
	unsigned long long st_blocks;
	unsigned long st_times[6];
	unsigned long long st_ino;
};
_Static_assert(sizeof(struct kstat64) == 96, "i386 struct stat64");

static int legacy_stat(int dirfd, const char *path, int at_flags,
		       dev_t *dev, ino_t *ino)
{
	struct kstat64 k;

	if (syscall(SYS_fstatat64, dirfd, path, &k, at_flags))
		return -errno;
	*dev = (dev_t)k.st_dev;
	*ino = (ino_t)k.st_ino;
	return 0;
}
#elif defined(SYS_newfstatat) && defined(__LP64__)
static int legacy_stat(int dirfd, const char *path, int at_flags,
		       dev_t *dev, ino_t *ino)
{
	struct stat k;

	if (syscall(SYS_newfstatat, dirfd, path, &k, at_flags))
		return -errno;
	*dev = k.st_dev;
	*ino = k.st_ino;
	return 0;
}
#else
static int legacy_stat(int dirfd, const char *path, int at_flags,
		       dev_t *dev, ino_t *ino)
{
	(void)dirfd, (void)path, (void)at_flags, (void)dev, (void)ino;
	return -ENOSYS;
}
#endif

int mntkit__stat_ident(int dirfd, const char *path, int at_flags, dev_t *dev,
		       ino_t *ino)
{
	struct stat st;
	int err;

	if (fstatat(dirfd, path, &st, at_flags) == 0) {
		*dev = st.st_dev;
		*ino = st.st_ino;
		return 0;
	}
	err = errno;
	if (!mntkit__native_refused(MNTKIT_REFUSED_STATX))
		return -err;
	return legacy_stat(dirfd, path, at_flags, dev, ino) ? -err : 0;
}

int mntkit__root_ident_nostatx(dev_t *dev, ino_t *ino, uint64_t *mnt)
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

const struct mntkit_backend_ops mntkit_native_ops = {
	.name = "native",
	.statmount = native_statmount,
	.listmount = native_listmount,
	.path_id = mntkit__native_path_id,
};
