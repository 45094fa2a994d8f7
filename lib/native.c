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

static void probe_source(void)
{
	uint64_t id;

	if (statx_unique_id(AT_FDCWD, "/", 0, &id) == 0)
		id_source |= MNTKIT_FEAT_STATX_UNIQUE;
	if (handle_unique_id(AT_FDCWD, "/", 0, &id) == 0)
		id_source |= MNTKIT_FEAT_HANDLE_UNIQUE;
}

uint32_t mntkit__native_id_source(void)
{
	pthread_once(&source_once, probe_source);
	return id_source;
}

int mntkit__native_path_id(int dirfd, const char *path, int at_flags,
			   uint64_t *mnt_id)
{
	int ret;

	if (!path || !mnt_id)
		return -EFAULT;
	ret = statx_unique_id(dirfd, path, at_flags, mnt_id);
	if (ret != -EOPNOTSUPP)
		return ret;
	return handle_unique_id(dirfd, path, at_flags, mnt_id);
}

const struct mntkit_backend_ops mntkit_native_ops = {
	.name = "native",
	.statmount = native_statmount,
	.listmount = native_listmount,
	.path_id = mntkit__native_path_id,
};
