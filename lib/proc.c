// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * procfs, held: the /proc handle every procfs file of the library is
 * opened through, and the fdinfo of an fd.
 */
#include <dirent.h>
#include <stddef.h>
#include <fcntl.h>
#include <poll.h>
#include <sys/epoll.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#include "internal.h"
#include "syscall.h"

/* installs the /proc handle (the tables' lock may be held around it) */
static pthread_mutex_t lock_proc = PTHREAD_MUTEX_INITIALIZER;

/* ---- /proc, held ---- */

/*
 * Everything the emulation knows comes from procfs. A process that chroots
 * into a directory without /proc (the kernel's statmount selftests do)
 * keeps its answers when it could see /proc before: an O_PATH fd of /proc,
 * opened at the emulation's first use (or by mntkit_init()) and held for
 * the life of the process, through which every procfs file is opened with
 * *at(). It is O_CLOEXEC (a new program opens its own); a fork shares it,
 * and "thread-self" in it names the calling thread whoever that is, so it
 * serves children and threads alike. It is kept only when it is a procfs
 * in which the calling thread is visible (a procfs of another PID
 * namespace, e.g. an ancestor's, is fine; one that does not see us is not
 * kept), and it is used only while the fd number is still that procfs
 * (checked before each table is opened: a program may close fds it did not
 * open). The paths "/proc/..." serve when there is no handle.
 */

static int proc_fd = -1;    /* atomic; -1: none */
static dev_t proc_dev;      /* of proc_fd, written before it is */
static ino_t proc_ino;

/* open /proc and check it; an fd or -errno */
static int proc_open_dir(dev_t *dev, ino_t *ino)
{
	struct statfs sfs;
	dev_t d;
	ino_t i;
	int fd, ret;

	fd = open("/proc", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	ret = fstatfs(fd, &sfs) ? -errno : 0;
	if (!ret && sfs.f_type != MNTKIT_PROC_SUPER_MAGIC)
		ret = -ENOENT; /* not a procfs: no procfs files here */
	if (!ret)
		ret = mntkit__stat_ident(fd, "", AT_EMPTY_PATH, dev, ino);
	/* our thread must be visible in it */
	if (!ret)
		ret = mntkit__stat_ident(fd, "thread-self", 0, &d, &i);
	if (ret) {
		close(fd);
		return ret;
	}
	return fd;
}

/* take /proc as the handle unless one is held; 0 or -errno */
int mntkit__proc_grab(void)
{
	int fd, taken = 0;
	dev_t dev;
	ino_t ino;

	if (__atomic_load_n(&proc_fd, __ATOMIC_ACQUIRE) >= 0)
		return 0;
	fd = proc_open_dir(&dev, &ino);
	if (fd < 0)
		return fd;
	pthread_mutex_lock(&lock_proc);
	if (__atomic_load_n(&proc_fd, __ATOMIC_RELAXED) < 0) {
		proc_dev = dev;
		proc_ino = ino;
		__atomic_store_n(&proc_fd, fd, __ATOMIC_RELEASE);
		taken = 1;
	}
	pthread_mutex_unlock(&lock_proc);
	if (!taken)
		close(fd); /* another thread was first */
	return 0;
}

/* the handle, or -1 (none: the caller uses "/proc/...") */
int mntkit__proc_handle(void)
{
	int fd = __atomic_load_n(&proc_fd, __ATOMIC_ACQUIRE);

	if (fd < 0 && mntkit__proc_grab() == 0)
		fd = __atomic_load_n(&proc_fd, __ATOMIC_ACQUIRE);
	return fd;
}

/*
 * Is the handle still the procfs it was opened on? If its fd number now
 * names another file (the program closed it), it is let go (not closed:
 * the number is someone else's now) and /proc is taken again.
 */
void mntkit__proc_check(void)
{
	int fd = __atomic_load_n(&proc_fd, __ATOMIC_ACQUIRE);
	dev_t dev;
	ino_t ino;

	if (fd < 0)
		return;
	if (mntkit__stat_ident(fd, "", AT_EMPTY_PATH, &dev, &ino) == 0 &&
	    dev == proc_dev && ino == proc_ino)
		return;
	pthread_mutex_lock(&lock_proc);
	if (__atomic_load_n(&proc_fd, __ATOMIC_RELAXED) == fd)
		__atomic_store_n(&proc_fd, -1, __ATOMIC_RELEASE);
	pthread_mutex_unlock(&lock_proc);
	mntkit__proc_grab();
}

/*
 * The procfs file @what of @pid (0: the calling thread) for *at() calls:
 * writes the path to @out and returns the dirfd it is relative to.
 */
int mntkit__proc_path(char *out, size_t len, pid_t pid, const char *what)
{
	int at = mntkit__proc_handle();
	const char *pre = at >= 0 ? "" : "/proc/";

	if (pid)
		snprintf(out, len, "%s%d/%s", pre, (int)pid, what);
	else
		snprintf(out, len, "%sthread-self/%s", pre, what);
	return at >= 0 ? at : AT_FDCWD;
}

/* open @rel below /proc ("self/fdinfo/3"); an fd or -errno */
static int proc_open_rel(const char *rel, int flags)
{
	char path[96];
	int at = mntkit__proc_handle(), fd;

	if (at < 0) {
		snprintf(path, sizeof(path), "/proc/%s", rel);
		rel = path;
	}
	fd = openat(at >= 0 ? at : AT_FDCWD, rel, flags | O_CLOEXEC);
	return fd < 0 ? -errno : fd;
}

int mntkit__proc_open(pid_t pid, const char *what, int flags)
{
	char path[96];
	int at = mntkit__proc_path(path, sizeof(path), pid, what);
	int fd = openat(at, path, flags | O_CLOEXEC);

	return fd < 0 ? -errno : fd;
}

int mntkit__fdinfo_mnt_id(int fd, uint64_t *id)
{
	char path[64], buf[1024], *p, *end;
	unsigned long long v;
	ssize_t n;
	int f;

	/* the calling thread's fd table (3.17+), else the process's */
	snprintf(path, sizeof(path), "fdinfo/%d", fd);
	f = mntkit__proc_open(0, path, O_RDONLY);
	if (f == -ENOENT) {
		snprintf(path, sizeof(path), "self/fdinfo/%d", fd);
		f = proc_open_rel(path, O_RDONLY);
	}
	if (f < 0)
		return f;
	n = read(f, buf, sizeof(buf) - 1); /* a few short lines */
	close(f);
	if (n < 0)
		return -errno;
	buf[n] = '\0';
	/* "pos:" comes first, so the field starts a line after it */
	p = strstr(buf, "\nmnt_id:");
	if (!p)
		return -EOPNOTSUPP;
	p += strlen("\nmnt_id:");
	while (*p == ' ' || *p == '\t')
		p++;
	errno = 0;
	v = strtoull(p, &end, 10);
	if (end == p || errno || (*end != '\n' && *end != '\0'))
		return -EOPNOTSUPP;
	*id = v;
	return 0;
}

/* ---- the processes ---- */

int mntkit__proc_each_pid(int (*each)(void *ctx, pid_t pid), void *ctx)
{
	struct dirent *de;
	int at = mntkit__proc_handle(), ret = 0;
	DIR *d;

	if (at >= 0) {
		int fd = openat(at, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);

		d = fd >= 0 ? fdopendir(fd) : NULL;
		if (!d && fd >= 0)
			close(fd);
	} else {
		d = opendir("/proc");
	}
	if (!d)
		return -errno;
	while (!ret && (de = readdir(d))) {
		char *end;
		long p = strtol(de->d_name, &end, 10);

		if (*end || p <= 0)
			continue;
		ret = each(ctx, (pid_t)p);
	}
	closedir(d);
	return ret;
}
