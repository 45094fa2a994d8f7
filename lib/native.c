// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The native backend: the kernel's statmount(2) and listmount(2).
 *
 * A request for groups the kernel's statmount does not have goes to the
 * hybrid path (lib/emul.c): the kernel's groups from the kernel, the others
 * from the mountinfo emulation, in one reply laid out as a kernel with
 * every group would lay it. Everything else goes to the kernel untouched.
 */
#include <fcntl.h>
#include <pthread.h>
#include <string.h>
#include <sys/stat.h>

#include "internal.h"
#include "syscall.h"

static int native_statmount(const struct mntkit_mnt_id_req *req,
			    struct mntkit_statmount *buf, size_t bufsize,
			    unsigned int flags)
{
	uint64_t kmask;

	/* what the kernel refuses before it looks at the mask is its own */
	if (!req || flags || req->size < MNTKIT_MNT_ID_REQ_SIZE_VER0 ||
	    !mntkit__hybrid())
		return sys_statmount(req, buf, bufsize, flags);
	kmask = mntkit__kernel_mask();
	/* supported_mask: the hybrid's, not the kernel's */
	if (!(req->param & MNTKIT_STATMOUNT_ALL &
	      (~kmask | MNTKIT_STATMOUNT_SUPPORTED_MASK)))
		return sys_statmount(req, buf, bufsize, flags);
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
