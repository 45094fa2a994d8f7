// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * bench-list - list every mount and statmount each one, several ways, in
 * one run, and print the medians side by side with their ratios.
 *
 *   library        mntkit_list(MNTKIT_LSMT_ROOT) + mntkit_stat_buf(ALL)
 *                  on every ID, one reused buffer
 *   bare-syscalls  raw listmount(2) in pages + raw statmount(2) with every
 *                  group into one big fixed buffer
 *   read-mountinfo open + read /proc/self/mountinfo in this process
 *   cat-mountinfo  fork + exec "cat /proc/self/mountinfo > /dev/null"
 *   library-proc   the library asking only for what a mountinfo line holds
 *   spawn-only     fork + exec "cat /dev/null > /dev/null": the cost of the
 *                  process alone, to read cat-mountinfo against
 *   library-emul   the library forced to the mountinfo backend (n/a while
 *                  that backend cannot serve this process)
 *
 * The variants run interleaved (a different one first in each round), each
 * round once per variant, after one warm-up round. Wall time comes from
 * CLOCK_MONOTONIC, CPU time from getrusage(2) (in process) or wait4(2) (the
 * child). Nothing is asserted: the program only prints.
 *
 * With -d DIR -n N it first builds the mount table to measure: a tmpfs on
 * DIR and N bind mounts of it on DIR/0 ... DIR/N-1. It refuses to do so in
 * the initial mount namespace; bench/run.sh runs it under
 * "unshare -m --propagation private", and it makes every mount private again
 * itself before mounting.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "mntkit.h"

/* raw syscall numbers: the bare variant must not go through the library */
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

#define LIST_PAGE     4096	 /* IDs per listmount call (bare variant) */
#define SM_BUF_SIZE   (1U << 20) /* the bare variant's fixed statmount buffer */
#define READ_BUF_SIZE (1U << 17) /* read(2) size for mountinfo, as cat's */
#define MAX_ROUNDS    101

/* What one timed call of a variant saw, to check they all did the same work */
struct result {
	long mounts;	/* mounts listed (or lines read) */
	long failed;	/* statmount failures (ENOENT races, EOVERFLOW, ...) */
	uint64_t bytes; /* reply bytes (sm->size) or file bytes */
};

struct variant {
	const char *name;
	const char *what;
	int (*run)(struct result *res, struct rusage *child_ru);
	double wall[MAX_ROUNDS];
	double cpu_user[MAX_ROUNDS];
	double cpu_sys[MAX_ROUNDS];
	int n;
	struct result last;
	int err;  /* the last error, if any run failed */
	int skip; /* the warm-up run failed with this error: left out */
};

static double now_sec(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static double tv_sec(const struct timeval *tv)
{
	return tv->tv_sec + tv->tv_usec / 1e6;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static double median(const double *v, int n)
{
	double s[MAX_ROUNDS];

	if (n <= 0)
		return 0;
	memcpy(s, v, n * sizeof(*v));
	qsort(s, n, sizeof(*s), cmp_double);
	return n % 2 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
}

static double minimum(const double *v, int n)
{
	double m = n > 0 ? v[0] : 0;

	for (int i = 1; i < n; i++)
		if (v[i] < m)
			m = v[i];
	return m;
}

/* ---- (a) the library ---- */

static struct mntkit_statmount *lib_buf;
static size_t lib_bufsize;

static int library_list_stat(uint64_t mask, struct result *res)
{
	uint64_t *ids = NULL;
	ssize_t n;

	n = mntkit_list(MNTKIT_LSMT_ROOT, 0, NULL, &ids);
	if (n < 0)
		return (int)-n;
	for (ssize_t i = 0; i < n; i++) {
		if (mntkit_stat_buf(ids[i], mask, NULL, &lib_buf,
				    &lib_bufsize) < 0) {
			res->failed++;
			continue;
		}
		res->bytes += lib_buf->size;
	}
	res->mounts = n;
	free(ids);
	return 0;
}

static int run_library(struct result *res, struct rusage *child_ru)
{
	(void)child_ru;
	return library_list_stat(MNTKIT_STATMOUNT_ALL, res);
}

/* what one line of /proc/PID/mountinfo holds, no more */
#define MOUNTINFO_GROUPS                                                       \
	(MNTKIT_STATMOUNT_SB_BASIC | MNTKIT_STATMOUNT_MNT_BASIC |              \
	 MNTKIT_STATMOUNT_PROPAGATE_FROM | MNTKIT_STATMOUNT_MNT_ROOT |         \
	 MNTKIT_STATMOUNT_MNT_POINT | MNTKIT_STATMOUNT_FS_TYPE |               \
	 MNTKIT_STATMOUNT_FS_SUBTYPE | MNTKIT_STATMOUNT_SB_SOURCE |            \
	 MNTKIT_STATMOUNT_MNT_OPTS)

static int run_library_proc(struct result *res, struct rusage *child_ru)
{
	(void)child_ru;
	return library_list_stat(MOUNTINFO_GROUPS, res);
}

/* ---- (b) bare system calls ---- */

static union {
	struct mntkit_statmount sm;
	char bytes[SM_BUF_SIZE];
} bare_buf;

static uint64_t *bare_ids;
static size_t bare_cap;

static int run_bare(struct result *res, struct rusage *child_ru)
{
	struct mntkit_mnt_id_req req = {
		.size = MNTKIT_MNT_ID_REQ_SIZE_VER0,
		.mnt_id = MNTKIT_LSMT_ROOT,
	};
	size_t n = 0;

	(void)child_ru;
	for (;;) {
		long got;

		if (bare_cap - n < LIST_PAGE) {
			size_t cap = bare_cap ? 2 * bare_cap : 4 * LIST_PAGE;
			uint64_t *p = realloc(bare_ids, cap * sizeof(*p));

			if (!p)
				return ENOMEM;
			bare_ids = p;
			bare_cap = cap;
		}
		got = syscall(BENCH_NR_listmount, &req, bare_ids + n,
			      (size_t)LIST_PAGE, 0);
		if (got < 0)
			return errno;
		n += got;
		if (got < LIST_PAGE)
			break;
		req.param = bare_ids[n - 1];
	}

	req.param = MNTKIT_STATMOUNT_ALL;
	for (size_t i = 0; i < n; i++) {
		req.mnt_id = bare_ids[i];
		if (syscall(BENCH_NR_statmount, &req, &bare_buf.sm,
			    sizeof(bare_buf), 0) < 0) {
			res->failed++;
			continue;
		}
		res->bytes += bare_buf.sm.size;
	}
	res->mounts = n;
	return 0;
}

/* ---- (c) /proc/self/mountinfo ---- */

static char read_buf[READ_BUF_SIZE];

static int run_read_mountinfo(struct result *res, struct rusage *child_ru)
{
	int fd = open("/proc/self/mountinfo", O_RDONLY | O_CLOEXEC);

	(void)child_ru;
	if (fd < 0)
		return errno;
	for (;;) {
		ssize_t got = read(fd, read_buf, sizeof(read_buf));

		if (got < 0) {
			int err = errno;

			close(fd);
			return err;
		}
		if (got == 0)
			break;
		res->bytes += got;
		for (ssize_t i = 0; i < got; i++)
			res->mounts += read_buf[i] == '\n';
	}
	close(fd);
	return 0;
}

/* fork + exec "cat FILE > /dev/null"; the caller times it */
static int spawn_cat(const char *file, struct rusage *child_ru)
{
	int status;
	pid_t pid = fork();

	if (pid < 0)
		return errno;
	if (pid == 0) {
		int fd = open("/dev/null", O_WRONLY);

		if (fd < 0 || dup2(fd, STDOUT_FILENO) < 0)
			_exit(126);
		execlp("cat", "cat", file, (char *)NULL);
		_exit(127);
	}
	if (wait4(pid, &status, 0, child_ru) < 0)
		return errno;
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
		return ECHILD;
	return 0;
}

static long mountinfo_lines = -1;

static int run_cat_mountinfo(struct result *res, struct rusage *child_ru)
{
	int err = spawn_cat("/proc/self/mountinfo", child_ru);

	/* cat's own count is not visible; report what an in-process read saw */
	res->mounts = mountinfo_lines;
	return err;
}

static int run_spawn_only(struct result *res, struct rusage *child_ru)
{
	(void)res;
	return spawn_cat("/dev/null", child_ru);
}

/* the mountinfo backend of the library, when it serves this process */
static enum mntkit_backend initial_backend;

static int run_library_mountinfo(struct result *res, struct rusage *child_ru)
{
	int err;

	if (mntkit_set_backend(MNTKIT_BACKEND_MOUNTINFO) < 0)
		return errno;
	err = run_library(res, child_ru);
	mntkit_set_backend(initial_backend);
	return err;
}

#define VARIANT(n, w, fn)                                                      \
	{                                                                      \
		.name = (n), .what = (w), .run = (fn)                          \
	}

static struct variant variants[] = {
	VARIANT("library", "mntkit_list + mntkit_stat_buf(ALL)", run_library),
	VARIANT("bare-syscalls", "raw listmount + statmount(ALL)", run_bare),
	VARIANT("read-mountinfo", "read /proc/self/mountinfo in process",
		run_read_mountinfo),
	VARIANT("cat-mountinfo", "fork+exec cat /proc/self/mountinfo",
		run_cat_mountinfo),
	VARIANT("library-proc", "library, only the groups of a mountinfo line",
		run_library_proc),
	VARIANT("spawn-only", "fork+exec cat /dev/null (process cost)",
		run_spawn_only),
	VARIANT("library-emul", "library with MNTKIT_BACKEND_MOUNTINFO",
		run_library_mountinfo),
};

#define NVARIANTS  ((int)(sizeof(variants) / sizeof(variants[0])))
#define PROC_INDEX 4
#define EMUL_INDEX (NVARIANTS - 1)

static void time_one(struct variant *v, int record)
{
	struct result res = {0};
	struct rusage ru0, ru1, child = {0};
	double t0, t1;
	int err;

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
	if (!record)
		return;
	v->wall[v->n] = t1 - t0;
	/* the parent's own share (fork, wait) plus the child's */
	v->cpu_user[v->n] = tv_sec(&ru1.ru_utime) - tv_sec(&ru0.ru_utime) +
			    tv_sec(&child.ru_utime);
	v->cpu_sys[v->n] = tv_sec(&ru1.ru_stime) - tv_sec(&ru0.ru_stime) +
			   tv_sec(&child.ru_stime);
	v->n++;
}

/* ---- building the mount table ---- */

/*
 * 1 when our mount namespace is a new one: not that of PID 1 nor that of our
 * parent (the shell that ran unshare). A namespace we cannot read (PID 1's is
 * often hidden in containers) is not counted; when neither can be read, 0.
 */
static int in_private_mntns(void)
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

static int build_mounts(const char *dir, long n)
{
	char path[PATH_MAX];
	double t0 = now_sec();

	if (!in_private_mntns()) {
		fprintf(stderr,
			"bench-list: -d needs a private mount namespace "
			"(run me under unshare -m --propagation private)\n");
		return -1;
	}
	/* our namespace only: never let a mount propagate to the host */
	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0) {
		perror("bench-list: make / private");
		return -1;
	}
	if (mount("mntkit-bench", dir, "tmpfs", 0, "size=16m,mode=0755") < 0) {
		fprintf(stderr, "bench-list: mount tmpfs on %s: %s\n", dir,
			strerror(errno));
		return -1;
	}
	for (long i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "%s/%ld", dir, i);
		if (mkdir(path, 0755) < 0) {
			fprintf(stderr, "bench-list: mkdir %s: %s\n", path,
				strerror(errno));
			return -1;
		}
	}
	/* binding DIR (the tmpfs) copies only its root mount each time */
	for (long i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "%s/%ld", dir, i);
		if (mount(dir, path, NULL, MS_BIND, NULL) < 0) {
			fprintf(stderr,
				"bench-list: bind mount %ld of %ld: %s%s\n",
				i + 1, n, strerror(errno),
				errno == ENOSPC
					? " (see /proc/sys/fs/mount-max)"
					: "");
			return -1;
		}
	}
	printf("built:   tmpfs + %ld bind mounts on %s in %.2f s\n", n, dir,
	       now_sec() - t0);
	return 0;
}

/* ---- report ---- */

static void print_header(long binds)
{
	struct utsname u;
	struct mntkit_features f = {.size = sizeof(f)};

	uname(&u);
	printf("kernel:  %s %s (%s)\n", u.sysname, u.release, u.machine);
	if (mntkit_get_features(&f) == 0)
		printf("backend: %s (features 0x%04" PRIx32
		       ", supported_mask 0x%" PRIx64 ", kernel_mask 0x%" PRIx64
		       ")\n",
		       mntkit_backend_name(f.backend), f.flags,
		       f.supported_mask, f.kernel_mask);
	else
		printf("backend: %s (mntkit_get_features: %s)\n",
		       mntkit_backend_name(mntkit_backend()), strerror(errno));
	if (binds >= 0)
		printf("N:       %ld bind mounts\n", binds);
}

static void print_table(int rounds)
{
	printf("\n%-15s %8s %8s %8s %8s %9s %8s %10s  %s\n", "variant",
	       "median", "min", "user", "sys", "us/mount", "mounts", "bytes",
	       "what");
	printf("%-15s %8s %8s %8s %8s %9s %8s %10s\n", "", "ms", "ms", "ms",
	       "ms", "", "", "");
	for (int i = 0; i < NVARIANTS; i++) {
		struct variant *v = &variants[i];
		double med = median(v->wall, v->n);
		long mounts = v->last.mounts;

		if (v->n == 0) {
			int err = v->skip ? v->skip : v->err;

			printf("%-15s %8s  %s%s%s\n", v->name, "n/a", v->what,
			       err ? ": " : "", err ? strerror(err) : "");
			continue;
		}
		printf("%-15s %8.3f %8.3f %8.3f %8.3f ", v->name, med * 1e3,
		       minimum(v->wall, v->n) * 1e3,
		       median(v->cpu_user, v->n) * 1e3,
		       median(v->cpu_sys, v->n) * 1e3);
		if (mounts > 0)
			printf("%9.3f %8ld ", med * 1e6 / mounts, mounts);
		else
			printf("%9s %8s ", "-", "-");
		if (v->last.bytes)
			printf("%10" PRIu64 "  %s", v->last.bytes, v->what);
		else
			printf("%10s  %s", "-", v->what);
		if (v->last.failed)
			printf(" [%ld statmount failures]", v->last.failed);
		if (v->n < rounds)
			printf(" [%d of %d runs failed: %s]", rounds - v->n,
			       rounds, strerror(v->err));
		putchar('\n');
	}
}

static void print_ratio(int a, int b, const char *target)
{
	double ma = median(variants[a].wall, variants[a].n);
	double mb = median(variants[b].wall, variants[b].n);

	if (!variants[a].n || !variants[b].n || mb <= 0) {
		printf("%s/%s = n/a\n", variants[a].name, variants[b].name);
		return;
	}
	printf("%s/%s = %.2fx%s\n", variants[a].name, variants[b].name, ma / mb,
	       target ? target : "");
}

static void usage(FILE *out)
{
	fprintf(out,
		"usage: bench-list [-r ROUNDS] [-d DIR -n N]\n"
		"  -r ROUNDS  timed rounds per variant (default 15, max %d)\n"
		"  -d DIR     mount a tmpfs on DIR and bind it N times below "
		"it\n"
		"             (only in a private mount namespace)\n"
		"  -n N       number of bind mounts for -d (default 10000)\n",
		MAX_ROUNDS);
}

int main(int argc, char **argv)
{
	const char *dir = NULL;
	long binds = 10000;
	int rounds = 15, opt;

	while ((opt = getopt(argc, argv, "d:n:r:h")) != -1) {
		char *end;

		switch (opt) {
		case 'd':
			dir = optarg;
			break;
		case 'n':
			errno = 0;
			binds = strtol(optarg, &end, 10);
			if (errno || *end || end == optarg || binds < 0) {
				fprintf(stderr, "bench-list: bad N: %s\n",
					optarg);
				return 2;
			}
			break;
		case 'r':
			rounds = atoi(optarg);
			if (rounds < 1 || rounds > MAX_ROUNDS) {
				fprintf(stderr, "bench-list: bad ROUNDS: %s\n",
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

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (dir && build_mounts(dir, binds) < 0)
		return 1;

	print_header(dir ? binds : -1);

	/* the emulation row only when this build and kernel can serve it */
	initial_backend = mntkit_backend();
	if (mntkit_set_backend(MNTKIT_BACKEND_MOUNTINFO) < 0)
		variants[EMUL_INDEX].skip = errno;
	mntkit_set_backend(initial_backend);

	/* warm-up: fill caches, size buffers, count mountinfo lines */
	for (int i = 0; i < NVARIANTS; i++) {
		if (variants[i].skip)
			continue;
		time_one(&variants[i], 0);
		variants[i].skip = variants[i].err;
	}
	mountinfo_lines = variants[2].last.mounts;

	printf("rounds:  %d, interleaved, median reported\n", rounds);
	for (int r = 0; r < rounds; r++)
		for (int k = 0; k < NVARIANTS; k++) {
			struct variant *v = &variants[(r + k) % NVARIANTS];

			if (!v->skip)
				time_one(v, 1);
		}

	print_table(rounds);
	printf("(user/sys: getrusage(2), the child's included for the cat rows;"
	       " the kernel may\n sample them per tick, so trust the median"
	       " wall time first)\n");
	if (variants[0].n && variants[1].n &&
	    (variants[0].last.mounts != variants[1].last.mounts ||
	     variants[0].last.bytes != variants[1].last.bytes))
		printf("note: library and bare-syscalls did not see the same "
		       "mounts/bytes (the table changed, or a backend "
		       "differs)\n");
	putchar('\n');
	print_ratio(0, 1, " (target <= 1.2x)");
	print_ratio(0, 2, NULL);
	print_ratio(0, 3, NULL);
	print_ratio(1, 2, NULL);
	print_ratio(PROC_INDEX, 2, NULL);
	if (variants[EMUL_INDEX].n)
		print_ratio(EMUL_INDEX, 0, NULL);

	free(lib_buf);
	free(bare_ids);
	return 0;
}
