// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * statmnt - show the attributes of a mount, or list mounts, with
 * statmount(2) and listmount(2) (served by libmntkit on every kernel).
 *
 *   statmnt [-l|-r] [-u] [--json] [--mask LIST] [--ns ID|PATH|pid:PID]
 *           (mnt_id|path)
 *
 * All output is built in memory and written only once everything
 * succeeded; every error is one line on stderr and exit status 1.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <linux/capability.h>
#include <linux/nsfs.h>
#include <linux/openat2.h>
#include <sched.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "mntkit.h"
#include "output.h"

#define PROG	    "statmnt"
#define JSON_INDENT 2

/* the groups -l/-r ask for when --mask is not given */
#define LIST_DEFAULT_MASK MNTKIT_STATMOUNT_MNT_POINT

static const char usage_line[] =
	"usage: " PROG " [-l|-r] [-u] [--json] [--mask LIST] "
	"[--ns ID|PATH|pid:PID] (mnt_id|path)";

struct cmdline {
	unsigned int list; /* 0, MNTKIT_LIST_CHILDREN or MNTKIT_LIST_TREE */
	bool unreachable;  /* -u */
	bool json;	   /* --json */
	bool mask_given;   /* --mask */
	uint64_t mask;
	const char *ns_arg; /* --ns as given, NULL without */
	const char *target; /* mnt_id or path as given, NULL without */
	struct mntkit_opts nsopts;
	const struct mntkit_opts *ns; /* &nsopts with --ns, else NULL */
};

/* where the output goes: text or JSON, always into one buffer */
struct out {
	struct outbuf ob;
	struct json_writer jw;
	bool json;
};

/* ---- errors ---- */

/*
 * Print "statmnt: SUBJECT: REASON" on one line. Both parts are escaped like
 * text output, so that a path with a newline cannot split the line.
 */
static void __attribute__((format(printf, 2, 3)))
errmsg(const char *subject, const char *fmt, ...)
{
	struct outbuf ob = OUTBUF_INIT;
	char *reason = NULL;
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&reason, fmt, ap);
	va_end(ap);
	outbuf_puts(&ob, PROG ": ");
	if (subject) {
		outbuf_text_str(&ob, subject);
		outbuf_puts(&ob, ": ");
	}
	outbuf_text_str(&ob, n < 0 ? fmt : reason);
	outbuf_putc(&ob, '\n');
	if (outbuf_flush(&ob, stderr) < 0)
		fputs(PROG ": out of memory\n", stderr);
	outbuf_free(&ob);
	free(reason);
}

/* the subject "OPT" SEP "ARG", e.g. "--ns pid:12" or "MNTKIT_BACKEND=x" */
static void __attribute__((format(printf, 4, 5)))
errmsg_opt(const char *opt, const char *sep, const char *arg, const char *fmt,
	   ...)
{
	char reason[512];
	char *subject;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(reason, sizeof(reason), fmt, ap);
	va_end(ap);
	if (asprintf(&subject, "%s%s%s", opt, sep, arg) < 0) {
		errmsg(opt, "%s", reason);
		return;
	}
	errmsg(subject, "%s", reason);
	free(subject);
}

static void usage_error(const char *subject, const char *reason)
{
	errmsg(subject, "%s", reason);
	fprintf(stderr, "%s\n", usage_line);
}

static const char *const help_text[] = {
	"",
	"Show the attributes of a mount, or list mounts, with statmount(2)",
	"and listmount(2).",
	"",
	"  -l, --list         list the direct children of the mount",
	"                     (no mnt_id|path: those of the root mount)",
	"  -r, --recursive    list the whole subtree, depth-first",
	"                     (no mnt_id|path: the root mount, then all)",
	"  -u, --unreachable  start from the namespace's true root, above",
	"                     a chroot (needs CAP_SYS_ADMIN)",
	"      --json         print JSON",
	"      --mask LIST    statmount groups to ask for: names",
	"                     (sb_basic,mnt_basic,...), all, or a number",
	"      --ns NS        query another mount namespace: its ID, a",
	"                     namespace file (/proc/PID/ns/mnt) or pid:PID",
	"  -h, --help         show this help",
	"  -V, --version      show the version",
	"",
	"mnt_id is a decimal number or 0x hex; anything else is a path",
	"(write ./123 for a file named 123). Errors exit with status 1.",
};

static void help(void)
{
	size_t i;

	puts(usage_line);
	for (i = 0; i < sizeof(help_text) / sizeof(help_text[0]); i++)
		puts(help_text[i]);
}

/* ---- parsing ---- */

/*
 * Parse a whole decimal or 0x hex number. Returns 1 and stores it, 0 when
 * @s is not such a number (no sign, space, octal or suffix accepted), or
 * -ERANGE when it does not fit 64 bits.
 */
static int parse_number(const char *s, uint64_t *v)
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

static int parse_mask(struct cmdline *cl, const char *arg)
{
	size_t bad = 0, n;
	uint64_t mask;

	if (mntkit_mask_parse(arg, &mask, &bad) < 0) {
		if (bad > strlen(arg))
			bad = 0;
		n = strcspn(arg + bad, ",");
		if (n == 0)
			errmsg_opt("--mask", " ", arg, "empty group name");
		else
			errmsg_opt("--mask", " ", arg,
				   "unknown statmount group '%.*s'", (int)n,
				   arg + bad);
		return -1;
	}
	cl->mask = mask;
	cl->mask_given = true;
	return 0;
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

static int parse_ns_path(struct cmdline *cl, const char *arg)
{
	int fd, type;

	fd = open(arg, O_RDONLY | O_CLOEXEC);
	if (fd >= 0)
		fd = ns_fd_not_zero(fd);
	if (fd < 0) {
		errmsg_opt("--ns", " ", arg, "%s", strerror(errno));
		return -1;
	}
	type = ioctl(fd, NS_GET_NSTYPE);
	if (type != CLONE_NEWNS) {
		errmsg_opt("--ns", " ", arg, "%s",
			   type < 0 ? "not a namespace file"
				    : "not a mount namespace");
		close(fd);
		return -1;
	}
	cl->nsopts.mnt_ns_fd = fd;
	return 0;
}

static int parse_ns_pid(struct cmdline *cl, const char *arg)
{
	const char *digits = arg + 4;
	uint64_t pid;
	int fd;

	if (strspn(digits, "0123456789") != strlen(digits) ||
	    parse_number(digits, &pid) != 1 || pid == 0 || pid > INT_MAX) {
		errmsg_opt("--ns", " ", arg, "not a process ID");
		return -1;
	}
	/* check now, so the error names the process, not the mount */
	fd = mntkit_ns_open_pid((pid_t)pid);
	if (fd < 0) {
		errmsg_opt("--ns", " ", arg, "%s",
			   strerror(fd == -ENOENT ? ESRCH : -fd));
		return -1;
	}
	close(fd);
	cl->nsopts.pid = (pid_t)pid;
	return 0;
}

static int parse_ns(struct cmdline *cl, const char *arg)
{
	uint64_t id;
	int r;

	cl->ns = &cl->nsopts;
	if (!strncmp(arg, "pid:", 4))
		return parse_ns_pid(cl, arg);
	r = parse_number(arg, &id);
	if (r == 0)
		return parse_ns_path(cl, arg);
	if (r < 0 || id == 0) {
		errmsg_opt("--ns", " ", arg, "not a mount namespace ID");
		return -1;
	}
	cl->nsopts.mnt_ns_id = id;
	/* check now, so that a wrong ID is not reported as a missing mount */
	r = mntkit_root_id(cl->ns, 0, &id);
	if (r < 0) {
		errmsg_opt("--ns", " ", arg, "%s",
			   r == -ENOENT ? "no such mount namespace"
					: strerror(-r));
		return -1;
	}
	return 0;
}

/*
 * MNTKIT_BACKEND is read by the library too; checking it here turns an
 * unknown name or an impossible choice into an error instead of a guess.
 */
static int check_backend_env(void)
{
	const char *env = getenv("MNTKIT_BACKEND");
	enum mntkit_backend b;
	const char *name;
	int r;

	if (!env || !*env)
		return 0;
	for (b = MNTKIT_BACKEND_AUTO; b <= MNTKIT_BACKEND_MOUNTINFO; b++) {
		name = mntkit_backend_name(b);
		if (name && !strcmp(name, env))
			break;
	}
	if (b > MNTKIT_BACKEND_MOUNTINFO) {
		errmsg_opt("MNTKIT_BACKEND", "=", env,
			   "unknown backend "
			   "(native, mountinfo or auto)");
		return -1;
	}
	r = mntkit_set_backend(b);
	if (r < 0) {
		errmsg_opt("MNTKIT_BACKEND", "=", env, "%s", strerror(-r));
		return -1;
	}
	return 0;
}

enum {
	OPT_JSON = 256,
	OPT_MASK,
	OPT_NS,
};

static const struct option long_options[] = {
	{"list", no_argument, NULL, 'l'},
	{"recursive", no_argument, NULL, 'r'},
	{"unreachable", no_argument, NULL, 'u'},
	{"json", no_argument, NULL, OPT_JSON},
	{"mask", required_argument, NULL, OPT_MASK},
	{"ns", required_argument, NULL, OPT_NS},
	{"help", no_argument, NULL, 'h'},
	{"version", no_argument, NULL, 'V'},
	{NULL, 0, NULL, 0},
};

/* the option getopt_long() just refused, as the user wrote it */
static void bad_option(char *const argv[], const char *reason)
{
	char name[3] = {'-', (char)optopt, '\0'};
	const char *arg = argv[optind - 1];

	/* a short option, maybe inside a group such as -lx */
	if (optopt > 0 && optopt < 256 && strncmp(arg, "--", 2))
		arg = name;
	usage_error(arg, reason);
}

static int set_list(struct cmdline *cl, unsigned int mode)
{
	if (cl->list && cl->list != mode) {
		usage_error("-l, -r", "only one of them may be given");
		return -1;
	}
	cl->list = mode;
	return 0;
}

/* 0: go on; 1: done, exit 0 (--help, --version); -1: error */
static int parse_option(struct cmdline *cl, int opt, char *const argv[])
{
	switch (opt) {
	case 'l':
		return set_list(cl, MNTKIT_LIST_CHILDREN);
	case 'r':
		return set_list(cl, MNTKIT_LIST_TREE);
	case 'u':
		cl->unreachable = true;
		return 0;
	case OPT_JSON:
		cl->json = true;
		return 0;
	case OPT_MASK:
		return parse_mask(cl, optarg);
	case OPT_NS:
		if (cl->ns_arg) {
			usage_error("--ns", "given twice");
			return -1;
		}
		cl->ns_arg = optarg; /* checked after MNTKIT_BACKEND */
		return 0;
	case 'h':
		help();
		return 1;
	case 'V':
		printf(PROG " (mntkit) %d.%d.%d\n", MNTKIT_VERSION_MAJOR,
		       MNTKIT_VERSION_MINOR, MNTKIT_VERSION_PATCH);
		return 1;
	case ':':
		bad_option(argv, "option requires an argument");
		return -1;
	default:
		bad_option(argv, "unknown option");
		return -1;
	}
}

static int parse_cmdline(struct cmdline *cl, int argc, char *argv[])
{
	int opt, r;

	opterr = 0;
	while ((opt = getopt_long(argc, argv, ":lruhV", long_options, NULL)) !=
	       -1) {
		r = parse_option(cl, opt, argv);
		if (r)
			return r;
	}
	if (optind < argc)
		cl->target = argv[optind++];
	if (optind < argc) {
		usage_error(argv[optind], "unexpected argument");
		return -1;
	}
	if (!cl->target && !cl->list && !cl->unreachable) {
		usage_error(NULL, "missing mnt_id or path");
		return -1;
	}
	if (!cl->mask_given)
		cl->mask = cl->list ? LIST_DEFAULT_MASK : MNTKIT_STATMOUNT_ALL;
	/* the backend first: checking --ns already asks it */
	if (check_backend_env() < 0)
		return -1;
	if (cl->ns_arg && parse_ns(cl, cl->ns_arg) < 0)
		return -1;
	return 0;
}

/* ---- capabilities ---- */

static bool has_cap_sys_admin(void)
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

/* ---- target -> mount ID ---- */

/*
 * With --ns pid:PID an absolute path is resolved in that process's root
 * (and so in its mount namespace) through /proc/PID/root, with every
 * symlink and ".." kept inside that root (RESOLVE_IN_ROOT).
 */
static int path_id_in_pid(pid_t pid, const char *path, uint64_t *id)
{
	struct open_how how = {
		.flags = O_PATH | O_CLOEXEC,
		.resolve = RESOLVE_IN_ROOT,
	};
	char root[64];
	int rootfd, fd, r;

	snprintf(root, sizeof(root), "/proc/%d/root", (int)pid);
	rootfd = open(root, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (rootfd < 0)
		return -errno;
	fd = (int)syscall(SYS_openat2, rootfd, path, &how, sizeof(how));
	r = fd < 0 ? -errno : 0;
	close(rootfd);
	if (r)
		return r;
	r = mntkit_path_id(fd, "", AT_EMPTY_PATH, id);
	close(fd);
	return r;
}

static int path_id(const struct cmdline *cl, uint64_t *id)
{
	const char *path = cl->target;
	int r;

	if (!cl->ns) {
		r = mntkit_path_id(AT_FDCWD, path, 0, id);
	} else if (cl->nsopts.pid && path[0] == '/') {
		r = path_id_in_pid(cl->nsopts.pid, path, id);
	} else {
		errmsg(path, "with --ns %s, give a mount ID%s", cl->ns_arg,
		       cl->nsopts.pid ? " or an absolute path" : "");
		return -1;
	}
	if (r < 0) {
		errmsg(path, "%s", strerror(-r));
		return -1;
	}
	return 0;
}

static const char *root_subject(const struct cmdline *cl)
{
	return cl->unreachable ? "true root mount" : "root mount";
}

/* the subject of error messages about the target */
static const char *target_subject(const struct cmdline *cl)
{
	return cl->target ? cl->target : root_subject(cl);
}

static void query_error(const struct cmdline *cl, uint64_t id, int err)
{
	const char *what = target_subject(cl);

	if (err == -ENOENT && cl->target && cl->ns)
		errmsg(what,
		       "no such mount 0x%" PRIx64 " in mount namespace %s", id,
		       cl->ns_arg);
	else if (err == -ENOENT && cl->target)
		errmsg(what, "no such mount 0x%" PRIx64, id);
	else if (err == -EINVAL && id <= MNTKIT_MNT_UNIQUE_ID_OFFSET &&
		 mntkit_backend() == MNTKIT_BACKEND_NATIVE)
		errmsg(what,
		       "%s (not a unique mount ID: those are above "
		       "0x%llx; old IDs of mountinfo are not accepted)",
		       strerror(EINVAL),
		       (unsigned long long)MNTKIT_MNT_UNIQUE_ID_OFFSET);
	else if (cl->ns)
		errmsg(what, "%s (mount namespace %s)", strerror(-err),
		       cl->ns_arg);
	else
		errmsg(what, "%s", strerror(-err));
}

static int resolve_target(const struct cmdline *cl, uint64_t *id)
{
	int r;

	if (!cl->target) {
		r = mntkit_root_id(cl->ns, cl->unreachable, id);
		if (r < 0) {
			query_error(cl, 0, r);
			return -1;
		}
		return 0;
	}
	r = parse_number(cl->target, id);
	if (r == 1)
		return 0;
	if (r < 0) {
		errmsg(cl->target, "mount ID out of range");
		return -1;
	}
	return path_id(cl, id);
}

/* ---- one reply, as text or JSON ---- */

enum numfmt {
	NUM_DEC,   /* 123 */
	NUM_HEX,   /* 0x7b */
	NUM_HEX32, /* 0x0000007b (words) */
	NUM_WORDS, /* words only, in text */
};

enum decoder {
	DECODE_NONE,
	DECODE_ATTR,
	DECODE_SB_FLAGS,
	DECODE_PROPAGATION,
};

static int decode(enum decoder d, uint64_t v, char *buf, size_t len)
{
	switch (d) {
	case DECODE_ATTR:
		return mntkit_attr_str(v, 0, buf, len);
	case DECODE_SB_FLAGS:
		return mntkit_sb_flags_str((uint32_t)v, buf, len);
	case DECODE_PROPAGATION:
		return mntkit_propagation_str(v, buf, len);
	default:
		return -EINVAL;
	}
}

/* the words for @v, malloc'd; NULL when there is no decoder or no memory */
static char *decode_alloc(enum decoder d, uint64_t v)
{
	char probe[1];
	char *buf;
	int n;

	n = decode(d, v, probe, sizeof(probe));
	if (n < 0)
		return NULL;
	buf = malloc((size_t)n + 1);
	if (buf && decode(d, v, buf, (size_t)n + 1) != n) {
		free(buf);
		buf = NULL;
	}
	return buf;
}

/*
 * A number: text "key: value [(words)]"; JSON "key": value, plus
 * "key_str": "words" for decoded flags.
 */
static void put_num(struct out *o, const char *key, uint64_t v, enum numfmt fmt,
		    enum decoder d)
{
	char *words = decode_alloc(d, v);
	char skey[64];

	if (o->json) {
		json_kv_u64(&o->jw, key, v);
		if (words) {
			snprintf(skey, sizeof(skey), "%s_str", key);
			json_kv_string(&o->jw, skey, words);
		}
	} else if (fmt == NUM_WORDS && words) {
		outbuf_printf(&o->ob, "%s: %s\n", key, words);
	} else if (fmt == NUM_DEC) {
		outbuf_printf(&o->ob, "%s: %" PRIu64 "\n", key, v);
	} else if (fmt == NUM_HEX) {
		outbuf_printf(&o->ob, "%s: 0x%" PRIx64 "\n", key, v);
	} else {
		outbuf_printf(&o->ob, "%s: 0x%08" PRIx64, key, v);
		if (words)
			outbuf_printf(&o->ob, " (%s)", words);
		outbuf_putc(&o->ob, '\n');
	}
	free(words);
}

static void put_str(struct out *o, const char *key, const char *s)
{
	if (o->json) {
		json_kv_string(&o->jw, key, s);
		return;
	}
	outbuf_printf(&o->ob, "%s: <", key);
	outbuf_text_str(&o->ob, s);
	outbuf_puts(&o->ob, ">\n");
}

static void put_strv(struct out *o, const char *key, const char **vec, size_t n)
{
	size_t i;

	if (o->json) {
		json_key(&o->jw, key);
		json_array_begin(&o->jw);
		for (i = 0; i < n; i++)
			json_string(&o->jw, vec[i]);
		json_array_end(&o->jw);
		return;
	}
	outbuf_printf(&o->ob, "%s: %zu\n", key, n);
	for (i = 0; i < n; i++) {
		outbuf_printf(&o->ob, "%s[%zu]: <", key, i);
		outbuf_text_str(&o->ob, vec[i]);
		outbuf_puts(&o->ob, ">\n");
	}
}

/*
 * The emitters take @len, the bytes known valid at @sm: the buffer size
 * for mntkit_stat_buf(), sm->size for mntkit_stat(). Strings are read only
 * through the library's checked accessors.
 */
static int emit_str(struct out *o, const struct mntkit_statmount *sm,
		    size_t len, enum mntkit_field field)
{
	const char *s;
	int r;

	r = mntkit_sm_str(sm, len, field, &s);
	if (r < 0)
		return r;
	put_str(o, mntkit_field_name(field), s);
	return 0;
}

static int emit_strv(struct out *o, const struct mntkit_statmount *sm,
		     size_t len, enum mntkit_field field)
{
	const char **vec;
	ssize_t n;

	n = mntkit_sm_strv(sm, len, field, NULL, 0);
	if (n < 0)
		return (int)n;
	vec = calloc(n ? (size_t)n : 1, sizeof(*vec));
	if (!vec)
		return -ENOMEM;
	if (n)
		n = mntkit_sm_strv(sm, len, field, vec, (size_t)n);
	if (n >= 0)
		put_strv(o, mntkit_field_name(field), vec, (size_t)n);
	free(vec);
	return n < 0 ? (int)n : 0;
}

static void emit_sb_basic(struct out *o, const struct mntkit_statmount *sm)
{
	put_num(o, "sb_dev_major", sm->sb_dev_major, NUM_DEC, DECODE_NONE);
	put_num(o, "sb_dev_minor", sm->sb_dev_minor, NUM_DEC, DECODE_NONE);
	put_num(o, "sb_magic", sm->sb_magic, NUM_HEX, DECODE_NONE);
	put_num(o, "sb_flags", sm->sb_flags, NUM_HEX32, DECODE_SB_FLAGS);
}

static void emit_mnt_basic(struct out *o, const struct mntkit_statmount *sm)
{
	put_num(o, "mnt_id", sm->mnt_id, NUM_HEX, DECODE_NONE);
	put_num(o, "mnt_parent_id", sm->mnt_parent_id, NUM_HEX, DECODE_NONE);
	put_num(o, "mnt_id_old", sm->mnt_id_old, NUM_DEC, DECODE_NONE);
	put_num(o, "mnt_parent_id_old", sm->mnt_parent_id_old, NUM_DEC,
		DECODE_NONE);
	put_num(o, "mnt_attr", sm->mnt_attr, NUM_HEX32, DECODE_ATTR);
	put_num(o, "mnt_propagation", sm->mnt_propagation, NUM_WORDS,
		DECODE_PROPAGATION);
	put_num(o, "mnt_peer_group", sm->mnt_peer_group, NUM_DEC, DECODE_NONE);
	put_num(o, "mnt_master", sm->mnt_master, NUM_DEC, DECODE_NONE);
}

/* the string groups, with their mask bits, in mask-bit order */
static const struct {
	uint64_t bit;
	enum mntkit_field field;
} str_groups[] = {
	{MNTKIT_STATMOUNT_MNT_ROOT, MNTKIT_FIELD_MNT_ROOT},
	{MNTKIT_STATMOUNT_MNT_POINT, MNTKIT_FIELD_MNT_POINT},
	{MNTKIT_STATMOUNT_FS_TYPE, MNTKIT_FIELD_FS_TYPE},
	{MNTKIT_STATMOUNT_MNT_OPTS, MNTKIT_FIELD_MNT_OPTS},
	{MNTKIT_STATMOUNT_FS_SUBTYPE, MNTKIT_FIELD_FS_SUBTYPE},
	{MNTKIT_STATMOUNT_SB_SOURCE, MNTKIT_FIELD_SB_SOURCE},
	{MNTKIT_STATMOUNT_OPT_ARRAY, MNTKIT_FIELD_OPT_ARRAY},
	{MNTKIT_STATMOUNT_OPT_SEC_ARRAY, MNTKIT_FIELD_OPT_SEC_ARRAY},
	{MNTKIT_STATMOUNT_MNT_UIDMAP, MNTKIT_FIELD_MNT_UIDMAP},
	{MNTKIT_STATMOUNT_MNT_GIDMAP, MNTKIT_FIELD_MNT_GIDMAP},
};

static int emit_group(struct out *o, const struct mntkit_statmount *sm,
		      size_t len, uint64_t bit)
{
	size_t i;

	switch (bit) {
	case MNTKIT_STATMOUNT_SB_BASIC:
		emit_sb_basic(o, sm);
		return 0;
	case MNTKIT_STATMOUNT_MNT_BASIC:
		emit_mnt_basic(o, sm);
		return 0;
	case MNTKIT_STATMOUNT_PROPAGATE_FROM:
		put_num(o, "propagate_from", sm->propagate_from, NUM_DEC,
			DECODE_NONE);
		return 0;
	case MNTKIT_STATMOUNT_MNT_NS_ID:
		put_num(o, "mnt_ns_id", sm->mnt_ns_id, NUM_HEX, DECODE_NONE);
		return 0;
	case MNTKIT_STATMOUNT_SUPPORTED_MASK:
		put_num(o, "supported_mask", sm->supported_mask, NUM_HEX,
			DECODE_NONE);
		return 0;
	}
	for (i = 0; i < sizeof(str_groups) / sizeof(str_groups[0]); i++) {
		if (str_groups[i].bit != bit)
			continue;
		if (str_groups[i].field >= MNTKIT_FIELD_OPT_ARRAY)
			return emit_strv(o, sm, len, str_groups[i].field);
		return emit_str(o, sm, len, str_groups[i].field);
	}
	return 0; /* a group this statmnt does not know */
}

/*
 * Every field of @sm present in its mask, in mask-bit order. @listed_id,
 * when not 0, is written as mnt_id first if the reply has no MNT_BASIC
 * (so that every record of a listing names its mount).
 */
static int emit_reply(struct out *o, const struct mntkit_statmount *sm,
		      size_t len, uint64_t listed_id)
{
	uint64_t bit;
	int r = 0;

	if (o->json)
		json_object_begin(&o->jw);
	if (listed_id && !(sm->mask & MNTKIT_STATMOUNT_MNT_BASIC))
		put_num(o, "mnt_id", listed_id, NUM_HEX, DECODE_NONE);
	put_num(o, "size", sm->size, NUM_DEC, DECODE_NONE);
	put_num(o, "mask", sm->mask, NUM_HEX, DECODE_NONE);
	for (bit = 1; bit && !r; bit <<= 1) {
		if (sm->mask & bit)
			r = emit_group(o, sm, len, bit);
	}
	if (o->json)
		json_object_end(&o->jw);
	return r;
}

/* ---- the two modes ---- */

static int cmd_stat(const struct cmdline *cl, uint64_t id, struct out *o)
{
	struct mntkit_statmount *sm = NULL;
	int r;

	r = mntkit_stat(id, cl->mask, cl->ns, &sm);
	if (r < 0) {
		query_error(cl, id, r);
		return -1;
	}
	r = emit_reply(o, sm, sm->size, 0);
	free(sm);
	if (r < 0) {
		errmsg(target_subject(cl), "bad statmount reply: %s",
		       strerror(-r));
		return -1;
	}
	if (o->json)
		outbuf_putc(&o->ob, '\n');
	return 0;
}

/* one line (or record) of a listing of the default mask */
static int emit_list_line(struct out *o, const struct mntkit_statmount *sm,
			  size_t len, uint64_t id)
{
	const char *point = NULL;
	int r;

	/* no mnt_point (-ENODATA): not reachable from our root */
	r = mntkit_sm_str(sm, len, MNTKIT_FIELD_MNT_POINT, &point);
	if (r < 0 && r != -ENODATA)
		return r;
	if (o->json) {
		json_object_begin(&o->jw);
		json_kv_u64(&o->jw, "mnt_id", id);
		if (point)
			json_kv_string(&o->jw, "mnt_point", point);
		json_object_end(&o->jw);
		return 0;
	}
	outbuf_printf(&o->ob, "0x%" PRIx64 "\t", id);
	if (point)
		outbuf_text_str(&o->ob, point);
	else
		outbuf_puts(&o->ob, "[unreachable]");
	outbuf_putc(&o->ob, '\n');
	return 0;
}

static void emit_list_error(struct out *o, uint64_t id, int err)
{
	if (o->json) {
		json_object_begin(&o->jw);
		json_kv_u64(&o->jw, "mnt_id", id);
		json_kv_string(&o->jw, "error", strerror(err));
		json_object_end(&o->jw);
		return;
	}
	outbuf_printf(&o->ob, "0x%" PRIx64 "\t[%s]\n", id, strerror(err));
}

struct lister {
	const struct cmdline *cl;
	struct out *o;
	struct mntkit_statmount *buf; /* reused for every mount */
	size_t bufsize;
	size_t records;
};

/* -1 only for a malformed reply; a mount that vanished is skipped */
static int list_one(struct lister *ls, uint64_t id)
{
	const struct cmdline *cl = ls->cl;
	struct out *o = ls->o;
	int r;

	r = mntkit_stat_buf(id, cl->mask, cl->ns, &ls->buf, &ls->bufsize);
	if (r == -ENOENT)
		return 0;
	if (!o->json && cl->mask_given && ls->records)
		outbuf_putc(&o->ob, '\n');
	ls->records++;
	if (r < 0) {
		emit_list_error(o, id, -r);
		return 0;
	}
	if (cl->mask_given)
		r = emit_reply(o, ls->buf, ls->bufsize, id);
	else
		r = emit_list_line(o, ls->buf, ls->bufsize, id);
	if (r < 0) {
		errmsg(NULL, "mount 0x%" PRIx64 ": bad statmount reply: %s", id,
		       strerror(-r));
		return -1;
	}
	return 0;
}

/*
 * -l: the direct children of the start; -r: its subtree, depth-first.
 * Without a target the start is the root mount (true root with -u), and
 * -r lists it first.
 */
static int cmd_list(const struct cmdline *cl, uint64_t id, struct out *o)
{
	struct lister ls = {.cl = cl, .o = o};
	bool with_start = !cl->target && cl->list == MNTKIT_LIST_TREE;
	uint64_t *ids = NULL;
	ssize_t n, i;
	int r = 0;

	n = mntkit_list(id, cl->list, cl->ns, &ids);
	if (n < 0) {
		query_error(cl, id, (int)n);
		return -1;
	}
	if (o->json)
		json_array_begin(&o->jw);
	if (with_start)
		r = list_one(&ls, id);
	for (i = 0; i < n && !r; i++)
		r = list_one(&ls, ids[i]);
	if (o->json) {
		json_array_end(&o->jw);
		outbuf_putc(&o->ob, '\n');
	}
	free(ls.buf);
	free(ids);
	return r;
}

static int run(const struct cmdline *cl)
{
	struct out o = {.json = cl->json};
	uint64_t id;
	int r;

	outbuf_init(&o.ob);
	json_init(&o.jw, &o.ob, JSON_INDENT);
	if (cl->unreachable && !has_cap_sys_admin()) {
		errmsg("-u", "needs CAP_SYS_ADMIN (to see mounts outside "
			     "the root directory)");
		return -1;
	}
	if (resolve_target(cl, &id) < 0)
		return -1;
	if (cl->list)
		r = cmd_list(cl, id, &o);
	else
		r = cmd_stat(cl, id, &o);
	if (!r) {
		r = outbuf_flush(&o.ob, stdout);
		if (r < 0)
			errmsg("write error", "%s", strerror(-r));
	}
	outbuf_free(&o.ob);
	return r < 0 ? -1 : 0;
}

int main(int argc, char *argv[])
{
	struct cmdline cl = {0};
	MNTKIT_OPTS(nsopts);
	int r;

	cl.nsopts = nsopts;
	r = parse_cmdline(&cl, argc, argv);
	if (r == 0)
		r = run(&cl);
	if (cl.nsopts.mnt_ns_fd > 0)
		close(cl.nsopts.mnt_ns_fd);
	if (r > 0) {
		/* --help, --version */
		return fflush(stdout) ? EXIT_FAILURE : EXIT_SUCCESS;
	}
	return r < 0 ? EXIT_FAILURE : EXIT_SUCCESS;
}
