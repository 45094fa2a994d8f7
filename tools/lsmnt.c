// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * lsmnt - list mounts like findmnt(8), from statmount(2)/listmount(2), in
 * time linear in the number of mounts.
 *
 * One snapshot (mntkit_table_new(): one listing, one statmount per mount,
 * the tree linked in the library) per mount namespace; the filters and the
 * rows to print are one pass over it; the printers (lsmnt-print.c) write
 * findmnt's bytes. All output is built in memory and written once, so a
 * failure never leaves half a record; every error is one line on stderr
 * and exit status 1, as is finding nothing (findmnt's convention).
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <linux/nsfs.h>
#include <locale.h>
#include <sched.h>
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
#include "lsmnt-verify.h"

/* nsfs ioctls of Linux 6.12+: walk the mount namespaces by ID */
struct lsmnt_mnt_ns_info {
	uint32_t size;
	uint32_t nr_mounts;
	uint64_t mnt_ns_id;
};

#define LSMNT_NS_MNT_GET_INFO _IOR(0xb7, 10, struct lsmnt_mnt_ns_info)
#define LSMNT_NS_MNT_GET_NEXT _IOR(0xb7, 11, struct lsmnt_mnt_ns_info)
#define LSMNT_NS_MNT_GET_PREV _IOR(0xb7, 12, struct lsmnt_mnt_ns_info)

static const char usage_line[] =
	"usage: " PROG " [options] [<device> | <mountpoint> | <device> "
	"<mountpoint>]";

static const int default_cols[] = {COL_TARGET, COL_SOURCE, COL_FSTYPE,
				   COL_OPTIONS};

/* -D: findmnt's df(1)-like columns */
static const int df_cols[] = {COL_SOURCE, COL_FSTYPE,  COL_SIZE,  COL_USED,
			      COL_AVAIL,  COL_USE_PCT, COL_TARGET};

/* ---- errors ---- */

/* ---- the command line ---- */

enum ns_order { ORDER_ID, ORDER_TREE };

struct filter {
	const char *types;   /* -t */
	const char *options; /* -O */
	const char *source;  /* -S or the first argument, not a MAJ:MIN */
	bool source_devno;   /* -S MAJ:MIN or a MAJ:MIN argument: a filter */
	unsigned int major, minor; /* of its own, with the others (findmnt) */
	char *source_canon; /* the device the source names, if any */
	const char *target_arg;
	char *target; /* the mount point to match (canonical) */
	bool strict;  /* -M: no walk up to the mount point of a path */
	bool swap;    /* one argument: source, else target */
	bool has_id;  /* --id */
	uint32_t id;
	bool has_uniq; /* --uniq-id */
	uint64_t uniq;
	int real;    /* 1 --real, -1 --pseudo */
	bool df;     /* -D: no pseudo filesystems but tmpfs ones */
	bool all;    /* -A: -D and --real/--pseudo do not make a filter */
	bool invert; /* -i */
	bool first;  /* -f */
	/*
	 * -f with a source only (findmnt's "mount compatible" mode, like
	 * mount(8) looking a device up): just the source is matched
	 */
	bool source_only;
	/*
	 * -f with a source only, as libmount's mnt_table_find_source(): the
	 * sources as they are first, through the whole table, and only when
	 * none is the source, the canonical ones (1, then 2; 0: both at once)
	 */
	int source_pass;
	bool shadowed; /* --shadowed: only mounts another is mounted over */
	bool nocanon;  /* -C: no path made canonical to compare it */
};

struct cmdline {
	struct printer pr;
	int cols[2 * NR_COLS + 8];
	size_t ncols;
	const char *outarg; /* -o */
	bool output_all;
	bool list_columns; /* -H */
	bool submounts;	   /* -R */
	bool force_tree;   /* --tree */
	bool unreachable;  /* --unreachable */
	bool df;	   /* -D */
	bool uniq;	   /* -U */
	bool backward;	   /* -d backward */
	bool kernel;	   /* -k */
	bool all_ns;	   /* --all-namespaces */
	bool poll;	   /* -p: follow the changes (lsmnt-poll.c) */
	unsigned int actions; /* -p LIST: ACT_BIT()s, 0: all */
	int timeout_ms;	      /* -w, < 0: none */
	enum ns_order order;
	bool order_given;
	const char *tabfiles[8]; /* -F (more than once), -s: /etc/fstab */
	size_t ntabfiles;
	bool fstab;		 /* -s */
	bool mtab;		 /* -m */
	bool verify;		 /* -x */
	bool verbose;		 /* --verbose */
	bool tab_mountinfo;	 /* every table file read was mountinfo */
	size_t nbad[8];		 /* per file: the lines passed over */
	const char *ns_arg;   /* --ns */
	const char *task_arg; /* -N */
	struct mntkit_opts nsopts;
	const struct mntkit_opts *ns;
	struct filter f;
	int *tids; /* TID per snapshot, NULL unless that column is shown */
};

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
	"  -b, --bytes            SIZE, AVAIL, USED in bytes, not 1.5G",
	"  -c, --canonicalize     SOURCE as a canonical path",
	"  -C, --nocanonicalize   compare paths as they are given",
	"  -e, --evaluate         a LABEL=, UUID=, ... SOURCE as its device",
	"  -H, --list-columns     list the columns (with -p: ACTION,",
	"                         OLD-TARGET, OLD-OPTIONS too)",
	"",
	"Monitor:",
	"  -p, --poll[=<list>]    print the changes of the mount table as they",
	"                         come: mount, umount, remount, move (only",
	"                         those of <list>); from libmntkit's watch",
	"  -w, --timeout <num>    with -p: exit after <num> ms without a change",
	"",
	"Filters:",
	"  -t, --types <list>     only these filesystem types (no<type>...)",
	"  -O, --options <list>   only mounts with these options (no<opt>)",
	"  -S, --source <string>  only this source (device, MAJ:MIN, LABEL=..)",
	"  -T, --target <path>    only the mount the path is on",
	"  -M, --mountpoint <dir> only mounts on this directory",
	"  -R, --submounts        with the matching mounts, all below them",
	"      --id <num>         only the mount with this (old) mount ID",
	"      --uniq-id <num>    only the mount with this 64-bit mount ID",
	"      --real             only real filesystems",
	"      --pseudo           only pseudo filesystems",
	"      --shadowed         only mounts another is mounted over",
	"  -A, --all              -D, --real and --pseudo filter nothing",
	"  -i, --invert           the mounts that do not match",
	"  -f, --first-only       only the first matching mount",
	"  -d, --direction <word> forward (default) or backward through the",
	"                         table, for a list, -f and -R",
	"  -U, --uniq             of mounts on the same target, only the last",
	"  -k, --kernel           the kernel's table (the default; -F wins)",
	"",
	"Tables (default: the kernel's):",
	"  -F, --tab-file <file>  the entries of a mountinfo, fstab or mtab file",
	"  -s, --fstab            those of /etc/fstab (or $LIBMOUNT_FSTAB)",
	"  -m, --mtab             the kernel's table with utab's userspace",
	"                         options (/run/mount/utab, $LIBMOUNT_UTAB)",
	"  -x, --verify           check a fstab (-F, -s) as findmnt does",
	"      --verbose          with -x: what passed the checks too",
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
	"Finding nothing exits with status 1, as findmnt does. See lsmnt(8).",
};

/* a JSON number: the IDs, and with -b the sizes */
static bool col_is_number(const struct cmdline *cl, int col)
{
	return lsmnt_cols[col].number ||
	       (cl->pr.bytes && (lsmnt_cols[col].flags & CF_SIZE));
}

/*
 * -H: the columns, as a table (or JSON with -J, raw with -r); those of
 * --poll only with -p
 */
static int list_columns(const struct cmdline *cl)
{
	struct outbuf ob = OUTBUF_INIT;
	int r, ncols = cl->poll ? NR_COLS : NR_LIST_COLS;

	if (cl->pr.json) {
		struct json_writer jw;

		json_init(&jw, &ob, 3);
		json_object_begin(&jw);
		json_key(&jw, PROG "-columns");
		json_array_begin(&jw);
		for (int i = 0; i < ncols; i++) {
			json_object_begin(&jw);
			json_kv_string(&jw, "holder", lsmnt_cols[i].name);
			json_kv_string(&jw, "type",
				       col_is_number(cl, i) ? "<integer>"
							    : "<string>");
			json_kv_string(&jw, "description", lsmnt_cols[i].help);
			json_object_end(&jw);
		}
		json_array_end(&jw);
		json_object_end(&jw);
		outbuf_putc(&ob, '\n');
	} else {
		for (int i = 0; i < ncols; i++)
			outbuf_printf(
				&ob,
				cl->pr.mode == OUT_RAW ? "%s %s %s\n"
						       : "%14s  %-9s  %s\n",
				lsmnt_cols[i].name,
				col_is_number(cl, i) ? "<integer>" : "<string>",
				lsmnt_cols[i].help);
	}
	r = outbuf_flush(&ob, stdout);
	outbuf_free(&ob);
	if (r < 0)
		cli_errmsg("write error", "%s", strerror(-r));
	return r < 0 ? -1 : 1;
}

static int add_columns(struct cmdline *cl, const char *list, const char *opt)
{
	const char *p = list;

	if (*p == '+')
		p++;
	else
		cl->ncols = 0;
	if (!*p) {
		cli_errmsg(opt, "empty column list");
		return -1;
	}
	for (;;) {
		size_t n = strcspn(p, ",");
		int id = col_by_name(p, n);

		if (!n) {
			cli_errmsg(opt, "empty column name in '%s'", list);
			return -1;
		}
		if (id < 0) {
			cli_errmsg(NULL, "unknown column: %.*s", (int)n, p);
			return -1;
		}
		if (cl->ncols >= sizeof(cl->cols) / sizeof(*cl->cols)) {
			cli_errmsg(opt, "too many columns, the limit is %zu",
			       sizeof(cl->cols) / sizeof(*cl->cols));
			return -1;
		}
		cl->cols[cl->ncols++] = id;
		if (!p[n])
			return 0;
		p += n + 1;
	}
}

/* a PID (cli.c) for -N or --ns pid:S: "lsmnt: OPT: ..." */
static void pid_error(const char *opt, const char *s, enum cli_ns_fail what,
		      int err)
{
	if (what == CLI_NS_NOT_PID)
		cli_errmsg(opt, "'%s' is not a process ID", s);
	else if (err == EACCES || err == EPERM)
		cli_errmsg(opt,
			   "%s: %s (another user's process needs "
			   "CAP_SYS_ADMIN and CAP_SYS_PTRACE)",
			   s, strerror(err));
	else
		cli_errmsg(opt, "%s: %s", s, cli_ns_reason(what, err));
}

static int parse_pid(const char *opt, const char *s, pid_t *pid)
{
	enum cli_ns_fail what;
	int err;

	if (cli_parse_pid(s, pid, &what, &err) < 0) {
		pid_error(opt, s, what, err);
		return -1;
	}
	return 0;
}

/* --ns ID|PATH|pid:PID (cli.c): "lsmnt: --ns: ARG: REASON" */
static void ns_report(const char *arg, enum cli_ns_fail what, int err)
{
	if (what == CLI_NS_NOT_PID || what == CLI_NS_PID_ERR)
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

enum {
	OPT_OUTPUT_ALL = 256,
	OPT_REAL,
	OPT_PSEUDO,
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
};

static const struct option long_options[] = {
	{"all", no_argument, NULL, 'A'},
	{"ascii", no_argument, NULL, 'a'},
	{"json", no_argument, NULL, 'J'},
	{"list", no_argument, NULL, 'l'},
	{"raw", no_argument, NULL, 'r'},
	{"pairs", no_argument, NULL, 'P'},
	{"noheadings", no_argument, NULL, 'n'},
	{"notruncate", no_argument, NULL, 'u'},
	{"nofsroot", no_argument, NULL, 'v'},
	{"shell", no_argument, NULL, 'y'},
	{"output", required_argument, NULL, 'o'},
	{"output-all", no_argument, NULL, OPT_OUTPUT_ALL},
	{"list-columns", no_argument, NULL, 'H'},
	{"types", required_argument, NULL, 't'},
	{"options", required_argument, NULL, 'O'},
	{"source", required_argument, NULL, 'S'},
	{"target", required_argument, NULL, 'T'},
	{"mountpoint", required_argument, NULL, 'M'},
	{"submounts", no_argument, NULL, 'R'},
	{"id", required_argument, NULL, OPT_ID},
	{"uniq-id", required_argument, NULL, OPT_UNIQ_ID},
	{"real", no_argument, NULL, OPT_REAL},
	{"pseudo", no_argument, NULL, OPT_PSEUDO},
	{"tree", no_argument, NULL, OPT_TREE},
	{"shadowed", no_argument, NULL, OPT_SHADOWED},
	{"vfs-all", no_argument, NULL, OPT_VFS_ALL},
	{"verbose", no_argument, NULL, OPT_VERBOSE},
	{"nocanonicalize", no_argument, NULL, 'C'},
	{"df", no_argument, NULL, 'D'},
	{"bytes", no_argument, NULL, 'b'},
	{"canonicalize", no_argument, NULL, 'c'},
	{"evaluate", no_argument, NULL, 'e'},
	{"first-only", no_argument, NULL, 'f'},
	{"invert", no_argument, NULL, 'i'},
	{"uniq", no_argument, NULL, 'U'},
	{"direction", required_argument, NULL, 'd'},
	{"kernel", no_argument, NULL, 'k'},
	{"fstab", no_argument, NULL, 's'},
	{"mtab", no_argument, NULL, 'm'},
	{"tab-file", required_argument, NULL, 'F'},
	{"verify", no_argument, NULL, 'x'},
	{"poll", optional_argument, NULL, 'p'},
	{"timeout", required_argument, NULL, 'w'},
	{"task", required_argument, NULL, 'N'},
	{"ns", required_argument, NULL, OPT_NS},
	{"all-namespaces", no_argument, NULL, OPT_ALL_NS},
	{"order", required_argument, NULL, OPT_ORDER},
	{"unreachable", no_argument, NULL, OPT_UNREACHABLE},
	{"help", no_argument, NULL, 'h'},
	{"version", no_argument, NULL, 'V'},
	{NULL, 0, NULL, 0},
};

/* the option getopt_long() just refused, as the user wrote it */
static void bad_option(char *const argv[], const char *reason)
{
	char buf[3];

	cli_errmsg(cli_bad_option_name(argv, buf), "%s (see " PROG " --help)",
		   reason);
}

static int set_mode(struct cmdline *cl, enum out_mode mode, const char *opt)
{
	/* findmnt: -J/-P/-r exclude each other, and so do -P/-l/-r */
	if ((cl->pr.mode != OUT_TREE && cl->pr.mode != mode) ||
	    (cl->pr.json && mode != OUT_LIST)) {
		cli_errmsg(opt, "-J, -l, -P and -r exclude each other (but -J -l)");
		return -1;
	}
	cl->pr.mode = mode;
	return 0;
}

static int set_once(const char **slot, const char *val, const char *opt)
{
	if (*slot) {
		cli_errmsg(opt, "given twice");
		return -1;
	}
	*slot = val;
	return 0;
}

static int parse_num_opt(const char *opt, const char *arg, uint64_t max,
			 uint64_t *v)
{
	if (cli_parse_number_lax(arg, v) != 1 || *v > max) {
		cli_errmsg(opt, "'%s' is not a valid number", arg);
		return -1;
	}
	return 0;
}

/* -w: findmnt's strtos32_or_err(): decimal, a negative is no timeout */
static int parse_timeout(struct cmdline *cl, const char *arg)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(arg, &end, 10);
	if (!*arg || *end || end == arg || errno || v < INT32_MIN ||
	    v > INT32_MAX) {
		cli_errmsg("--timeout", "invalid timeout argument: '%s' (a "
					"number of milliseconds)",
			   arg);
		return -1;
	}
	cl->timeout_ms = v < 0 ? -1 : (int)v;
	return 0;
}

/* the options findmnt 2.38 has beyond the output and the filters */
static int parse_findmnt_option(struct cmdline *cl, int opt)
{
	struct filter *f = &cl->f;

	switch (opt) {
	case 'p':
		cl->poll = true;
		/* -pLIST, --poll=LIST; a later list replaces the first */
		if (optarg &&
		    poll_parse_actions("--poll", optarg, &cl->actions) < 0)
			return -1;
		return 0;
	case 'w':
		return parse_timeout(cl, optarg);
	case 'D':
		cl->df = f->df = true;
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
	case 's':
		cl->fstab = true;
		return 0;
	case 'm':
		cl->mtab = true;
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
	case 'k':
		cl->kernel = true; /* lsmnt reads nothing else */
		return 0;
	case 'd':
		if (!strcmp(optarg, "forward") || !strcmp(optarg, "backward")) {
			cl->backward = optarg[0] == 'b';
			return 0;
		}
		cli_errmsg("--direction", "'%s': expected forward or backward",
			   optarg);
		return -1;
	default:
		return 1; /* not one of these */
	}
}

/* 0: go on; 1: done, exit 0 (--help, --version); -1: error */
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

static int parse_option(struct cmdline *cl, int opt, char *const argv[])
{
	struct filter *f = &cl->f;
	uint64_t v;
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
		if (cl->pr.mode == OUT_RAW || cl->pr.mode == OUT_PAIRS) {
			cli_errmsg("-J", "-J, -P and -r exclude each other");
			return -1;
		}
		cl->pr.json = true;
		return 0;
	case 'l':
		return set_mode(cl, OUT_LIST, "-l");
	case 'r':
		return set_mode(cl, OUT_RAW, "-r");
	case 'P':
		return set_mode(cl, OUT_PAIRS, "-P");
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
		cl->output_all = true;
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
		if (!parse_devno(f, optarg))
			f->source = optarg;
		return 0;
	case 'M':
		f->strict = true;
		/* fall through */
	case 'T':
		if (f->target_arg) {
			cli_errmsg(opt == 'M' ? "-M" : "-T",
			       "-T and -M exclude each other, and are given "
			       "once");
			return -1;
		}
		f->target_arg = optarg;
		return 0;
	case 'R':
		cl->submounts = true;
		return 0;
	case OPT_ID:
		if (parse_num_opt("--id", optarg, INT32_MAX, &v) < 0)
			return -1;
		f->has_id = true;
		f->id = (uint32_t)v;
		return 0;
	case OPT_UNIQ_ID:
		if (parse_num_opt("--uniq-id", optarg, UINT64_MAX, &v) < 0)
			return -1;
		f->has_uniq = true;
		f->uniq = v;
		return 0;
	case OPT_REAL:
	case OPT_PSEUDO:
		if (f->real && f->real != (opt == OPT_REAL ? 1 : -1)) {
			cli_errmsg("--real", "--real and --pseudo exclude each "
					 "other");
			return -1;
		}
		f->real = opt == OPT_REAL ? 1 : -1;
		return 0;
	case OPT_TREE:
		cl->force_tree = true;
		return 0;
	case 'N':
		return set_once(&cl->task_arg, optarg, "-N");
	case OPT_NS:
		return set_once(&cl->ns_arg, optarg, "--ns");
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

static int parse_source(struct filter *f)
{
	if (!strncmp(f->source, "LABEL=", 6) ||
	    !strncmp(f->source, "UUID=", 5) ||
	    !strncmp(f->source, "PARTLABEL=", 10) ||
	    !strncmp(f->source, "PARTUUID=", 9))
		f->swap = false;
	return 0;
}

static int parse_args(struct cmdline *cl, int argc, char *argv[])
{
	struct filter *f = &cl->f;
	int nargs = argc - optind;

	if (nargs > 2) {
		cli_errmsg(argv[optind + 2],
		       "unexpected argument (see " PROG " --help)");
		return -1;
	}
	/* -S MAJ:MIN is no source match in findmnt: it takes arguments */
	if (nargs && (f->source || f->target_arg)) {
		cli_errmsg(argv[optind], "-S and -T can't be used together with "
				     "an argument that is not an option");
		return -1;
	}
	if (nargs >= 1 && !parse_devno(f, argv[optind])) {
		f->source = argv[optind];
		/* a lone argument may be a mount point, but not after -S */
		f->swap = nargs == 1 && !f->source_devno;
	}
	if (nargs == 2) {
		/* SOURCE TARGET: TARGET must be the mount point itself (as -M) */
		f->target_arg = argv[optind + 1];
		f->strict = true;
	}
	if (f->source)
		parse_source(f);
	return 0;
}

static int check_combinations(struct cmdline *cl)
{
	int nsel = !!cl->ns_arg + !!cl->task_arg + cl->all_ns;

	if (nsel > 1) {
		cli_errmsg("--ns", "--ns, -N and --all-namespaces exclude each "
			       "other");
		return -1;
	}
	if (cl->verify && (cl->pr.json || cl->pr.mode == OUT_PAIRS ||
			   cl->pr.mode == OUT_RAW || cl->pr.mode == OUT_LIST ||
			   cl->poll)) {
		cli_errmsg(NULL, "mutually exclusive arguments: %s --verify",
			   cl->poll ? "--poll"
			   : cl->pr.json ? "--json --pairs --raw"
					 : "--pairs --list --raw");
		return -1;
	}
	if ((cl->ntabfiles || cl->fstab || cl->verify) &&
	    (cl->poll || cl->ns_arg || cl->task_arg || cl->all_ns ||
	     cl->unreachable)) {
		cli_errmsg(cl->fstab ? "--fstab" : "--tab-file",
			   "reads a file: not with --poll, --ns, -N, "
			   "--all-namespaces or --unreachable");
		return -1;
	}
	if (cl->kernel && cl->task_arg) {
		/* findmnt: -N and -k name the table, once */
		cli_errmsg("-k", "-k and -N exclude each other");
		return -1;
	}
	if (cl->fstab + cl->kernel + cl->mtab + !!cl->task_arg > 1) {
		/* findmnt: they name the table, once (-N: above) */
		cli_errmsg(NULL, "mutually exclusive arguments: --task "
				 "--kernel --mtab --fstab");
		return -1;
	}
	if (cl->order_given && !cl->all_ns) {
		cli_errmsg("--order", "only with --all-namespaces");
		return -1;
	}
	if (cl->poll && (cl->all_ns || cl->force_tree || cl->unreachable)) {
		/* findmnt -p --tree prints nothing at all: say so */
		cli_errmsg("--poll", "watches one namespace as a list: not with "
				     "%s",
			   cl->all_ns	   ? "--all-namespaces"
			   : cl->force_tree ? "--tree"
					    : "--unreachable");
		return -1;
	}
	if (cl->poll && cl->f.shadowed) {
		/* each change is matched alone, without its table */
		cli_errmsg("--shadowed", "not with --poll");
		return -1;
	}
	return 0;
}

/* ACTION, OLD-TARGET, OLD-OPTIONS: findmnt refuses them without -p */
static int check_poll_columns(const struct cmdline *cl)
{
	for (size_t c = 0; !cl->poll && c < cl->ncols; c++) {
		if (cl->cols[c] >= NR_LIST_COLS) {
			cli_errmsg(NULL, "%s column is requested, but --poll "
					 "is not enabled",
				   lsmnt_cols[cl->cols[c]].name);
			return -1;
		}
	}
	return 0;
}

static int set_columns(struct cmdline *cl)
{
	if (cl->output_all) {
		/*
		 * findmnt's columns (Debian 12's findmnt 2.38), in its order,
		 * without --poll's: a script that reads --output-all gets what
		 * findmnt gives; lsmnt's own columns are there with -o +COL
		 */
		for (int i = 0; i < NR_LIST_COLS; i++)
			if (lsmnt_cols[i].findmnt)
				cl->cols[cl->ncols++] = i;
	} else if (cl->df) {
		if (cl->all_ns)
			cl->cols[cl->ncols++] = COL_NS;
		for (size_t i = 0; i < sizeof(df_cols) / sizeof(*df_cols); i++)
			cl->cols[cl->ncols++] = df_cols[i];
	} else {
		if (cl->all_ns)
			cl->cols[cl->ncols++] = COL_NS;
		if (cl->poll)
			cl->cols[cl->ncols++] = COL_ACTION;
		for (size_t i = 0; i < 4; i++)
			cl->cols[cl->ncols++] = default_cols[i];
	}
	if (cl->outarg && add_columns(cl, cl->outarg, "-o") < 0)
		return -1;
	if (check_poll_columns(cl) < 0)
		return -1;
	cl->pr.cols = cl->cols;
	cl->pr.ncols = cl->ncols;
	return 0;
}

static int parse_cmdline(struct cmdline *cl, int argc, char *argv[])
{
	int opt, r;

	opterr = 0;
	while ((opt = getopt_long(
			argc, argv,
			":aAJlrPnuvyo:Ht:O:S:T:M:RN:hVDbcCefiUd:ksmF:xp::w:",
			long_options, NULL)) != -1) {
		r = parse_option(cl, opt, argv);
		if (r)
			return r;
	}
	if (cl->list_columns)
		return list_columns(cl);
	if ((cl->fstab || cl->verify) && !cl->ntabfiles) {
		/* libmount's: LIBMOUNT_FSTAB, else /etc/fstab */
		const char *env = secure_getenv("LIBMOUNT_FSTAB");

		cl->tabfiles[cl->ntabfiles++] = env && *env ? env : "/etc/fstab";
	}
	if (parse_args(cl, argc, argv) < 0 || check_combinations(cl) < 0 ||
	    set_columns(cl) < 0 || check_backend_env() < 0)
		return -1;
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
	if (cl->task_arg) {
		cl->ns = &cl->nsopts;
		if (parse_pid("-N", cl->task_arg, &cl->nsopts.pid) < 0)
			return -1;
	}
	return 0;
}

/* ---- filters (findmnt's semantics) ---- */

/*
 * -t: libmount's match_fstype(): a comma list of types, compared without
 * case; a leading "no" negates the whole list, "no" before a later item
 * excludes that type.
 */
static bool match_types(const char *type, const char *pattern)
{
	size_t len = strlen(type);
	const char *p = pattern;
	bool no = false;

	if (!strncmp(p, "no", 2)) {
		no = true;
		p += 2;
	}
	for (;;) {
		if (!strncmp(p, "no", 2) && !strncasecmp(p + 2, type, len) &&
		    (p[len + 2] == '\0' || p[len + 2] == ','))
			return false;
		if (!strncasecmp(p, type, len) &&
		    (p[len] == '\0' || p[len] == ','))
			return !no;
		p = strchr(p, ',');
		if (!p)
			return no;
		p++;
	}
}

/* the next option of a comma list (quotes keep commas): name and value */
static bool next_option(const char **pp, const char **name, size_t *nlen,
			const char **val, size_t *vlen)
{
	const char *p = *pp;
	bool quoted = false;

	while (*p == ',')
		p++;
	if (!*p)
		return false;
	*name = p;
	*val = NULL;
	*vlen = 0;
	for (; *p; p++) {
		if (*p == '"')
			quoted = !quoted;
		else if (!quoted && *p == ',')
			break;
		else if (!quoted && *p == '=' && !*val)
			*val = p + 1;
	}
	*nlen = (size_t)((*val ? *val - 1 : p) - *name);
	if (*val)
		*vlen = (size_t)(p - *val);
	*pp = p;
	return true;
}

/* does @optstr hold option @name (with value @val if @val != NULL)? */
static bool has_option(const char *optstr, const char *name, size_t nlen,
		       const char *val, size_t vlen)
{
	const char *p = optstr, *n, *v;
	size_t nl, vl;

	while (next_option(&p, &n, &nl, &v, &vl)) {
		if (nl != nlen || strncmp(n, name, nlen))
			continue;
		if (!val)
			return true;
		return vl == vlen && !strncmp(v, val, vlen);
	}
	return false;
}

/*
 * -O: libmount's mnt_match_options(): every item must hold; "noX" means
 * X is absent ("+noX" means the option noX itself is there).
 */
static bool match_options(const char *optstr, const char *pattern)
{
	const char *p = pattern, *name, *val;
	size_t nlen, vlen;

	while (next_option(&p, &name, &nlen, &val, &vlen)) {
		bool no = false, found;

		if (*name == '+') {
			name++;
			nlen--;
		} else if (nlen >= 2 && !strncmp(name, "no", 2)) {
			no = true;
			name += 2;
			nlen -= 2;
		}
		found = has_option(optstr, name, nlen, val && vlen ? val : NULL,
				   vlen);
		if (found == no)
			return false;
	}
	return true;
}

/* two paths equal but for trailing slashes */
static bool same_path(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);

	while (la > 1 && a[la - 1] == '/')
		la--;
	while (lb > 1 && b[lb - 1] == '/')
		lb--;
	return la == lb && !strncmp(a, b, la);
}

/*
 * The device a -S source names, canonical: a tag (LABEL=, UUID=, ...)
 * through libblkid as findmnt resolves it (udev's links, else its
 * cache and, as root, a scan), a path as realpath() gives it.
 */
static char *canon_source(const char *src)
{
	char *dev, *real;

	if (source_is_tag(src)) {
		dev = evaluate_tag(src);
		real = dev ? realpath(dev, NULL) : NULL;
		free(dev);
		return real;
	}
	return strchr(src, '/') ? realpath(src, NULL) : NULL;
}

/* -T, -M, a mount point argument: the path to compare (-C: as given) */
static char *canon_target(const struct filter *f, const char *path)
{
	return f->nocanon ? strdup(path) : realpath(path, NULL);
}

struct matcher {
	const struct filter *f;
	const struct mntkit_table *t; /* the rows' table (--shadowed) */
	struct outbuf s1, s2;
};

/*
 * --shadowed: another mount of the table is mounted on @sm's very mount
 * point, over @sm's root (libmount's mnt_table_over_fs(): a child whose
 * target is the parent's own).
 */
static bool is_shadowed(const struct mntkit_table *t,
			const struct mntkit_statmount *sm)
{
	const char *point, *cp;
	ssize_t i = t ? mntkit_table_find(t, sm->mnt_id) : -1;

	if (i < 0 ||
	    mntkit_sm_str(sm, sm->size, MNTKIT_FIELD_MNT_POINT, &point) < 0)
		return false;
	for (ssize_t c = mntkit_table_first_child(t, (size_t)i); c >= 0;
	     c = mntkit_table_next_sibling(t, (size_t)c)) {
		const struct mntkit_statmount *ch = mntkit_table_get(t, (size_t)c);

		if (mntkit_sm_str(ch, ch->size, MNTKIT_FIELD_MNT_POINT, &cp) == 0 &&
		    !strcmp(cp, point))
			return true;
	}
	return false;
}

static bool match_source(struct matcher *m, const struct mntkit_statmount *sm)
{
	const struct filter *f = m->f;
	const char *src, *type;
	char *real;
	bool ok;

	if (mntkit_sm_str(sm, sm->size, MNTKIT_FIELD_SB_SOURCE, &src) < 0)
		return false;
	if (f->source_pass != 2 && same_path(src, f->source))
		return true;
	type = cell_fstype(sm, &m->s1);
	if (!f->source_canon || fstype_is_pseudo(type) || f->nocanon ||
	    f->source_pass == 1)
		return false;
	if (!strcmp(src, f->source_canon))
		return true;
	if (src[0] != '/' || path_may_block(src))
		return false;
	real = realpath(src, NULL);
	ok = real && !strcmp(real, f->source_canon);
	free(real);
	return ok;
}

static bool match_target(const struct filter *f,
			 const struct mntkit_statmount *sm)
{
	const char *point;

	if (mntkit_sm_str(sm, sm->size, MNTKIT_FIELD_MNT_POINT, &point) < 0)
		return false;
	return same_path(point, f->target_arg) ||
	       (f->target && !strcmp(point, f->target));
}

/*
 * -D: findmnt leaves out pseudo filesystems, but keeps every type with
 * "tmpfs" in its name (devtmpfs too), whatever --real or --pseudo say.
 * 1 keep it, 0 drop it, -1 the other filters decide.
 */
static int df_verdict(struct matcher *m, const struct mntkit_statmount *sm)
{
	const char *type = cell_fstype(sm, &m->s1);

	if (type && strstr(type, "tmpfs"))
		return 1;
	return fstype_is_pseudo(type) ? 0 : -1;
}

/* libmount's match_func() without -i */
static bool matches_plain(struct matcher *m, const struct mntkit_statmount *sm)
{
	const struct filter *f = m->f;
	const char *s;

	if (f->source_only)
		return f->source ? match_source(m, sm) : match_target(f, sm);
	if (f->has_id && sm->mnt_id_old != f->id)
		return false;
	if (f->has_uniq && sm->mnt_id != f->uniq)
		return false;
	if (f->types) {
		s = cell_fstype(sm, &m->s1);
		if (!s || !match_types(s, f->types))
			return false;
	}
	if (f->options) {
		s = cell_options(sm, &m->s2);
		if (!s || !match_options(s, f->options))
			return false;
	}
	if (f->target_arg && !match_target(f, sm))
		return false;
	if (f->source_devno && (sm->sb_dev_major != f->major ||
				sm->sb_dev_minor != f->minor))
		return false;
	if (f->source && !match_source(m, sm))
		return false;
	if (f->df && !f->all) {
		int v = df_verdict(m, sm);

		if (v >= 0)
			return v;
	}
	if (f->real) {
		bool pseudo = fstype_is_pseudo(cell_fstype(sm, &m->s1));

		if (pseudo == (f->real > 0))
			return false;
	}
	if (f->shadowed && !is_shadowed(m->t, sm))
		return false;
	return true;
}

static bool matches(struct matcher *m, const struct mntkit_statmount *sm)
{
	return matches_plain(m, sm) != (m->f->invert && !m->f->source_only);
}

/*
 * findmnt's "list all": no filter, where -D, --real and --pseudo count as
 * filters unless -A is given. A list (not the tree) then holds every
 * mount, and neither -i nor, with -A, --real or --pseudo change that.
 */
static bool list_all(const struct filter *f)
{
	if ((f->df || f->real) && !f->all)
		return false;
	return !f->types && !f->options && !f->source && !f->source_devno &&
	       !f->target_arg && !f->has_id && !f->has_uniq;
}

static uint64_t filter_mask(const struct filter *f)
{
	uint64_t m = MNTKIT_STATMOUNT_MNT_BASIC;

	if (f->types || f->real || f->df)
		m |= MNTKIT_STATMOUNT_FS_TYPE | MNTKIT_STATMOUNT_FS_SUBTYPE;
	if (f->options)
		m |= MNTKIT_STATMOUNT_SB_BASIC | MNTKIT_STATMOUNT_MNT_OPTS;
	if (f->source)
		m |= MNTKIT_STATMOUNT_SB_SOURCE | MNTKIT_STATMOUNT_SB_BASIC |
		     MNTKIT_STATMOUNT_FS_TYPE | MNTKIT_STATMOUNT_FS_SUBTYPE;
	if (f->source_devno)
		m |= MNTKIT_STATMOUNT_SB_BASIC;
	/* one argument is tried as a mount point too (select_rows()) */
	if (f->target_arg || f->swap || f->shadowed)
		m |= MNTKIT_STATMOUNT_MNT_POINT;
	return m;
}

/*
 * -T of a path that is no mount point: the mount point it is under, found
 * as findmnt does, by the path's canonical form with its last components
 * taken off one by one until a mount's target is left.
 */
static void target_walk_up(struct filter *f, struct mntkit_table **tabs,
			   size_t ntabs)
{
	char *path = f->target;
	size_t len;

	if (!path)
		return;
	len = strlen(path);
	for (;;) {
		for (size_t t = 0; t < ntabs; t++) {
			size_t n = mntkit_table_count(tabs[t]);

			for (size_t i = 0; i < n; i++) {
				const struct mntkit_statmount *sm =
					mntkit_table_get(tabs[t], i);
				const char *point;

				if (mntkit_sm_str(sm, sm->size,
						  MNTKIT_FIELD_MNT_POINT,
						  &point) == 0 &&
				    strlen(point) == len &&
				    !strncmp(point, path, len)) {
					path[len] = '\0';
					return;
				}
			}
		}
		if (len <= 1)
			return;
		while (len > 1 && path[len - 1] != '/')
			len--;
		if (len > 1)
			len--;
	}
}

/* ---- the rows to print ---- */

/* the printed forest: nodes in the order added, children in order */
struct forest {
	struct fnode {
		const struct mntkit_statmount *sm;
		/* -U: the topmost dropped mount it was under, or NULL */
		const struct mntkit_statmount *moved_from;
		int tid; /* of its snapshot (TID) */
		ssize_t first_child, last_child, next;
	} * v;
	size_t n, cap;
	ssize_t first_root, last_root;
};

static ssize_t forest_add(struct forest *fo, const struct mntkit_statmount *sm,
			  ssize_t parent)
{
	struct fnode *node;
	ssize_t *first, *last;

	if (fo->n == fo->cap) {
		size_t ncap = fo->cap ? fo->cap * 2 : 256;
		struct fnode *nv = realloc(fo->v, ncap * sizeof(*nv));

		if (!nv)
			return -ENOMEM;
		fo->v = nv;
		fo->cap = ncap;
	}
	node = &fo->v[fo->n];
	node->sm = sm;
	node->moved_from = NULL;
	node->tid = 0;
	node->first_child = node->last_child = node->next = -1;
	first = parent < 0 ? &fo->first_root : &fo->v[parent].first_child;
	last = parent < 0 ? &fo->last_root : &fo->v[parent].last_child;
	if (*last >= 0)
		fo->v[*last].next = (ssize_t)fo->n;
	else
		*first = (ssize_t)fo->n;
	*last = (ssize_t)fo->n;
	return (ssize_t)fo->n++;
}

/* pre-order of the forest into rows, iteratively (a chain may be deep) */
static int forest_rows(const struct forest *fo, struct row **rows, size_t *n)
{
	ssize_t *up = NULL, cur = fo->first_root;
	size_t upcap = 0, depth = 0, k = 0;
	struct row *r;

	*rows = NULL;
	*n = 0;
	if (!fo->n)
		return 0;
	r = malloc(fo->n * sizeof(*r));
	if (!r)
		return -ENOMEM;
	while (cur >= 0) {
		const struct fnode *node = &fo->v[cur];

		memset(&r[k], 0, sizeof(r[k]));
		r[k].sm = node->sm;
		r[k].depth = (unsigned int)depth;
		r[k].last = node->next < 0;
		r[k].tid = node->tid;
		if (node->moved_from) {
			/* libmount gives it the dropped mount's parent */
			r[k].moved = true;
			r[k].parent_old = node->moved_from->mnt_parent_id_old;
			r[k].parent_uniq = node->moved_from->mnt_parent_id;
		}
		k++;
		if (node->first_child >= 0) {
			if (depth + 1 > upcap) {
				size_t ncap = upcap ? upcap * 2 : 64;
				ssize_t *nv = realloc(up, ncap * sizeof(*nv));

				if (!nv) {
					free(up);
					free(r);
					return -ENOMEM;
				}
				up = nv;
				upcap = ncap;
			}
			up[depth++] = cur;
			cur = node->first_child;
			continue;
		}
		while (fo->v[cur].next < 0 && depth)
			cur = up[--depth];
		cur = fo->v[cur].next;
	}
	free(up);
	*rows = r;
	*n = k;
	return 0;
}

/*
 * The children of every mount, in findmnt's order: libmount walks a
 * mount's children by ascending (old, reused) mount ID, not in table
 * order. Children of i: v[start[i] .. start[i + 1]).
 */
struct kids {
	size_t *start;
	size_t *v;
};

static const struct mntkit_table *kids_table; /* for the comparison */

static int cmp_old_id(const void *a, const void *b)
{
	const struct mntkit_statmount *x =
		mntkit_table_get(kids_table, *(const size_t *)a);
	const struct mntkit_statmount *y =
		mntkit_table_get(kids_table, *(const size_t *)b);

	if (x->mnt_id_old != y->mnt_id_old)
		return x->mnt_id_old < y->mnt_id_old ? -1 : 1;
	return x->mnt_id < y->mnt_id ? -1 : x->mnt_id > y->mnt_id;
}

static void kids_free(struct kids *k)
{
	free(k->start);
	free(k->v);
	k->start = NULL;
	k->v = NULL;
}

/*
 * -U: libmount's mnt_table_uniq_fs(MNT_UNIQ_KEEPTREE) as findmnt calls
 * it: of the mounts with the same target only the last in the table
 * stays; the mounts under a dropped one move under its parent (so, up a
 * chain of dropped ones, under the nearest mount that stays).
 */
struct uniq {
	char *gone;	     /* dropped: a later mount has the same target */
	ssize_t *parent;     /* the parent after the drops, -1 for a root */
	ssize_t *moved_from; /* the topmost dropped mount it was under, -1 */
	ssize_t *up, *top;   /* for a dropped one: where its chain ends */
};

static void uniq_free(struct uniq *u)
{
	free(u->gone);
	free(u->parent);
	free(u->moved_from);
	free(u->up);
	free(u->top);
	memset(u, 0, sizeof(*u));
}

static const struct mntkit_table *uniq_table; /* for the comparison */

static const char *point_of(const struct mntkit_table *t, size_t i)
{
	const struct mntkit_statmount *sm = mntkit_table_get(t, i);
	const char *point;

	if (mntkit_sm_str(sm, sm->size, MNTKIT_FIELD_MNT_POINT, &point) < 0)
		return NULL;
	return point;
}

static int cmp_target(const void *a, const void *b)
{
	size_t x = *(const size_t *)a, y = *(const size_t *)b;
	int c = strcmp(point_of(uniq_table, x), point_of(uniq_table, y));

	return c ? c : x < y ? -1 : x > y;
}

/* which mounts go: sort by target, all but the last of each run */
static int uniq_mark(const struct mntkit_table *t, struct uniq *u, size_t n)
{
	size_t *v = malloc((n ? n : 1) * sizeof(*v)), k = 0;

	if (!v)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++)
		if (point_of(t, i))
			v[k++] = i; /* no target (unreachable): no duplicate */
	uniq_table = t;
	qsort(v, k, sizeof(*v), cmp_target);
	for (size_t j = 0; j + 1 < k; j++)
		if (!strcmp(point_of(t, v[j]), point_of(t, v[j + 1])))
			u->gone[v[j]] = 1;
	free(v);
	return 0;
}

/*
 * Where the chains of dropped mounts end: for a dropped @g, the nearest
 * mount above it that stays (up) and the topmost dropped one on the way
 * (top), each chain walked once: O(n) however deep the stacks are.
 */
static int uniq_chains(const struct mntkit_table *t, struct uniq *u, size_t n)
{
	ssize_t *stack = malloc((n ? n : 1) * sizeof(*stack));

	if (!stack)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++)
		u->top[i] = -1;
	for (size_t g = 0; g < n; g++) {
		ssize_t p = (ssize_t)g, end, top = -1;
		size_t len = 0;

		if (!u->gone[g] || u->top[g] >= 0)
			continue;
		while (p >= 0 && u->gone[p] && u->top[p] == -1) {
			u->top[p] = -2; /* on this walk (guards a cycle) */
			stack[len++] = p;
			p = mntkit_table_parent(t, (size_t)p);
		}
		if (p >= 0 && u->gone[p] && u->top[p] >= 0) {
			end = u->up[p];
			top = u->top[p];
		} else {
			end = p >= 0 && u->gone[p] ? -1 : p;
		}
		while (len--) {
			if (top < 0)
				top = stack[len];
			u->up[stack[len]] = end;
			u->top[stack[len]] = top;
		}
	}
	free(stack);
	return 0;
}

static int uniq_build(const struct mntkit_table *t, struct uniq *u)
{
	size_t n = mntkit_table_count(t), sz = n ? n : 1;
	int r;

	u->gone = calloc(sz, 1);
	u->parent = malloc(sz * sizeof(*u->parent));
	u->moved_from = malloc(sz * sizeof(*u->moved_from));
	u->up = malloc(sz * sizeof(*u->up));
	u->top = malloc(sz * sizeof(*u->top));
	if (!u->gone || !u->parent || !u->moved_from || !u->up || !u->top)
		r = -ENOMEM;
	else
		r = uniq_mark(t, u, n);
	if (!r)
		r = uniq_chains(t, u, n);
	for (size_t i = 0; !r && i < n; i++) {
		ssize_t p = mntkit_table_parent(t, i);

		if (p < 0) /* -ENOENT: a root */
			p = -1;
		u->moved_from[i] = -1;
		u->parent[i] = p;
		if (p >= 0 && u->gone[p]) {
			u->parent[i] = u->up[p];
			u->moved_from[i] = u->top[p];
		}
	}
	if (r)
		uniq_free(u);
	return r;
}

/* the parent of @i in the tree findmnt walks (-1: a root, -2: dropped) */
static ssize_t tree_parent(const struct mntkit_table *t, const struct uniq *u,
			   size_t i)
{
	ssize_t p;

	if (!u) {
		p = mntkit_table_parent(t, i);
		return p < 0 ? -1 : p;
	}
	return u->gone[i] ? -2 : u->parent[i];
}

static int kids_build(const struct mntkit_table *t, const struct uniq *u,
		      struct kids *k)
{
	size_t n = mntkit_table_count(t), *pos;

	k->start = calloc(n + 2, sizeof(*k->start));
	k->v = malloc((n ? n : 1) * sizeof(*k->v));
	pos = malloc((n + 1) * sizeof(*pos));
	if (!k->start || !k->v || !pos) {
		free(pos);
		kids_free(k);
		return -ENOMEM;
	}
	for (size_t i = 0; i < n; i++) {
		ssize_t p = tree_parent(t, u, i);

		if (p >= 0)
			k->start[p + 1]++;
	}
	for (size_t i = 0; i < n; i++)
		k->start[i + 1] += k->start[i];
	memcpy(pos, k->start, (n + 1) * sizeof(*pos));
	for (size_t i = 0; i < n; i++) {
		ssize_t p = tree_parent(t, u, i);

		if (p >= 0)
			k->v[pos[p]++] = i;
	}
	free(pos);
	kids_table = t;
	for (size_t i = 0; i < n; i++)
		if (k->start[i + 1] - k->start[i] > 1)
			qsort(k->v + k->start[i], k->start[i + 1] - k->start[i],
			      sizeof(*k->v), cmp_old_id);
	return 0;
}

struct build {
	struct matcher *m;
	struct forest *fo;
	bool tree;	      /* nest the rows */
	bool all;	      /* a list of every mount: no matching */
	bool backward;	      /* -d backward */
	bool first;	      /* -f: stop after the first */
	const struct uniq *u; /* -U: the mounts dropped and moved, or NULL */
	size_t *order;	      /* list order (list_order()), or NULL */
	int tid;	      /* TID of the snapshot walked */
	char *done;	      /* per table index: in the forest already (-R) */
	ssize_t *node_of;     /* per table index: its forest node (-R) */
	struct kids k;
	/* the walk: per depth the mount, its next child, its printed node */
	size_t *node, *cur;
	ssize_t *anc;
	size_t cap;
};

static int frame(struct build *b, size_t sp, size_t node, ssize_t anc)
{
	if (sp >= b->cap) {
		size_t ncap = sp * 2 + 64;
		size_t *nn = realloc(b->node, ncap * sizeof(*nn));
		size_t *nc;
		ssize_t *na;

		if (!nn)
			return -ENOMEM;
		b->node = nn;
		nc = realloc(b->cur, ncap * sizeof(*nc));
		if (!nc)
			return -ENOMEM;
		b->cur = nc;
		na = realloc(b->anc, ncap * sizeof(*na));
		if (!na)
			return -ENOMEM;
		b->anc = na;
		b->cap = ncap;
	}
	b->node[sp] = node;
	b->cur[sp] = b->k.start[node];
	b->anc[sp] = anc;
	return 0;
}

/* add mount @i of @t under the node @parent, with what -U changed */
static ssize_t add_node(struct build *b, const struct mntkit_table *t, size_t i,
			ssize_t parent)
{
	ssize_t me = forest_add(b->fo, mntkit_table_get(t, i), parent);

	if (me >= 0)
		b->fo->v[me].tid = b->tid;
	if (me >= 0 && b->u && b->u->moved_from[i] >= 0)
		b->fo->v[me].moved_from =
			mntkit_table_get(t, (size_t)b->u->moved_from[i]);
	return me;
}

/* visit @i under the printed node @above: its printed node (or @above) */
static ssize_t visit_filtered(struct build *b, const struct mntkit_table *t,
			      size_t i, ssize_t above)
{
	if (!matches(b->m, mntkit_table_get(t, i)))
		return above;
	return add_node(b, t, i, above);
}

/*
 * The roots of the tree, in table order; with -U also the mounts whose
 * parents all went (libmount prints them as further trees).
 */
static ssize_t next_root(const struct build *b, const struct mntkit_table *t,
			 ssize_t prev)
{
	size_t n = mntkit_table_count(t);
	ssize_t first;

	if (!b->u)
		return prev < 0 ? mntkit_table_first_root(t)
				: mntkit_table_next_sibling(t, (size_t)prev);
	/* the table's first root first (a file's: libmount's root) */
	first = mntkit_table_first_root(t);
	if (prev < 0 && first >= 0 && tree_parent(t, b->u, (size_t)first) == -1)
		return first;
	if (prev == first)
		prev = -1;
	for (size_t i = (size_t)(prev + 1); i < n; i++)
		if ((ssize_t)i != first && tree_parent(t, b->u, i) == -1)
			return (ssize_t)i;
	return -1;
}

/* the list order of the list and of -R, -d backward reversed */
static size_t nth(const struct build *b, size_t n, size_t k)
{
	size_t j = b->backward ? n - 1 - k : k;

	return b->order ? b->order[j] : j;
}

/*
 * The list order of @t (-l, -f, -D, -R): findmnt's is mountinfo's, the
 * kernel's listing order. A snapshot is in ID order, which is that order
 * but on the mountinfo backend, whose hidden mounts are named by their old
 * IDs (mntkit_list_order()). Table indices, or NULL for the table's order.
 */
static size_t *list_order(const struct cmdline *cl,
			  const struct mntkit_table *t)
{
	size_t n = mntkit_table_count(t), *order = NULL;
	const struct mntkit_opts *opts = cl->ns;
	MNTKIT_OPTS(o);
	uint64_t *ids;

	if (mntkit_get_backend() != MNTKIT_BACKEND_MOUNTINFO || !n ||
	    cl->ntabfiles)
		return NULL; /* a file's table is in file order */
	if (cl->all_ns) {
		const struct mntkit_statmount *sm = mntkit_table_get(t, 0);

		if (!(sm->mask & MNTKIT_STATMOUNT_MNT_NS_ID))
			return NULL;
		o.mnt_ns_id = sm->mnt_ns_id;
		opts = &o;
	}
	ids = malloc(n * sizeof(*ids));
	if (ids)
		order = malloc(n * sizeof(*order));
	for (size_t i = 0; order && i < n; i++)
		ids[i] = mntkit_table_get(t, i)->mnt_id;
	if (order && mntkit_list_order(ids, n, opts) < 0) {
		free(order);
		order = NULL;
	}
	for (size_t k = 0; order && k < n; k++) {
		ssize_t i = mntkit_table_find(t, ids[k]);

		if (i < 0) { /* cannot be: the IDs are the table's */
			free(order);
			order = NULL;
			break;
		}
		order[k] = (size_t)i;
	}
	free(ids);
	return order;
}

/*
 * The whole tree, filtered: a matching mount hangs under its nearest
 * matching ancestor (findmnt's tree with -t, -O, ...). Pre-order, without
 * recursion (a stack of mounts can be deep).
 */
static int build_tree(struct build *b, const struct mntkit_table *t)
{
	int r = kids_build(t, b->u, &b->k);

	for (ssize_t root = next_root(b, t, -1); !r && root >= 0;
	     root = next_root(b, t, root)) {
		ssize_t me = visit_filtered(b, t, (size_t)root, -1);
		size_t sp = 1;

		if (me < -1 || frame(b, 0, (size_t)root, me) < 0) {
			r = -ENOMEM;
			break;
		}
		while (sp && !r) {
			size_t f = sp - 1, c;

			if (b->cur[f] == b->k.start[b->node[f] + 1]) {
				sp--;
				continue;
			}
			c = b->k.v[b->cur[f]++];
			me = visit_filtered(b, t, c, b->anc[f]);
			if (me < -1 || frame(b, sp++, c, me) < 0)
				r = -ENOMEM;
		}
	}
	kids_free(&b->k);
	return r;
}

/* the matching mounts in table (ID) order, flat */
static int build_list(struct build *b, const struct mntkit_table *t)
{
	size_t n = mntkit_table_count(t);

	for (size_t k = 0; k < n; k++) {
		size_t i = nth(b, n, k);

		if (b->u && b->u->gone[i])
			continue;
		if (!b->all && !matches(b->m, mntkit_table_get(t, i)))
			continue;
		if (add_node(b, t, i, -1) < 0)
			return -ENOMEM;
		if (b->first)
			break;
	}
	return 0;
}

/*
 * -R: each matching mount not printed yet, in table order, with all the
 * mounts below it (those printed already are left out with their
 * subtrees, as findmnt does).
 */
static int add_one(struct build *b, const struct mntkit_table *t, size_t i,
		   ssize_t parent)
{
	ssize_t me = add_node(b, t, i, b->tree ? parent : -1);

	if (me < 0)
		return (int)me;
	b->done[i] = 1;
	b->node_of[i] = me;
	return 0;
}

static int add_subtree(struct build *b, const struct mntkit_table *t,
		       size_t top)
{
	size_t sp = 1;
	int r = add_one(b, t, top, -1);

	if (!r)
		r = frame(b, 0, top, b->node_of[top]);
	while (sp && !r) {
		size_t f = sp - 1, c;

		if (b->cur[f] == b->k.start[b->node[f] + 1]) {
			sp--;
			continue;
		}
		c = b->k.v[b->cur[f]++];
		if (b->done[c])
			continue; /* printed already, with its subtree */
		r = add_one(b, t, c, b->node_of[b->node[f]]);
		if (!r)
			r = frame(b, sp++, c, b->node_of[c]);
	}
	return r;
}

static int build_submounts(struct build *b, const struct mntkit_table *t)
{
	size_t n = mntkit_table_count(t);
	int r = 0;

	b->done = calloc(n ? n : 1, 1);
	b->node_of = malloc((n ? n : 1) * sizeof(*b->node_of));
	if (!b->done || !b->node_of)
		r = -ENOMEM;
	if (!r)
		r = kids_build(t, b->u, &b->k);
	for (size_t k = 0; k < n && !r; k++) {
		size_t i = nth(b, n, k);

		if (b->done[i] || (b->u && b->u->gone[i]) ||
		    !matches(b->m, mntkit_table_get(t, i)))
			continue;
		r = add_subtree(b, t, i);
		if (b->first)
			break;
	}
	kids_free(&b->k);
	free(b->done);
	free(b->node_of);
	b->done = NULL;
	b->node_of = NULL;
	return r;
}

/* ---- mount namespaces ---- */

/*
 * findmnt's TID of the kernel's table: the process whose
 * /proc/PID/mountinfo it read - its own, /proc/self as /proc names it.
 */
static int self_tid(void)
{
	char buf[32];
	ssize_t len = readlink("/proc/self", buf, sizeof(buf) - 1);
	uint64_t v;

	if (len > 0) {
		buf[len] = '\0';
		if (cli_parse_number_lax(buf, &v) == 1 && v <= INT_MAX)
			return (int)v;
	}
	return (int)getpid();
}

struct nsent {
	uint64_t id;
	pid_t pid;  /* the lowest process in it, 0 for none */
	pid_t ppid; /* that process's parent */
	ssize_t parent, first_child, last_child, next; /* --order tree */
};

struct nslist {
	struct nsent *v;
	size_t n, cap;
};

static struct nsent *ns_find(struct nslist *nl, uint64_t id)
{
	for (size_t i = 0; i < nl->n; i++)
		if (nl->v[i].id == id)
			return &nl->v[i];
	return NULL;
}

static int ns_add(struct nslist *nl, uint64_t id, pid_t pid)
{
	struct nsent *e = ns_find(nl, id);

	if (e) {
		if (pid && (!e->pid || pid < e->pid))
			e->pid = pid;
		return 0;
	}
	if (nl->n == nl->cap) {
		size_t ncap = nl->cap ? nl->cap * 2 : 16;
		struct nsent *nv = realloc(nl->v, ncap * sizeof(*nv));

		if (!nv)
			return -ENOMEM;
		nl->v = nv;
		nl->cap = ncap;
	}
	memset(&nl->v[nl->n], 0, sizeof(nl->v[nl->n]));
	nl->v[nl->n].id = id;
	nl->v[nl->n].pid = pid;
	nl->n++;
	return 0;
}

/* every namespace NS_MNT_GET_NEXT/PREV walk to from our own (6.12+) */
static int ns_walk(struct nslist *nl, int self_fd, unsigned long req)
{
	int fd = self_fd, r = 0;

	for (;;) {
		struct lsmnt_mnt_ns_info info = {.size = sizeof(info)};
		int nfd = ioctl(fd, req, &info);

		if (fd != self_fd)
			close(fd);
		if (nfd < 0)
			break;
		r = ns_add(nl, info.mnt_ns_id, 0);
		if (r < 0) {
			close(nfd);
			break;
		}
		fd = nfd;
	}
	return r;
}

static pid_t parent_pid(pid_t pid)
{
	char path[64], buf[512], *p;
	ssize_t n;
	int fd, ppid = 0;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	p = strrchr(buf, ')');
	if (!p || sscanf(p + 1, " %*c %d", &ppid) != 1)
		return 0;
	return ppid;
}

/* the namespaces processes sit in (/proc/PID/ns/mnt), by ID */
static int ns_from_procs(struct nslist *nl)
{
	DIR *d = opendir("/proc");
	struct dirent *de;
	int r = 0;

	if (!d)
		return 0;
	while (!r && (de = readdir(d))) {
		uint64_t pid, id;

		if (cli_parse_number_lax(de->d_name, &pid) != 1 || pid > INT_MAX ||
		    !isdigit((unsigned char)de->d_name[0]))
			continue;
		if (mntkit_ns_id_from_pid((pid_t)pid, &id) < 0)
			continue; /* gone, or not ours to see */
		r = ns_add(nl, id, (pid_t)pid);
	}
	closedir(d);
	return r;
}

static int cmp_ns_id(const void *a, const void *b)
{
	const struct nsent *x = a, *y = b;

	return x->id < y->id ? -1 : x->id > y->id;
}

/* the namespace a process is in, by the lowest process of each */
static ssize_t ns_of_pid(const struct nslist *nl, pid_t pid)
{
	uint64_t id;

	if (pid <= 0 || mntkit_ns_id_from_pid(pid, &id) < 0)
		return -1;
	for (size_t i = 0; i < nl->n; i++)
		if (nl->v[i].id == id)
			return (ssize_t)i;
	return -1;
}

/*
 * --order tree: a namespace hangs under the namespace of the nearest
 * ancestor process (of its lowest process) that sits elsewhere; then the
 * order is the pre-order of that tree, siblings by ID.
 */
static int ns_order_tree(struct nslist *nl, uint64_t **order)
{
	size_t k = 0;
	uint64_t *out = malloc((nl->n ? nl->n : 1) * sizeof(*out));
	ssize_t *up;

	up = malloc((nl->n + 1) * sizeof(*up));
	if (!out || !up) {
		free(out);
		free(up);
		return -ENOMEM;
	}
	for (size_t i = 0; i < nl->n; i++)
		nl->v[i].parent = nl->v[i].first_child = nl->v[i].last_child =
			nl->v[i].next = -1;
	for (size_t i = 0; i < nl->n; i++) {
		pid_t p = nl->v[i].pid;
		ssize_t pns = -1;

		for (int hops = 0; p > 1 && hops < 4096; hops++) {
			p = parent_pid(p);
			pns = ns_of_pid(nl, p);
			if (pns >= 0 && (size_t)pns != i)
				break;
			pns = -1;
		}
		nl->v[i].parent = pns;
	}
	/* link children in ID order (the list is sorted by ID) */
	for (size_t i = 0; i < nl->n; i++) {
		ssize_t p = nl->v[i].parent;

		if (p < 0)
			continue;
		if (nl->v[p].last_child >= 0)
			nl->v[nl->v[p].last_child].next = (ssize_t)i;
		else
			nl->v[p].first_child = (ssize_t)i;
		nl->v[p].last_child = (ssize_t)i;
	}
	for (size_t r = 0; r < nl->n; r++) {
		size_t depth = 0;
		ssize_t cur;

		if (nl->v[r].parent >= 0)
			continue;
		cur = (ssize_t)r;
		while (cur >= 0 && k < nl->n) {
			out[k++] = nl->v[cur].id;
			if (nl->v[cur].first_child >= 0 && depth < nl->n) {
				up[depth++] = cur;
				cur = nl->v[cur].first_child;
				continue;
			}
			while (cur >= 0 && nl->v[cur].next < 0 && depth)
				cur = up[--depth];
			cur = depth ? nl->v[cur].next : -1;
		}
	}
	/* a cycle (impossible for processes, but cheap to guard) */
	for (size_t i = 0; k < nl->n && i < nl->n; i++) {
		bool seen = false;

		for (size_t j = 0; j < k && !seen; j++)
			seen = out[j] == nl->v[i].id;
		if (!seen)
			out[k++] = nl->v[i].id;
	}
	free(up);
	*order = out;
	return (int)k;
}

/*
 * TID with --all-namespaces: a process in each namespace - lsmnt itself in
 * its own, else the lowest process found there, 0 if none.
 */
static int ns_pids(const struct nslist *nl, const uint64_t *ids, int n,
		   uint64_t self_id, int **pids)
{
	*pids = calloc(n > 0 ? (size_t)n : 1, sizeof(**pids));
	if (!*pids)
		return -ENOMEM;
	for (int i = 0; i < n; i++) {
		for (size_t j = 0; j < nl->n; j++)
			if (nl->v[j].id == ids[i])
				(*pids)[i] = nl->v[j].pid;
		if (ids[i] == self_id)
			(*pids)[i] = self_tid();
	}
	return 0;
}

static int list_namespaces(const struct cmdline *cl, uint64_t **ids,
			   int **pids)
{
	struct nslist nl = {0};
	int self = mntkit_ns_open_pid(0), r = 0;
	uint64_t self_id = 0;

	*ids = NULL;
	if (pids)
		*pids = NULL;
	if (self < 0) {
		cli_errmsg("--all-namespaces", "/proc/self/ns/mnt: %s",
		       strerror(-self));
		return -1;
	}
	if (mntkit_ns_id_from_fd(self, &self_id) == 0)
		r = ns_add(&nl, self_id, getpid());
	if (!r)
		r = ns_walk(&nl, self, LSMNT_NS_MNT_GET_PREV);
	if (!r)
		r = ns_walk(&nl, self, LSMNT_NS_MNT_GET_NEXT);
	close(self);
	if (!r)
		r = ns_from_procs(&nl);
	if (r < 0) {
		cli_errmsg("--all-namespaces", "%s", strerror(-r));
		free(nl.v);
		return -1;
	}
	if (!nl.n) {
		cli_errmsg("--all-namespaces", "no mount namespace IDs (needs "
					   "Linux 6.10 or later)");
		free(nl.v);
		return -1;
	}
	qsort(nl.v, nl.n, sizeof(*nl.v), cmp_ns_id);
	if (cl->order == ORDER_TREE) {
		r = ns_order_tree(&nl, ids);
		if (r < 0)
			cli_errmsg("--all-namespaces", "%s", strerror(-r));
	} else {
		*ids = malloc(nl.n * sizeof(**ids));
		r = *ids ? (int)nl.n : -1;
		for (size_t i = 0; *ids && i < nl.n; i++)
			(*ids)[i] = nl.v[i].id;
		if (r < 0)
			cli_errmsg("--all-namespaces", "%s", strerror(ENOMEM));
	}
	if (r >= 0 && pids && ns_pids(&nl, *ids, r, self_id, pids) < 0) {
		cli_errmsg("--all-namespaces", "%s", strerror(ENOMEM));
		free(*ids);
		*ids = NULL;
		r = -1;
	}
	free(nl.v);
	return r;
}

/* ---- main work ---- */

/*
 * What the snapshot must hold: the shown columns' groups and whatever the
 * filters and -U compare, whether or not a column shows it.
 */
static uint64_t wanted_mask(const struct cmdline *cl)
{
	uint64_t m = filter_mask(&cl->f);

	if (cl->uniq) /* mounts on the same target */
		m |= MNTKIT_STATMOUNT_MNT_POINT;
	if (cl->mtab) /* utab's entries are matched by these */
		m |= MNTKIT_STATMOUNT_MNT_ROOT | MNTKIT_STATMOUNT_MNT_POINT |
		     MNTKIT_STATMOUNT_SB_SOURCE;
	for (size_t c = 0; c < cl->ncols; c++)
		m |= lsmnt_cols[cl->cols[c]].mask;
	return m;
}

static const char *ns_subject(const struct cmdline *cl)
{
	if (cl->ns_arg)
		return "--ns";
	if (cl->task_arg)
		return "-N";
	return cl->unreachable ? "--unreachable" : NULL;
}

static int take_snapshot(const struct cmdline *cl,
			 const struct mntkit_opts *opts, uint64_t mask,
			 struct mntkit_table **out, bool quiet)
{
	unsigned int flags = cl->unreachable ? MNTKIT_TABLE_UNREACHABLE : 0;
	int r = mntkit_table_new(mask, flags, opts, out);

	if (r == 0 || quiet)
		return r;
	if (cli_report_refusal(ns_subject(cl), CLI_REFUSED_QUERY, -r))
		return r;
	if (r == -EPERM)
		cli_errmsg(ns_subject(cl), "%s (%s)", strerror(-r),
			   cli_eperm_hint());
	else if (r == -ENOSYS)
		cli_errmsg(ns_subject(cl),
		       "%s (this kernel has no listmount(2); "
		       "try MNTKIT_BACKEND=mountinfo)",
		       strerror(-r));
	else
		cli_errmsg(ns_subject(cl), "cannot list the mounts: %s",
		       strerror(-r));
	return r;
}

static void free_tables(struct mntkit_table **tabs, size_t n)
{
	for (size_t i = 0; i < n; i++)
		mntkit_table_free(tabs[i]);
	free(tabs);
}

static bool has_col(const struct cmdline *cl, int col)
{
	for (size_t c = 0; c < cl->ncols; c++)
		if (cl->cols[c] == col)
			return true;
	return false;
}

/*
 * -F, -s: the tables of the files, as findmnt reads them (bad lines are
 * passed over with a warning); every file must be readable.
 */
static int read_tabfiles(struct cmdline *cl, struct mntkit_table ***tabs,
			 size_t *ntabs)
{
	*tabs = calloc(cl->ntabfiles, sizeof(**tabs));
	if (!*tabs)
		return -ENOMEM;
	cl->tab_mountinfo = true;
	for (size_t i = 0; i < cl->ntabfiles; i++) {
		/* findmnt: -s and -x read fstab format, -F guesses */
		MNTKIT_TAB_OPTS(o, .flags = MNTKIT_TAB_SKIP_BAD,
				.format = cl->fstab || cl->verify
						  ? MNTKIT_TAB_FSTAB
						  : MNTKIT_TAB_AUTO);
		const char *path = cl->tabfiles[i];
		int r = mntkit_table_read_file(path, &o, &(*tabs)[i]);

		if (r < 0) {
			cli_errmsg(NULL, "can't read %s: %s", path,
				   strerror(-r));
			return r;
		}
		(*ntabs)++;
		cl->nbad[i] = o.nr_bad;
		if (o.nr_bad)
			cli_errmsg(path,
				   "parse error at line %zu, column %zu: %s "
				   "-- ignored%s",
				   o.err_line, o.err_col, o.err_msg,
				   o.nr_bad > 1 ? " (and more lines)" : "");
		if (o.format != MNTKIT_TAB_MOUNTINFO)
			cl->tab_mountinfo = false;
	}
	cell_tabs = *tabs;
	cell_ntabs = *ntabs;
	return 0;
}

/*
 * -m: libmount's mtab, the kernel's table with the userspace options of
 * utab (LIBMOUNT_UTAB, else /run/mount/utab) appended to OPTIONS. Each
 * utab entry, from the last, goes to the last mount of the table (in list
 * order) not merged yet whose root, mount point and source are the
 * entry's (libmount's mnt_table_merge_user_fs()).
 */
static struct {
	const struct mntkit_table *t;
	const char **user; /* per table index */
	struct mntkit_table *utab;
} mtab;

static const char *mtab_user_options(const struct mntkit_statmount *sm)
{
	ssize_t i = mntkit_table_find(mtab.t, sm->mnt_id);

	return i >= 0 && mntkit_table_get(mtab.t, (size_t)i) == sm
		       ? mtab.user[i]
		       : NULL;
}

static bool str_same(const char *a, const char *b)
{
	return a == b || (a && b && !strcmp(a, b));
}

static const char *sm_string(const struct mntkit_statmount *sm,
			     enum mntkit_field f)
{
	const char *s = NULL;

	if (mntkit_sm_str(sm, sm->size, f, &s) < 0)
		return NULL;
	return s;
}

static size_t *list_order(const struct cmdline *cl,
			  const struct mntkit_table *t);

static int mtab_merge(const struct cmdline *cl, const struct mntkit_table *t)
{
	MNTKIT_TAB_OPTS(o, .format = MNTKIT_TAB_UTAB,
			.flags = MNTKIT_TAB_SKIP_BAD);
	const char *path = secure_getenv("LIBMOUNT_UTAB");
	size_t n = mntkit_table_count(t), *order;
	int r;

	if (!path || !*path)
		path = "/run/mount/utab";
	r = mntkit_table_read_file(path, &o, &mtab.utab);
	if (r == -ENOENT)
		return 0; /* no utab: nothing to merge */
	if (r < 0) {
		cli_errmsg(NULL, "can't read %s: %s", path, strerror(-r));
		return r;
	}
	mtab.t = t;
	mtab.user = calloc(n + 1, sizeof(*mtab.user));
	if (!mtab.user)
		return -ENOMEM;
	order = list_order(cl, t);
	for (size_t u = mntkit_table_count(mtab.utab); u-- > 0;) {
		const struct mntkit_statmount *us = mntkit_table_get(mtab.utab, u);
		const char *target = sm_string(us, MNTKIT_FIELD_MNT_POINT);
		const char *root = sm_string(us, MNTKIT_FIELD_MNT_ROOT);
		const char *src = sm_string(us, MNTKIT_FIELD_SB_SOURCE);
		MNTKIT_TAB_ENTRY(e);

		if (mntkit_table_tab_entry(mtab.utab, u, &e) < 0 ||
		    !e.user_options || !target || !root)
			continue;
		for (size_t k = n; k-- > 0;) {
			size_t i = order ? order[k] : k;
			const struct mntkit_statmount *sm = mntkit_table_get(t, i);

			if (mtab.user[i] ||
			    !str_same(sm_string(sm, MNTKIT_FIELD_MNT_ROOT), root) ||
			    !str_same(sm_string(sm, MNTKIT_FIELD_MNT_POINT), target) ||
			    !str_same(sm_string(sm, MNTKIT_FIELD_SB_SOURCE), src))
				continue;
			mtab.user[i] = e.user_options;
			break;
		}
	}
	free(order);
	cell_user_options = mtab_user_options;
	return 0;
}

static void mtab_free(void)
{
	free(mtab.user);
	mntkit_table_free(mtab.utab);
	memset(&mtab, 0, sizeof(mtab));
	cell_user_options = NULL;
}

/* the snapshots: one, or one per namespace with --all-namespaces */
static int snapshots(struct cmdline *cl, struct mntkit_table ***tabs,
		     size_t *ntabs, int **tids)
{
	uint64_t mask = wanted_mask(cl), *ids = NULL;
	size_t skipped = 0;
	int n, r, last_err = 0, *pids = NULL;
	bool want_tid = has_col(cl, COL_TID);

	*ntabs = 0;
	*tids = NULL;
	if (cl->ntabfiles)
		return read_tabfiles(cl, tabs, ntabs);
	if (!cl->all_ns) {
		*tabs = calloc(1, sizeof(**tabs));
		*tids = want_tid ? calloc(1, sizeof(**tids)) : NULL;
		if (!*tabs || (want_tid && !*tids))
			return -ENOMEM;
		/* -N and --ns pid:PID: that process; --ns ID|PATH: none */
		if (want_tid)
			**tids = cl->ns ? cl->ns->pid : self_tid();
		r = take_snapshot(cl, cl->ns, mask, &(*tabs)[0], false);
		if (r < 0)
			return r;
		*ntabs = 1;
		return cl->mtab ? mtab_merge(cl, (*tabs)[0]) : 0;
	}
	n = list_namespaces(cl, &ids, want_tid ? &pids : NULL);
	if (n < 0)
		return -EINVAL;
	*tabs = calloc((size_t)n + 1, sizeof(**tabs));
	*tids = pids; /* compacted below, as the tables are */
	if (!*tabs) {
		free(ids);
		return -ENOMEM;
	}
	for (int i = 0; i < n; i++) {
		MNTKIT_OPTS(o, .mnt_ns_id = ids[i]);

		r = take_snapshot(cl, &o, mask, &(*tabs)[*ntabs], true);
		if (r == -ENOENT)
			continue; /* gone since it was listed */
		if (r < 0) {
			skipped++; /* not ours to see */
			last_err = r;
			continue;
		}
		if (pids)
			pids[*ntabs] = pids[i];
		(*ntabs)++;
	}
	free(ids);
	if (skipped)
		cli_errmsg("--all-namespaces",
		       "%zu of %d mount namespaces "
		       "skipped: %s",
		       skipped, n, strerror(-last_err));
	if (!*ntabs && !last_err)
		cli_errmsg("--all-namespaces", "every mount namespace vanished");
	return *ntabs ? 0 : last_err ? last_err : -ENOENT;
}

struct plan {
	bool tree_mode;	 /* findmnt's FL_TREE after all options */
	bool whole_tree; /* the whole tree: exit 0 even when empty */
	bool submounts;
};

static struct plan make_plan(const struct cmdline *cl)
{
	const struct filter *f = &cl->f;
	struct plan p = {0};

	/* findmnt: -D is a list, and so are -f, -S and -T without -R */
	p.tree_mode = cl->pr.mode == OUT_TREE && !cl->df;
	p.submounts = cl->submounts && !list_all(f);
	if (!p.submounts &&
	    (f->source || f->source_devno || f->target_arg || f->first))
		p.tree_mode = false;
	if (cl->force_tree)
		p.tree_mode = true;
	p.whole_tree = p.tree_mode && !p.submounts;
	return p;
}

static int build_rows(struct cmdline *cl, const struct plan *p,
		      struct mntkit_table **tabs, size_t ntabs,
		      struct forest *fo)
{
	struct matcher m = {.f = &cl->f};
	struct build b = {.m = &m,
			  .fo = fo,
			  .tree = p->tree_mode,
			  .all = list_all(&cl->f),
			  .backward = cl->backward,
			  .first = cl->f.first};
	struct uniq u = {0};
	int r = 0;

	outbuf_init(&m.s1);
	outbuf_init(&m.s2);
	fo->first_root = fo->last_root = -1;
	for (size_t k = 0; k < ntabs && !r; k++) {
		size_t ti = b.backward ? ntabs - 1 - k : k;
		struct mntkit_table *t = tabs[ti];

		if (b.first && fo->n && !p->whole_tree)
			break;
		b.tid = cl->tids ? cl->tids[ti] : 0;
		m.t = t;
		if (cl->uniq) {
			r = uniq_build(t, &u);
			if (r < 0)
				break;
			b.u = &u;
		}
		if (!p->whole_tree)
			b.order = list_order(cl, t);
		if (p->whole_tree)
			r = build_tree(&b, t);
		else if (p->submounts)
			r = build_submounts(&b, t);
		else
			r = build_list(&b, t);
		free(b.order);
		b.order = NULL;
		uniq_free(&u);
		b.u = NULL;
	}
	free(b.node);
	free(b.cur);
	free(b.anc);
	outbuf_free(&m.s1);
	outbuf_free(&m.s2);
	return r;
}

/* -T, -S, arguments: resolve them as findmnt does, then build */
static int select_rows(struct cmdline *cl, const struct plan *p,
		       struct mntkit_table **tabs, size_t ntabs,
		       struct forest *fo)
{
	struct filter *f = &cl->f;
	int r;

	if (f->source && !f->nocanon)
		f->source_canon = canon_source(f->source);
	if (f->target_arg)
		f->target = canon_target(f, f->target_arg);
	if (f->source_only && f->source) {
		f->source_pass = 1;
		r = build_rows(cl, p, tabs, ntabs, fo);
		if (r < 0 || fo->n)
			return r;
		f->source_pass = 2;
	}
	r = build_rows(cl, p, tabs, ntabs, fo);
	if (r < 0 || fo->n)
		return r;
	if (f->swap) {
		/* one argument, no such source: maybe a mount point */
		f->target_arg = f->source;
		f->target = canon_target(f, f->target_arg);
		f->source = NULL;
		f->strict = true;
		r = build_rows(cl, p, tabs, ntabs, fo);
		if (r < 0 || fo->n)
			return r;
	}
	if (f->target_arg && !f->strict && f->target) {
		target_walk_up(f, tabs, ntabs);
		r = build_rows(cl, p, tabs, ntabs, fo);
	}
	return r;
}

/*
 * SIZE, AVAIL, USED, USE%: one statvfs(2) per printed row, and none at
 * all (nor the memory) when no such column is shown.
 */
static int add_usage(const struct cmdline *cl, struct row *rows, size_t n,
		     struct fs_usage **usage)
{
	bool want = false;

	*usage = NULL;
	for (size_t c = 0; c < cl->ncols; c++)
		want |= !!(lsmnt_cols[cl->cols[c]].flags & CF_STATVFS);
	if (!want || !n)
		return 0;
	*usage = calloc(n, sizeof(**usage));
	if (!*usage)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		fs_usage_get(rows[i].sm, &(*usage)[i]);
		rows[i].usage = &(*usage)[i];
	}
	return 0;
}

/*
 * LABEL, UUID, PARTUUID, PARTLABEL, SOURCES: libblkid's answers for the
 * source of each printed row, looked up once per distinct source (rows
 * sorted by it), and not at all when no such column is shown.
 */
static int cmp_row_source(const void *a, const void *b)
{
	const struct row *x = *(const struct row *const *)a;
	const struct row *y = *(const struct row *const *)b;
	const char *sx = NULL, *sy = NULL;

	mntkit_sm_str(x->sm, x->sm->size, MNTKIT_FIELD_SB_SOURCE, &sx);
	mntkit_sm_str(y->sm, y->sm->size, MNTKIT_FIELD_SB_SOURCE, &sy);
	if (!sx || !sy)
		return !!sx - !!sy;
	return strcmp(sx, sy);
}

static unsigned int tags_wanted(const struct cmdline *cl)
{
	unsigned int want = 0;

	for (size_t c = 0; c < cl->ncols; c++) {
		switch (cl->cols[c]) {
		case COL_LABEL:
			want |= WANT_TAG(TAG_LABEL);
			break;
		case COL_UUID:
			want |= WANT_TAG(TAG_UUID);
			break;
		case COL_PARTUUID:
			want |= WANT_TAG(TAG_PARTUUID);
			break;
		case COL_PARTLABEL:
			want |= WANT_TAG(TAG_PARTLABEL);
			break;
		case COL_SOURCES:
			want |= WANT_SOURCES;
			break;
		default:
			break;
		}
	}
	return want;
}

static int add_tags(const struct cmdline *cl, struct row *rows, size_t n,
		    struct devtags **tags, size_t *ntags)
{
	unsigned int want = tags_wanted(cl);
	struct devlookup dl = {0};
	struct row **by_src;
	const char *prev = NULL;

	*tags = NULL;
	*ntags = 0;
	if (!want || !n)
		return 0;
	by_src = malloc(n * sizeof(*by_src));
	*tags = calloc(n, sizeof(**tags));
	if (!by_src || !*tags) {
		free(by_src);
		return -ENOMEM;
	}
	for (size_t i = 0; i < n; i++)
		by_src[i] = &rows[i];
	qsort(by_src, n, sizeof(*by_src), cmp_row_source);
	for (size_t i = 0; i < n; i++) {
		const struct mntkit_statmount *sm = by_src[i]->sm;
		const char *src = NULL;

		if (mntkit_sm_str(sm, sm->size, MNTKIT_FIELD_SB_SOURCE, &src) <
			    0 ||
		    !src)
			continue;
		if (!prev || strcmp(prev, src))
			devtags_get(&dl, src, want, cl->pr.evaluate,
				    &(*tags)[(*ntags)++]);
		prev = src;
		by_src[i]->tags = &(*tags)[*ntags - 1];
	}
	devlookup_end(&dl);
	free(by_src);
	return 0;
}

static void free_tags(struct devtags *tags, size_t n)
{
	for (size_t i = 0; i < n; i++)
		devtags_free(&tags[i]);
	free(tags);
}

/* ---- --poll ---- */

/* what the batches of --poll need from here: filters, statvfs, libblkid */
struct poll_ctx {
	struct cmdline *cl;
	struct matcher m;
	int tid; /* TID: 0 unless shown */
	struct fs_usage *usage;
	struct devtags *tags;
	size_t ntags;
};

static bool poll_match(void *ctx, const struct mntkit_statmount *sm)
{
	struct poll_ctx *pc = ctx;

	return matches(&pc->m, sm); /* findmnt's match_func(), -i too */
}

static int poll_decorate(void *ctx, struct row *rows, size_t n)
{
	struct poll_ctx *pc = ctx;
	int r;

	for (size_t i = 0; i < n; i++)
		rows[i].tid = pc->tid;
	r = add_usage(pc->cl, rows, n, &pc->usage);
	if (!r)
		r = add_tags(pc->cl, rows, n, &pc->tags, &pc->ntags);
	return r;
}

static void poll_undecorate(void *ctx)
{
	struct poll_ctx *pc = ctx;

	free(pc->usage);
	free_tags(pc->tags, pc->ntags);
	pc->usage = NULL;
	pc->tags = NULL;
	pc->ntags = 0;
}

/*
 * -p: the watch (lsmnt-poll.c) with lsmnt's filters and printers. The
 * filters are findmnt's for --poll: those of a list, each change matched
 * by its new record (the old one for an umount); -T and one argument name
 * just what they say (no walk up to a mount point, no source/target swap).
 */
static int run_poll(struct cmdline *cl)
{
	struct filter *f = &cl->f;
	struct poll_ctx pc = {.cl = cl, .m = {.f = f}};
	const uint64_t need = MNTKIT_STATMOUNT_MNT_BASIC |
			      MNTKIT_STATMOUNT_SB_BASIC |
			      MNTKIT_STATMOUNT_MNT_OPTS |
			      MNTKIT_STATMOUNT_MNT_POINT |
			      MNTKIT_STATMOUNT_SB_SOURCE;
	struct poll_opts po = {.ns = cl->ns,
			       .ns_subject = ns_subject(cl),
			       .mask = wanted_mask(cl) | need,
			       .actions = cl->actions,
			       .timeout_ms = cl->timeout_ms,
			       .first_only = f->first,
			       .backward = cl->backward,
			       .match = poll_match,
			       .decorate = poll_decorate,
			       .undecorate = poll_undecorate,
			       .ctx = &pc};
	int r;

	if (has_col(cl, COL_TID))
		pc.tid = cl->ns ? cl->ns->pid : self_tid();
	if (f->source && !f->nocanon)
		f->source_canon = canon_source(f->source);
	if (f->target_arg)
		f->target = canon_target(f, f->target_arg);
	cl->pr.mode = cl->pr.mode == OUT_TREE ? OUT_LIST : cl->pr.mode;
	cl->pr.tree = false;
	cl->pr.stream = stdout;
	cl->pr.terminal = !cl->pr.json && cl->pr.mode == OUT_LIST &&
			  isatty(STDOUT_FILENO);
	outbuf_init(&pc.m.s1);
	outbuf_init(&pc.m.s2);
	r = poll_run(&cl->pr, &po);
	outbuf_free(&pc.m.s1);
	outbuf_free(&pc.m.s2);
	return r;
}

/* -x: findmnt's checks of the entries the filters keep */
static int run_verify(struct cmdline *cl)
{
	struct verify_opts vo = {.verbose = cl->verbose,
				 .check_order = list_all(&cl->f),
				 .first_only = cl->f.first};
	struct matcher m = {.f = &cl->f};
	struct verify_entry *ents = NULL;
	struct mntkit_table **tabs = NULL;
	size_t ntabs = 0, n = 0, cap = 0;
	int r;

	outbuf_init(&m.s1);
	outbuf_init(&m.s2);
	r = read_tabfiles(cl, &tabs, &ntabs);
	for (size_t t = 0; !r && t < ntabs; t++)
		cap += mntkit_table_count(tabs[t]);
	if (!r && !(ents = calloc(cap + 1, sizeof(*ents))))
		r = -ENOMEM;
	if (!r && (cl->f.source && !cl->f.nocanon))
		cl->f.source_canon = canon_source(cl->f.source);
	if (!r && cl->f.target_arg)
		cl->f.target = canon_target(&cl->f, cl->f.target_arg);
	for (size_t t = 0; !r && t < ntabs; t++) {
		vo.nparse += cl->nbad[t];
		m.t = tabs[t];
		for (size_t i = 0; i < mntkit_table_count(tabs[t]); i++) {
			const struct mntkit_statmount *sm =
				mntkit_table_get(tabs[t], i);
			struct verify_entry *e = &ents[n++];
			MNTKIT_TAB_ENTRY(te);

			mntkit_table_tab_entry(tabs[t], i, &te);
			e->source = sm_string(sm, MNTKIT_FIELD_SB_SOURCE);
			e->target = sm_string(sm, MNTKIT_FIELD_MNT_POINT);
			e->fstype = cell_fstype(sm, &m.s1);
			e->fstype = e->fstype ? strdup(e->fstype) : NULL;
			e->options = te.options;
			e->vfs_options = te.vfs_options;
			e->fs_options = te.fs_options;
			e->user_options = te.user_options;
			e->passno = te.passno;
			e->match = list_all(&cl->f) || matches(&m, sm);
		}
	}
	if (!r)
		r = verify_entries(ents, n, &vo) ? -1 : 0;
	else
		cli_errmsg(NULL, "%s", strerror(-r));
	for (size_t i = 0; i < n; i++)
		free((char *)ents[i].fstype);
	free(ents);
	free_tables(tabs, ntabs);
	cell_tabs = NULL;
	cell_ntabs = 0;
	outbuf_free(&m.s1);
	outbuf_free(&m.s2);
	return r < 0 ? -1 : 0;
}

static int run(struct cmdline *cl)
{
	struct fs_usage *usage = NULL;
	struct devtags *tags = NULL;
	size_t ntags = 0;
	struct plan p = make_plan(cl);
	struct mntkit_table **tabs = NULL;
	struct forest fo = {0};
	struct outbuf ob = OUTBUF_INIT;
	struct row *rows = NULL;
	size_t ntabs = 0, n = 0;
	int r;

	/* libsmartcols nests (JSON "children", tree art) by TARGET only */
	cl->pr.tree = p.tree_mode && has_col(cl, COL_TARGET);
	cl->pr.stream = stdout;
	cl->pr.terminal = !cl->pr.json && isatty(STDOUT_FILENO) &&
			  (cl->pr.mode == OUT_TREE || cl->pr.mode == OUT_LIST);
	r = snapshots(cl, &tabs, &ntabs, &cl->tids);
	if (r < 0)
		goto out;
	/* findmnt: a tree only of a mountinfo file, and none with -m */
	if ((cl->ntabfiles && !cl->tab_mountinfo) ||
	    (cl->mtab && !cl->ntabfiles && !cl->force_tree))
		p.tree_mode = p.whole_tree = cl->pr.tree = false;
	r = select_rows(cl, &p, tabs, ntabs, &fo);
	if (!r)
		r = forest_rows(&fo, &rows, &n);
	if (!r)
		r = add_usage(cl, rows, n, &usage);
	if (!r)
		r = add_tags(cl, rows, n, &tags, &ntags);
	if (r < 0) {
		cli_errmsg(NULL, "%s", strerror(-r));
		goto out;
	}
	if (!n && !p.whole_tree) {
		r = -ENOENT; /* found nothing: exit 1, silently */
		goto out;
	}
	r = print_rows(&cl->pr, rows, n, &ob);
	if (!r)
		r = outbuf_flush(&ob, stdout);
	if (r < 0)
		cli_errmsg("write error", "%s", strerror(-r));
out:
	free(usage);
	free_tags(tags, ntags);
	free(cl->tids);
	free(rows);
	free(fo.v);
	mtab_free();
	free_tables(tabs, ntabs);
	outbuf_free(&ob);
	return r < 0 ? -1 : 0;
}

int main(int argc, char *argv[])
{
	struct cmdline cl = {0};
	MNTKIT_OPTS(nsopts);
	int r;

	cli_prog = PROG;
	cli_usage = usage_line;
	setlocale(LC_ALL, "");
	cl.nsopts = nsopts;
	cl.timeout_ms = -1;
	r = parse_cmdline(&cl, argc, argv);
	if (r == 0)
		r = cl.poll	? run_poll(&cl)
		    : cl.verify ? run_verify(&cl)
				: run(&cl);
	if (cl.nsopts.mnt_ns_fd > 0)
		close(cl.nsopts.mnt_ns_fd);
	free(cl.f.source_canon);
	free(cl.f.target);
	if (r > 0)
		return fflush(stdout) ? EXIT_FAILURE : EXIT_SUCCESS;
	return r < 0 ? EXIT_FAILURE : EXIT_SUCCESS;
}
