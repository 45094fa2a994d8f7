// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * statmnt - show the attributes of a mount, or list mounts, with
 * statmount(2) and listmount(2) (served by libmntkit on every kernel).
 *
 *   statmnt [-l|-r] [-u] [-v] [--json] [--mask LIST]
 *           [--ns ID|PATH|pid:PID] (mnt_id|path)
 *
 * All output is built in memory and written only once everything
 * succeeded; every error is one line on stderr and exit status 1.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <linux/openat2.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "mntkit.h"
#include "cli.h"
#include "output.h"
#include "record.h"

#define PROG	    "statmnt"
#define JSON_INDENT 2

/* the groups -l/-r ask for when --mask is not given */
#define LIST_DEFAULT_MASK MNTKIT_STATMOUNT_MNT_POINT

static const char usage_line[] =
	"usage: " PROG " [-l|-r] [-u] [-v] [--json] [--mask LIST] "
	"[--ns ID|PATH|pid:PID] (mnt_id|path)";

struct cmdline {
	unsigned int list; /* 0, MNTKIT_LIST_F_CHILDREN or MNTKIT_LIST_F_TREE */
	bool unreachable;  /* -u */
	bool verbose;	   /* -v: which kind of ID the target was */
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
		cli_errmsg(opt, "%s", reason);
		return;
	}
	cli_errmsg(subject, "%s", reason);
	free(subject);
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
	"  -v, --verbose      say on stderr which kind of mount ID mnt_id",
	"                     is (old or unique) and the mount it names",
	"      --json         print JSON",
	"      --mask LIST    statmount groups to ask for: names",
	"                     (sb_basic,mnt_basic,...), all, or a number",
	"      --ns NS        query another mount namespace: its ID, a",
	"                     namespace file (/proc/PID/ns/mnt) or pid:PID",
	"  -h, --help         show this help",
	"  -V, --version      show the version",
	"",
	"mnt_id is a decimal number or 0x hex: a unique 64-bit mount ID, or",
	"an old one (mountinfo's and findmnt's ID column, up to 2^31);",
	"anything else is a path (write ./123 for a file named 123). IDs",
	"are printed in decimal. Errors exit with status 1.",
};

/* ---- parsing ---- */

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

/* --ns errors: "statmnt: --ns ARG: REASON" */
static void ns_report(const char *arg, enum cli_ns_fail what, int err)
{
	errmsg_opt("--ns", " ", arg, "%s", cli_ns_reason(what, err));
}

/* MNTKIT_BACKEND (cli.c): "statmnt: MNTKIT_BACKEND=VALUE: REASON" */
static int check_backend_env(void)
{
	const char *env;
	int r = cli_check_backend_env(&env);

	if (r == CLI_BACKEND_UNKNOWN)
		errmsg_opt("MNTKIT_BACKEND", "=", env,
			   "unknown backend "
			   "(native, mountinfo or auto)");
	else if (r < 0)
		errmsg_opt("MNTKIT_BACKEND", "=", env, "%s",
			   cli_backend_reason(r));
	return r ? -1 : 0;
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
	{"verbose", no_argument, NULL, 'v'},
	{"json", no_argument, NULL, OPT_JSON},
	{"mask", required_argument, NULL, OPT_MASK},
	{"ns", required_argument, NULL, OPT_NS},
	{"help", no_argument, NULL, 'h'},
	{"version", no_argument, NULL, 'V'},
	{NULL, 0, NULL, 0},
};

static int set_list(struct cmdline *cl, unsigned int mode)
{
	if (cl->list && cl->list != mode) {
		cli_usage_error("-l, -r", "only one of them may be given");
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
		return set_list(cl, MNTKIT_LIST_F_CHILDREN);
	case 'r':
		return set_list(cl, MNTKIT_LIST_F_TREE);
	case 'u':
		cl->unreachable = true;
		return 0;
	case 'v':
		cl->verbose = true;
		return 0;
	case OPT_JSON:
		cl->json = true;
		return 0;
	case OPT_MASK:
		return parse_mask(cl, optarg);
	case OPT_NS:
		if (cl->ns_arg) {
			cli_usage_error("--ns", "given twice");
			return -1;
		}
		cl->ns_arg = optarg; /* checked after MNTKIT_BACKEND */
		return 0;
	default:
		return cli_common_option(opt, argv, help_text,
					 sizeof(help_text) / sizeof(*help_text));
	}
}

static int parse_cmdline(struct cmdline *cl, int argc, char *argv[])
{
	int opt, r;

	opterr = 0;
	while ((opt = getopt_long(argc, argv, ":lruvhV", long_options, NULL)) !=
	       -1) {
		r = parse_option(cl, opt, argv);
		if (r)
			return r;
	}
	if (optind < argc)
		cl->target = argv[optind++];
	if (optind < argc) {
		cli_usage_error(argv[optind], "unexpected argument");
		return -1;
	}
	if (!cl->target && !cl->list && !cl->unreachable) {
		cli_usage_error(NULL, "missing mnt_id or path");
		return -1;
	}
	if (!cl->mask_given)
		cl->mask = cl->list ? LIST_DEFAULT_MASK : MNTKIT_STATMOUNT_ALL;
	/* the backend first: checking --ns already asks it */
	if (check_backend_env() < 0)
		return -1;
	if (cl->ns_arg) {
		cl->ns = &cl->nsopts;
		if (cli_parse_ns(cl->ns_arg, &cl->nsopts, CLI_NS_CHECK_ID,
				 ns_report) < 0)
			return -1;
	}
	return 0;
}

/* ---- target -> mount ID ---- */

/*
 * With --ns pid:PID an absolute path is resolved in that process's root
 * (and so in its mount namespace) through /proc/PID/root, with every
 * symlink and ".." kept inside that root (RESOLVE_IN_ROOT).
 */
/* path_id_in_pid(): -(OPENAT2_REFUSED + errno) when openat2 is refused */
#define OPENAT2_REFUSED 0x10000

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
	/* the kernel answers a how bigger than a page with E2BIG; a filter
	 * with the errno it gave the real call */
	if (r && syscall(SYS_openat2, AT_FDCWD, "/", NULL, (size_t)1 << 20) < 0 &&
	    errno == -r)
		r = -(OPENAT2_REFUSED + errno);
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
		cli_errmsg(path, "with --ns %s, give a mount ID%s", cl->ns_arg,
		       cl->nsopts.pid ? " or an absolute path" : "");
		return -1;
	}
	if (r <= -OPENAT2_REFUSED)
		cli_say_refused(path, "openat2", -r - OPENAT2_REFUSED,
				" (it resolves a path in the process's root; "
				"give a mount ID)");
	else if (r < 0 && !cli_report_refusal(path, CLI_REFUSED_QUERY, -r))
		cli_errmsg(path, "%s", strerror(-r));
	return r < 0 ? -1 : 0;
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

	if (cli_report_refusal(what, CLI_REFUSED_QUERY, -err))
		return;
	if (err == -ENOENT && cl->target && cl->ns)
		cli_errmsg(what,
		       "no such mount %" PRIu64 " in mount namespace %s", id,
		       cl->ns_arg);
	else if (err == -ENOENT && cl->target)
		cli_errmsg(what, "no such mount %" PRIu64, id);
	else if (cl->ns)
		cli_errmsg(what, "%s (mount namespace %s)", strerror(-err),
		       cl->ns_arg);
	else
		cli_errmsg(what, "%s", strerror(-err));
}

/*
 * A number given as mnt_id: a unique ID as it is, an old ID (at most
 * 2^31: mountinfo's, findmnt's) through mntkit_id_from_old(); -v says
 * which it was.
 */
static int id_of_number(const struct cmdline *cl, uint64_t *id)
{
	uint64_t given = *id;
	int r;

	if (given > MNTKIT_MNT_UNIQUE_ID_OFFSET) {
		if (cl->verbose)
			fprintf(stderr, "%s: %s: a unique mount ID\n", PROG,
				cl->target);
		return 0;
	}
	r = given ? mntkit_id_from_old(given, cl->ns, id) : -EINVAL;
	if (r == -ENOENT) {
		cli_errmsg(cl->target, "no mount has the old ID %" PRIu64 "%s%s",
			   given, cl->ns ? " in mount namespace " : "",
			   cl->ns ? cl->ns_arg : "");
		return -1;
	}
	if (r < 0) {
		query_error(cl, given, r);
		return -1;
	}
	if (cl->verbose)
		fprintf(stderr, "%s: %s: an old mount ID (mountinfo's); its mount "
			"is %" PRIu64 "\n", PROG, cl->target, *id);
	return 0;
}

static int resolve_target(const struct cmdline *cl, uint64_t *id)
{
	int r;

	if (!cl->target) {
		r = mntkit_root_id(cl->unreachable ?
					   MNTKIT_TABLE_F_UNREACHABLE : 0,
				   cl->ns, id);
		if (r < 0) {
			query_error(cl, 0, r);
			return -1;
		}
		return 0;
	}
	r = cli_parse_number(cl->target, id);
	if (r == 1)
		return id_of_number(cl, id);
	if (r < 0) {
		cli_errmsg(cl->target, "mount ID out of range");
		return -1;
	}
	return path_id(cl, id);
}

/* ---- one reply, as text or JSON ---- */

/*
 * Text: "key: value [(words)]" for a number, "key: <string>", and
 * "key: N" then "key[i]: <string>" for a vector.
 */
static void text_num(void *ctx, const char *key, uint64_t v,
		     enum rec_numfmt fmt, enum rec_decoder d)
{
	struct outbuf *ob = ctx;
	char *words = record_words(d, v);

	if (fmt == REC_WORDS && words) {
		outbuf_printf(ob, "%s: %s\n", key, words);
	} else if (fmt == REC_DEC) {
		outbuf_printf(ob, "%s: %" PRIu64 "\n", key, v);
	} else if (fmt == REC_HEX) {
		outbuf_printf(ob, "%s: 0x%" PRIx64 "\n", key, v);
	} else {
		outbuf_printf(ob, "%s: 0x%08" PRIx64, key, v);
		if (words)
			outbuf_printf(ob, " (%s)", words);
		outbuf_putc(ob, '\n');
	}
	free(words);
}

static void text_str(void *ctx, const char *key, const char *s)
{
	struct outbuf *ob = ctx;

	outbuf_printf(ob, "%s: <", key);
	outbuf_text_str(ob, s);
	outbuf_puts(ob, ">\n");
}

static void text_strv(void *ctx, const char *key, const char **vec, size_t n)
{
	struct outbuf *ob = ctx;
	size_t i;

	outbuf_printf(ob, "%s: %zu\n", key, n);
	for (i = 0; i < n; i++) {
		outbuf_printf(ob, "%s[%zu]: <", key, i);
		outbuf_text_str(ob, vec[i]);
		outbuf_puts(ob, ">\n");
	}
}

static const struct record_ops text_ops = {
	.num = text_num,
	.str = text_str,
	.strv = text_strv,
};

/*
 * Every field of @sm present in its mask (record.c); @len: the bytes
 * known valid at @sm. @listed_id, when not 0, names the mount of a
 * listing's record.
 */
static int emit_reply(struct out *o, const struct mntkit_statmount *sm,
		      size_t len, uint64_t listed_id)
{
	int r;

	if (!o->json)
		return record_walk(&text_ops, &o->ob, sm, len, listed_id);
	json_object_begin(&o->jw);
	r = record_json(&o->jw, sm, len, listed_id);
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
		cli_errmsg(target_subject(cl), "bad statmount reply: %s",
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
	outbuf_printf(&o->ob, "%" PRIu64 "\t", id);
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
	outbuf_printf(&o->ob, "%" PRIu64 "\t[%s]\n", id, strerror(err));
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
		cli_errmsg(NULL, "mount %" PRIu64 ": bad statmount reply: %s", id,
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
	bool with_start = !cl->target && cl->list == MNTKIT_LIST_F_TREE;
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
	if (cl->unreachable && !cli_has_cap_sys_admin()) {
		cli_errmsg("-u", "needs CAP_SYS_ADMIN (to see mounts outside "
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
			cli_errmsg("write error", "%s", strerror(-r));
	}
	outbuf_free(&o.ob);
	return r < 0 ? -1 : 0;
}

int main(int argc, char *argv[])
{
	struct cmdline cl = {0};
	MNTKIT_OPTS(nsopts);
	int r;

	cli_prog = PROG;
	cli_usage = usage_line;
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
