// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Mount namespaces: by ID, by an fd of /proc/PID/ns/mnt, or by PID, and the
 * translation of struct mntkit_opts into the namespace part of a request.
 */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "internal.h"
#include "syscall.h"

int mntkit_ns_open_pid(pid_t pid)
{
	char path[64];
	int fd;

	if (pid < 0)
		return mntkit__fail(EINVAL);
	if (pid == 0)
		snprintf(path, sizeof(path), "/proc/self/ns/mnt");
	else
		snprintf(path, sizeof(path), "/proc/%d/ns/mnt", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return mntkit__fail(errno);
	return fd;
}

int mntkit_ns_id_from_fd(int ns_fd, uint64_t *mnt_ns_id)
{
	uint64_t id;

	if (!mnt_ns_id)
		return mntkit__fail(EFAULT);
	if (ioctl(ns_fd, MNTKIT_NS_GET_MNTNS_ID, &id) != 0) {
		if (errno != ENOTTY)
			return mntkit__fail(errno);
		/* a kernel before 6.10 has no namespace IDs at all; else the
		 * fd is not an nsfs file, or not a mount namespace */
		if (!(mntkit__kernel_features() & MNTKIT_FEAT_NS_ID))
			return mntkit__fail(EOPNOTSUPP);
		return mntkit__fail(EINVAL);
	}
	*mnt_ns_id = id;
	return 0;
}

int mntkit_ns_id_from_pid(pid_t pid, uint64_t *mnt_ns_id)
{
	int fd = mntkit_ns_open_pid(pid);
	int ret;

	if (fd < 0)
		return fd;
	ret = mntkit_ns_id_from_fd(fd, mnt_ns_id);
	close(fd);
	if (ret < 0)
		errno = -ret;
	return ret;
}

/*
 * Copy the fields of @opts the caller knows (its @sz) into @out; a larger
 * struct than ours must have a zero tail (a newer caller asking for
 * something this library cannot do).
 */
static int opts_copy(const struct mntkit_opts *opts, struct mntkit_opts *out)
{
	size_t n;

	memset(out, 0, sizeof(*out));
	if (!opts)
		return 0;
	if (opts->sz < sizeof(opts->sz))
		return -EINVAL;
	n = opts->sz < sizeof(*out) ? opts->sz : sizeof(*out);
	for (size_t i = sizeof(*out); i < opts->sz; i++)
		if (((const unsigned char *)opts)[i])
			return -E2BIG;
	memcpy(out, opts, n);
	out->sz = sizeof(*out);
	return 0;
}

/*
 * Point @req at the namespace of @fd: by ID where we can, else by fd
 * (returns 1: the fd stays in use). The emulation takes an fd on every
 * kernel; the kernel takes IDs from 6.11 and fds from 6.18.
 */
static int req_set_ns_fd(struct mntkit_mnt_id_req *req, int fd)
{
	uint32_t feat = mntkit__kernel_features();
	int native = mntkit_backend() == MNTKIT_BACKEND_NATIVE;
	uint64_t id = 0;

	if (fd < 0)
		return -EBADF;
	if ((native && !(feat & MNTKIT_FEAT_REQ_NS_ID)) ||
	    (!native && !(feat & MNTKIT_FEAT_NS_ID))) {
		if (native && !(feat & MNTKIT_FEAT_REQ_NS_FD))
			return -EOPNOTSUPP;
		req->mnt_ns_fd = (uint32_t)fd;
		return 1;
	}
	if (mntkit_ns_id_from_fd(fd, &id) < 0)
		return -errno;
	req->size = MNTKIT_MNT_ID_REQ_SIZE_VER1;
	req->mnt_ns_id = id;
	return 0;
}

int mntkit__req_init(struct mntkit_mnt_id_req *req,
		     const struct mntkit_opts *opts, int *fd_to_close)
{
	struct mntkit_opts o;
	int ret, fd;

	memset(req, 0, sizeof(*req));
	req->size = MNTKIT_MNT_ID_REQ_SIZE_VER0;
	*fd_to_close = -1;
	ret = opts_copy(opts, &o);
	if (ret)
		return ret;
	if (!!o.mnt_ns_id + !!o.mnt_ns_fd + !!o.pid > 1 || o.pid < 0)
		return -EINVAL;
	if (o.mnt_ns_id) {
		req->size = MNTKIT_MNT_ID_REQ_SIZE_VER1;
		req->mnt_ns_id = o.mnt_ns_id;
		return 0;
	}
	if (o.mnt_ns_fd) {
		ret = req_set_ns_fd(req, o.mnt_ns_fd);
		return ret < 0 ? ret : 0;
	}
	if (!o.pid)
		return 0;
	fd = mntkit_ns_open_pid(o.pid);
	if (fd < 0)
		return fd;
	ret = req_set_ns_fd(req, fd);
	if (ret == 1)
		*fd_to_close = fd;
	else
		close(fd);
	return ret < 0 ? ret : 0;
}
