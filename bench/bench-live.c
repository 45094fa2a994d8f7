// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * bench-live - the live table (mntkit_live(3)) side by side with what a
 * program does without it (run as root; it moves into a private mount
 * namespace of its own, and mounts only there):
 *
 *   bench-live event N K      at N mounts: K mount/unmount changes
 *                             (2K events) applied by a live table: CPU
 *                             per event
 *   bench-live event-watch N K  the same read by a bare watch
 *   bench-live snapshot N R   at N mounts: a snapshot of the live table
 *                             after a change, against mntkit_table_new();
 *                             medians of R rounds; and the memory of the
 *                             live table against that of one snapshot
 *   bench-live resnap N K     at N mounts: K changes, each followed by a
 *                             fresh mntkit_table_new() (re-snapshotting),
 *                             against the live table's processing
 *
 * The mounts are N bind mounts of one small tmpfs, made private (no
 * propagation). The source is fanotify where the kernel has it
 * (MNTKIT_BENCH_SOURCE=poll: the poll source). Times are CPU times of
 * this thread (CLOCK_THREAD_CPUTIME_ID), so that the kernel's work of
 * the mounts themselves is not counted.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <stdbool.h>
#include <limits.h>
#include <malloc.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "mntkit.h"

#define MASK (MNTKIT_STATMOUNT_ALL & ~MNTKIT_STATMOUNT_SUPPORTED_MASK)

static char base[] = "/tmp/bench-live.XXXXXX";

__attribute__((noreturn)) static void die(const char *what, int err)
{
	fprintf(stderr, "bench-live: %s: %s\n", what, strerror(err));
	exit(1);
}

static double cpu_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/*
 * The memory in use: the resident pages (a snapshot's records are in a
 * mapping of their own, which mallinfo2(3) does not count), less what
 * malloc holds free
 */
static size_t mem_bytes(void)
{
	struct mallinfo2 mi = mallinfo2();
	unsigned long size, rss;
	FILE *f = fopen("/proc/self/statm", "r");

	if (!f || fscanf(f, "%lu %lu", &size, &rss) != 2)
		die("/proc/self/statm", errno);
	fclose(f);
	return rss * (size_t)sysconf(_SC_PAGESIZE) - mi.fordblks;
}

/* a private namespace; @n bind mounts of a small tmpfs under base/p */
static void setup(long n)
{
	char src[PATH_MAX], dir[PATH_MAX];

	if (unshare(CLONE_NEWNS))
		die("unshare", errno);
	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL))
		die("make / private", errno);
	if (!mkdtemp(base))
		die("mkdtemp", errno);
	if (mount("bench-live", base, "tmpfs", 0, NULL))
		die("mount base", errno);
	snprintf(src, sizeof(src), "%s/src", base);
	mkdir(src, 0755);
	if (mount("bench-src", src, "tmpfs", 0, "size=64k"))
		die("mount src", errno);
	snprintf(dir, sizeof(dir), "%s/p", base);
	mkdir(dir, 0755);
	snprintf(dir, sizeof(dir), "%s/c", base);
	mkdir(dir, 0755);
	for (long i = 0; i < n; i++) {
		snprintf(dir, sizeof(dir), "%s/p/%ld", base, i);
		mkdir(dir, 0755);
		if (mount(src, dir, NULL, MS_BIND, NULL))
			die("bind", errno);
	}
}

/* change @k: a tmpfs on base/c mounted (even) or unmounted (odd) */
static void change(long k)
{
	char dir[PATH_MAX];

	snprintf(dir, sizeof(dir), "%s/c", base);
	if (k % 2 == 0 ? mount("bench-c", dir, "tmpfs", 0, NULL) :
			 umount(dir))
		die("change", errno);
}

static struct mntkit_watch_opts wopts(void)
{
	const char *s = getenv("MNTKIT_BENCH_SOURCE");
	MNTKIT_WATCH_OPTS(wo, .rescan_ms = MNTKIT_WATCH_NO_RESCAN,
			  .source = s && !strcmp(s, "poll") ?
					    MNTKIT_WATCH_POLL :
					    MNTKIT_WATCH_AUTO);

	return wo;
}

/* apply until @want events came (a watch may hold a change back a little) */
static double live_apply(struct mntkit_live *live, long want)
{
	double cpu = 0;
	long got = 0;

	for (int idle = 0; got < want && idle < 2000; idle++) {
		double t0 = cpu_s();
		ssize_t n = mntkit_live_process(live, NULL, 0);

		cpu += cpu_s() - t0;
		if (n < 0)
			die("mntkit_live_process", (int)-n);
		got += n;
		if (!n)
			usleep(1000);
	}
	if (got < want)
		fprintf(stderr, "bench-live: %ld events of %ld\n", got, want);
	return cpu;
}

static double watch_read(struct mntkit_watch *w, long want)
{
	MNTKIT_EVENT(ev);
	double cpu = 0;
	long got = 0;

	for (int idle = 0; got < want && idle < 2000; idle++) {
		double t0 = cpu_s();
		int r;

		while ((r = mntkit_watch_read(w, &ev)) == 1)
			got++;
		cpu += cpu_s() - t0;
		if (r < 0)
			die("mntkit_watch_read", -r);
		usleep(1000);
	}
	return cpu;
}

/*
 * One of the two per run (@live or a bare watch): whichever reads first
 * pays the watch's checks of fanotify's signals (a diff of the whole
 * table) while the other is not yet reading.
 */
static void bench_event(long n, long k, bool live_side)
{
	struct mntkit_watch_opts wo = wopts();
	struct mntkit_live *live = NULL;
	struct mntkit_watch *w = NULL;
	double c;
	int r;

	setup(n);
	if (live_side)
		r = mntkit_live_new(&wo, NULL, &live);
	else
		r = mntkit_watch_new(&wo, NULL, &w);
	if (r)
		die("new", -r);
	for (long i = 0; i < 2 * k; i++)
		change(i);
	c = live_side ? live_apply(live, 2 * k) : watch_read(w, 2 * k);
	printf("event\t%ld mounts\t%s\t%s %.2f us/event\n", n,
	       wo.source == MNTKIT_WATCH_POLL ? "poll" : "auto",
	       live_side ? "live" : "watch", c / (2.0 * k) * 1e6);
	mntkit_watch_free(w);
	mntkit_live_free(live);
}

static int cmp_d(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static void bench_snapshot(long n, int rounds)
{
	struct mntkit_watch_opts wo = wopts();
	double *ls = calloc((size_t)rounds, sizeof(double));
	double *ts = calloc((size_t)rounds, sizeof(double));
	size_t h0, h1, h2;
	struct mntkit_live *live;
	struct mntkit_table *t;
	int r;

	setup(n);
	h0 = mem_bytes();
	r = mntkit_live_new(&wo, NULL, &live);
	if (r)
		die("mntkit_live_new", -r);
	h1 = mem_bytes();
	for (int i = 0; i < rounds; i++) {
		double t0;

		change(i);
		live_apply(live, 1);
		t0 = cpu_s();
		if (mntkit_live_snapshot(live, &t))
			die("mntkit_live_snapshot", errno);
		ls[i] = cpu_s() - t0;
		mntkit_table_free(t);
		t0 = cpu_s();
		if (mntkit_table_new(MASK, 0, NULL, &t))
			die("mntkit_table_new", errno);
		ts[i] = cpu_s() - t0;
		if (i == 0) {
			h2 = mem_bytes();
			printf("memory\t%ld mounts\tlive table %.1f MiB\tone "
			       "snapshot %.1f MiB\tlive/snapshot %.2fx\n",
			       n, (double)(h1 - h0) / (1 << 20),
			       (double)(h2 - h1) / (1 << 20),
			       (double)(h1 - h0) / (double)(h2 - h1));
		}
		mntkit_table_free(t);
	}
	qsort(ls, (size_t)rounds, sizeof(*ls), cmp_d);
	qsort(ts, (size_t)rounds, sizeof(*ts), cmp_d);
	printf("snapshot\t%ld mounts\tlive %.3f ms\tmntkit_table_new %.3f "
	       "ms\tlive/new %.4fx\n",
	       n, ls[rounds / 2] * 1e3, ts[rounds / 2] * 1e3,
	       ls[rounds / 2] / ts[rounds / 2]);
	mntkit_live_free(live);
	free(ls);
	free(ts);
}

static void bench_resnap(long n, long k)
{
	struct mntkit_watch_opts wo = wopts();
	struct mntkit_live *live;
	struct mntkit_table *t;
	double lc = 0, rc = 0;
	int r;

	setup(n);
	r = mntkit_live_new(&wo, NULL, &live);
	if (r)
		die("mntkit_live_new", -r);
	for (long i = 0; i < k; i++) {
		double t0;

		change(i);
		lc += live_apply(live, 1);
		t0 = cpu_s();
		if (mntkit_table_new(MASK, 0, NULL, &t))
			die("mntkit_table_new", errno);
		rc += cpu_s() - t0;
		mntkit_table_free(t);
	}
	printf("resnap\t%ld mounts\tlive %.1f us/change\tre-snapshot %.1f "
	       "us/change\tre-snapshot/live %.0fx\n",
	       n, lc / (double)k * 1e6, rc / (double)k * 1e6, rc / lc);
	mntkit_live_free(live);
}

int main(int argc, char **argv)
{
	long n, k;

	if (argc != 4) {
		fprintf(stderr, "usage: bench-live event|snapshot|resnap N K\n");
		return 2;
	}
	n = atol(argv[2]);
	k = atol(argv[3]);
	if (!strcmp(argv[1], "event") || !strcmp(argv[1], "event-live"))
		bench_event(n, k, true);
	else if (!strcmp(argv[1], "event-watch"))
		bench_event(n, k, false);
	else if (!strcmp(argv[1], "snapshot"))
		bench_snapshot(n, (int)k);
	else if (!strcmp(argv[1], "resnap"))
		bench_resnap(n, k);
	else
		return 2;
	return 0;
}
