/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * bench/common.h - what the benchmark programs share: the clock and the
 * statistics, the variants and their interleaved rounds, the command line
 * and the table of results of bench-list and bench-emul, the listings they
 * time (the library, bare system calls, a read of mountinfo, a child
 * process) and the table of bind mounts the benchmarks build.
 *
 * Everything is static inline: each program takes what it uses, and the
 * header needs no object file of its own. Not installed, not API.
 */
#ifndef MNTKIT_BENCH_COMMON_H
#define MNTKIT_BENCH_COMMON_H

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "mntkit.h"

/* raw syscall numbers: the bare loops must not go through the library */
#if defined(__alpha__)
#define BENCH_NR_statmount 567
#define BENCH_NR_listmount 568
#elif defined(__mips__)
#if _MIPS_SIM == _ABIO32
#define BENCH_NR_statmount 4457
#define BENCH_NR_listmount 4458
#elif _MIPS_SIM == _ABI64
#define BENCH_NR_statmount 5457
#define BENCH_NR_listmount 5458
#else
#define BENCH_NR_statmount 6457
#define BENCH_NR_listmount 6458
#endif
#elif defined(__x86_64__) && defined(__ILP32__)
#define BENCH_NR_statmount (0x40000000 + 457)
#define BENCH_NR_listmount (0x40000000 + 458)
#else
#define BENCH_NR_statmount 457
#define BENCH_NR_listmount 458
#endif

/* timed rounds a variant can hold */
#define BENCH_MAX_ROUNDS 101
/* IDs per raw listmount(2) call */
#define BENCH_LIST_PAGE 4096
/* the bare loop's fixed statmount buffer */
#define BENCH_SM_BUF_SIZE (1U << 20)
/* read(2) size for mountinfo, as cat's */
#define BENCH_READ_BUF_SIZE (1U << 17)

/* ---- clock and statistics ---- */

/* CLOCK_MONOTONIC in seconds */
static inline double now_sec(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* a struct timeval (getrusage(2), wait4(2)) in seconds */
static inline double tv_sec(const struct timeval *tv)
{
	return tv->tv_sec + tv->tv_usec / 1e6;
}

static inline int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* the median of @v[0..@n-1] (0 when empty); @v is left as it is */
static inline double median(const double *v, int n)
{
	double s[BENCH_MAX_ROUNDS];

	if (n <= 0)
		return 0;
	if (n > BENCH_MAX_ROUNDS)
		n = BENCH_MAX_ROUNDS;
	memcpy(s, v, n * sizeof(*v));
	qsort(s, n, sizeof(*s), cmp_double);
	return n % 2 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
}

/* the least of @v[0..@n-1] (0 when empty) */
static inline double minimum(const double *v, int n)
{
	double m = n > 0 ? v[0] : 0;

	for (int i = 1; i < n; i++)
		if (v[i] < m)
			m = v[i];
	return m;
}

/* ---- variants and their rounds ---- */

/* What one timed call of a variant saw, to check they all did the same work */
struct result {
	long mounts;	/* mounts listed (or lines read) */
	long failed;	/* statmount failures (ENOENT races, EOVERFLOW, ...) */
	uint64_t bytes; /* reply bytes (sm->size) or file bytes */
	/* a variant timed inside its child (bench-emul): what it measured */
	double child_wall, child_user, child_sys;
	long rss_before, rss_after, hwm;
};

/* One way of listing, and its timed rounds */
struct variant {
	const char *name;
	const char *what;
	/* the timed call; @child_ru: what a child it waited for used */
	int (*run)(struct result *res, struct rusage *child_ru);
	int (*prepare)(void); /* untimed, before each call (optional) */
	int timed_inside;     /* the times come from res->child_* */
	double wall[BENCH_MAX_ROUNDS], user[BENCH_MAX_ROUNDS];
	double sys[BENCH_MAX_ROUNDS];
	double rss[BENCH_MAX_ROUNDS], hwm[BENCH_MAX_ROUNDS]; /* timed_inside */
	int n;
	struct result last;
	int err;  /* the last error, if any run failed */
	int skip; /* the warm-up run failed with this error: left out */
};

/* an entry of a variant table; more fields (.prepare, ...) may follow */
#define BENCH_VARIANT(n, w, fn, ...)                                           \
	{                                                                      \
		.name = (n), .what = (w), .run = (fn), __VA_ARGS__             \
	}

/* run @v once, and keep its times as round @v->n when @record */
static inline void bench_time_one(struct variant *v, int record)
{
	struct result res = {0};
	struct rusage ru0, ru1, child = {0};
	double t0, t1;
	int err;

	if (v->prepare) {
		err = v->prepare();
		if (err) {
			v->err = err;
			return;
		}
	}
	getrusage(RUSAGE_SELF, &ru0);
	t0 = now_sec();
	err = v->run(&res, &child);
	t1 = now_sec();
	getrusage(RUSAGE_SELF, &ru1);
	if (err) {
		v->err = err;
		return;
	}
	v->last = res;
	if (!record || v->n >= BENCH_MAX_ROUNDS)
		return;
	if (v->timed_inside) {
		v->wall[v->n] = res.child_wall;
		v->user[v->n] = res.child_user;
		v->sys[v->n] = res.child_sys;
		v->rss[v->n] = (double)(res.rss_after - res.rss_before);
		v->hwm[v->n] = (double)(res.hwm - res.rss_before);
	} else {
		v->wall[v->n] = t1 - t0;
		/* the parent's own share (fork, wait) plus the child's */
		v->user[v->n] = tv_sec(&ru1.ru_utime) - tv_sec(&ru0.ru_utime) +
				tv_sec(&child.ru_utime);
		v->sys[v->n] = tv_sec(&ru1.ru_stime) - tv_sec(&ru0.ru_stime) +
			       tv_sec(&child.ru_stime);
	}
	v->n++;
}

/* one untimed round (caches, buffer sizes); a variant failing it is left out */
static inline void bench_warm_up(struct variant *v, int nv)
{
	for (int k = 0; k < nv; k++) {
		if (v[k].skip)
			continue;
		bench_time_one(&v[k], 0);
		v[k].skip = v[k].err;
	}
}

/* @rounds timed rounds, interleaved: a different variant first in each */
static inline void bench_rounds(struct variant *v, int nv, int rounds)
{
	for (int r = 0; r < rounds; r++)
		for (int i = 0; i < nv; i++) {
			int k = (r + i) % nv;

			if (!v[k].skip)
				bench_time_one(&v[k], 1);
		}
}

/* the command line of bench-list and bench-emul: [-r ROUNDS] [-d DIR -n N] */
struct bench_args {
	const char *dir; /* -d DIR: build the table of mounts there */
	const char *n;	 /* -n N: as given, the program parses it */
	int rounds;	 /* -r ROUNDS, 1 to the maximum; or the default */
};

/*
 * Parse the command line into @a, whose defaults the caller set. Returns
 * -1 to go on, else the program's exit status: 0 when -h or --help printed
 * @usage on stdout, 2 when the command line was bad (said on stderr as
 * @prog, with the usage).
 */
static inline int bench_parse_args(int argc, char **argv, const char *prog,
				   int max_rounds, void (*usage)(FILE *out),
				   struct bench_args *a)
{
	static const struct option longopts[] = {
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	int opt;

	while ((opt = getopt_long(argc, argv, "d:n:r:h", longopts, NULL)) !=
	       -1) {
		switch (opt) {
		case 'd':
			a->dir = optarg;
			break;
		case 'n':
			a->n = optarg;
			break;
		case 'r':
			a->rounds = atoi(optarg);
			if (a->rounds < 1 || a->rounds > max_rounds) {
				fprintf(stderr, "%s: bad ROUNDS: %s\n", prog,
					optarg);
				return 2;
			}
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind != argc) {
		usage(stderr);
		return 2;
	}
	return -1;
}

/* ---- the table of results ---- */

/* column widths of a results table */
struct bench_layout {
	int name;      /* variant */
	int time;      /* median, min */
	int bytes;     /* bytes */
	int pad_units; /* the units line padded to every column */
};

/* the header, then a row per variant: medians in ms, per mount, counts */
static inline void bench_print_table(const struct variant *v, int nv,
				     int rounds, const struct bench_layout *l)
{
	printf("\n%-*s %*s %*s %8s %8s %9s %8s %*s  %s\n", l->name, "variant",
	       l->time, "median", l->time, "min", "user", "sys", "us/mount",
	       "mounts", l->bytes, "bytes", "what");
	printf("%-*s %*s %*s %8s %8s", l->name, "", l->time, "ms", l->time,
	       "ms", "ms", "ms");
	if (l->pad_units)
		printf(" %9s %8s %*s", "", "", l->bytes, "");
	putchar('\n');
	for (int k = 0; k < nv; k++, v++) {
		double med = median(v->wall, v->n);

		if (!v->n) {
			int err = v->skip ? v->skip : v->err;

			printf("%-*s %*s  %s%s%s\n", l->name, v->name, l->time,
			       "n/a", v->what, err ? ": " : "",
			       err ? strerror(err) : "");
			continue;
		}
		printf("%-*s %*.3f %*.3f %8.3f %8.3f ", l->name, v->name,
		       l->time, med * 1e3, l->time,
		       minimum(v->wall, v->n) * 1e3,
		       median(v->user, v->n) * 1e3, median(v->sys, v->n) * 1e3);
		if (v->last.mounts > 0)
			printf("%9.3f %8ld ", med * 1e6 / v->last.mounts,
			       v->last.mounts);
		else
			printf("%9s %8s ", "-", "-");
		if (v->last.bytes)
			printf("%*" PRIu64 "  %s", l->bytes, v->last.bytes,
			       v->what);
		else
			printf("%*s  %s", l->bytes, "-", v->what);
		if (v->last.failed)
			printf(" [%ld statmount failures]", v->last.failed);
		if (v->n < rounds)
			printf(" [%d of %d runs failed: %s]", rounds - v->n,
			       rounds, strerror(v->err));
		putchar('\n');
	}
}

/* ---- the listings ---- */

/*
 * The library: mntkit_list(MNTKIT_LSMT_ROOT) + mntkit_stat_buf(@mask) on
 * every ID, into one buffer the caller keeps (*@buf, *@bufsize).
 */
static inline int bench_library_list_stat(uint64_t mask,
					  struct mntkit_statmount **buf,
					  size_t *bufsize, struct result *res)
{
	uint64_t *ids = NULL;
	ssize_t n = mntkit_list(MNTKIT_LSMT_ROOT, 0, NULL, &ids);

	if (n < 0)
		return (int)-n;
	for (ssize_t i = 0; i < n; i++) {
		if (mntkit_stat_buf(ids[i], mask, NULL, buf, bufsize) < 0) {
			res->failed++;
			continue;
		}
		res->bytes += (*buf)->size;
	}
	res->mounts = n;
	free(ids);
	return 0;
}

/*
 * Raw listmount(2) of every mount, in pages of BENCH_LIST_PAGE IDs, into
 * *@ids (grown as needed, *@cap IDs; the caller frees it): the number of
 * IDs, or -errno.
 */
static inline ssize_t bench_bare_listmount(uint64_t **ids, size_t *cap)
{
	struct mntkit_mnt_id_req req = {
		.size = MNTKIT_MNT_ID_REQ_SIZE_VER0,
		.mnt_id = MNTKIT_LSMT_ROOT,
	};
	size_t n = 0;

	for (;;) {
		long got;

		if (*cap - n < BENCH_LIST_PAGE) {
			size_t ncap = *cap ? 2 * *cap : 4 * BENCH_LIST_PAGE;
			uint64_t *p = realloc(*ids, ncap * sizeof(*p));

			if (!p)
				return -ENOMEM;
			*ids = p;
			*cap = ncap;
		}
		got = syscall(BENCH_NR_listmount, &req, *ids + n,
			      (size_t)BENCH_LIST_PAGE, 0);
		if (got < 0)
			return -errno;
		n += (size_t)got;
		if (got < BENCH_LIST_PAGE)
			break;
		req.param = (*ids)[n - 1];
	}
	return (ssize_t)n;
}

/*
 * Raw statmount(2) of the groups @mask of each of @ids[0..@n-1], into one
 * fixed buffer of BENCH_SM_BUF_SIZE: the replies counted into @res.
 */
static inline void bench_bare_statmount_mask(const uint64_t *ids, size_t n,
					     uint64_t mask, struct result *res)
{
	static union {
		struct mntkit_statmount sm;
		char bytes[BENCH_SM_BUF_SIZE];
	} buf;
	struct mntkit_mnt_id_req req = {
		.size = MNTKIT_MNT_ID_REQ_SIZE_VER0,
		.param = mask,
	};

	for (size_t i = 0; i < n; i++) {
		req.mnt_id = ids[i];
		if (syscall(BENCH_NR_statmount, &req, &buf.sm, sizeof(buf), 0) <
		    0) {
			res->failed++;
			continue;
		}
		res->bytes += buf.sm.size;
	}
	res->mounts = (long)n;
}

/* the same, of every group */
static inline void bench_bare_statmount(const uint64_t *ids, size_t n,
					struct result *res)
{
	bench_bare_statmount_mask(ids, n, MNTKIT_STATMOUNT_ALL, res);
}

/* open + read /proc/self/mountinfo: its lines and bytes into @res */
static inline int bench_read_mountinfo(struct result *res)
{
	static char buf[BENCH_READ_BUF_SIZE];
	int fd = open("/proc/self/mountinfo", O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return errno;
	for (;;) {
		ssize_t got = read(fd, buf, sizeof(buf));

		if (got < 0) {
			int err = errno;

			close(fd);
			return err;
		}
		if (got == 0)
			break;
		res->bytes += (uint64_t)got;
		for (ssize_t i = 0; i < got; i++)
			res->mounts += buf[i] == '\n';
	}
	close(fd);
	return 0;
}

/*
 * fork + exec @argv (searched in PATH) with stdout to /dev/null and wait
 * for it, its resource use into @child_ru; the caller times it. 0, ENOENT
 * when it could not be run, ECHILD when it failed.
 */
static inline int bench_spawn(char *const argv[], struct rusage *child_ru)
{
	int status;
	pid_t pid = fork();

	if (pid < 0)
		return errno;
	if (pid == 0) {
		int fd = open("/dev/null", O_WRONLY);

		if (fd < 0 || dup2(fd, STDOUT_FILENO) < 0)
			_exit(126);
		execvp(argv[0], argv);
		_exit(127);
	}
	if (wait4(pid, &status, 0, child_ru) < 0)
		return errno;
	if (!WIFEXITED(status))
		return ECHILD;
	if (WEXITSTATUS(status) == 127)
		return ENOENT;
	return WEXITSTATUS(status) ? ECHILD : 0;
}

/* ---- building the mount table ---- */

/*
 * 1 when our mount namespace is a new one: not that of PID 1 nor that of our
 * parent (the shell that ran unshare). A namespace we cannot read (PID 1's is
 * often hidden in containers) is not counted; when neither can be read, 0.
 */
static inline int bench_in_private_mntns(void)
{
	char ppath[64];
	const char *others[] = {"/proc/1/ns/mnt", ppath};
	struct stat self, other;
	int compared = 0;

	snprintf(ppath, sizeof(ppath), "/proc/%d/ns/mnt", (int)getppid());
	if (stat("/proc/self/ns/mnt", &self) < 0)
		return 0;
	for (size_t i = 0; i < sizeof(others) / sizeof(others[0]); i++) {
		if (stat(others[i], &other) < 0)
			continue;
		if (self.st_dev == other.st_dev && self.st_ino == other.st_ino)
			return 0;
		compared++;
	}
	return compared > 0;
}

/*
 * 1 unless our mount namespace is another than the one a script recorded
 * before it unshared (BENCH_HOST_MNTNS, the link text of
 * /proc/self/ns/mnt); mounting is refused then. Unset: 1 (cannot tell).
 */
static inline int bench_in_host_ns(void)
{
	const char *host = getenv("BENCH_HOST_MNTNS");
	char self[64];
	ssize_t n = readlink("/proc/self/ns/mnt", self, sizeof(self) - 1);

	if (!host || !*host || n <= 0)
		return 1; /* cannot tell: refuse */
	self[n] = '\0';
	return !strcmp(self, host);
}

/*
 * The start of a table of bind mounts, in a private mount namespace (the
 * caller checks: bench_in_private_mntns()): every mount made private, a
 * tmpfs @fsname (mount options @opts) on @dir, and a second, small one
 * (@fsname-src) on @dir/src, whose path goes to @src: what bench_bind()
 * binds. 0, or -1 said on stderr as @prog.
 *
 * The binds are of a second tmpfs because binding the tmpfs that holds
 * the mount points is quadratic in the kernel: each bind of a mount walks
 * every mount on it (__has_locked_children() in fs/namespace.c), there
 * all the binds before it (~40 s for 50,000 instead of ~0.15 s).
 */
static inline int bench_table_start(const char *prog, const char *dir,
				    const char *fsname, const char *opts,
				    char *src, size_t srcsize)
{
	char srcname[256];

	/* our namespace only: never let a mount propagate to the host */
	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0) {
		fprintf(stderr, "%s: make / private: %s\n", prog,
			strerror(errno));
		return -1;
	}
	if (mount(fsname, dir, "tmpfs", 0, opts) < 0) {
		fprintf(stderr, "%s: mount tmpfs on %s: %s\n", prog, dir,
			strerror(errno));
		return -1;
	}
	snprintf(src, srcsize, "%s/src", dir);
	snprintf(srcname, sizeof(srcname), "%s-src", fsname);
	if (mkdir(src, 0755) < 0) {
		fprintf(stderr, "%s: mkdir %s: %s\n", prog, src,
			strerror(errno));
		return -1;
	}
	if (mount(srcname, src, "tmpfs", 0, "size=4k") < 0) {
		fprintf(stderr, "%s: mount source tmpfs on %s: %s\n", prog, src,
			strerror(errno));
		return -1;
	}
	return 0;
}

/*
 * Bind @src on @dir/@from ... @dir/@to-1, making the directories (one
 * that exists is used as it is). Returns how many of them it bound: all
 * (@to - @from), or fewer after saying on stderr, as @prog, what stopped
 * it (errno is left as that failure set it).
 */
static inline long bench_bind(const char *prog, const char *src,
			      const char *dir, long from, long to)
{
	char path[PATH_MAX];
	long i;
	int err;

	for (i = from; i < to; i++) {
		int len = snprintf(path, sizeof(path), "%s/%ld", dir, i);

		if (len < 0 || (size_t)len >= sizeof(path)) {
			errno = ENAMETOOLONG;
			goto no_dir;
		}
		if (mkdir(path, 0755) < 0 && errno != EEXIST)
			goto no_dir;
		if (mount(src, path, NULL, MS_BIND, NULL) < 0)
			goto no_bind;
	}
	return to - from;

no_dir:
	err = errno;
	fprintf(stderr, "%s: mkdir %s: %s\n", prog, path, strerror(err));
	errno = err;
	return i - from;
no_bind:
	err = errno;
	fprintf(stderr, "%s: bind mount %ld of %ld: %s%s\n", prog, i + 1, to,
		strerror(err),
		err == ENOSPC ? " (see /proc/sys/fs/mount-max)" : "");
	errno = err;
	return i - from;
}

#endif /* MNTKIT_BENCH_COMMON_H */
