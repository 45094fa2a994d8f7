// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * lsmnt's command line: findmnt's options and their checks (the
 * columns: options-cols.c).
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <locale.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <dirent.h>
#include <unistd.h>

#include "cli.h"
#include "lsmnt.h"
#include "escape.h"

const char usage_line[] =
	"usage: " PROG " [options] [<device> | <mountpoint> | <device> "
	"<mountpoint>]";

static const char *const help_text[] = {
	"",
	"List the mounts of a mount namespace, as findmnt(8) does, from",
	"statmount(2) and listmount(2). Default: the tree of the current",
	"namespace.",
	"",
	"Output:",
	"  -J, --json             JSON output",
	"  -l, --list             list output",
	"  -r, --raw              raw output",
	"  -P, --pairs            key=\"value\" output",
	"  -n, --noheadings       don't print column headings",
	"  -o, --output <list>    the columns to show (+<list> adds to them)",
	"      --output-all       show findmnt's columns",
	"  -u, --notruncate       don't truncate text in columns",
	"  -a, --ascii            ASCII characters for the tree",
	"  -v, --nofsroot         don't print [/dir] for bind mounts",
	"  -y, --shell            column names usable as shell variables",
	"      --vfs-all          every VFS option in VFS-OPTIONS",
	"      --tree             the tree even with -S, -T or arguments",
	"  -D, --df               like df(1): SOURCE,FSTYPE,SIZE,USED,AVAIL,",
	"                         USE%,TARGET, no pseudo filesystems but tmpfs",
	"  -I, --dfi              like df(1) -i: INO.TOTAL,INO.USED,INO.AVAIL,",
	"                         INO.USE% instead of the sizes",
	"      --hyperlink[=<when>]  TARGET as a hyperlink (always, never,",
	"                         auto: on a terminal)",
	"  -b, --bytes            SIZE, AVAIL, USED in bytes, not 1.5G",
	"  -c, --canonicalize     SOURCE as a canonical path",
	"  -C, --nocanonicalize   compare paths as they are given",
	"  -e, --evaluate         a LABEL=, UUID=, ... SOURCE as its device",
	"  -H, --list-columns     list findmnt's columns",
	"",
	"Monitor:",
	"  -p, --poll[=<list>]    print the changes of the mount table as they",
	"                         come: mount, umount, remount, move (only",
	"                         those of <list>); from libmntkit's watch;",
	"                         with --all-namespaces, of every namespace",
	"                         (NS column; a new one from when it is found)",
	"  -w, --timeout <num>    with -p: exit after <num> ms without a change",
	"",
	"Filters:",
	"  -t, --types <list>     only these filesystem types (no<type>...)",
	"  -O, --options <list>   only mounts with these options (no<opt>)",
	"  -S, --source <string>  only this source (device, MAJ:MIN, LABEL=..)",
	"  -T, --target <path>    only the mount the path is on",
	"  -M, --mountpoint <dir> only mounts on this directory",
	"  -R, --submounts        with the matching mounts, all below them",
	"      --id <num>         only the mount with this mount ID: an old",
	"                         one (mountinfo's), or a unique one",
	"      --uniq-id <num>    the same (findmnt: only a unique 64-bit ID)",
	"      --real             only real filesystems",
	"      --pseudo           only pseudo filesystems",
	"      --shadowed         only mounts another is mounted over",
	"  -A, --all              -D, --real and --pseudo filter nothing",
	"  -i, --invert           the mounts that do not match",
	"  -Q, --filter <expr>    only the rows the expression is true of",
	"                         (findmnt 2.42's: FSTYPE == \"ext4\" && ...)",
	"  -f, --first-only       only the first matching mount",
	"  -d, --direction <word> forward (default) or backward through the",
	"                         table, for a list, -f and -R",
	"  -U, --uniq             of mounts on the same target, only the last",
	"  -k, --kernel[=<how>]   the kernel's table (the default; -F wins),",
	"                         as findmnt reads it: mountinfo (the default)",
	"                         or listmount (with UNIQ-ID, without TID)",
	"",
	"Tables (default: the kernel's):",
	"  -F, --tab-file <file>  the entries of a mountinfo, fstab or mtab file",
	"  -s, --fstab            those of /etc/fstab (or $LIBMOUNT_FSTAB)",
	"  -m, --mtab             the kernel's table with utab's userspace",
	"                         options (/run/mount/utab, $LIBMOUNT_UTAB)",
	"  -x, --verify           check a fstab (-F, -s), or the kernel's table",
	"                         (--kernel, -m, -N), as findmnt does",
	"      --verbose          with -x: what passed the checks too; with",
	"                         --id/--uniq-id: which kind of ID it took",
	"",
	"Namespaces:",
	"  -N, --task <pid>       the mount namespace of a process",
	"      --ns <ns>          another mount namespace: its ID, a file",
	"                         such as /proc/PID/ns/mnt, or pid:PID",
	"      --all-namespaces   every mount namespace (adds the NS column)",
	"      --order id|tree    --all-namespaces: by namespace ID, or as",
	"                         the processes in them nest",
	"      --unreachable      also the mounts outside a chroot",
	"",
	"  -h, --help             show this help",
	"  -V, --version          show the version",
	"",
	"Columns of lsmnt's own (-o, -Q; -H lists findmnt's): GIDMAP, MAGIC,",
	"MASTER, NS, PEER, PROPAGATE-FROM, SB-SOURCE, SUBTYPE, UIDMAP,",
	"UNIQ-PARENT.",
	"",
	"Finding nothing exits with status 1, as findmnt does. See lsmnt(8).",
};

/* ---- findmnt's messages ---- */

void fm_errmsg(const char *fmt, ...)
{
	va_list ap;

	fputs(PROG ": ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

/* ---- numbers, as util-linux's strto*_or_err() take them ---- */

/* "MSG: 'ARG'", and ": REASON" when it is out of range */
static void bad_number(const char *msg, const char *arg, bool range)
{
	if (range)
		cli_errmsg(NULL, "%s: '%s': %s", msg, arg, cli_strerror(ERANGE));
	else
		cli_errmsg(NULL, "%s: '%s'", msg, arg);
}

/* a decimal number of [@min, @max] (strtoimax, leading blanks allowed) */
static int parse_signed(const char *msg, const char *arg, intmax_t min,
			intmax_t max, intmax_t *v)
{
	char *end;

	errno = 0;
	*v = strtoimax(arg, &end, 10);
	if (end == arg || *end || (errno && errno != ERANGE)) {
		bad_number(msg, arg, false);
		return -1;
	}
	if (errno == ERANGE || *v < min || *v > max) {
		bad_number(msg, arg, true);
		return -1;
	}
	return 0;
}

/* an unsigned decimal number up to @max; a '-' is out of range */
static int parse_unsigned(const char *msg, const char *arg, uintmax_t max,
			  uintmax_t *v)
{
	const char *p = arg;
	char *end;

	errno = 0;
	while (isspace((unsigned char)*p))
		p++;
	*v = strtoumax(arg, &end, 10);
	if (end == arg || *end || (errno && errno != ERANGE)) {
		bad_number(msg, arg, false);
		return -1;
	}
	if (*p == '-' || errno == ERANGE || *v > max) {
		bad_number(msg, arg, true);
		return -1;
	}
	return 0;
}

/* a decimal number beyond findmnt's 32-bit --id: a unique mount ID */
static bool big_id(const char *arg, uint64_t *v)
{
	unsigned long long x;
	char *end;

	if (*arg < '0' || *arg > '9')
		return false;
	errno = 0;
	x = strtoull(arg, &end, 10);
	if (errno || *end || x <= INT32_MAX)
		return false;
	*v = x;
	return true;
}

/* a PID (cli.c) for --ns pid:S: "lsmnt: OPT: ..." */
static void pid_error(const char *opt, const char *s, enum cli_ns_fail what,
		      int err)
{
	if (what == CLI_NS_NOT_PID)
		cli_errmsg(opt, "'%s' is not a process ID", s);
	else
		cli_errmsg(opt, "%s: %s", s, cli_ns_reason(what, err));
}

/*
 * -N: findmnt's TID (a number, or its message), then the process (where
 * findmnt cannot read its /proc/TID/mountinfo, its message)
 */
static int parse_task(const char *s, pid_t *pid)
{
	enum cli_ns_fail what = CLI_NS_PID_ERR;
	int err = ENOENT;
	char num[24];
	uintmax_t v;

	if (parse_unsigned("invalid TID argument", s, UINT32_MAX, &v) < 0)
		return -1;
	snprintf(num, sizeof(num), "%ju", v);
	if (v && v <= INT_MAX && !cli_parse_pid(num, pid, &what, &err))
		return 0;
	if (what == CLI_NS_PID_ERR && err == ENOENT)
		cli_errmsg(NULL, "can't read /proc/%s/mountinfo: %s", num,
			   cli_strerror(ENOENT));
	else
		pid_error("-N", num, what, err);
	return -1;
}

/* --ns ID|PATH|pid:PID (cli.c): "lsmnt: --ns: ARG: REASON" */
static void ns_report(const char *arg, enum cli_ns_fail what, int err)
{
	if (what == CLI_NS_NOT_PID || what == CLI_NS_PID_ERR ||
	    what == CLI_NS_PID_REFUSED)
		pid_error("--ns", arg + 4, what, err);
	else if (what == CLI_NS_ID_ERR && err == ENOENT)
		cli_errmsg("--ns", "%s: no such mount namespace (or no "
				   "CAP_SYS_ADMIN over it)",
			   arg);
	else
		cli_errmsg("--ns", "%s: %s", arg, cli_ns_reason(what, err));
}

/* MNTKIT_BACKEND (cli.c): "lsmnt: MNTKIT_BACKEND: ..." */
static int check_backend_env(void)
{
	const char *env;
	int r = cli_check_backend_env(&env);

	if (r == CLI_BACKEND_UNKNOWN)
		cli_errmsg("MNTKIT_BACKEND",
			   "unknown backend '%s' (native, "
			   "mountinfo or auto)",
			   env);
	else if (r < 0)
		cli_errmsg("MNTKIT_BACKEND", "%s: %s", env,
			   cli_backend_reason(r));
	return r ? -1 : 0;
}

/* ---- the options ---- */

/* the long-only options: --pseudo before --real, as in findmnt */
enum {
	OPT_OUTPUT_ALL = 256,
	OPT_PSEUDO,
	OPT_REAL,
	OPT_ID,
	OPT_UNIQ_ID,
	OPT_NS,
	OPT_ALL_NS,
	OPT_ORDER,
	OPT_UNREACHABLE,
	OPT_TREE,
	OPT_SHADOWED,
	OPT_VFS_ALL,
	OPT_VERBOSE,
	OPT_KERNEL,
	OPT_HYPERLINK,
};

static const struct option long_options[] = {
	{"all", no_argument, NULL, 'A'},
	{"ascii", no_argument, NULL, 'a'},
	{"bytes", no_argument, NULL, 'b'},
	{"canonicalize", no_argument, NULL, 'c'},
	{"direction", required_argument, NULL, 'd'},
	{"df", no_argument, NULL, 'D'},
	{"dfi", no_argument, NULL, 'I'},
	{"evaluate", no_argument, NULL, 'e'},
	{"first-only", no_argument, NULL, 'f'},
	{"fstab", no_argument, NULL, 's'},
	{"help", no_argument, NULL, 'h'},
	{"invert", no_argument, NULL, 'i'},
	{"json", no_argument, NULL, 'J'},
	{"kernel", optional_argument, NULL, OPT_KERNEL},
	{"list", no_argument, NULL, 'l'},
	{"mountpoint", required_argument, NULL, 'M'},
	{"mtab", no_argument, NULL, 'm'},
	{"noheadings", no_argument, NULL, 'n'},
	{"notruncate", no_argument, NULL, 'u'},
	{"options", required_argument, NULL, 'O'},
	{"output", required_argument, NULL, 'o'},
	{"output-all", no_argument, NULL, OPT_OUTPUT_ALL},
	{"poll", optional_argument, NULL, 'p'},
	{"pairs", no_argument, NULL, 'P'},
	{"filter", required_argument, NULL, 'Q'},
	{"raw", no_argument, NULL, 'r'},
	{"types", required_argument, NULL, 't'},
	{"nocanonicalize", no_argument, NULL, 'C'},
	{"nofsroot", no_argument, NULL, 'v'},
	{"submounts", no_argument, NULL, 'R'},
	{"source", required_argument, NULL, 'S'},
	{"tab-file", required_argument, NULL, 'F'},
	{"task", required_argument, NULL, 'N'},
	{"target", required_argument, NULL, 'T'},
	{"timeout", required_argument, NULL, 'w'},
	{"uniq", no_argument, NULL, 'U'},
	{"verify", no_argument, NULL, 'x'},
	{"version", no_argument, NULL, 'V'},
	{"shell", no_argument, NULL, 'y'},
	{"verbose", no_argument, NULL, OPT_VERBOSE},
	{"tree", no_argument, NULL, OPT_TREE},
	{"real", no_argument, NULL, OPT_REAL},
	{"pseudo", no_argument, NULL, OPT_PSEUDO},
	{"vfs-all", no_argument, NULL, OPT_VFS_ALL},
	{"shadowed", no_argument, NULL, OPT_SHADOWED},
	{"hyperlink", optional_argument, NULL, OPT_HYPERLINK},
	{"id", required_argument, NULL, OPT_ID},
	{"uniq-id", required_argument, NULL, OPT_UNIQ_ID},
	{"list-columns", no_argument, NULL, 'H'},
	/* lsmnt's own */
	{"ns", required_argument, NULL, OPT_NS},
	{"all-namespaces", no_argument, NULL, OPT_ALL_NS},
	{"order", required_argument, NULL, OPT_ORDER},
	{"unreachable", no_argument, NULL, OPT_UNREACHABLE},
	{NULL, 0, NULL, 0},
};

/*
 * findmnt 2.42's options that exclude each other, in groups, each in
 * ascending order of the option's code and the groups by their first
 * (util-linux's err_exclusive_options(), whose walk stops at the first
 * group that starts above the option: {m,p,s} after {p,x} is never
 * reached by -m).
 */
static const int excl[][5] = {
	{'C', 'c'},
	{'C', 'e'},
	{'J', 'P', 'r', 'x'},
	{'M', 'T'},
	{'N', 'k', 'm', 's'},
	{'P', 'l', 'r', 'x'},
	{'Q', 'p'},
	{'p', 'x'},
	{'m', 'p', 's'},
	{OPT_PSEUDO, OPT_REAL},
};

#define NR_EXCL (sizeof(excl) / sizeof(*excl))

/* "-c", or "--name" of its long form */
static const char *opt_name(int c, char buf[3])
{
	for (const struct option *o = long_options; o->name; o++)
		if (o->val == c) {
			static char lb[64];

			snprintf(lb, sizeof(lb), "--%s", o->name);
			return lb;
		}
	buf[0] = '-';
	buf[1] = (char)c;
	buf[2] = '\0';
	return buf;
}

static int check_exclusive(int c, int *status)
{
	for (size_t e = 0; e < NR_EXCL && excl[e][0] <= c; e++) {
		for (const int *op = excl[e]; *op && *op <= c; op++) {
			char b1[3], b2[3], first[64];

			if (*op != c)
				continue;
			if (!status[e]) {
				status[e] = c;
			} else if (status[e] != c) {
				snprintf(first, sizeof(first), "%s",
					 opt_name(status[e], b1));
				cli_errmsg(NULL, "options %s and %s cannot be "
						 "combined",
					   first, opt_name(c, b2));
				return -1;
			}
			break;
		}
	}
	return 0;
}

/* the option getopt_long() just refused, as the user wrote it */
static void bad_option(char *const argv[], const char *reason)
{
	char buf[3];

	cli_errmsg(cli_bad_option_name(argv, buf), "%s (see " PROG " --help)",
		   reason);
}

/* util-linux's hyperlinkwanted(): 1, 0, or -1 for a bad word */
static int hyperlink_wanted(const char *when)
{
	if (when && !strcmp(when, "never"))
		return 0;
	if (when && !strcmp(when, "always"))
		return 1;
	if (!when || !strcmp(when, "auto"))
		return isatty(STDOUT_FILENO);
	return -1;
}

/* the table options: -s, -m, -k, --kernel[=how], -N (the last counts) */
static int parse_table_option(struct cmdline *cl, int opt)
{
	switch (opt) {
	case 's':
		cl->tabtype = TAB_FSTAB;
		cl->no_tree = true;
		return 0;
	case 'm':
		cl->tabtype = TAB_MTAB;
		cl->no_tree = true;
		return 0;
	case 'k':
		cl->tabtype = TAB_MOUNTINFO;
		cl->kernel = true;
		return 0;
	case OPT_KERNEL:
		if (!optarg || !strcmp(optarg, "mountinfo")) {
			cl->tabtype = TAB_MOUNTINFO;
		} else if (!strcmp(optarg, "listmount")) {
			cl->tabtype = TAB_LISTMOUNT;
		} else {
			cli_errmsg(NULL, "invalid --kernel argument");
			return -1;
		}
		return 0;
	case 'N':
		cl->tabtype = TAB_MOUNTINFO;
		cl->task_arg = optarg;
		cl->task_pos = cl->ntabfiles; /* among the files of -F */
		return parse_task(optarg, &cl->nsopts.pid);
	default:
		return 1; /* not one of these */
	}
}

/* the options findmnt 2.38 had beyond the output and the filters */
static int parse_findmnt_option(struct cmdline *cl, int opt)
{
	struct filter *f = &cl->f;
	intmax_t v;

	switch (opt) {
	case 'p':
		cl->poll = true;
		cl->no_tree = true;
		/* -pLIST, --poll=LIST; a later list replaces the first */
		if (optarg &&
		    poll_parse_actions("--poll", optarg, &cl->actions) < 0)
			return -1;
		return 0;
	case 'w':
		if (parse_signed("invalid timeout", optarg, INT32_MIN,
				 INT32_MAX, &v) < 0)
			return -1;
		cl->timeout_ms = v < 0 ? -1 : (int)v;
		return 0;
	case 'I':
		cl->dfi = true;
		/* fall through */
	case 'D':
		cl->df = f->df = true;
		cl->no_tree = true;
		return 0;
	case 'b':
		cl->pr.bytes = true;
		return 0;
	case 'c':
		cl->pr.canonicalize = true;
		return 0;
	case 'C':
		f->nocanon = true;
		return 0;
	case OPT_SHADOWED:
		f->shadowed = true;
		return 0;
	case OPT_VFS_ALL:
		cl->pr.vfs_all = true;
		return 0;
	case OPT_VERBOSE:
		/* findmnt: more of --verify's details; nothing else */
		cl->verbose = true;
		return 0;
	case 'x':
		cl->verify = true;
		return 0;
	case 'F':
		if (cl->ntabfiles == sizeof(cl->tabfiles) / sizeof(*cl->tabfiles)) {
			cli_errmsg("--tab-file", "too many files");
			return -1;
		}
		cl->tabfiles[cl->ntabfiles++] = optarg;
		return 0;
	case 'e':
		cl->pr.evaluate = true;
		return 0;
	case 'f':
		f->first = true;
		return 0;
	case 'i':
		f->invert = true;
		return 0;
	case 'U':
		cl->uniq = true;
		return 0;
	case 'd':
		if (!strcmp(optarg, "forward") || !strcmp(optarg, "backward")) {
			cl->backward = optarg[0] == 'b';
			return 0;
		}
		cli_errmsg(NULL, "unknown direction '%s'", optarg);
		return -1;
	case 'Q':
		return query_parse(cl, optarg);
	case OPT_HYPERLINK:
		switch (hyperlink_wanted(optarg)) {
		case -1:
			cli_errmsg(NULL, "invalid argument of --hyperlink: %s",
				   optarg);
			return -1;
		case 1:
			cl->pr.hyperlink = true;
			return 0;
		default:
			cl->pr.hyperlink = false;
			return 0;
		}
	default:
		return parse_table_option(cl, opt);
	}
}

/* a MAJ:MIN source is findmnt's device-number filter: true if @s is one */
static bool parse_devno(struct filter *f, const char *s)
{
	unsigned int ma, mi;
	int end = 0;

	if (sscanf(s, "%u:%u%n", &ma, &mi, &end) != 2 || s[end])
		return false;
	f->source_devno = true;
	f->major = ma;
	f->minor = mi;
	return true;
}

/* the options of the output, of lsmnt's own and the filters */
static int parse_option(struct cmdline *cl, int opt, char *const argv[])
{
	struct filter *f = &cl->f;
	intmax_t sv;
	uintmax_t uv;
	int r = parse_findmnt_option(cl, opt);

	if (r <= 0)
		return r;
	switch (opt) {
	case 'A':
		f->all = true; /* findmnt's "no built-in filters" */
		return 0;
	case 'a':
		cl->pr.ascii = true;
		return 0;
	case 'J':
		cl->pr.json = true;
		return 0;
	case 'l':
		cl->no_tree = true;
		if (cl->pr.mode == OUT_TREE)
			cl->pr.mode = OUT_LIST;
		return 0;
	case 'r':
		cl->pr.mode = OUT_RAW;
		cl->no_tree = true;
		return 0;
	case 'P':
		cl->pr.mode = OUT_PAIRS;
		cl->no_tree = true;
		return 0;
	case 'n':
		cl->pr.noheadings = true;
		return 0;
	case 'u':
		cl->pr.notrunc = true;
		return 0;
	case 'v':
		cl->pr.nofsroot = true;
		return 0;
	case 'y':
		cl->pr.shell = true;
		return 0;
	case 'o':
		cl->outarg = optarg;
		return 0;
	case OPT_OUTPUT_ALL:
		/* findmnt 2.42's columns, in its order, but --poll's */
		cl->ncols = 0;
		for (int i = 0; i < NR_FINDMNT_COLS; i++)
			if (findmnt_cols[i] < NR_LIST_COLS)
				cl->cols[cl->ncols++] = findmnt_cols[i];
		return 0;
	case 'H':
		cl->list_columns = true;
		return 0;
	case 't':
		f->types = optarg;
		return 0;
	case 'O':
		f->options = optarg;
		return 0;
	case 'S':
		f->noswap = true;
		if (!parse_devno(f, optarg))
			f->source = optarg;
		return 0;
	case 'M':
	case 'T':
		/* the last one counts, as in findmnt */
		f->strict = opt == 'M';
		f->noswap = true;
		f->target_arg = optarg;
		return 0;
	case 'R':
		cl->submounts = true;
		return 0;
	case OPT_ID:
		/* findmnt's 32-bit number, or a unique ID beyond it */
		if (!big_id(optarg, &uv)) {
			if (parse_signed("invalid id argument", optarg,
					 INT32_MIN, INT32_MAX, &sv) < 0)
				return -1;
			if (sv < 0) { /* findmnt's: matches no mount */
				f->has_id = true;
				f->id = sv;
				return 0;
			}
			uv = (uint64_t)sv;
		}
		cl->id_given[0] = true;
		cl->id_arg[0] = uv; /* see settle_ids() */
		return 0;
	case OPT_UNIQ_ID:
		if (parse_unsigned("invalid uniq-id argument", optarg,
				   UINT64_MAX, &uv) < 0)
			return -1;
		cl->id_given[1] = true;
		cl->id_arg[1] = uv; /* see settle_ids() */
		return 0;
	case OPT_REAL:
	case OPT_PSEUDO:
		f->real = opt == OPT_REAL ? 1 : -1;
		return 0;
	case OPT_TREE:
		cl->force_tree = true;
		return 0;
	case OPT_NS:
		if (cl->ns_arg) {
			cli_errmsg("--ns", "given twice");
			return -1;
		}
		cl->ns_arg = optarg;
		return 0;
	case OPT_ALL_NS:
		cl->all_ns = true;
		return 0;
	case OPT_ORDER:
		cl->order_given = true;
		if (!strcmp(optarg, "id")) {
			cl->order = ORDER_ID;
		} else if (!strcmp(optarg, "tree")) {
			cl->order = ORDER_TREE;
		} else {
			cli_errmsg("--order", "'%s': expected id or tree", optarg);
			return -1;
		}
		return 0;
	case OPT_UNREACHABLE:
		cl->unreachable = true;
		return 0;
	case 'h':
		cli_help(help_text, sizeof(help_text) / sizeof(*help_text));
		return 1;
	case 'V':
		cli_version();
		return 1;
	case ':':
		bad_option(argv, "option requires an argument");
		return -1;
	default:
		bad_option(argv, "unknown option");
		return -1;
	}
}

/* ---- after the options ---- */

static void parse_source(struct filter *f)
{
	/* a tag is no mount point: findmnt never swaps it */
	if (!strncmp(f->source, "LABEL=", 6) ||
	    !strncmp(f->source, "UUID=", 5) ||
	    !strncmp(f->source, "PARTLABEL=", 10) ||
	    !strncmp(f->source, "PARTUUID=", 9))
		f->swap = false;
}

/*
 * The arguments, as findmnt takes them: a source (or MAJ:MIN), then a
 * mount point; a third and later ones are not read.
 */
static int parse_args(struct cmdline *cl, int argc, char *argv[])
{
	struct filter *f = &cl->f;
	int nargs = argc - optind;

	/* -S MAJ:MIN is no source match in findmnt: it takes arguments */
	if (nargs && (f->source || f->target_arg)) {
		cli_errmsg(NULL, "options --target and --source can't be used "
				 "together with command line element that is "
				 "not an option");
		return -1;
	}
	if (nargs >= 1) {
		if (parse_devno(f, argv[optind])) {
			f->noswap = true;
		} else {
			f->source = argv[optind];
			f->swap = !f->noswap;
		}
	}
	if (nargs >= 2) {
		/* SOURCE TARGET: TARGET must be the mount point itself */
		f->target_arg = argv[optind + 1];
		f->strict = true;
	}
	if (f->source)
		parse_source(f);
	return 0;
}

/* lsmnt's own options: their combinations with each other and findmnt's */
static int check_combinations(struct cmdline *cl)
{
	int nsel = !!cl->ns_arg + !!cl->task_arg + cl->all_ns;

	if (nsel > 1) {
		cli_errmsg("--ns", "--ns, -N and --all-namespaces exclude each "
			       "other");
		return -1;
	}
	if (cl->poll && cl->ntabfiles > 1) {
		cli_errmsg(NULL, "--poll accepts only one file, but more "
				 "specified by --tab-file");
		return -1;
	}
	if (cl->tabtype == TAB_LISTMOUNT && (cl->ntabfiles || cl->task_arg)) {
		cli_errmsg(NULL, "options --kernel=listmount and --tab-file or "
				 "--task can't be used together");
		return -1;
	}
	if (cl->verify && !cl->ntabfiles && (cl->all_ns || cl->unreachable)) {
		cli_errmsg("--verify", "checks one table: not with %s",
			   cl->all_ns ? "--all-namespaces" : "--unreachable");
		return -1;
	}
	if ((cl->ntabfiles || cl->tabtype == TAB_FSTAB) &&
	    (cl->ns_arg || cl->task_arg || cl->all_ns || cl->unreachable)) {
		cli_errmsg(cl->tabtype == TAB_FSTAB ? "--fstab" : "--tab-file",
			   "reads a file: not with --ns, -N, "
			   "--all-namespaces or --unreachable");
		return -1;
	}
	if (cl->order_given && !cl->all_ns) {
		cli_errmsg("--order", "only with --all-namespaces");
		return -1;
	}
	if (cl->poll && cl->unreachable) {
		cli_errmsg("--poll", "prints its changes as a list: not with "
				     "--unreachable");
		return -1;
	}
	if (cl->poll && cl->order_given) {
		/* a batch of --all-namespaces is by namespace ID */
		cli_errmsg("--order", "not with --poll (a batch is by namespace "
				      "ID)");
		return -1;
	}
	return 0;
}

/*
 * -N with -F: findmnt reads /proc/TID/mountinfo as one more file, in the
 * place of -N among them
 */
static int task_as_file(struct cmdline *cl)
{
	size_t max = sizeof(cl->tabfiles) / sizeof(*cl->tabfiles);

	if (!cl->task_arg || !cl->ntabfiles)
		return 0;
	if (cl->ntabfiles == max) {
		cli_errmsg("--tab-file", "too many files");
		return -1;
	}
	snprintf(cl->task_file, sizeof(cl->task_file), "/proc/%d/mountinfo",
		 (int)cl->nsopts.pid);
	memmove(&cl->tabfiles[cl->task_pos + 1], &cl->tabfiles[cl->task_pos],
		(cl->ntabfiles - cl->task_pos) * sizeof(*cl->tabfiles));
	cl->tabfiles[cl->task_pos] = cl->task_file;
	cl->ntabfiles++;
	cl->task_arg = NULL;
	cl->nsopts.pid = 0;
	return 0;
}

/*
 * --id and --uniq-id each take either kind of mount ID, told by its value
 * (mntkit.h, MOUNT IDS): an old one (below 2^31) matches mountinfo's ID,
 * a unique one the 64-bit ID. --verbose says which kind each was.
 */
static int settle_ids(struct cmdline *cl)
{
	static const char *const opt[2] = { "--id", "--uniq-id" };
	struct filter *f = &cl->f;

	for (int k = 0; k < 2; k++) {
		uint64_t v = cl->id_arg[k];
		bool old = v < MNTKIT_MNT_UNIQUE_ID_OFFSET;

		if (!cl->id_given[k])
			continue;
		if (old ? f->has_id && f->id != (int64_t)v :
			  f->has_uniq && f->uniq != v) {
			cli_errmsg(opt[k], "%" PRIu64 ": %s names another %s ID "
				   "(no mount has both)", v, opt[!k],
				   old ? "old" : "unique");
			return -1;
		}
		if (cl->verbose)
			fprintf(stderr, "lsmnt: %s %" PRIu64 ": %s\n", opt[k], v,
				old ? "an old mount ID (mountinfo's)" :
				      "a unique mount ID");
		if (old) {
			f->has_id = true;
			f->id = (int64_t)v;
		} else {
			f->has_uniq = true;
			f->uniq = v;
		}
	}
	return 0;
}

int parse_cmdline(struct cmdline *cl, int argc, char *argv[])
{
	int opt, r, status[NR_EXCL] = {0};

	opterr = 0;
	while ((opt = getopt_long(
			argc, argv,
			":AabCcDd:ehIiJfF:o:O:p::PQ:klmM:nN:rst:uvRS:T:Uw:VxyH",
			long_options, NULL)) != -1) {
		if (check_exclusive(opt, status) < 0)
			return -1;
		r = parse_option(cl, opt, argv);
		if (r)
			return r;
	}
	if (cl->list_columns)
		return list_findmnt_columns(cl);
	if (set_columns(cl) < 0)
		return -1;
	/* findmnt -x: fstab unless a kernel table is asked for (-N too) */
	cl->fstab = cl->tabtype == TAB_FSTAB ||
		    (cl->verify && cl->tabtype == TAB_DEFAULT &&
		     !cl->task_arg && !cl->ns_arg);
	cl->mtab = cl->tabtype == TAB_MTAB;
	cl->pr.listmount = cl->f.listmount = cl->tabtype == TAB_LISTMOUNT;
	if (cl->fstab && !cl->ntabfiles) {
		/* libmount's: LIBMOUNT_FSTAB, else /etc/fstab */
		const char *env = secure_getenv("LIBMOUNT_FSTAB");

		cl->tabfiles[cl->ntabfiles++] = env && *env ? env : "/etc/fstab";
	}
	if (task_as_file(cl) < 0 || settle_ids(cl) < 0 ||
	    check_combinations(cl) < 0 || parse_args(cl, argc, argv) < 0 ||
	    check_backend_env() < 0)
		return -1;
	cl->pr.tabfile = cl->ntabfiles > 0;
	/* not with --poll: findmnt matches its changes as any filter does */
	cl->f.source_only = !cl->poll && cl->f.first && cl->f.source &&
			    !cl->f.source_devno && !cl->f.types &&
			    !cl->f.options && !cl->f.has_id && !cl->f.has_uniq;
	if (cl->ns_arg) {
		cl->ns = &cl->nsopts;
		if (cli_parse_ns(cl->ns_arg, &cl->nsopts,
				 CLI_NS_CHECK_ID | CLI_NS_LAX_ID,
				 ns_report) < 0)
			return -1;
	}
	if (cl->task_arg)
		cl->ns = &cl->nsopts;
	return 0;
}
