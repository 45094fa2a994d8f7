// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * statvfs-snapshot.so - an LD_PRELOAD module for the CLI tests that
 * compare two programs' df columns (tests/cli/py/mntkit_test.py's same()):
 * statvfs() and statvfs64() answer each path with what the first program
 * of a comparison got for it, kept in the file $MNTKIT_STATVFS_SNAPSHOT,
 * so that findmnt and lsmnt show the same usage of a disk that others
 * write to meanwhile. A path not asked before is asked of the kernel and
 * its answer (or error) recorded. Without the variable, or when the file
 * cannot be used, every call goes to the kernel.
 *
 * The file: records of { uint32 path length, path, int32 errno (0: the
 * struct follows), struct statvfs64 }, appended under flock(2).
 */
/* both names defined here: neither may stand for the other */
#undef _FILE_OFFSET_BITS
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/statvfs.h>
#include <unistd.h>

typedef int (*statvfs64_fn)(const char *, struct statvfs64 *);

/* read exactly @len bytes: 1, or 0 at the end or on an error */
static int read_all(int fd, void *buf, size_t len)
{
	char *p = buf;

	while (len) {
		ssize_t n = read(fd, p, len);

		if (n <= 0)
			return 0;
		p += n;
		len -= (size_t)n;
	}
	return 1;
}

/* the record of @path in @fd (at its start): 1 with *@err, *@st; else 0 */
static int find(int fd, const char *path, int *err, struct statvfs64 *st)
{
	size_t want = strlen(path);
	uint32_t len;
	int32_t e;
	char *p;

	while (read_all(fd, &len, sizeof(len))) {
		p = malloc(len + 1);
		if (!p || !read_all(fd, p, len) || !read_all(fd, &e, sizeof(e)) ||
		    !read_all(fd, st, sizeof(*st))) {
			free(p);
			return 0;
		}
		if (len == want && !memcmp(p, path, len)) {
			free(p);
			*err = e;
			return 1;
		}
		free(p);
	}
	return 0;
}

static void record(int fd, const char *path, int err,
		   const struct statvfs64 *st)
{
	uint32_t len = (uint32_t)strlen(path);
	int32_t e = err;

	if (lseek(fd, 0, SEEK_END) < 0 || write(fd, &len, sizeof(len)) < 0 ||
	    write(fd, path, len) < 0 || write(fd, &e, sizeof(e)) < 0 ||
	    write(fd, st, sizeof(*st)) < 0)
		return;
}

static int snapshot(const char *path, struct statvfs64 *st)
{
	statvfs64_fn real = (statvfs64_fn)dlsym(RTLD_NEXT, "statvfs64");
	const char *file = getenv("MNTKIT_STATVFS_SNAPSHOT");
	int fd, err, r;

	if (!real) {
		errno = ENOSYS;
		return -1;
	}
	fd = file ? open(file, O_RDWR | O_CREAT | O_CLOEXEC, 0600) : -1;
	if (fd < 0 || flock(fd, LOCK_EX) < 0) {
		if (fd >= 0)
			close(fd);
		return real(path, st);
	}
	if (find(fd, path, &err, st)) {
		close(fd);
		if (err) {
			errno = err;
			return -1;
		}
		return 0;
	}
	memset(st, 0, sizeof(*st));
	r = real(path, st);
	err = r < 0 ? errno : 0;
	record(fd, path, err, st);
	close(fd);
	errno = err;
	return r;
}

int statvfs64(const char *path, struct statvfs64 *st)
{
	return snapshot(path, st);
}

/* (struct statvfs is struct statvfs64 where off_t is 64 bits) */
int statvfs(const char *path, struct statvfs *st)
{
	_Static_assert(sizeof(struct statvfs) == sizeof(struct statvfs64),
		       "statvfs and statvfs64 differ");
	return snapshot(path, (struct statvfs64 *)st);
}
