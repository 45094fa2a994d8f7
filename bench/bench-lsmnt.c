// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * bench-lsmnt - the helpers of bench/lsmnt.sh.
 *
 *   bench-lsmnt bare
 *	the bare system-call loop, as a process of its own (so that it is
 *	timed like lsmnt and findmnt): raw listmount(2) in pages of 4096 IDs
 *	and raw statmount(2) of every group into one fixed 1 MiB buffer per
 *	mount; prints the number of mounts.
 *
 *   bench-lsmnt run TIMEOUT CMD [ARG...]
 *	run CMD with its output to /dev/null and print "WALL MAXRSS CUT":
 *	wall seconds, peak RSS in KiB (wait4(2); this launcher is small, so
 *	the high-water mark carried over exec is small too) and 1 when it
 *	was killed after TIMEOUT seconds.
 *
 *   bench-lsmnt grow DIR N1[,N2...] -- CMD [ARG...]
 *	in the current mount namespace, which must not be the initial one
 *	(bench/lsmnt.sh runs it under "unshare -m --propagation private"):
 *	mount a tmpfs on DIR, then for each Nk add bind mounts of it on
 *	DIR/0 ... DIR/Nk-1 and run CMD with BENCH_N=Nk in its environment.
 *	Stops at the first Nk the mount table cannot take (fs.mount-max).
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/resource.h>
#include <time.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "mntkit.h"

/* raw syscall numbers: the bare loop must not go through the library */
#if defined(__alpha__)
#define NR_statmount 567
#define NR_listmount 568
#elif defined(__mips__)
#if _MIPS_SIM == _ABIO32
#define NR_statmount 4457
#define NR_listmount 4458
#elif _MIPS_SIM == _ABI64
#define NR_statmount 5457
#define NR_listmount 5458
#else
#define NR_statmount 6457
#define NR_listmount 6458
#endif
#elif defined(__x86_64__) && defined(__ILP32__)
#define NR_statmount (0x40000000 + 457)
#define NR_listmount (0x40000000 + 458)
#else
#define NR_statmount 457
#define NR_listmount 458
#endif

#define PAGE_IDS 4096
#define SM_SIZE	 (1U << 20)

static union {
	struct mntkit_statmount sm;
	char bytes[SM_SIZE];
} smbuf;

static int bare(void)
{
	struct mntkit_mnt_id_req req = {
		.size = MNTKIT_MNT_ID_REQ_SIZE_VER0,
		.mnt_id = MNTKIT_LSMT_ROOT,
	};
	uint64_t *ids = NULL;
	size_t n = 0, cap = 0, ok = 0;

	for (;;) {
		long got;

		if (cap - n < PAGE_IDS) {
			size_t ncap = cap ? 2 * cap : 4 * PAGE_IDS;
			uint64_t *p = realloc(ids, ncap * sizeof(*p));

			if (!p) {
				perror("bench-lsmnt bare");
				return 1;
			}
			ids = p;
			cap = ncap;
		}
		got = syscall(NR_listmount, &req, ids + n, (size_t)PAGE_IDS, 0);
		if (got < 0) {
			perror("bench-lsmnt bare: listmount");
			return 1;
		}
		n += (size_t)got;
		if (got < PAGE_IDS)
			break;
		req.param = ids[n - 1];
	}
	req.param = MNTKIT_STATMOUNT_ALL;
	for (size_t i = 0; i < n; i++) {
		req.mnt_id = ids[i];
		if (syscall(NR_statmount, &req, &smbuf.sm, sizeof(smbuf), 0) ==
		    0)
			ok++;
	}
	printf("%zu\n", ok);
	free(ids);
	return 0;
}

/*
 * Mounting is only for a namespace of our own: refuse when ours is that of
 * PID 1 or of our parent (unshare(1) execs us in a new one), or when
 * neither can be seen to tell.
 */
static int same_ns(const struct stat *self, const char *path, int *seen)
{
	struct stat other;

	if (stat(path, &other))
		return 0;
	*seen = 1;
	return self->st_ino == other.st_ino && self->st_dev == other.st_dev;
}

static int in_initial_ns(void)
{
	struct stat self;
	char parent[64];
	int seen = 0;

	if (stat("/proc/self/ns/mnt", &self))
		return 1;
	snprintf(parent, sizeof(parent), "/proc/%d/ns/mnt", (int)getppid());
	if (same_ns(&self, "/proc/1/ns/mnt", &seen) ||
	    same_ns(&self, parent, &seen))
		return 1;
	return !seen;
}

static int run_cmd(char **argv, long n)
{
	char env[32];
	int status;
	pid_t pid;

	snprintf(env, sizeof(env), "%ld", n);
	setenv("BENCH_N", env, 1);
	fflush(NULL);
	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		execvp(argv[0], argv);
		perror(argv[0]);
		_exit(127);
	}
	if (waitpid(pid, &status, 0) < 0)
		return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128;
}

static int grow(int argc, char **argv)
{
	const char *dir, *p;
	char path[4096];
	long have = 0;
	char **cmd;

	if (argc < 5 || strcmp(argv[3], "--")) {
		fprintf(stderr,
			"usage: bench-lsmnt grow DIR N1[,N2...] -- CMD...\n");
		return 2;
	}
	dir = argv[1];
	cmd = argv + 4;
	if (in_initial_ns()) {
		fprintf(stderr, "bench-lsmnt: refusing to mount in the initial "
				"mount namespace (run under unshare -m)\n");
		return 2;
	}
	if (mount("none", "/", NULL, MS_REC | MS_PRIVATE, NULL) ||
	    mount("bench-lsmnt", dir, "tmpfs", 0,
		  "size=64m,nr_inodes=1000000")) {
		perror("bench-lsmnt: mount");
		return 1;
	}
	for (p = argv[2]; *p;) {
		char *end;
		long want = strtol(p, &end, 10);

		if (end == p || want < 0) {
			fprintf(stderr, "bench-lsmnt: bad size list '%s'\n",
				argv[2]);
			return 2;
		}
		for (; have < want; have++) {
			snprintf(path, sizeof(path), "%s/%ld", dir, have);
			if (mkdir(path, 0755) && errno != EEXIST) {
				perror(path);
				return 1;
			}
			if (mount(dir, path, NULL, MS_BIND, NULL)) {
				fprintf(stderr,
					"bench-lsmnt: %ld bind mounts: "
					"%s; stopping there\n",
					have, strerror(errno));
				return 0;
			}
		}
		if (run_cmd(cmd, have) != 0)
			return 1;
		p = *end == ',' ? end + 1 : end;
	}
	return 0;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int run_timed(int argc, char **argv)
{
	struct rusage ru;
	double t0, limit;
	int status, cut = 0;
	pid_t pid;

	if (argc < 3) {
		fprintf(stderr, "usage: bench-lsmnt run TIMEOUT CMD...\n");
		return 2;
	}
	limit = atof(argv[1]);
	t0 = now();
	pid = fork();
	if (pid < 0)
		return 1;
	if (pid == 0) {
		int fd = open("/dev/null", O_WRONLY);

		if (fd < 0 || dup2(fd, 1) < 0 || dup2(fd, 2) < 0)
			_exit(126);
		execvp(argv[2], argv + 2);
		_exit(127);
	}
	for (;;) {
		pid_t got = wait4(pid, &status, WNOHANG, &ru);

		if (got == pid)
			break;
		if (got < 0)
			return 1;
		if (!cut && now() - t0 > limit) {
			kill(pid, SIGKILL);
			cut = 1;
		}
		usleep(now() - t0 < 1 ? 200 : 20000);
	}
	printf("%.6f %ld %d\n", now() - t0, ru.ru_maxrss, cut);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc >= 2 && !strcmp(argv[1], "run"))
		return run_timed(argc - 1, argv + 1);
	if (argc >= 2 && !strcmp(argv[1], "bare"))
		return bare();
	if (argc >= 2 && !strcmp(argv[1], "grow"))
		return grow(argc - 1, argv + 1);
	fprintf(stderr, "usage: bench-lsmnt bare\n"
			"       bench-lsmnt run TIMEOUT CMD...\n"
			"       bench-lsmnt grow DIR N1[,N2...] -- CMD...\n");
	return 2;
}
