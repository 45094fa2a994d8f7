// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The calling thread's mount namespace, and the kernel's rule for looking
 * at another one: the nsfs files and ioctls under lib/ns.c's API, for
 * the probes and the emulation too.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "internal.h"
#include "syscall.h"

int mntkit__own_ns_fd(void)
{
	int pidfd, fd;

	fd = mntkit__proc_open(0, "ns/mnt", O_RDONLY);
	if (fd != -ENOENT)
		return fd;
	/* no /proc (a chroot, a namespace where it is unmounted) */
	pidfd = (int)syscall(SYS_pidfd_open, gettid(), O_EXCL); /* THREAD */
	if (pidfd < 0)
		pidfd = (int)syscall(SYS_pidfd_open, getpid(), 0);
	if (pidfd < 0)
		return -ENOENT; /* what the open said */
	fd = ioctl(pidfd, MNTKIT_PIDFD_GET_MNT_NAMESPACE, 0);
	close(pidfd);
	return fd >= 0 ? fd : -ENOENT;
}

/*
 * The kernel's walk of the mount namespaces (6.12+): from the caller's,
 * NS_MNT_GET_NEXT (ascending IDs) or NS_MNT_GET_PREV until @id. It finds
 * a namespace whether or not a process is in it (one kept by an open file
 * or a bind mount of its nsfs file), among those whose owner the caller
 * has CAP_SYS_ADMIN over.
 */
int mntkit__nsfs_open_id(uint64_t id)
{
	unsigned long step;
	uint64_t cur_id;
	int own, cur;

	own = mntkit__own_ns_fd();
	if (own < 0)
		return own;
	if (ioctl(own, MNTKIT_NS_GET_MNTNS_ID, &cur_id)) {
		int err = errno;

		close(own);
		return err == ENOTTY || err == EINVAL ? -ENOENT : -err;
	}
	if (cur_id == id)
		return own;
	step = id > cur_id ? MNTKIT_NS_MNT_GET_NEXT : MNTKIT_NS_MNT_GET_PREV;
	for (cur = own;;) {
		struct mntkit_mnt_ns_info info = { .size = sizeof(info) };
		int next = ioctl(cur, step, &info);

		close(cur);
		if (next < 0)
			return -ENOENT; /* the end, or no walk (before 6.12) */
		if (info.mnt_ns_id == id)
			return next;
		if (step == MNTKIT_NS_MNT_GET_NEXT ? info.mnt_ns_id > id :
						      info.mnt_ns_id < id) {
			close(next); /* the IDs only grow (shrink) from here */
			return -ENOENT;
		}
		cur = next;
	}
}

struct enter_arg {
	int ns_fd, proc_fd;
	int *mi;
	size_t nmi;
	int *root_fd;
	int err;
};

/* in a thread of its own: enter the namespace, open its files */
static void *enter_thread(void *p)
{
	struct enter_arg *a = p;

	if (unshare(CLONE_FS) || setns(a->ns_fd, CLONE_NEWNS)) {
		a->err = -errno;
		return NULL;
	}
	for (size_t i = 0; i < a->nmi; i++) {
		a->mi[i] = openat(a->proc_fd, "thread-self/mountinfo",
				  O_RDONLY | O_CLOEXEC);
		if (a->mi[i] < 0) {
			a->err = -errno;
			return NULL;
		}
	}
	if (a->root_fd) {
		*a->root_fd = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
		if (*a->root_fd < 0)
			a->err = -errno;
	}
	return NULL;
}

int mntkit__ns_enter_open(int ns_fd, int *mi, size_t nmi, int *root_fd)
{
	struct enter_arg a = { .ns_fd = ns_fd, .proc_fd = mntkit__proc_handle(),
			       .mi = mi, .nmi = nmi, .root_fd = root_fd };
	pthread_t th;
	int ret;

	for (size_t i = 0; i < nmi; i++)
		mi[i] = -1;
	if (root_fd)
		*root_fd = -1;
	if (a.proc_fd < 0)
		return -ENOENT; /* no /proc: no mountinfo to open */
	ret = -pthread_create(&th, NULL, enter_thread, &a);
	if (!ret) {
		pthread_join(th, NULL);
		ret = a.err;
	}
	if (ret) {
		for (size_t i = 0; i < nmi; i++)
			if (mi[i] >= 0) {
				close(mi[i]);
				mi[i] = -1;
			}
		if (root_fd && *root_fd >= 0) {
			close(*root_fd);
			*root_fd = -1;
		}
	}
	return ret;
}

/* ---- the kernel's ns_capable(owner of a namespace, CAP_SYS_ADMIN) ---- */

/* CAP_SYS_ADMIN (21) in the effective set of the calling thread */
static int cap_sys_admin(void)
{
	struct {
		uint32_t version;
		int pid;
	} hdr = { 0x20080522, 0 }; /* _LINUX_CAPABILITY_VERSION_3 */
	struct {
		uint32_t effective, permitted, inheritable;
	} data[2];

	if (syscall(SYS_capget, &hdr, data))
		return -errno;
	return !!(data[0].effective & (1U << 21));
}

static int same_file(int a, int b)
{
	struct stat sa, sb;

	if (fstat(a, &sa) || fstat(b, &sb))
		return -errno;
	return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

/*
 * Does the caller have CAP_SYS_ADMIN over the user namespace that owns
 * the namespace of @ns_fd? The kernel's rule: in its own user namespace,
 * when that capability is effective; in a descendant, when it has it in
 * its own, or when its euid owns the descendant's ancestor that is a
 * child of its own. 1, 0, or -errno.
 */
int mntkit__ns_admin(int ns_fd)
{
	int own, cur, parent, ret;
	uid_t owner;

	own = open("/proc/thread-self/ns/user", O_RDONLY | O_CLOEXEC);
	if (own < 0)
		return -errno;
	cur = ioctl(ns_fd, MNTKIT_NS_GET_USERNS);
	if (cur < 0) {
		ret = -errno;
		goto out_own;
	}
	for (;;) {
		ret = same_file(cur, own);
		if (ret) {
			if (ret > 0)
				ret = cap_sys_admin();
			break;
		}
		if (ioctl(cur, MNTKIT_NS_GET_OWNER_UID, &owner)) {
			ret = -errno;
			break;
		}
		/* EPERM: the parent is outside the caller's user namespace */
		parent = ioctl(cur, MNTKIT_NS_GET_PARENT);
		if (parent < 0) {
			ret = 0;
			break;
		}
		close(cur);
		cur = parent;
		ret = same_file(cur, own);
		if (ret > 0 && owner == geteuid())
			break;
	}
	close(cur);
out_own:
	close(own);
	return ret;
}
