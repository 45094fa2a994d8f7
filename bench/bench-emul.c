// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * bench-emul - the mountinfo emulation's full listing against its peers,
 * side by side in one run, at one or more table sizes.
 *
 * "A full listing" is what a caller of the library does to see every mount:
 * mntkit_list(MNTKIT_LSMT_ROOT) + mntkit_stat_buf(MNTKIT_STATMOUNT_ALL) on
 * every ID, one reused buffer, on MNTKIT_BACKEND_MOUNTINFO. It includes the
 * read of /proc/self/mountinfo, its parse, the ID resolution (a probe of
 * each mount point), the index and every reply.
 *
 *   emul-cold     a fresh process (fork + exec of this program): the first
 *                 listing, with no table cached. Timed inside the child,
 *                 from its first library call to its last reply; its RSS
 *                 growth is the emulation's memory per mount.
 *   emul-changed  in process, after an (untimed) mount + umount of a tmpfs:
 *                 the cached table is stale and reloaded (the usual case of
 *                 a long-running watcher).
 *   emul-warm     in process, the cached table current: replies only (the
 *                 table may still be re-read by age, see lib/emul.c).
 *   emul-cold-oldids, emul-warm-oldids
 *                 the same in a process with MNTKIT_TEST_OLD_IDS=1: the
 *                 emulation as on a kernel without unique IDs (< 6.8, the
 *                 kernels it is for), where a cold load looks up no mount
 *                 point (on this kernel it does one statx per mount to
 *                 learn unique IDs). cold: a fresh process as emul-cold;
 *                 warm: one long-lived child (fork + exec with the knob)
 *                 that loads the table untimed, then times the listing.
 *   cat-mountinfo fork + exec "cat /proc/self/mountinfo > /dev/null".
 *   findmnt-l     fork + exec "findmnt -l > /dev/null".
 *   read-mountinfo  open + read /proc/self/mountinfo in process (reference).
 *   native        the library on its native backend (reference; n/a where
 *                 the kernel has no statmount/listmount).
 *   native-cold, hybrid-cold
 *                 a fresh process on the native backend, timed inside as
 *                 emul-cold; hybrid-cold with MNTKIT_TEST_KERNEL_MASK=0x3f,
 *                 the statmount groups of Linux 6.8 (Ubuntu 24.04's
 *                 kernel), so every reply is the kernel's groups completed
 *                 from mountinfo (the hybrid of lib/emul.c).
 *   spawn-only    fork + exec "cat /dev/null > /dev/null": the process cost
 *                 inside the cat and findmnt rows.
 *
 * The variants run interleaved, after one warm-up round; the medians and
 * their ratios are printed. Nothing is asserted. MNTKIT_TEST_OLD_IDS is
 * removed from the environment at start: only the -oldids children have it.
 *
 * With -d DIR -n N[,N...] it builds the table itself, in steps: a tmpfs on
 * DIR, a second one on DIR/src, then bind mounts of DIR/src on DIR/0,
 * DIR/1, ... until N binds exist, measuring at each N. It refuses to mount in the initial mount namespace;
 * bench/run.sh runs it under "unshare -m --propagation private".
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
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "mntkit.h"
#include "common.h"

#define MAX_ROUNDS 51
#define MAX_STEPS  8

/* struct variant (common.h) holds the rounds */
_Static_assert(MAX_ROUNDS <= BENCH_MAX_ROUNDS, "MAX_ROUNDS");

static const char *self_exe = "/proc/self/exe";
static const char *spare_dir; /* where emul-changed mounts and unmounts */
static long mountinfo_lines;

/* resident set and its peak, in bytes (VmRSS, VmHWM) */
static void rss_now(long *rss, long *hwm)
{
	char line[256];
	FILE *f = fopen("/proc/self/status", "re");

	*rss = *hwm = 0;
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		if (!strncmp(line, "VmRSS:", 6))
			*rss = strtol(line + 6, NULL, 10) * 1024;
		else if (!strncmp(line, "VmHWM:", 6))
			*hwm = strtol(line + 6, NULL, 10) * 1024;
	}
	fclose(f);
}

/* ---- the listing ---- */

static struct mntkit_statmount *sm_buf;
static size_t sm_bufsize;

static int full_listing(struct result *res)
{
	return bench_library_list_stat(MNTKIT_STATMOUNT_ALL, &sm_buf,
				       &sm_bufsize, res);
}

static enum mntkit_backend initial_backend;

static int emul_listing(struct result *res)
{
	int err;

	if (mntkit_set_backend(MNTKIT_BACKEND_MOUNTINFO) < 0)
		return errno;
	err = full_listing(res);
	mntkit_set_backend(initial_backend);
	return err;
}

/*
 * One listing on the mountinfo backend, timed and measured here, printed
 * on stdout as one line for the parent (read_result()).
 */
static int timed_listing(enum mntkit_backend backend)
{
	struct result res = { 0 };
	struct rusage ru0, ru1;
	long rss0, hwm0, rss1, hwm1;
	double t0, t1;
	int err;

	rss_now(&rss0, &hwm0);
	getrusage(RUSAGE_SELF, &ru0);
	t0 = now_sec();
	if (mntkit_set_backend(backend) < 0)
		return 1;
	err = full_listing(&res);
	t1 = now_sec();
	getrusage(RUSAGE_SELF, &ru1);
	/* what stays: the emulation's cached table (the IDs are freed) */
	free(sm_buf);
	sm_buf = NULL;
	sm_bufsize = 0;
	rss_now(&rss1, &hwm1);
	if (err)
		return 1;
	printf("%.9f %.6f %.6f %ld %ld %ld %ld %ld %" PRIu64 "\n", t1 - t0,
	       tv_sec(&ru1.ru_utime) - tv_sec(&ru0.ru_utime),
	       tv_sec(&ru1.ru_stime) - tv_sec(&ru0.ru_stime), rss0, rss1, hwm1,
	       res.mounts, res.failed, res.bytes);
	fflush(stdout);
	return 0;
}

/*
 * The child of emul-cold and emul-cold-oldids (bench-emul --cold-child),
 * or of native-cold and hybrid-cold (--cold-child-native): one listing in
 * a fresh process.
 */
static int cold_child(enum mntkit_backend backend)
{
	return timed_listing(backend);
}

/*
 * The child of emul-warm-oldids (bench-emul --warm-child), alive for the
 * whole run: for each byte on stdin, an untimed listing (the table loaded
 * and current), then a timed one. Ends at EOF.
 */
static int warm_child(void)
{
	struct result res = { 0 };
	char c;

	while (read(STDIN_FILENO, &c, 1) == 1) {
		if (mntkit_set_backend(MNTKIT_BACKEND_MOUNTINFO) < 0 ||
		    full_listing(&res) ||
		    timed_listing(MNTKIT_BACKEND_MOUNTINFO))
			return 1;
	}
	return 0;
}

/* the testing knobs a child may get (one each) */
enum knob { KNOB_NONE, KNOB_OLD_IDS, KNOB_KERNEL_6_8 };

/*
 * fork + exec this program as @mode (its stdin/stdout: @in/@out), with
 * @knob in its environment: MNTKIT_TEST_OLD_IDS=1 (a kernel without unique
 * IDs), or MNTKIT_TEST_KERNEL_MASK=0x3f (a 6.8 kernel's statmount groups,
 * which makes the native backend's replies hybrid).
 */
static pid_t spawn_self(const char *mode, enum knob knob, int in, int out)
{
	pid_t pid = fork();

	if (pid != 0)
		return pid;
	if ((in >= 0 && dup2(in, STDIN_FILENO) < 0) ||
	    dup2(out, STDOUT_FILENO) < 0)
		_exit(126);
	if (knob == KNOB_OLD_IDS && setenv("MNTKIT_TEST_OLD_IDS", "1", 1))
		_exit(126);
	if (knob == KNOB_KERNEL_6_8 &&
	    setenv("MNTKIT_TEST_KERNEL_MASK", "0x3f", 1))
		_exit(126);
	execl(self_exe, "bench-emul", mode, (char *)NULL);
	_exit(127);
}

/* one result line of timed_listing() from @fd */
static int read_result(int fd, struct result *res)
{
	char line[512];
	size_t len = 0;
	ssize_t got;

	/* up to the newline: the warm child lives on, no EOF ends its line */
	while (len < sizeof(line) - 1 && (got = read(fd, line + len, 1)) > 0)
		if (line[len++] == '\n')
			break;
	line[len] = '\0';
	if (sscanf(line, "%lf %lf %lf %ld %ld %ld %ld %ld %" SCNu64,
		   &res->child_wall, &res->child_user, &res->child_sys,
		   &res->rss_before, &res->rss_after, &res->hwm, &res->mounts,
		   &res->failed, &res->bytes) != 9)
		return EPROTO;
	return 0;
}

static int run_cold_child(struct result *res, struct rusage *child_ru,
			  const char *mode, enum knob knob)
{
	int pfd[2], status, err;
	pid_t pid;

	if (pipe2(pfd, O_CLOEXEC) < 0)
		return errno;
	pid = spawn_self(mode, knob, -1, pfd[1]);
	close(pfd[1]);
	if (pid < 0) {
		close(pfd[0]);
		return errno;
	}
	err = read_result(pfd[0], res);
	close(pfd[0]);
	if (wait4(pid, &status, 0, child_ru) < 0)
		return errno;
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
		return ECHILD;
	return err;
}

static int run_emul_cold(struct result *res, struct rusage *child_ru)
{
	return run_cold_child(res, child_ru, "--cold-child", KNOB_NONE);
}

static int run_emul_cold_old(struct result *res, struct rusage *child_ru)
{
	return run_cold_child(res, child_ru, "--cold-child", KNOB_OLD_IDS);
}

static int run_native_cold(struct result *res, struct rusage *child_ru)
{
	return run_cold_child(res, child_ru, "--cold-child-native", KNOB_NONE);
}

static int run_hybrid_cold(struct result *res, struct rusage *child_ru)
{
	return run_cold_child(res, child_ru, "--cold-child-native",
			      KNOB_KERNEL_6_8);
}

/* the warm child with MNTKIT_TEST_OLD_IDS=1, started at its first use */
static struct {
	pid_t pid;
	int to, from;
} warm_old = { .pid = -1, .to = -1, .from = -1 };

static void warm_old_stop(void)
{
	int status;

	if (warm_old.pid < 0)
		return;
	close(warm_old.to);
	close(warm_old.from);
	waitpid(warm_old.pid, &status, 0);
	warm_old.pid = -1;
	warm_old.to = warm_old.from = -1;
}

static int run_emul_warm_old(struct result *res, struct rusage *child_ru)
{
	int in[2], out[2], err;

	(void)child_ru;
	if (warm_old.pid < 0) {
		if (pipe2(in, O_CLOEXEC) < 0)
			return errno;
		if (pipe2(out, O_CLOEXEC) < 0) {
			err = errno;
			close(in[0]);
			close(in[1]);
			return err;
		}
		warm_old.pid = spawn_self("--warm-child", KNOB_OLD_IDS, in[0],
					  out[1]);
		err = errno;
		close(in[0]);
		close(out[1]);
		warm_old.to = in[1];
		warm_old.from = out[0];
		if (warm_old.pid < 0) {
			close(in[1]);
			close(out[0]);
			warm_old.to = warm_old.from = -1;
			return err;
		}
	}
	if (write(warm_old.to, "w", 1) != 1) {
		err = errno;
		warm_old_stop();
		return err;
	}
	err = read_result(warm_old.from, res);
	if (err)
		warm_old_stop(); /* it failed: the next round starts another */
	return err;
}

/* mount + umount a tmpfs: the emulation's cached table goes stale */
static int touch_table(void)
{
	if (!spare_dir)
		return EINVAL;
	if (mount("mntkit-bench-touch", spare_dir, "tmpfs", 0, "size=4k") < 0)
		return errno;
	if (umount2(spare_dir, MNT_DETACH) < 0)
		return errno;
	return 0;
}

static int run_emul_changed(struct result *res, struct rusage *child_ru)
{
	(void)child_ru;
	return emul_listing(res);
}

static int prepare_changed(void)
{
	return touch_table();
}

static int run_emul_warm(struct result *res, struct rusage *child_ru)
{
	(void)child_ru;
	return emul_listing(res);
}

static int prepare_warm(void)
{
	struct result res = { 0 };

	/* load the table now, untimed; the timed call finds it current */
	return emul_listing(&res);
}

static int run_native(struct result *res, struct rusage *child_ru)
{
	(void)child_ru;
	if (initial_backend != MNTKIT_BACKEND_NATIVE)
		return ENOSYS;
	return full_listing(res);
}

static int run_read_mountinfo(struct result *res, struct rusage *child_ru)
{
	(void)child_ru;
	return bench_read_mountinfo(res);
}

static int run_cat(struct result *res, struct rusage *child_ru)
{
	char *argv[] = { "cat", "/proc/self/mountinfo", NULL };

	res->mounts = mountinfo_lines;
	return bench_spawn(argv, child_ru);
}

static int run_findmnt(struct result *res, struct rusage *child_ru)
{
	char *argv[] = { "findmnt", "-l", NULL };

	res->mounts = mountinfo_lines;
	return bench_spawn(argv, child_ru);
}

static int run_spawn_only(struct result *res, struct rusage *child_ru)
{
	char *argv[] = { "cat", "/dev/null", NULL };

	(void)res;
	return bench_spawn(argv, child_ru);
}

enum {
	V_COLD,
	V_CHANGED,
	V_WARM,
	V_COLD_OLD,
	V_WARM_OLD,
	V_CAT,
	V_FINDMNT,
	V_READ,
	V_NATIVE,
	V_NATIVE_COLD,
	V_HYBRID_COLD,
	V_SPAWN,
	NVARIANTS
};

static struct variant variants[NVARIANTS] = {
	[V_COLD] = BENCH_VARIANT("emul-cold",
				 "fresh process: list + stat(ALL), mountinfo backend",
				 run_emul_cold, .timed_inside = 1),
	[V_CHANGED] = BENCH_VARIANT("emul-changed",
				    "after mount+umount: reload + list + stat(ALL)",
				    run_emul_changed, .prepare = prepare_changed),
	[V_WARM] = BENCH_VARIANT("emul-warm", "table cached: list + stat(ALL)",
				 run_emul_warm, .prepare = prepare_warm),
	[V_COLD_OLD] = BENCH_VARIANT("emul-cold-oldids",
				     "as emul-cold, no unique IDs (MNTKIT_TEST_OLD_IDS)",
				     run_emul_cold_old, .timed_inside = 1),
	[V_WARM_OLD] = BENCH_VARIANT("emul-warm-oldids",
				     "as emul-warm, no unique IDs (a child process)",
				     run_emul_warm_old, .timed_inside = 1),
	[V_CAT] = BENCH_VARIANT("cat-mountinfo",
				"fork+exec cat /proc/self/mountinfo", run_cat),
	[V_FINDMNT] = BENCH_VARIANT("findmnt-l", "fork+exec findmnt -l",
				    run_findmnt),
	[V_READ] = BENCH_VARIANT("read-mountinfo",
				 "read /proc/self/mountinfo in process",
				 run_read_mountinfo),
	[V_NATIVE] = BENCH_VARIANT("native",
				   "library, native backend (reference)",
				   run_native),
	[V_NATIVE_COLD] = BENCH_VARIANT("native-cold",
					"fresh process: list + stat(ALL), native backend",
					run_native_cold, .timed_inside = 1),
	[V_HYBRID_COLD] = BENCH_VARIANT("hybrid-cold",
					"as native-cold on a 6.8 kernel's groups (hybrid)",
					run_hybrid_cold, .timed_inside = 1),
	[V_SPAWN] = BENCH_VARIANT("spawn-only",
				  "fork+exec cat /dev/null (process cost)",
				  run_spawn_only),
};

/* ---- building the table ---- */

static char spare_path[PATH_MAX], src_path[PATH_MAX];

/* the tmpfs on DIR, the source of the binds, and DIR/spare for emul-changed */
static int build_start(const char *dir)
{
	if (!bench_in_private_mntns()) {
		fprintf(stderr, "bench-emul: -d needs a private mount namespace "
				"(run me under unshare -m --propagation private)\n");
		return -1;
	}
	if (bench_table_start("bench-emul", dir, "mntkit-bench",
			      "size=16m,mode=0755", src_path,
			      sizeof(src_path)) < 0)
		return -1;
	snprintf(spare_path, sizeof(spare_path), "%s/spare", dir);
	if (mkdir(spare_path, 0755) < 0) {
		perror("bench-emul: mkdir");
		return -1;
	}
	spare_dir = spare_path;
	return 0;
}

/* bind DIR/src on DIR/from .. DIR/to-1 */
static int build_more(const char *dir, long from, long to)
{
	double t0 = now_sec();

	if (bench_bind("bench-emul", src_path, dir, from, to) < to - from)
		return -1;
	printf("built:   %ld bind mounts on %s (+%ld in %.2f s)\n", to, dir,
	       to - from, now_sec() - t0);
	return 0;
}

/* ---- report ---- */

static double med_wall(int k)
{
	return median(variants[k].wall, variants[k].n);
}

static void print_ratio_line(int a, int b, const char *target)
{
	double ma = med_wall(a), mb = med_wall(b);
	char name[64];

	snprintf(name, sizeof(name), "%s/%s", variants[a].name,
		 variants[b].name);
	if (!variants[a].n || !variants[b].n || mb <= 0) {
		printf("  %-33s =    n/a%s\n", name, target ? target : "");
		return;
	}
	printf("  %-33s = %6.2fx%s\n", name, ma / mb, target ? target : "");
}

/* the emulation's memory per mount, as a cold child measured it */
static void print_memory(int k)
{
	struct variant *v = &variants[k];
	double m = (double)v->last.mounts;

	if (!v->n || v->last.mounts <= 0)
		return;
	printf("memory (%s, per mount): %.0f bytes retained (cached table), "
	       "%.0f bytes peak\n",
	       v->name, median(v->rss, v->n) / m, median(v->hwm, v->n) / m);
}

static void report(int rounds)
{
	static const struct bench_layout layout = {
		.name = 16, .time = 9, .bytes = 11,
	};
	struct variant *cold = &variants[V_COLD];

	bench_print_table(variants, NVARIANTS, rounds, &layout);
	if (variants[V_NATIVE].n && cold->n &&
	    (variants[V_NATIVE].last.mounts != cold->last.mounts ||
	     variants[V_NATIVE].last.bytes != cold->last.bytes))
		printf("note: native and emulation saw different mounts/bytes "
		       "(hidden mounts, idmappings, or the table changed)\n");

	printf("\nratios (median wall time; emul-cold is timed inside its "
	       "process, the cat and\nfindmnt rows include their fork+exec: "
	       "see spawn-only):\n");
	printf(" this kernel (a cold load looks up every mount point to "
	       "learn unique IDs):\n");
	print_ratio_line(V_COLD, V_CAT, "  (target <= 2x)");
	print_ratio_line(V_CHANGED, V_CAT, "  (target <= 2x)");
	print_ratio_line(V_WARM, V_CAT, NULL);
	print_ratio_line(V_COLD, V_FINDMNT, "  (target < 1x)");
	print_ratio_line(V_CHANGED, V_FINDMNT, "  (target < 1x)");
	print_ratio_line(V_WARM, V_FINDMNT, NULL);
	print_ratio_line(V_COLD, V_READ, NULL);
	print_ratio_line(V_COLD, V_NATIVE, NULL);
	print_ratio_line(V_WARM, V_NATIVE, NULL);
	printf(" a kernel without unique IDs (< 6.8: old IDs, no lookups; "
	       "MNTKIT_TEST_OLD_IDS=1):\n");
	print_ratio_line(V_COLD_OLD, V_CAT, "  (target <= 2x)");
	print_ratio_line(V_WARM_OLD, V_CAT, NULL);
	print_ratio_line(V_COLD_OLD, V_FINDMNT, "  (target < 1x)");
	print_ratio_line(V_WARM_OLD, V_FINDMNT, NULL);
	print_ratio_line(V_COLD_OLD, V_READ, NULL);
	printf(" the native backend on a 6.8 kernel (hybrid replies: 6.8 to "
	       "6.14; MNTKIT_TEST_KERNEL_MASK=0x3f):\n");
	print_ratio_line(V_HYBRID_COLD, V_NATIVE_COLD, NULL);
	print_ratio_line(V_HYBRID_COLD, V_CAT, NULL);
	print_ratio_line(V_HYBRID_COLD, V_FINDMNT, "  (target < 1x)");
	print_memory(V_COLD);
	print_memory(V_COLD_OLD);
}

static void measure(int rounds)
{
	for (int k = 0; k < NVARIANTS; k++) {
		variants[k].n = 0;
		variants[k].err = 0;
		variants[k].skip = 0;
		memset(&variants[k].last, 0, sizeof(variants[k].last));
	}
	if (initial_backend != MNTKIT_BACKEND_NATIVE)
		variants[V_NATIVE].skip = variants[V_NATIVE_COLD].skip =
			variants[V_HYBRID_COLD].skip = ENOSYS;
	if (!spare_dir)
		variants[V_CHANGED].skip = EINVAL;
	/* warm-up: fill caches, count mountinfo lines, leave out failures */
	bench_time_one(&variants[V_READ], 0);
	mountinfo_lines = variants[V_READ].last.mounts;
	bench_warm_up(variants, NVARIANTS);
	printf("mounts:  %ld (lines of /proc/self/mountinfo); rounds: %d, "
	       "interleaved, median reported\n",
	       mountinfo_lines, rounds);
	bench_rounds(variants, NVARIANTS, rounds);
	report(rounds);
}

static void usage(FILE *out)
{
	fprintf(out,
		"usage: bench-emul [-r ROUNDS] [-d DIR -n N[,N...]]\n"
		"  -r ROUNDS  timed rounds per variant (default 7, max %d)\n"
		"  -d DIR     mount a tmpfs on DIR and bind it below itself\n"
		"             (only in a private mount namespace)\n"
		"  -n N,...   bind mounts to measure at, ascending (default 10000)\n",
		MAX_ROUNDS);
}

static int parse_steps(const char *arg, long *steps, int *nsteps)
{
	const char *p = arg;

	*nsteps = 0;
	while (*p) {
		char *end;
		long v;

		errno = 0;
		v = strtol(p, &end, 10);
		if (errno || end == p || v < 0 || *nsteps >= MAX_STEPS ||
		    (*nsteps && v < steps[*nsteps - 1]))
			return -1;
		steps[(*nsteps)++] = v;
		if (*end == ',')
			end++;
		else if (*end)
			return -1;
		p = end;
	}
	return *nsteps ? 0 : -1;
}

int main(int argc, char **argv)
{
	struct bench_args args = { .rounds = 7 };
	long steps[MAX_STEPS] = { 10000 };
	int nsteps = 1, rc;
	struct mntkit_features f = { .size = sizeof(f) };

	/* the children this program spawns of itself (spawn_self()) */
	if (argc == 2 && !strcmp(argv[1], "--cold-child"))
		return cold_child(MNTKIT_BACKEND_MOUNTINFO);
	if (argc == 2 && !strcmp(argv[1], "--cold-child-native"))
		return cold_child(MNTKIT_BACKEND_NATIVE);
	if (argc == 2 && !strcmp(argv[1], "--warm-child"))
		return warm_child();
	rc = bench_parse_args(argc, argv, "bench-emul", MAX_ROUNDS, usage,
			      &args);
	if (rc >= 0)
		return rc;
	if (args.n && parse_steps(args.n, steps, &nsteps) < 0) {
		fprintf(stderr, "bench-emul: bad N: %s\n", args.n);
		return 2;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	/* the knob is the -oldids children's only (before any library call) */
	unsetenv("MNTKIT_TEST_OLD_IDS");
	unsetenv("MNTKIT_TEST_KERNEL_MASK");

	initial_backend = mntkit_get_backend();
	if (mntkit_get_features(&f) == 0)
		printf("library: backend %s, features 0x%04" PRIx32
		       ", kernel_mask 0x%" PRIx64 "\n",
		       mntkit_backend_name(f.backend), f.flags, f.kernel_mask);
	if (mntkit_set_backend(MNTKIT_BACKEND_MOUNTINFO) < 0) {
		fprintf(stderr, "bench-emul: the mountinfo backend: %s\n",
			strerror(errno));
		return 1;
	}
	mntkit_set_backend(initial_backend);

	if (!args.dir) {
		printf("\n== the namespace as it is ==\n");
		measure(args.rounds);
		warm_old_stop();
		return 0;
	}
	if (build_start(args.dir) < 0)
		return 1;
	for (int s = 0, have = 0; s < nsteps; s++) {
		printf("\n== N = %ld bind mounts ==\n", steps[s]);
		if (build_more(args.dir, have, steps[s]) < 0) {
			warm_old_stop();
			return 1;
		}
		have = (int)steps[s];
		measure(args.rounds);
	}
	warm_old_stop();
	free(sm_buf);
	return 0;
}
