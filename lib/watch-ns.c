// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * watch-ns.c - the files of the namespace a watch is of: its nsfs fd and
 * two of its /proc/PID/mountinfo files, opened by process, by namespace
 * fd or by namespace ID; and the caller's own namespace pinned by ID.
 */
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "watch.h"

/* open /proc/PID/{ns/mnt,mountinfo} ("thread-self" for pid 0) */
static int open_pid_files(pid_t pid, struct mntkit__nsfiles *f)
{
	char path[64];
	const char *dir = "thread-self";
	char pidbuf[16];

	if (pid) {
		snprintf(pidbuf, sizeof(pidbuf), "%d", (int)pid);
		dir = pidbuf;
	}
	snprintf(path, sizeof(path), "/proc/%s/ns/mnt", dir);
	f->ns_fd = open(path, O_RDONLY | O_CLOEXEC);
	if (f->ns_fd < 0 && errno == ENOENT && !pid) {
		/* no /proc: fanotify alone can watch (mntkit_watch_new) */
		f->ns_fd = mntkit__own_ns_fd();
		return f->ns_fd < 0 ? f->ns_fd : 0;
	}
	/* refused, where the request reads the mountinfo alone: the poll
	 * source watches that (mntkit__req_init()) */
	if (f->ns_fd < 0 && !(pid && mntkit__pinned_pid() == pid))
		return -errno;
	snprintf(path, sizeof(path), "/proc/%s/mountinfo", dir);
	for (int i = 0; i < 2; i++) {
		f->mi[i] = open(path, O_RDONLY | O_CLOEXEC);
		if (f->mi[i] < 0)
			return -errno;
	}
	return 0;
}

static int open_fd_files(int ns_fd, struct mntkit__nsfiles *f)
{
	f->ns_fd = fcntl(ns_fd, F_DUPFD_CLOEXEC, 3);
	if (f->ns_fd < 0)
		return -errno;
	return mntkit__ns_enter_open(ns_fd, f->mi, 2, NULL);
}

/* a process in mount namespace @id (6.10+ has namespace IDs) */
static int pid_of_ns(uint64_t id, pid_t *pid)
{
	DIR *d = opendir("/proc");
	struct dirent *de;
	int ret = -ENOENT;

	if (!d)
		return -errno;
	while (ret == -ENOENT && (de = readdir(d))) {
		char *end;
		long p = strtol(de->d_name, &end, 10);
		uint64_t nsid;
		int fd;

		if (*end || p <= 0)
			continue;
		fd = mntkit_ns_open_pid((pid_t)p);
		if (fd < 0)
			continue;
		if (ioctl(fd, MNTKIT_NS_GET_MNTNS_ID, &nsid) == 0 &&
		    nsid == id) {
			*pid = (pid_t)p;
			ret = 0;
		}
		close(fd);
	}
	closedir(d);
	return ret;
}

/*
 * mntkit__watch_ns_open - the files of the namespace @o names (all zero:
 * the calling thread's) into @f, whose fds are -1 on entry: 0 or -errno
 * (the caller closes what was opened). Without /proc, the calling
 * thread's namespace has its nsfs fd only (fanotify alone can watch it).
 */
int mntkit__watch_ns_open(const struct mntkit_opts *o,
			  struct mntkit__nsfiles *f)
{
	pid_t pid = 0;
	int ret;

	if (o->mnt_ns_fd)
		return open_fd_files(o->mnt_ns_fd, f);
	if (o->mnt_ns_id) {
		int fd;

		ret = pid_of_ns(o->mnt_ns_id, &pid);
		if (ret != -ENOENT)
			return ret ? ret : open_pid_files(pid, f);
		/* no process in it: found by ID (6.12+), entered with setns */
		fd = mntkit_ns_open_id(o->mnt_ns_id);
		if (fd < 0)
			return fd;
		ret = open_fd_files(fd, f);
		close(fd);
		return ret;
	}
	return open_pid_files(o->pid, f);
}

/* pin "the caller's namespace" to the one of the calling thread now */
void mntkit__watch_ns_pin(struct mntkit_watch *w, const struct mntkit_opts *o,
			  int ns_fd)
{
	uint64_t id;

	if (o->mnt_ns_id || o->mnt_ns_fd || o->pid)
		return;
	if (mntkit_get_backend() != MNTKIT_BACKEND_NATIVE ||
	    !(mntkit__kernel_features() & MNTKIT_FEAT_REQ_NS_ID))
		return;
	if (ioctl(ns_fd, MNTKIT_NS_GET_MNTNS_ID, &id) == 0) {
		w->req.size = MNTKIT_MNT_ID_REQ_SIZE_VER1;
		w->req.mnt_ns_id = id;
	}
}
