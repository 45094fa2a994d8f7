// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * cli.c - the command-line pieces statmnt, lsmnt and mntwatch share (see
 * cli.h).
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <locale.h>
#include <linux/capability.h>
#include <linux/nsfs.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "cli.h"
#include "output.h"

const char *cli_prog = "mntkit";
const char *cli_usage;

/* ---- the locale ---- */

bool cli_wants_locale;

void cli_locale(void)
{
	static bool set;

	if (cli_wants_locale && !set) {
		set = true;
		setlocale(LC_ALL, "");
	}
}

const char *cli_strerror(int err)
{
	cli_locale();
	return strerror(err);
}

/* ---- errors ---- */

void cli_errmsg(const char *subject, const char *fmt, ...)
{
	struct outbuf ob = OUTBUF_INIT;
	char *reason = NULL;
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&reason, fmt, ap);
	va_end(ap);
	outbuf_puts(&ob, cli_prog);
	outbuf_puts(&ob, ": ");
	if (subject) {
		outbuf_text_str(&ob, subject);
		outbuf_puts(&ob, ": ");
	}
	outbuf_text_str(&ob, n < 0 ? fmt : reason);
	outbuf_putc(&ob, '\n');
	if (outbuf_flush(&ob, stderr) < 0)
		fprintf(stderr, "%s: out of memory\n", cli_prog);
	outbuf_free(&ob);
	free(reason);
}

void cli_usage_error(const char *subject, const char *reason)
{
	cli_errmsg(subject, "%s", reason);
	if (cli_usage)
		fprintf(stderr, "%s\n", cli_usage);
}

const char *cli_bad_option_name(char *const argv[], char buf[3])
{
	const char *arg = argv[optind - 1];

	/* a short option, maybe inside a group such as -lx */
	if (optopt > 0 && optopt < 256 && strncmp(arg, "--", 2)) {
		buf[0] = '-';
		buf[1] = (char)optopt;
		buf[2] = '\0';
		return buf;
	}
	return arg;
}

void cli_bad_option(char *const argv[], const char *reason)
{
	char buf[3];

	cli_usage_error(cli_bad_option_name(argv, buf), reason);
}

void cli_version(void)
{
	printf("%s (mntkit) %d.%d.%d\n", cli_prog, MNTKIT_VERSION_MAJOR,
	       MNTKIT_VERSION_MINOR, MNTKIT_VERSION_PATCH);
}

void cli_help(const char *const *lines, size_t n)
{
	if (cli_usage)
		puts(cli_usage);
	for (size_t i = 0; i < n; i++)
		puts(lines[i]);
}

int cli_common_option(int opt, char *const argv[], const char *const *help,
		      size_t nhelp)
{
	switch (opt) {
	case 'h':
		cli_help(help, nhelp);
		return 1;
	case 'V':
		cli_version();
		return 1;
	case ':':
		cli_bad_option(argv, "option requires an argument");
		return -1;
	default:
		cli_bad_option(argv, "unknown option");
		return -1;
	}
}

/* ---- numbers ---- */

int cli_parse_number(const char *s, uint64_t *v)
{
	const char *digits = s;
	unsigned long long n;
	const char *p;
	int base = 10;

	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		base = 16;
		digits = s + 2;
	}
	if (!*digits)
		return 0;
	for (p = digits; *p; p++) {
		if (base == 16 ? !isxdigit((unsigned char)*p)
			       : !isdigit((unsigned char)*p))
			return 0;
	}
	errno = 0;
	n = strtoull(digits, NULL, base);
	if (errno == ERANGE)
		return -ERANGE;
	*v = n;
	return 1;
}

int cli_parse_number_lax(const char *s, uint64_t *v)
{
	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X') && s[2] == '0' &&
	    (s[3] == 'x' || s[3] == 'X') && isxdigit((unsigned char)s[4]))
		s += 2;
	return cli_parse_number(s, v);
}

/* ---- refused system calls: the words ---- */

static const char *errno_name(int err)
{
	static const struct {
		int err;
		const char *name;
	} names[] = {
		{ EPERM, "EPERM" },   { ENOENT, "ENOENT" },
		{ EACCES, "EACCES" }, { EINVAL, "EINVAL" },
		{ ENOSYS, "ENOSYS" }, { ENOTTY, "ENOTTY" },
		{ EFAULT, "EFAULT" }, { ENOMEM, "ENOMEM" },
		{ EMFILE, "EMFILE" }, { EOPNOTSUPP, "EOPNOTSUPP" },
	};

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (names[i].err == err)
			return names[i].name;
	return cli_strerror(err);
}

/* "NAME(2) is refused by the system (seccomp?): ERRNO" */
static const char *refused_words(const char *name, int err)
{
	static char buf[128];

	snprintf(buf, sizeof(buf), "%s(2) is %s: %s", name,
		 err == ENOSYS ? "not available (seccomp, or an older kernel)"
			       : "refused by the system (seccomp?)",
		 errno_name(err));
	return buf;
}

/* ---- --ns ---- */

const char *cli_ns_reason(enum cli_ns_fail what, int err)
{
	static char refused[128];

	switch (what) {
	case CLI_NS_NOT_PID:
		return "not a process ID";
	case CLI_NS_PID_ERR:
		return cli_strerror(err == ENOENT ? ESRCH : err);
	case CLI_NS_PID_REFUSED:
		snprintf(refused, sizeof(refused),
			 "its namespace file and its mountinfo are refused "
			 "(%s)", cli_strerror(err));
		return refused;
	case CLI_NS_NOT_ID:
		return "not a mount namespace ID";
	case CLI_NS_ID_ERR:
		return err == ENOENT ? "no such mount namespace"
				     : cli_strerror(err);
	case CLI_NS_NOT_NSFILE:
		return "not a namespace file";
	case CLI_NS_NOT_MNTNS:
		return "not a mount namespace";
	case CLI_NS_REFUSED:
		return refused_words("ioctl", err);
	case CLI_NS_OPEN_ERR:
	default:
		return cli_strerror(err);
	}
}

int cli_parse_pid(const char *s, pid_t *pid, enum cli_ns_fail *what, int *err)
{
	uint64_t v;
	int fd;

	*err = 0;
	if (strspn(s, "0123456789") != strlen(s) ||
	    cli_parse_number(s, &v) != 1 || v == 0 || v > INT_MAX) {
		*what = CLI_NS_NOT_PID;
		return -1;
	}
	/*
	 * check now, so the error names the process, not the mount: its
	 * namespace file, or where that is refused (a process the caller
	 * may not ptrace) its mountinfo, which the library reads instead
	 */
	fd = mntkit_ns_open_pid((pid_t)v);
	if (fd == -EACCES || fd == -EPERM) {
		char path[64];

		snprintf(path, sizeof(path), "/proc/%d/mountinfo", (int)v);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0) {
			*what = CLI_NS_PID_REFUSED;
			*err = errno;
			return -1;
		}
	}
	if (fd < 0) {
		*what = CLI_NS_PID_ERR;
		*err = -fd;
		return -1;
	}
	close(fd);
	*pid = (pid_t)v;
	return 0;
}

#define NSFS_MAGIC_NR 0x6e736673 /* linux/magic.h NSFS_MAGIC */

/*
 * Is the nsfs file @fd a namespace of type @type ("mnt")? Its
 * /proc/self/fd link reads "mnt:[INODE]". 0 yes (or no /proc to tell),
 * -1 no.
 */
static int nsfs_fd_type(int fd, const char *type)
{
	char path[64], link[64];
	size_t n = strlen(type);
	ssize_t len;

	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	len = readlink(path, link, sizeof(link) - 1);
	if (len < 0)
		return 0;
	link[len] = '\0';
	return strncmp(link, type, n) == 0 && link[n] == ':' ? 0 : -1;
}

/* make sure a mount namespace fd is not 0, which the ABI reads as "none" */
static int ns_fd_not_zero(int fd)
{
	int nfd;

	if (fd != 0)
		return fd;
	nfd = fcntl(fd, F_DUPFD_CLOEXEC, 3);
	close(fd);
	return nfd;
}

static int parse_ns_path(const char *arg, struct mntkit_opts *o,
			 cli_ns_report_fn report)
{
	struct statfs sfs;
	int fd, type, err;

	fd = open(arg, O_RDONLY | O_CLOEXEC);
	if (fd >= 0)
		fd = ns_fd_not_zero(fd);
	if (fd < 0) {
		report(arg, CLI_NS_OPEN_ERR, errno);
		return -1;
	}
	type = ioctl(fd, NS_GET_NSTYPE);
	err = type < 0 ? errno : 0;
	/* a file that is no namespace answers ENOTTY, a filter otherwise:
	 * then nsfs (fstatfs) and the fd's link tell the type */
	if (err && err != ENOTTY &&
	    mntkit_refused(MNTKIT_REFUSED_NS_IOCTL, NULL) == err) {
		if (fstatfs(fd, &sfs) < 0)
			report(arg, CLI_NS_REFUSED, err);
		else if (sfs.f_type != NSFS_MAGIC_NR)
			report(arg, CLI_NS_NOT_NSFILE, 0);
		else if (nsfs_fd_type(fd, "mnt") < 0)
			report(arg, CLI_NS_NOT_MNTNS, 0);
		else {
			o->mnt_ns_fd = fd;
			return 0;
		}
		close(fd);
		return -1;
	}
	if (type != CLONE_NEWNS) {
		report(arg, type < 0 ? CLI_NS_NOT_NSFILE : CLI_NS_NOT_MNTNS, 0);
		close(fd);
		return -1;
	}
	o->mnt_ns_fd = fd;
	return 0;
}

int cli_parse_ns(const char *arg, struct mntkit_opts *o, unsigned int flags,
		 cli_ns_report_fn report)
{
	enum cli_ns_fail what;
	uint64_t id;
	int r, err;

	if (!strncmp(arg, "pid:", 4)) {
		if (cli_parse_pid(arg + 4, &o->pid, &what, &err) < 0) {
			report(arg, what, err);
			return -1;
		}
		return 0;
	}
	if (flags & CLI_NS_LAX_ID)
		r = cli_parse_number_lax(arg, &id);
	else
		r = cli_parse_number(arg, &id);
	if (r == 0)
		return parse_ns_path(arg, o, report);
	if (r < 0 || id == 0) {
		report(arg, CLI_NS_NOT_ID, 0);
		return -1;
	}
	o->mnt_ns_id = id;
	if (!(flags & CLI_NS_CHECK_ID))
		return 0;
	/* check now, so that a wrong ID is not reported as a missing mount */
	r = mntkit_root_id(0, o, &id);
	if (r < 0) {
		report(arg, CLI_NS_ID_ERR, -r);
		return -1;
	}
	return 0;
}

/* ---- environment, capabilities ---- */

int cli_check_backend_env(const char **env)
{
	enum mntkit_backend b;
	const char *name;
	int r;

	*env = secure_getenv("MNTKIT_BACKEND"); /* as the library */
	if (!*env || !**env)
		return 0;
	for (b = MNTKIT_BACKEND_AUTO; b <= MNTKIT_BACKEND_MOUNTINFO; b++) {
		name = mntkit_backend_name(b);
		if (name && !strcmp(name, *env))
			break;
	}
	if (b > MNTKIT_BACKEND_MOUNTINFO)
		return CLI_BACKEND_UNKNOWN;
	r = mntkit_set_backend(b);
	return r < 0 ? r : 0;
}

const char *cli_backend_reason(int r)
{
	uint32_t bit;
	const char *name;
	int e;

	if (r != -ENOSYS)
		return cli_strerror(-r);
	for (bit = MNTKIT_REFUSED_STATMOUNT; bit <= MNTKIT_REFUSED_LISTMOUNT;
	     bit <<= 1) {
		e = mntkit_refused(bit, &name);
		if (e > 0 && e != ENOSYS)
			return refused_words(name, e);
	}
	return cli_strerror(-r);
}

bool cli_has_cap_sys_admin(void)
{
	struct __user_cap_header_struct hdr = {
		.version = _LINUX_CAPABILITY_VERSION_3,
		.pid = 0,
	};
	struct __user_cap_data_struct data[_LINUX_CAPABILITY_U32S_3];

	memset(data, 0, sizeof(data));
	if (syscall(SYS_capget, &hdr, data))
		return false;
	return data[CAP_TO_INDEX(CAP_SYS_ADMIN)].effective &
	       CAP_TO_MASK(CAP_SYS_ADMIN);
}

/* ---- refused system calls ---- */

static bool proc_mounted(void)
{
	return access("/proc/self/mountinfo", F_OK) == 0;
}

void cli_say_refused(const char *subject, const char *name, int err,
		     const char *tail)
{
	cli_errmsg(subject, "%s%s", refused_words(name, err), tail);
}

/* the calls the library does without, but for which /proc stands in */
#define NEED_PROC                                                              \
	(MNTKIT_REFUSED_STATMOUNT | MNTKIT_REFUSED_LISTMOUNT |                 \
	 MNTKIT_REFUSED_FANOTIFY | MNTKIT_REFUSED_PIDFD)

bool cli_report_refusal(const char *subject, uint32_t calls, int err)
{
	const char *name;
	uint32_t bit, fallback = NEED_PROC | MNTKIT_REFUSED_STATX |
				 MNTKIT_REFUSED_HANDLE |
				 MNTKIT_REFUSED_NS_IOCTL;
	int e;

	/* a call without a fallback, refused with this very errno */
	for (bit = 1; bit && bit <= calls; bit <<= 1) {
		if (!(calls & bit & ~fallback))
			continue;
		e = mntkit_refused(bit, &name);
		if (e > 0 && e == err) {
			cli_say_refused(subject, name, e, "");
			return true;
		}
	}
	if (proc_mounted())
		return false;
	/* statx with name_to_handle_at: fdinfo, in /proc */
	if (mntkit_refused(MNTKIT_REFUSED_HANDLE, NULL) <= 0)
		calls &= ~MNTKIT_REFUSED_STATX;
	for (bit = 1; bit && bit <= calls; bit <<= 1) {
		if (!(calls & bit & (NEED_PROC | MNTKIT_REFUSED_STATX)))
			continue;
		e = mntkit_refused(bit, &name);
		if (e > 0) {
			cli_say_refused(subject, name, e,
					", and /proc is not mounted");
			return true;
		}
	}
	return false;
}

/* uid_map of the initial user namespace: all of it, mapped to itself */
static bool initial_userns(void)
{
	unsigned long a, b, c;
	FILE *f = fopen("/proc/self/uid_map", "re");
	bool ret = false;

	if (!f)
		return false;
	if (fscanf(f, "%lu %lu %lu", &a, &b, &c) == 3)
		ret = a == 0 && b == 0 && c == 4294967295UL;
	fclose(f);
	return ret;
}

const char *cli_eperm_hint(void)
{
	if (cli_has_cap_sys_admin() && initial_userns())
		return "CAP_SYS_ADMIN is held: refused by the system "
		       "(seccomp, a security module?)";
	return "needs CAP_SYS_ADMIN";
}

void cli_raise_fd_limit(void)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
}
