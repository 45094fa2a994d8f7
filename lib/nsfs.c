// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The calling thread's mount namespace, and the kernel's rule for looking
 * at another one: the nsfs files and ioctls under lib/ns.c's API, for
 * the probes and the emulation too.
 */
#include <fcntl.h>
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
