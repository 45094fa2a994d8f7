// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The system calls the library wraps (over syscall.h's raw ones): a
 * path's unique mount ID by statx or name_to_handle_at, an O_PATH open
 * as *at() resolves, fstatat's identity with the legacy call where a
 * filter refuses statx; and whether a filter refuses statx or
 * name_to_handle_at (probed once: everything above asks here).
 */
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "internal.h"
#include "syscall.h"

int mntkit__statx_unique_id(int dirfd, const char *path, int at_flags,
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
int mntkit__handle_unique_id(int dirfd, const char *path, int at_flags,
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

	ret = mntkit__statx_unique_id(AT_FDCWD, "/", 0, &id);
	if (ret == 0)
		id_source |= MNTKIT_FEAT_STATX_UNIQUE;
	/* glibc's statx() answers ENOSYS from stat(): the raw call tells */
	else if (syscall(SYS_statx, AT_FDCWD, "/", 0, STATX_INO, &stx))
		statx_refused = errno;
	ret = mntkit__handle_unique_id(AT_FDCWD, "/", 0, &id);
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

/* an O_PATH fd of @path (internal.h) */
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
