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
 *   library-many   mntkit_list(MNTKIT_LSMT_ROOT) + mntkit_stat_many(ALL),
 *                  the replies a 64 KiB buffer at a time
 *   library-emul   the library forced to the mountinfo backend (n/a while
 *                  that backend cannot serve this process)
 *
 * The variants run interleaved (a different one first in each round), each
 * round once per variant, after one warm-up round. Wall time comes from
 * CLOCK_MONOTONIC, CPU time from getrusage(2) (in process) or wait4(2) (the
 * child). Nothing is asserted: the program only prints.
 *
 * With -d DIR -n N it first builds the mount table to measure: a tmpfs on
 * DIR, a second one on DIR/src and N bind mounts of that on DIR/0 ...
 * DIR/N-1 (bench_table_start() in common.h: binding the first one is
 * quadratic in the kernel). It refuses to do so in the initial mount
 * namespace; bench/run.sh runs it under
 * "unshare -m --propagation private", and it makes every mount private again
 * itself before mounting.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "mntkit.h"
#include "common.h"

#define MAX_ROUNDS BENCH_MAX_ROUNDS

/* ---- (a) the library ---- */

static struct mntkit_statmount *lib_buf;
static size_t lib_bufsize;

static int library_list_stat(uint64_t mask, struct result *res)
{
	return bench_library_list_stat(mask, &lib_buf, &lib_bufsize, res);
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

/* the replies a buffer at a time (mntkit_stat_many()) */
#define MANY_BUF (64U << 10)
static char *many_buf;

static int run_library_many(struct result *res, struct rusage *child_ru)
{
	uint64_t *ids = NULL;
	ssize_t n = mntkit_list(MNTKIT_LSMT_ROOT, 0, NULL, &ids);

	(void)child_ru;
	if (n < 0)
		return (int)-n;
	if (!many_buf)
		many_buf = malloc(MANY_BUF);
	if (!many_buf) {
		free(ids);
		return ENOMEM;
	}
	for (size_t i = 0; i < (size_t)n;) {
		ssize_t got = mntkit_stat_many(ids + i, (size_t)n - i,
					       MNTKIT_STATMOUNT_ALL, 0, NULL,
					       many_buf, MANY_BUF);
		size_t at = 0;

		if (got <= 0) { /* gone, or larger than the buffer */
			res->failed++;
			i++;
			continue;
		}
		for (ssize_t k = 0; k < got; k++) {
			const struct mntkit_statmount *sm =
				(const void *)(many_buf + at);

			res->bytes += sm->size;
			at += mntkit_stat_span(sm);
		}
		i += (size_t)got;
	}
	res->mounts = n;
	free(ids);
	return 0;
}

/* ---- (b) bare system calls ---- */

static uint64_t *bare_ids;
static size_t bare_cap;

static int run_bare(struct result *res, struct rusage *child_ru)
{
	ssize_t n = bench_bare_listmount(&bare_ids, &bare_cap);

	(void)child_ru;
	if (n < 0)
		return (int)-n;
	bench_bare_statmount(bare_ids, (size_t)n, res);
	return 0;
}

/* ---- (c) /proc/self/mountinfo ---- */

static int run_read_mountinfo(struct result *res, struct rusage *child_ru)
{
	(void)child_ru;
	return bench_read_mountinfo(res);
}

/* fork + exec "cat FILE > /dev/null"; the caller times it */
static int spawn_cat(const char *file, struct rusage *child_ru)
{
	char *argv[] = {"cat", (char *)file, NULL};

	return bench_spawn(argv, child_ru);
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

static struct variant variants[] = {
	BENCH_VARIANT("library", "mntkit_list + mntkit_stat_buf(ALL)",
		      run_library),
	BENCH_VARIANT("bare-syscalls", "raw listmount + statmount(ALL)",
		      run_bare),
	BENCH_VARIANT("read-mountinfo", "read /proc/self/mountinfo in process",
		      run_read_mountinfo),
	BENCH_VARIANT("cat-mountinfo", "fork+exec cat /proc/self/mountinfo",
		      run_cat_mountinfo),
	BENCH_VARIANT("library-proc",
		      "library, only the groups of a mountinfo line",
		      run_library_proc),
	BENCH_VARIANT("spawn-only", "fork+exec cat /dev/null (process cost)",
		      run_spawn_only),
	BENCH_VARIANT("library-many", "mntkit_list + mntkit_stat_many(ALL)",
		      run_library_many),
	BENCH_VARIANT("library-emul", "library with MNTKIT_BACKEND_MOUNTINFO",
		      run_library_mountinfo),
};

#define NVARIANTS  ((int)(sizeof(variants) / sizeof(variants[0])))
#define PROC_INDEX 4
#define MANY_INDEX 6
#define EMUL_INDEX (NVARIANTS - 1)

/* ---- building the mount table ---- */

static int build_mounts(const char *dir, long n)
{
	char src[PATH_MAX];
	double t0 = now_sec();

	if (!bench_in_private_mntns()) {
		fprintf(stderr,
			"bench-list: -d needs a private mount namespace "
			"(run me under unshare -m --propagation private)\n");
		return -1;
	}
	if (bench_table_start("bench-list", dir, "mntkit-bench",
			      "size=16m,mode=0755", src, sizeof(src)) < 0 ||
	    bench_bind("bench-list", src, dir, 0, n) < n)
		return -1;
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
		       mntkit_backend_name(mntkit_get_backend()), strerror(errno));
	if (binds >= 0)
		printf("N:       %ld bind mounts\n", binds);
}

static void print_table(int rounds)
{
	static const struct bench_layout layout = {
		.name = 15,
		.time = 8,
		.bytes = 10,
		.pad_units = 1,
	};

	bench_print_table(variants, NVARIANTS, rounds, &layout);
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
		"  -d DIR     mount a tmpfs on DIR and N bind mounts below "
		"it\n"
		"             (only in a private mount namespace)\n"
		"  -n N       number of bind mounts for -d (default 10000)\n",
		MAX_ROUNDS);
}

int main(int argc, char **argv)
{
	struct bench_args args = {.rounds = 15};
	long binds = 10000;
	int rc;

	rc = bench_parse_args(argc, argv, "bench-list", MAX_ROUNDS, usage,
			      &args);
	if (rc >= 0)
		return rc;
	if (args.n) {
		char *end;

		errno = 0;
		binds = strtol(args.n, &end, 10);
		if (errno || *end || end == args.n || binds < 0) {
			fprintf(stderr, "bench-list: bad N: %s\n", args.n);
			return 2;
		}
	}

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (args.dir && build_mounts(args.dir, binds) < 0)
		return 1;

	print_header(args.dir ? binds : -1);

	/* the emulation row only when this build and kernel can serve it */
	initial_backend = mntkit_get_backend();
	if (mntkit_set_backend(MNTKIT_BACKEND_MOUNTINFO) < 0)
		variants[EMUL_INDEX].skip = errno;
	mntkit_set_backend(initial_backend);

	/* warm-up: fill caches, size buffers, count mountinfo lines */
	bench_warm_up(variants, NVARIANTS);
	mountinfo_lines = variants[2].last.mounts;

	printf("rounds:  %d, interleaved, median reported\n", args.rounds);
	bench_rounds(variants, NVARIANTS, args.rounds);

	print_table(args.rounds);
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
	print_ratio(MANY_INDEX, 1, NULL);
	print_ratio(0, 2, NULL);
	print_ratio(0, 3, NULL);
	print_ratio(1, 2, NULL);
	print_ratio(PROC_INDEX, 2, NULL);
	if (variants[EMUL_INDEX].n)
		print_ratio(EMUL_INDEX, 0, NULL);

	free(lib_buf);
	free(many_buf);
	free(bare_ids);
	return 0;
}
