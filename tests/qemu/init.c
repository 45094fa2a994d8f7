// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * init.c - PID 1 of the qemu guest that runs mntkit's tests on an old
 * kernel (tests/qemu/run.sh). Linked statically; nothing else is in the
 * initramfs but the test programs.
 *
 * It puts / on a mount above rootfs (as a booted system has it), mounts
 * proc, sysfs, devtmpfs, tmpfs and a few more file systems (so that the
 * emulation meets a varied table), makes / shared, then runs the
 * programs listed in /tests.list, one line each:
 *
 *	NAME PATH [ARG...]
 *
 * Each program runs in its own session with stdout on the result channel
 * (RESULT_TTY in raw mode: the second serial port, /dev/ttyS1; on arm64,
 * whose console is qemu's virt machine's one PL011, ttyAMA0, a PCI 16550:
 * /dev/ttyS0) and stderr on the console (/dev/console). The result
 * channel carries only:
 *
 *	@@START <kernel release>
 *	@@BEGIN NAME
 *	... the program's own PASS/FAIL/SKIP lines ...
 *	@@END NAME <exit status> | signal <N> | timeout
 *	@@DONE
 *
 * The console gets the same @@BEGIN/@@END markers, so that the host can
 * show a failed program's stderr. A program that runs longer than
 * QEMU_PROG_TIMEOUT seconds (kernel command line qemu_prog_timeout=N) is
 * killed. With qemu_i386=1 on the kernel command line the programs of
 * /tests-i386.list (the same tests built as i386 programs) run after
 * them, on the kernel's compat system calls. At the end the guest powers
 * off. A list /tests-extra.list (the Python layer of run.sh) runs after
 * /tests.list, when it is there.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/reboot.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <dirent.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#define MAX_ARGS	     32
#if defined(__aarch64__)
#define RESULT_TTY "/dev/ttyS0"
#else
#define RESULT_TTY "/dev/ttyS1"
#endif
#define DEFAULT_PROG_TIMEOUT 90

static int res_fd = -1; /* the result channel */
static int con_fd = -1; /* the console */
static volatile sig_atomic_t alarmed;

static void put(int fd, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void put(int fd, const char *fmt, ...)
{
	char buf[1024];
	va_list ap;
	int n;

	if (fd < 0)
		return;
	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if ((size_t)n >= sizeof(buf))
		n = sizeof(buf) - 1;
	for (char *p = buf; n > 0;) {
		ssize_t w = write(fd, p, (size_t)n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return;
		p += w;
		n -= (int)w;
	}
}

/* a line on both channels */
#define both(...)                                                              \
	do {                                                                   \
		put(res_fd, __VA_ARGS__);                                      \
		put(con_fd, __VA_ARGS__);                                      \
	} while (0)

static void try_mount(const char *src, const char *tgt, const char *type,
		      unsigned long flags, const char *data)
{
	mkdir(tgt, 0755);
	if (mount(src, tgt, type, flags, data))
		put(con_fd, "init: mount %s on %s: %s\n", type ? type : "-",
		    tgt, strerror(errno));
}

/*
 * Load the modules run.sh put in /modules/RELEASE/ (fuse, overlay, loop,
 * squashfs: what the tests mount, where the kernel has them as modules),
 * so that /dev/fuse, overlayfs and loop images exist on every kernel. A
 * module that does not load is said on the console; its tests then SKIP.
 */
static void load_modules(void)
{
	char dir[512], path[1024];
	struct utsname u;
	struct dirent *e;
	DIR *d;

	if (uname(&u))
		return;
	snprintf(dir, sizeof(dir), "/modules/%s", u.release);
	d = opendir(dir);
	if (!d)
		return;
	while ((e = readdir(d))) {
		int fd;

		if (!strstr(e->d_name, ".ko"))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0 || syscall(SYS_finit_module, fd, "", 0))
			put(con_fd, "init: load %s: %s\n", path, strerror(errno));
		if (fd >= 0)
			close(fd);
	}
	closedir(d);
}

static void power_off(void)
{
	if (res_fd >= 0)
		tcdrain(res_fd);
	sync();
	reboot(RB_POWER_OFF);
	/* not reached; if it is, the kernel panics and qemu exits */
	_exit(1);
}

static void on_alarm(int sig)
{
	(void)sig;
	alarmed = 1;
}

/* the value of NAME=N on the kernel command line, or @dflt */
static unsigned int cmdline_uint(const char *name, unsigned int dflt)
{
	char buf[4096], key[64], *p;
	ssize_t n;
	int fd = open("/proc/cmdline", O_RDONLY | O_CLOEXEC);
	unsigned int t = dflt;

	if (fd < 0)
		return t;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return t;
	buf[n] = 0;
	snprintf(key, sizeof(key), "%s=", name);
	p = strstr(buf, key);
	if (p && atoi(p + strlen(key)) >= 0)
		t = (unsigned int)atoi(p + strlen(key));
	return t;
}

static long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000L + ts.tv_nsec / 1000000L;
}

/* run one program; returns after it ended or was killed */
static void run_prog(char *name, char **argv, unsigned int timeout)
{
	struct sigaction sa = {.sa_handler = on_alarm};
	int st = 0, done = 0, timed_out = 0;
	long t0 = now_ms();
	pid_t pid, w;

	both("@@BEGIN %s\n", name);
	pid = fork();
	if (pid < 0) {
		both("@@END %s fork-failed\n", name);
		return;
	}
	if (pid == 0) {
		int null = open("/dev/null", O_RDWR | O_CLOEXEC);

		setsid();
		if (null >= 0)
			dup2(null, 0);
		dup2(res_fd, 1);
		dup2(con_fd >= 0 ? con_fd : res_fd, 2);
		if (chdir("/"))
			_exit(126);
		execv(argv[0], argv);
		fprintf(stderr, "init: exec %s: %s\n", argv[0],
			strerror(errno));
		_exit(127);
	}
	sigaction(SIGALRM, &sa, NULL);
	alarmed = 0;
	alarm(timeout);
	while (!done) {
		w = waitpid(-1, &st, 0);
		if (w == pid) {
			done = 1;
		} else if (w < 0 && errno == EINTR && alarmed) {
			/* the program and its whole session */
			kill(-pid, SIGKILL);
			kill(pid, SIGKILL);
			timed_out = 1;
			alarmed = 0;
		} else if (w < 0 && errno == ECHILD) {
			break;
		}
		/* else: an orphan reparented to us, reaped */
	}
	alarm(0);
	/* whatever the program left running in its session */
	kill(-pid, SIGKILL);
	while (waitpid(-1, NULL, WNOHANG) > 0)
		;
	if (timed_out)
		both("@@END %s timeout\n", name);
	else if (!done)
		both("@@END %s lost\n", name);
	else if (WIFEXITED(st))
		both("@@END %s %d\n", name, WEXITSTATUS(st));
	else if (WIFSIGNALED(st))
		both("@@END %s signal %d\n", name, WTERMSIG(st));
	else
		both("@@END %s unknown\n", name);
	/* where a slow guest spends its time */
	put(con_fd, "init: %s ran %ld ms\n", name, now_ms() - t0);
}

/* is / the namespace's root mount (its own parent in mountinfo)? */
static int root_is_ns_root(void)
{
	char buf[512];
	unsigned int id, parent;
	ssize_t n = -1;
	int fd;

	/* a proc of its own for the question, gone before the answer */
	mkdir("/proc", 0755);
	if (mount("proc", "/proc", "proc", 0, NULL))
		return 0;
	fd = open("/proc/self/mountinfo", O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		n = read(fd, buf, sizeof(buf) - 1);
		close(fd);
	}
	umount2("/proc", MNT_DETACH);
	if (n <= 0)
		return 0;
	buf[n] = 0;
	return sscanf(buf, "%u %u", &id, &parent) == 2 && id == parent;
}

/*
 * Put / on a mount above the namespace's root mount, as a booted system
 * has it: on Linux 6.x rootfs is the root mount and the real / is mounted
 * on it (switch_root); here a bind mount of rootfs is moved onto /, and
 * the guest chroots into it. Without it the tree's visible root is the
 * namespace's root mount, and listmount(LSMT_ROOT) of another namespace,
 * which starts from the first mount on the namespace's root mount, lists
 * the subtree of whatever was mounted first (/proc). On 7.x the root
 * mount is an empty nullfs with rootfs on it: that is the layout already.
 */
static void switch_root(void)
{
	if (!root_is_ns_root())
		return;
	mkdir("/.root", 0755);
	if (mount("/", "/.root", NULL, MS_BIND, NULL) ||
	    chdir("/.root") || mount(".", "/", NULL, MS_MOVE, NULL) ||
	    chroot(".") || chdir("/"))
		put(con_fd, "init: switch root: %s\n", strerror(errno));
}

static void setup_mounts(void)
{
	switch_root();
	/* the basics the tests need */
	try_mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC,
		  NULL);
	try_mount("devtmpfs", "/dev", "devtmpfs", MS_NOSUID, "mode=0755");
	/* not nosuid: test-backend runs a setuid copy of itself from /tmp */
	try_mount("tmpfs", "/tmp", "tmpfs", MS_NODEV, "mode=1777");
	try_mount("sysfs", "/sys", "sysfs", MS_NOSUID | MS_NODEV | MS_NOEXEC,
		  NULL);
	/* variety for the emulation: other types, options, flags */
	try_mount("devpts", "/dev/pts", "devpts", MS_NOSUID | MS_NOEXEC,
		  "gid=5,mode=620,ptmxmode=000");
	try_mount("mqueue", "/dev/mqueue", "mqueue",
		  MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL);
	try_mount("tmpfs", "/run", "tmpfs", MS_NOSUID | MS_NODEV,
		  "size=20%,mode=755,nr_inodes=4096");
	try_mount("cgroup2", "/sys/fs/cgroup", "cgroup2",
		  MS_NOSUID | MS_NODEV | MS_NOEXEC | MS_RELATIME, NULL);
	try_mount("none", "/run/ro", "tmpfs",
		  MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC | MS_NOATIME,
		  "size=1m");
	/* shared propagation (not the default for rootfs on 6.1) */
	if (mount(NULL, "/", NULL, MS_REC | MS_SHARED, NULL))
		put(con_fd, "init: make / rshared: %s\n", strerror(errno));
}

/* run the programs of list file @path; false if it cannot be read */
static int run_list(const char *path, unsigned int timeout)
{
	static char list[16384];
	char *line, *save = NULL;
	ssize_t n;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	n = fd >= 0 ? read(fd, list, sizeof(list) - 1) : -1;
	if (fd >= 0)
		close(fd);
	if (n < 0)
		return 0;
	list[n] = 0;
	for (line = strtok_r(list, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		char *argv[MAX_ARGS + 1], *name, *sv = NULL, *w;
		int argc = 0;

		if (line[0] == '#')
			continue;
		name = strtok_r(line, " \t", &sv);
		if (!name)
			continue;
		while ((w = strtok_r(NULL, " \t", &sv)) && argc < MAX_ARGS)
			argv[argc++] = w;
		argv[argc] = NULL;
		if (!argc) {
			both("@@BEGIN %s\n@@END %s no-path\n", name, name);
			continue;
		}
		run_prog(name, argv, timeout);
	}
	return 1;
}

int main(void)
{
	struct termios tio;
	struct utsname u;
	unsigned int timeout;

	if (getpid() != 1) {
		fprintf(stderr, "init: not PID 1, refusing to run\n");
		return 1;
	}
	/* the kernel opened /dev/console as 0, 1 and 2 */
	con_fd = fcntl(2, F_DUPFD_CLOEXEC, 3);
	setup_mounts();
	load_modules();
	res_fd = open(RESULT_TTY, O_WRONLY | O_NOCTTY | O_CLOEXEC);
	if (res_fd < 0) {
		put(con_fd, "init: open %s: %s\n", RESULT_TTY, strerror(errno));
		power_off();
	}
	if (tcgetattr(res_fd, &tio) == 0) {
		cfmakeraw(&tio);
		tcsetattr(res_fd, TCSANOW, &tio);
	}
	if (con_fd >= 0 && tcgetattr(con_fd, &tio) == 0) {
		/* plain \n on the console too */
		tio.c_oflag &= ~(tcflag_t)OPOST;
		tcsetattr(con_fd, TCSANOW, &tio);
	}
	setenv("PATH", "/bin:/tests", 1);
	setenv("HOME", "/", 1);
	setenv("TMPDIR", "/tmp", 1);
	/* each case's limit, unless the kernel command line's T_TIMEOUT=N
	 * (which the kernel hands on as environment) says otherwise */
	setenv("T_TIMEOUT", "60", 0);
	/* qemu's software emulation: tests/harness.h t_slow_machine() */
	setenv("MNTKIT_TEST_SLOW", "1", 0);
	uname(&u);
	timeout = cmdline_uint("qemu_prog_timeout", DEFAULT_PROG_TIMEOUT);
	if (!timeout)
		timeout = DEFAULT_PROG_TIMEOUT;
	both("@@START %s\n", u.release);

	if (!run_list("/tests.list", timeout)) {
		both("@@ERROR cannot read /tests.list\n");
		power_off();
	}
	run_list("/tests-extra.list", timeout);
	if (cmdline_uint("qemu_i386", 0) && !run_list("/tests-i386.list", timeout))
		both("@@ERROR cannot read /tests-i386.list\n");
	both("@@DONE\n");
	power_off();
	return 0;
}
