// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * mntwatch - print mount events (attach, detach, move, change) of a mount
 * namespace as they happen, with libmntkit's watch (fanotify mount events
 * where the kernel has them, POLLPRI on mountinfo + diffs elsewhere).
 *
 *   mntwatch [--json|--journal] [-t TYPES] [-p PATH] [-e EVENTS]
 *            [--ns NS | --all-namespaces] [-c N] [--timeout S]
 *            [--initial] [--source SRC]
 *
 * One line per event, written and flushed as it comes (--journal: one
 * journal entry, mntwatch-journal.c). SIGINT, SIGTERM,
 * a closed stdout, --count and --timeout end it with status 0; errors
 * with one line on stderr and status 1.
 */
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <time.h>
#include <unistd.h>

#include "mntkit.h"
#include "cli.h"
#include "mntwatch-journal.h"
#include "output.h"
#include "record.h"

#define PROG "mntwatch"

static const char usage_line[] =
	"usage: " PROG " [--json|--journal] [-t TYPES] [--prefix PATH] [-e EVENTS] "
	"[--ns NS | --all-namespaces] [-c N] [--timeout S] [--initial] "
	"[--source SRC]";

static const char *const help_text[] = {
	"",
	"Print mount events of a mount namespace as they happen: one line",
	"per event (attach, detach, move, change, resync).",
	"",
	"  -t, --types LIST     only these filesystem types (comma list;",
	"                       \"noA,B\" for all but A and B)",
	"      --prefix PATH    only mounts at PATH or below it (-p, which",
	"                       findmnt has for --poll, is deprecated)",
	"  -e, --events LIST    only these events: attach,detach,move,",
	"                       change,resync,ns-add,ns-gone",
	"      --ns NS          watch another mount namespace: its ID, a",
	"                       namespace file (/proc/PID/ns/mnt) or pid:PID",
	"      --all-namespaces watch every mount namespace a process is in;",
	"                       each line starts with the namespace's ID and",
	"                       a PID in it (JSON: \"mnt_ns\", \"ns_pid\"),",
	"                       ns-add and ns-gone as namespaces come and go",
	"  -c, --count N        exit after N events",
	"      --timeout S      exit after S seconds (may be fractional)",
	"      --initial        first print the current table as attach",
	"                       events",
	"      --source SRC     fanotify, poll or auto (default)",
	"      --json           one JSON object per line (the keys of",
	"                       statmnt --json, plus \"event\", \"seq\", ...;",
	"                       schema: share/mntkit/mntwatch-event.schema.json)",
	"      --journal        send each event to the systemd journal as a",
	"                       structured entry (MESSAGE, EVENT, MOUNT_ID,",
	"                       MOUNT_POINT, ...) instead of printing it",
	"  -h, --help           show this help",
	"  -V, --version        show the version",
	"",
	"SIGINT, SIGTERM, a closed stdout, -c and --timeout exit with",
	"status 0; errors with status 1.",
};

struct cmdline {
	bool json, initial, all_ns;
	bool journal; /* --journal: entries to journald, nothing on stdout */
	char **types; /* NULL-terminated; NULL: all */
	bool types_negated;
	const char *prefix;
	unsigned int kinds; /* bit (1 << kind); 0: all */
	uint64_t count;	    /* 0: unlimited */
	double timeout;	    /* < 0: none */
	enum mntkit_watch_source source;
	const char *ns_arg;
	struct mntkit_opts nsopts;
	const struct mntkit_opts *ns;
};

/* ---- errors ---- */

/* ---- parsing ---- */

/* split a comma list into a NULL-terminated vector (in place) */
static char **split_list(char *s)
{
	size_t n = 1;
	char **v;

	for (char *p = s; *p; p++)
		n += *p == ',';
	v = calloc(n + 1, sizeof(*v));
	if (!v)
		return NULL;
	n = 0;
	for (char *tok = strtok(s, ","); tok; tok = strtok(NULL, ","))
		v[n++] = tok;
	return v;
}

static int parse_types(struct cmdline *cl, char *arg)
{
	if (!strncmp(arg, "no", 2)) {
		cl->types_negated = true;
		arg += 2;
	}
	if (!*arg || arg[0] == ',' || strstr(arg, ",,") ||
	    arg[strlen(arg) - 1] == ',') {
		cli_usage_error("-t", "empty filesystem type");
		return -1;
	}
	free(cl->types);
	cl->types = split_list(arg);
	if (!cl->types) {
		cli_errmsg(NULL, "out of memory");
		return -1;
	}
	return 0;
}

static int parse_events(struct cmdline *cl, const char *arg)
{
	char *copy = strdup(arg), *tok, *save = NULL;
	int ret = 0;

	if (!copy) {
		cli_errmsg(NULL, "out of memory");
		return -1;
	}
	cl->kinds = 0;
	for (tok = strtok_r(copy, ",", &save); tok && !ret;
	     tok = strtok_r(NULL, ",", &save)) {
		enum mntkit_event_kind k;

		for (k = MNTKIT_EVENT_ATTACH; k <= MNTKIT_EVENT_NS_GONE; k++)
			if (!strcmp(tok, mntkit_event_kind_name(k)))
				break;
		if (k > MNTKIT_EVENT_NS_GONE) {
			char subject[64];

			snprintf(subject, sizeof(subject), "-e %.40s", tok);
			cli_usage_error(subject, "unknown event (attach, detach, "
					     "move, change, resync, ns-add, "
					     "ns-gone)");
			ret = -1;
		}
		cl->kinds |= 1U << k;
	}
	if (!ret && !cl->kinds) {
		cli_usage_error("-e", "no event named");
		ret = -1;
	}
	free(copy);
	return ret;
}

static int parse_count(struct cmdline *cl, const char *arg)
{
	if (cli_parse_number_lax(arg, &cl->count) != 1 || cl->count == 0) {
		cli_usage_error("-c", "not a positive number");
		return -1;
	}
	return 0;
}

static int parse_timeout(struct cmdline *cl, const char *arg)
{
	char *end;
	double t;

	errno = 0;
	t = strtod(arg, &end);
	if (!*arg || *end || errno || !isfinite(t) || t < 0 || t > 1e9 ||
	    isspace((unsigned char)*arg)) {
		cli_usage_error("--timeout", "not a number of seconds");
		return -1;
	}
	cl->timeout = t;
	return 0;
}

static int parse_source(struct cmdline *cl, const char *arg)
{
	if (!strcmp(arg, "fanotify"))
		cl->source = MNTKIT_WATCH_FANOTIFY;
	else if (!strcmp(arg, "poll"))
		cl->source = MNTKIT_WATCH_POLL;
	else if (!strcmp(arg, "auto"))
		cl->source = MNTKIT_WATCH_AUTO;
	else {
		cli_usage_error("--source", "unknown source (fanotify, poll, auto)");
		return -1;
	}
	return 0;
}

/* --ns ID|PATH|pid:PID, as statmnt; errors "mntwatch: ARG: --ns: REASON" */
static void ns_report(const char *arg, enum cli_ns_fail what, int err)
{
	cli_errmsg(arg, "--ns: %s", cli_ns_reason(what, err));
}

enum {
	OPT_JSON = 256,
	OPT_NS,
	OPT_TIMEOUT,
	OPT_INITIAL,
	OPT_SOURCE,
	OPT_ALL_NS,
	OPT_JOURNAL,
	OPT_PREFIX,
};

static const struct option long_options[] = {
	{ "types", required_argument, NULL, 't' },
	{ "prefix", required_argument, NULL, OPT_PREFIX },
	{ "events", required_argument, NULL, 'e' },
	{ "count", required_argument, NULL, 'c' },
	{ "json", no_argument, NULL, OPT_JSON },
	{ "ns", required_argument, NULL, OPT_NS },
	{ "timeout", required_argument, NULL, OPT_TIMEOUT },
	{ "initial", no_argument, NULL, OPT_INITIAL },
	{ "source", required_argument, NULL, OPT_SOURCE },
	{ "all-namespaces", no_argument, NULL, OPT_ALL_NS },
	{ "journal", no_argument, NULL, OPT_JOURNAL },
	{ "help", no_argument, NULL, 'h' },
	{ "version", no_argument, NULL, 'V' },
	{ NULL, 0, NULL, 0 },
};

/* 0 go on, 1 done (--help/--version), -1 error */
static int parse_option(struct cmdline *cl, int opt, char *const argv[])
{
	switch (opt) {
	case 't':
		return parse_types(cl, optarg);
	case 'p':
		/* findmnt's -p is --poll: one release of warnings first */
		fprintf(stderr, "%s: -p is deprecated and will go: write "
			"--prefix (findmnt's -p is --poll)\n", PROG);
		/* fall through */
	case OPT_PREFIX:
		if (optarg[0] != '/') {
			cli_usage_error("--prefix", "not an absolute path");
			return -1;
		}
		cl->prefix = optarg;
		return 0;
	case 'e':
		return parse_events(cl, optarg);
	case 'c':
		return parse_count(cl, optarg);
	case OPT_JSON:
		cl->json = true;
		return 0;
	case OPT_NS:
		if (cl->ns_arg) {
			cli_usage_error("--ns", "given twice");
			return -1;
		}
		cl->ns_arg = optarg;
		return 0;
	case OPT_TIMEOUT:
		return parse_timeout(cl, optarg);
	case OPT_INITIAL:
		cl->initial = true;
		return 0;
	case OPT_SOURCE:
		return parse_source(cl, optarg);
	case OPT_ALL_NS:
		cl->all_ns = true;
		return 0;
	case OPT_JOURNAL:
		cl->journal = true;
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
	while ((opt = getopt_long(argc, argv, ":t:p:e:c:hV", long_options,
				  NULL)) != -1) {
		r = parse_option(cl, opt, argv);
		if (r)
			return r;
	}
	if (optind < argc) {
		cli_usage_error(argv[optind], "unexpected argument");
		return -1;
	}
	if (cl->ns_arg && cl->all_ns) {
		cli_usage_error("--all-namespaces", "--ns names one namespace");
		return -1;
	}
	if (cl->json && cl->journal) {
		cli_usage_error("--journal", "not together with --json");
		return -1;
	}
	if (cl->ns_arg) {
		cl->ns = &cl->nsopts;
		if (cli_parse_ns(cl->ns_arg, &cl->nsopts, CLI_NS_LAX_ID,
				 ns_report) < 0)
			return -1;
	}
	return 0;
}

/* ---- filters ---- */

static const char *sm_field(const struct mntkit_statmount *sm,
			    enum mntkit_field f)
{
	const char *s;

	if (!sm || mntkit_sm_str(sm, sm->size, f, &s) < 0)
		return NULL;
	return s;
}

static bool type_matches(const struct cmdline *cl,
			 const struct mntkit_statmount *sm)
{
	const char *type = sm_field(sm, MNTKIT_FIELD_FS_TYPE);
	const char *sub = sm_field(sm, MNTKIT_FIELD_FS_SUBTYPE);
	bool hit = false;

	if (!cl->types)
		return true;
	for (char **t = cl->types; *t && type && !hit; t++) {
		size_t n = strlen(type);

		hit = !strcmp(*t, type) ||
		      (sub && !strncmp(*t, type, n) && (*t)[n] == '.' &&
		       !strcmp(*t + n + 1, sub));
	}
	return hit != cl->types_negated;
}

static bool path_matches(const struct cmdline *cl,
			 const struct mntkit_statmount *sm)
{
	const char *p = sm_field(sm, MNTKIT_FIELD_MNT_POINT);
	size_t n;

	if (!cl->prefix)
		return true;
	if (!p)
		return false;
	n = strlen(cl->prefix);
	while (n > 1 && cl->prefix[n - 1] == '/')
		n--;
	if (n == 1)
		return true; /* "/" */
	return !strncmp(p, cl->prefix, n) && (p[n] == '\0' || p[n] == '/');
}

static bool event_matches(const struct cmdline *cl,
			  const struct mntkit_event *ev)
{
	const struct mntkit_statmount *now = ev->after ? ev->after : ev->before;

	if (cl->kinds && !(cl->kinds & (1U << ev->kind)))
		return false;
	if (ev->kind == MNTKIT_EVENT_RESYNC || !now) /* also NS_ADD/GONE */
		return true;
	if (!type_matches(cl, now))
		return false;
	return path_matches(cl, ev->after) || path_matches(cl, ev->before);
}

/* ---- output ---- */

/*
 * The version of the JSON lines' schema (share/mntwatch-event.schema.json):
 * raised when a key is removed or changes its type or meaning; keys may
 * be added within a version.
 */
#define MNTWATCH_SCHEMA_VERSION 1

/* CLOCK_REALTIME ns as RFC 3339 in UTC: 2026-12-04T20:25:01.123456789Z */
static void event_rfc3339(uint64_t ns, char *buf, size_t len)
{
	time_t sec = (time_t)(ns / 1000000000U);
	struct tm tm;
	size_t n;

	if (!gmtime_r(&sec, &tm) ||
	    !(n = strftime(buf, len, "%Y-%m-%dT%H:%M:%S", &tm))) {
		snprintf(buf, len, "1970-01-01T00:00:00.000000000Z");
		return;
	}
	snprintf(buf + n, len - n, ".%09" PRIu64 "Z", ns % 1000000000U);
}

/* text: escaped, and a space as \040 so that fields stay apart */
static void put_text_field(struct outbuf *ob, const char *s)
{
	const char *sp;

	if (!s || !*s) {
		outbuf_puts(ob, "-");
		return;
	}
	while ((sp = strchr(s, ' '))) {
		char *part = strndup(s, (size_t)(sp - s));

		if (!part) {
			ob->err = ENOMEM;
			return;
		}
		outbuf_text_str(ob, part);
		outbuf_puts(ob, "\\040");
		free(part);
		s = sp + 1;
	}
	outbuf_text_str(ob, s);
}

static void put_words(struct outbuf *ob, mntkit_decoder fn, uint64_t v)
{
	char buf[256];

	fn(v, 0, buf, sizeof(buf));
	outbuf_puts(ob, buf);
}

/*
 * The event's identity, at the end of a text line:
 * " seq=N time=RFC3339 mono=S.NNNNNNNNN", and for a RESYNC " resync_end=N"
 */
static void text_identity(struct outbuf *ob, const struct mntkit_event *ev)
{
	char when[64];

	event_rfc3339(ev->realtime_ns, when, sizeof(when));
	outbuf_printf(ob, " seq=%" PRIu64 " time=%s mono=%" PRIu64 ".%09" PRIu64,
		      ev->seq, when, ev->monotonic_ns / 1000000000U,
		      ev->monotonic_ns % 1000000000U);
	if (ev->kind == MNTKIT_EVENT_RESYNC)
		outbuf_printf(ob, " resync_end=%" PRIu64, ev->resync_end);
}

/*
 * KIND ID TARGET FSTYPE SOURCE ATTRS PROPAGATION [changed=LIST]
 * [from=OLD_TARGET] seq=N time=T mono=M
 * resync seq=N time=T mono=M resync_end=N
 */
static void text_event(struct outbuf *ob, const struct mntkit_event *ev,
		       bool identity)
{
	const struct mntkit_statmount *sm = ev->after ? ev->after : ev->before;
	const char *type, *sub;
	char changed[128];

	outbuf_puts(ob, mntkit_event_kind_name(ev->kind));
	if (ev->kind == MNTKIT_EVENT_RESYNC || !sm) { /* also NS_ADD/GONE */
		if (identity)
			text_identity(ob, ev);
		outbuf_putc(ob, '\n');
		return;
	}
	outbuf_printf(ob, " %" PRIu64 " ", ev->mnt_id);
	put_text_field(ob, sm_field(sm, MNTKIT_FIELD_MNT_POINT));
	outbuf_putc(ob, ' ');
	type = sm_field(sm, MNTKIT_FIELD_FS_TYPE);
	sub = sm_field(sm, MNTKIT_FIELD_FS_SUBTYPE);
	put_text_field(ob, type);
	if (type && sub) {
		outbuf_putc(ob, '.');
		put_text_field(ob, sub);
	}
	outbuf_putc(ob, ' ');
	put_text_field(ob, sm_field(sm, MNTKIT_FIELD_SB_SOURCE));
	if (sm->mask & MNTKIT_STATMOUNT_MNT_BASIC) {
		outbuf_putc(ob, ' ');
		put_words(ob, mntkit_attr_str, sm->mnt_attr);
		outbuf_putc(ob, ' ');
		put_words(ob, mntkit_propagation_str, sm->mnt_propagation);
	}
	if (ev->flags & MNTKIT_EVENT_F_GONE)
		outbuf_puts(ob, " gone");
	if (ev->changed) {
		mntkit_changed_str(ev->changed, 0, changed, sizeof(changed));
		outbuf_printf(ob, " changed=%s", changed);
	}
	if (ev->kind == MNTKIT_EVENT_MOVE &&
	    (ev->changed & MNTKIT_CHANGED_MNT_POINT)) {
		outbuf_puts(ob, " from=");
		put_text_field(ob, sm_field(ev->before,
					    MNTKIT_FIELD_MNT_POINT));
	}
	if (identity)
		text_identity(ob, ev);
	outbuf_putc(ob, '\n');
}

static void json_event(struct outbuf *ob, const struct mntkit_event *ev)
{
	const struct mntkit_statmount *sm = ev->after ? ev->after : ev->before;
	struct json_writer jw;
	char when[64];

	json_init(&jw, ob, 0);
	json_object_begin(&jw);
	json_kv_u64(&jw, "version", MNTWATCH_SCHEMA_VERSION);
	json_kv_string(&jw, "event", mntkit_event_kind_name(ev->kind));
	if (ev->mnt_ns_id) { /* --all-namespaces */
		json_kv_u64(&jw, "mnt_ns", ev->mnt_ns_id);
		if (ev->ns_pid > 0) { /* the schema: where one is known */
			json_key(&jw, "ns_pid");
			json_i64(&jw, ev->ns_pid);
		}
	}
	json_kv_u64(&jw, "seq", ev->seq);
	event_rfc3339(ev->realtime_ns, when, sizeof(when));
	json_kv_string(&jw, "time", when);
	json_kv_u64(&jw, "realtime_ns", ev->realtime_ns);
	json_kv_u64(&jw, "monotonic_ns", ev->monotonic_ns);
	if (ev->kind == MNTKIT_EVENT_RESYNC)
		json_kv_u64(&jw, "resync_end", ev->resync_end);
	if (sm) {
		record_json(&jw, sm, sm->size, ev->mnt_id);
		if (ev->flags & MNTKIT_EVENT_F_GONE)
			json_kv_bool(&jw, "gone", true);
	}
	if (ev->kind == MNTKIT_EVENT_MOVE || ev->kind == MNTKIT_EVENT_CHANGE) {
		char buf[128], *tok, *save = NULL;

		mntkit_changed_str(ev->changed, 0, buf, sizeof(buf));
		json_key(&jw, "changed");
		json_array_begin(&jw);
		for (tok = strtok_r(buf, ",", &save); tok;
		     tok = strtok_r(NULL, ",", &save))
			json_string(&jw, tok);
		json_array_end(&jw);
		json_key(&jw, "before");
		json_object_begin(&jw);
		record_json(&jw, ev->before, ev->before->size,
			    ev->mnt_id);
		json_object_end(&jw);
	}
	json_object_end(&jw);
	outbuf_putc(ob, '\n');
}

/* ---- the loop ---- */

static int64_t mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* --journal: where the entries go, and the watched namespace's ID */
struct journal_out {
	struct journal j;
	uint64_t mnt_ns; /* 0: not known (no MOUNT_NS) */
};

static int journal_out_open(const struct cmdline *cl, struct journal_out *jo)
{
	const struct mntkit_opts *o = cl->ns;
	int r;

	r = journal_open(&jo->j, NULL);
	if (r < 0) {
		cli_errmsg("--journal", "%s: %s", JOURNAL_SOCKET,
			   r == -ENOENT || r == -ECONNREFUSED ?
				   "no journal listens there (is "
				   "systemd-journald running?)" :
				   strerror(-r));
		journal_close(&jo->j);
		return -1;
	}
	jo->mnt_ns = 0;
	if (o && o->mnt_ns_id)
		jo->mnt_ns = o->mnt_ns_id;
	else if (o && o->mnt_ns_fd > 0)
		mntkit_ns_id_from_fd(o->mnt_ns_fd, &jo->mnt_ns);
	else
		mntkit_ns_id_from_pid(o ? o->pid : 0, &jo->mnt_ns);
	return 0;
}

/*
 * The event as a journal entry. MESSAGE: its text line without the
 * identity (the entry has SEQ and the clocks as fields), for a resync
 * what it means.
 */
static int journal_event(struct journal_out *jo, struct outbuf *ob,
			 const struct mntkit_event *ev)
{
	const char *msg;
	int r;

	if (ev->kind == MNTKIT_EVENT_RESYNC && ev->resync_end > ev->seq)
		outbuf_printf(ob, "resync: mount events may have been lost; "
				  "events %" PRIu64 "..%" PRIu64 " replace them",
			      ev->seq + 1, ev->resync_end);
	else if (ev->kind == MNTKIT_EVENT_RESYNC)
		outbuf_puts(ob, "resync: mount events may have been lost; "
				"none changed the table");
	else
		text_event(ob, ev, false);
	if (ob->len && ob->data[ob->len - 1] == '\n')
		ob->len--;
	msg = outbuf_cstr(ob);
	/* --all-namespaces: each event's own namespace */
	r = msg ? mntwatch_journal_event(&jo->j, ev, msg,
					 ev->mnt_ns_id ? ev->mnt_ns_id :
							 jo->mnt_ns) :
		  -ENOMEM;
	outbuf_reset(ob);
	if (r < 0) {
		cli_errmsg("--journal", "%s: %s", JOURNAL_SOCKET, strerror(-r));
		return -1;
	}
	return 0;
}

/* 1: print no more (count reached, stdout closed); 0 go on; -1 error */
static int print_event(const struct cmdline *cl, struct outbuf *ob,
		       struct journal_out *jo, const struct mntkit_event *ev,
		       uint64_t *printed)
{
	int r;

	if (!event_matches(cl, ev))
		return 0;
	if (jo) {
		if (journal_event(jo, ob, ev) < 0)
			return -1;
		++*printed;
		return cl->count && *printed >= cl->count;
	}
	if (cl->json) {
		json_event(ob, ev);
	} else {
		if (cl->all_ns)
			outbuf_printf(ob, "%" PRIu64 " %d ", ev->mnt_ns_id,
				      (int)ev->ns_pid);
		text_event(ob, ev, true);
	}
	r = outbuf_flush(ob, stdout);
	if (r == -EPIPE)
		return 1;
	if (r < 0) {
		cli_errmsg("write error", "%s", strerror(-r));
		return -1;
	}
	++*printed;
	return cl->count && *printed >= cl->count;
}

static const char *source_subject(const struct cmdline *cl)
{
	return cl->source == MNTKIT_WATCH_AUTO ? "watch" :
						 mntkit_watch_source_name(
							 cl->source);
}

/*
 * A watch, not a live table (mntkit_live(3)): each line is one event's
 * own records (its OLD_* fields ev->before), printed as it comes; no
 * line needs a parent, a child or a snapshot, and RESYNC is the watch's
 * (its diff's events follow it). A live table would index every mount,
 * of every namespace with --all-namespaces, that no line reads.
 */
static int open_watch(const struct cmdline *cl, struct mntkit_watch **w)
{
	MNTKIT_WATCH_OPTS(wo, .source = cl->source,
			  .flags = (cl->initial ? MNTKIT_WATCH_F_INITIAL : 0) |
				   (cl->all_ns ? MNTKIT_WATCH_F_ALL_NS : 0));
	int r;

	if (cl->all_ns)
		cli_raise_fd_limit();
	r = mntkit_watch_new(&wo, cl->ns, w);
	const char *call;
	int e;

	if (r == 0)
		return 0;
	/* fanotify asked for: its refusal has no fallback */
	if (cl->source == MNTKIT_WATCH_FANOTIFY &&
	    (e = mntkit_refused(MNTKIT_REFUSED_FANOTIFY, &call)) > 0 &&
	    (e == -r || r == -EOPNOTSUPP)) {
		cli_say_refused("--source fanotify", call, e, "");
		return -1;
	}
	if (cli_report_refusal(cl->ns ? cl->ns_arg : source_subject(cl),
			       CLI_REFUSED_WATCH, -r))
		return -1;
	if (r == -EOPNOTSUPP && cl->source == MNTKIT_WATCH_FANOTIFY)
		cli_errmsg("--source fanotify",
		       "the kernel has no fanotify mount events (6.15+) "
		       "or the native backend is not in use");
	else if (r == -EPERM && cl->source == MNTKIT_WATCH_FANOTIFY)
		cli_errmsg("--source fanotify",
		       "needs CAP_SYS_ADMIN over the namespace");
	else if ((r == -EMFILE || r == -ENOSPC) &&
		 cl->source == MNTKIT_WATCH_FANOTIFY)
		cli_errmsg("--source fanotify",
		       "%s: too many fanotify groups or marks for this "
		       "user (fs.fanotify.max_user_groups, max_user_marks), "
		       "or open files", strerror(-r));
	else if (r == -ENOENT && cl->ns)
		cli_errmsg(cl->ns_arg, "--ns: no such mount namespace");
	else
		cli_errmsg(cl->ns ? cl->ns_arg : source_subject(cl), "%s",
		       strerror(-r));
	return -1;
}

static int run(const struct cmdline *cl)
{
	struct mntkit_watch *w = NULL;
	struct outbuf ob = OUTBUF_INIT;
	struct journal_out jout, *jo = NULL;
	MNTKIT_EVENT(ev);
	struct pollfd pfd[3];
	uint64_t printed = 0;
	int64_t deadline = -1;
	sigset_t sigs;
	int r = 0, sfd;

	sigemptyset(&sigs);
	sigaddset(&sigs, SIGINT);
	sigaddset(&sigs, SIGTERM);
	sigprocmask(SIG_BLOCK, &sigs, NULL);
	signal(SIGPIPE, SIG_IGN);
	sfd = signalfd(-1, &sigs, SFD_CLOEXEC | SFD_NONBLOCK);
	if (sfd < 0) {
		cli_errmsg("signalfd", "%s", strerror(errno));
		return -1;
	}
	if (cl->timeout >= 0)
		deadline = mono_ms() + (int64_t)(cl->timeout * 1000.0 + 0.5);
	if (cl->journal) {
		if (journal_out_open(cl, &jout) < 0) {
			close(sfd);
			return -1;
		}
		jo = &jout;
	}
	if (open_watch(cl, &w) < 0) {
		if (jo)
			journal_close(&jo->j);
		close(sfd);
		return -1;
	}
	pfd[0] = (struct pollfd){ .fd = mntkit_watch_fd(w), .events = POLLIN };
	pfd[1] = (struct pollfd){ .fd = sfd, .events = POLLIN };
	/* a pipe's write end reports POLLERR once its reader is gone */
	pfd[2] = (struct pollfd){ .fd = jo ? -1 : STDOUT_FILENO, .events = 0 };
	for (;;) {
		int wait_ms = -1, stop = 0, rr;

		while ((rr = mntkit_watch_read(w, &ev)) == 1) {
			stop = print_event(cl, &ob, jo, &ev, &printed);
			if (stop)
				break;
		}
		if (stop) {
			r = stop < 0 ? -1 : 0;
			break;
		}
		if (rr < 0) {
			cli_errmsg(source_subject(cl), "%s", strerror(-rr));
			r = -1;
			break;
		}
		if (deadline >= 0) {
			int64_t left = deadline - mono_ms();

			if (left <= 0)
				break;
			wait_ms = left > INT_MAX ? INT_MAX : (int)left;
		}
		if (poll(pfd, 3, wait_ms) < 0 && errno != EINTR) {
			cli_errmsg("poll", "%s", strerror(errno));
			r = -1;
			break;
		}
		if (pfd[1].revents || (pfd[2].revents & (POLLERR | POLLHUP)))
			break;
	}
	mntkit_watch_free(w);
	outbuf_free(&ob);
	if (jo)
		journal_close(&jo->j);
	close(sfd);
	return r < 0 ? -1 : 0;
}

int main(int argc, char *argv[])
{
	struct cmdline cl = { .timeout = -1 };
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
	free(cl.types);
	if (r > 0)
		return fflush(stdout) ? EXIT_FAILURE : EXIT_SUCCESS;
	return r < 0 ? EXIT_FAILURE : EXIT_SUCCESS;
}
