// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * lsmnt's command line: findmnt's options, the columns, their checks.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
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

const char usage_line[] =
	"usage: " PROG " [options] [<device> | <mountpoint> | <device> "
	"<mountpoint>]";

static const int default_cols[] = {COL_TARGET, COL_SOURCE, COL_FSTYPE,
				   COL_OPTIONS};

/* -D: findmnt's df(1)-like columns */
static const int df_cols[] = {COL_SOURCE, COL_FSTYPE,  COL_SIZE,  COL_USED,
			      COL_AVAIL,  COL_USE_PCT, COL_TARGET};

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
		cli_errmsg("write error", "%s", cli_strerror(-r));
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
	case OPT_UNIQ_ID:
		if (parse_num_opt(opt == OPT_ID ? "--id" : "--uniq-id", optarg,
				  UINT64_MAX, &v) < 0)
			return -1;
		cl->id_given[opt == OPT_UNIQ_ID] = true;
		cl->id_arg[opt == OPT_UNIQ_ID] = v; /* see settle_ids() */
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
		/*
		 * a positional source may be a mount point, never -S's: a
		 * lone one, or with -f one before a target (select_rows())
		 */
		f->swap = !f->source_devno;
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
	if (cl->poll && (cl->force_tree || cl->unreachable)) {
		/* findmnt -p --tree prints nothing at all: say so */
		cli_errmsg("--poll", "prints its changes as a list: not with %s",
			   cl->force_tree ? "--tree" : "--unreachable");
		return -1;
	}
	if (cl->poll && cl->order_given) {
		/* a batch of --all-namespaces is by namespace ID */
		cli_errmsg("--order", "not with --poll (a batch is by namespace "
				      "ID)");
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

/*
 * --id and --uniq-id each take either kind of mount ID, told by its value
 * (mntkit.h, MOUNT IDS): an old one (at most 2^31) matches mountinfo's
 * ID, a unique one the 64-bit ID. --verbose says which kind each was.
 */
static int settle_ids(struct cmdline *cl)
{
	static const char *const opt[2] = { "--id", "--uniq-id" };
	struct filter *f = &cl->f;

	for (int k = 0; k < 2; k++) {
		uint64_t v = cl->id_arg[k];
		bool old = v <= MNTKIT_MNT_UNIQUE_ID_OFFSET;

		if (!cl->id_given[k])
			continue;
		if (old ? f->has_id && f->id != v : f->has_uniq && f->uniq != v) {
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
			f->id = (uint32_t)v;
		} else {
			f->has_uniq = true;
			f->uniq = v;
		}
	}
	return 0;
}

int parse_cmdline(struct cmdline *cl, int argc, char *argv[])
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
	if (settle_ids(cl) < 0 || parse_args(cl, argc, argv) < 0 ||
	    check_combinations(cl) < 0 ||
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

bool has_col(const struct cmdline *cl, int col)
{
	for (size_t c = 0; c < cl->ncols; c++)
		if (cl->cols[c] == col)
			return true;
	return false;
}
