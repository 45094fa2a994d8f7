// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * lsmnt --poll: findmnt's monitor of the mount table, fed by libmntkit's
 * watch instead of a re-read and a diff of the whole table at every change
 * (doc/lsmnt.md).
 */
#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/signalfd.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "lsmnt.h"

/* what the watch loop needs from the command line */
struct poll_opts {
	const struct mntkit_opts *ns; /* NULL: lsmnt's own namespace */
	const char *ns_subject;	      /* for errors: "--ns", "-N" or NULL */
	/*
	 * --all-namespaces: every namespace (MNTKIT_WATCH_F_ALL_NS); a row's
	 * record has its namespace's ID in mnt_ns_id, its row.tid is the
	 * event's ns_pid
	 */
	bool all_ns;
	uint64_t mask;		      /* statmount groups the rows need */
	unsigned int actions;	      /* ACT_BIT()s to print, 0: all */
	int timeout_ms;		      /* -w: idle timeout, < 0: none */
	bool first_only;	      /* -f: the first matching change only */
	bool backward;		      /* -d backward: a batch reversed */
	/*
	 * --tree: findmnt 2.42 prints no tree of changes; it fails (exit 1)
	 * at the first batch it would print, and a timeout before one is
	 * status 0. lsmnt does the same, with a message.
	 */
	bool tree;
	/* the filters (-t, -O, -S, -T, ...) of a row's record */
	bool (*match)(void *ctx, const struct mntkit_statmount *sm);
	/* a batch's statvfs, libblkid and TID data (NULL: none needed) */
	int (*decorate)(void *ctx, struct row *rows, size_t n);
	void (*undecorate)(void *ctx); /* free what decorate() made */
	void *ctx;
};

/* ---- -p LIST ---- */

/*
 * findmnt's word list (util-linux's string_to_idarray()): an unknown word
 * is its message, which names the rest of the list; where it fails
 * silently (an empty word, more than 4 of them) lsmnt says why
 */
int poll_parse_actions(const char *opt, const char *list,
		       unsigned int *actions)
{
	const char *p = list;
	size_t count = 0;

	*actions = 0;
	if (!*p) {
		cli_errmsg(opt, "empty action list (mount, umount, remount, "
				"move)");
		return -1;
	}
	for (;;) {
		size_t n = strcspn(p, ",");
		enum poll_action a;

		if (!n) {
			cli_errmsg(opt, "empty action in '%s' (mount, umount, "
					"remount, move)",
				   list);
			return -1;
		}
		/* findmnt keeps at most 4 and refuses a longer list */
		if (++count > 4) {
			cli_errmsg(opt, "too many actions in '%s' (at most 4)",
				   list);
			return -1;
		}
		for (a = ACT_MOUNT; a < NR_ACTS; a++) {
			const char *name = poll_action_name(a);

			if (strlen(name) == n && !strncasecmp(p, name, n))
				break;
		}
		if (a == NR_ACTS) {
			fm_errmsg("unknown action: %s", p);
			return -1;
		}
		*actions |= ACT_BIT(a);
		if (!p[n] || !p[n + 1])
			return 0;
		p += n + 1;
	}
}

/* ---- a batch: the rows of one wakeup ---- */

struct change {
	struct row row;
	uint64_t ns;  /* --all-namespaces: the namespace's ID, else 0 */
	int section;  /* 0: mount, remount, move; 1: umount */
	uint64_t id;  /* the mount's ID: its place in mountinfo */
	size_t seq;   /* arrival, to keep the sort stable */
	struct mntkit_statmount *sm, *old; /* copies, owned */
};

struct batch {
	struct change *v;
	size_t n, cap, seq;
	struct row *rows; /* the sorted rows handed to the printer */
	size_t rowcap;
	struct outbuf s1, s2; /* for the options of two records */
	/* --all-namespaces: those added in this wakeup (their first view) */
	uint64_t *fresh;
	size_t nfresh, freshcap;
};

static void batch_clear(struct batch *b)
{
	for (size_t i = 0; i < b->n; i++) {
		free(b->v[i].sm);
		free(b->v[i].old);
	}
	b->n = 0;
	b->seq = 0;
}

static void batch_free(struct batch *b)
{
	batch_clear(b);
	free(b->v);
	free(b->rows);
	free(b->fresh);
	outbuf_free(&b->s1);
	outbuf_free(&b->s2);
}

/*
 * A copy of @sm; of an all-namespace watch's event (@ns_id not 0) with
 * that namespace's ID, which the kernel's statmount may not have filled
 */
static struct mntkit_statmount *sm_copy(const struct mntkit_statmount *sm,
					uint64_t ns_id)
{
	size_t size = sm->size < MNTKIT_STATMOUNT_FIXED_SIZE
			      ? MNTKIT_STATMOUNT_FIXED_SIZE
			      : sm->size;
	struct mntkit_statmount *c = calloc(1, size);

	if (!c)
		return NULL;
	memcpy(c, sm, sm->size < size ? sm->size : size);
	if (ns_id) {
		c->mnt_ns_id = ns_id;
		c->mask |= MNTKIT_STATMOUNT_MNT_NS_ID;
	}
	return c;
}

/*
 * Add a row for @a of the mount of @ev: the columns show @now (the new
 * record, or the old one for an umount, whose OLD-* show it too), OLD-*
 * show @old (move, remount). 1 added, 0 filtered out, -ENOMEM.
 */
static int batch_add(struct batch *b, const struct poll_opts *po,
		     enum poll_action a, const struct mntkit_event *ev,
		     const struct mntkit_statmount *now,
		     const struct mntkit_statmount *old)
{
	struct change *c;

	if (po->actions && !(po->actions & ACT_BIT(a)))
		return 0;
	if (po->match && !po->match(po->ctx, now))
		return 0;
	if (mntkit__reserve(&b->v, &b->cap, b->n + 1, sizeof(*b->v), 16))
		return -ENOMEM;
	c = &b->v[b->n];
	memset(c, 0, sizeof(*c));
	c->sm = sm_copy(now, ev->mnt_ns_id);
	c->old = old ? sm_copy(old, ev->mnt_ns_id) : NULL;
	if (!c->sm || (old && !c->old)) {
		free(c->sm);
		free(c->old);
		return -ENOMEM;
	}
	c->row.sm = c->sm;
	c->row.old = a == ACT_UMOUNT ? c->sm : c->old;
	c->row.action = a;
	c->row.tid = ev->ns_pid; /* TID: a process in it (poll_decorate()) */
	c->ns = ev->mnt_ns_id;
	c->section = a == ACT_UMOUNT;
	c->id = ev->mnt_id;
	c->seq = b->seq++;
	b->n++;
	return 1;
}

/*
 * --all-namespaces: a namespace added in this wakeup. A few at a time (a
 * host's namespaces are all added at the start, without ATTACHes, and
 * only there can there be many): a linear search is enough.
 */
static int fresh_add(struct batch *b, uint64_t ns_id)
{
	if (mntkit__reserve(&b->fresh, &b->freshcap, b->nfresh + 1,
			    sizeof(*b->fresh), 8))
		return -ENOMEM;
	b->fresh[b->nfresh++] = ns_id;
	return 0;
}

static bool is_fresh(const struct batch *b, uint64_t ns_id)
{
	for (size_t i = b->nfresh; i > 0; i--)
		if (b->fresh[i - 1] == ns_id)
			return true;
	return false;
}

static const char *sm_field(const struct mntkit_statmount *sm,
			    enum mntkit_field f)
{
	const char *s;

	if (!sm || mntkit_sm_str(sm, sm->size, f, &s) < 0)
		return "";
	return s;
}

/* what findmnt's OPTIONS string is made of */
#define OPTIONS_GROUPS                                                        \
	(MNTKIT_STATMOUNT_MNT_BASIC | MNTKIT_STATMOUNT_SB_BASIC |              \
	 MNTKIT_STATMOUNT_MNT_OPTS)

/* both records have the statmount groups @groups */
static bool both_have(const struct mntkit_statmount *x,
		      const struct mntkit_statmount *y, uint64_t groups)
{
	return (x->mask & y->mask & groups) == groups;
}

/* the findmnt OPTIONS strings of two records differ */
static bool options_differ(struct batch *b, const struct mntkit_statmount *x,
			   const struct mntkit_statmount *y)
{
	const char *ox = cell_options(x, false, &b->s1);
	const char *oy = cell_options(y, false, &b->s2);

	if (!ox || !oy)
		return ox != oy;
	return strcmp(ox, oy) != 0;
}

/*
 * An event as findmnt's tabdiff sees the two tables: by (source, target).
 *  ATTACH            mount
 *  DETACH            umount (of the last record seen)
 *  MOVE, CHANGE      another source: umount of the old pair and mount of
 *                    the new; else another target: move; else other
 *                    OPTIONS (VFS and fs options, findmnt's string):
 *                    remount; else (propagation, IDs, ...) nothing. A
 *                    part one of the records lacks (its mask) is no
 *                    change: a hybrid reply (6.8-6.14) of a namespace
 *                    the library can no longer read (no process in it,
 *                    and it may not enter it) lacks mountinfo's groups
 *  RESYNC            nothing (the events after it bring the view up)
 *  NS_ADD            nothing; the ATTACHes of that namespace read in the
 *                    same wakeup are its first view: nothing
 *  NS_GONE           nothing (its last events came before)
 * A mount the kernel named but that was gone before it could be stat'ed
 * (MNTKIT_EVENT_F_GONE, and its DETACH with the same empty record) came
 * and went between two reads: findmnt never sees such a one either.
 */
static int batch_event(struct batch *b, const struct poll_opts *po,
		       const struct mntkit_event *ev)
{
	const struct mntkit_statmount *x = ev->before, *y = ev->after;
	int r;

	switch (ev->kind) {
	case MNTKIT_EVENT_NS_ADD:
		return fresh_add(b, ev->mnt_ns_id);
	case MNTKIT_EVENT_ATTACH:
		if ((ev->flags & MNTKIT_EVENT_F_GONE) || !y || !y->mask)
			return 0;
		if (ev->mnt_ns_id && is_fresh(b, ev->mnt_ns_id))
			return 0;
		return batch_add(b, po, ACT_MOUNT, ev, y, NULL);
	case MNTKIT_EVENT_DETACH:
		if (!x || !x->mask)
			return 0;
		return batch_add(b, po, ACT_UMOUNT, ev, x, NULL);
	case MNTKIT_EVENT_MOVE:
	case MNTKIT_EVENT_CHANGE:
		if (!x || !y || !x->mask || !y->mask)
			return 0;
		if (both_have(x, y, MNTKIT_STATMOUNT_SB_SOURCE) &&
		    strcmp(sm_field(x, MNTKIT_FIELD_SB_SOURCE),
			   sm_field(y, MNTKIT_FIELD_SB_SOURCE))) {
			r = batch_add(b, po, ACT_MOUNT, ev, y, NULL);
			if (r >= 0)
				r = batch_add(b, po, ACT_UMOUNT, ev, x,
					      NULL);
			return r;
		}
		if (both_have(x, y, MNTKIT_STATMOUNT_MNT_POINT) &&
		    strcmp(sm_field(x, MNTKIT_FIELD_MNT_POINT),
			   sm_field(y, MNTKIT_FIELD_MNT_POINT)))
			return batch_add(b, po, ACT_MOVE, ev, y, x);
		if (both_have(x, y, OPTIONS_GROUPS) && options_differ(b, x, y))
			return batch_add(b, po, ACT_REMOUNT, ev, y, x);
		return 0;
	default:
		return 0;
	}
}

static int cmp_change(const void *pa, const void *pb)
{
	const struct change *a = pa, *b = pb;

	if (a->ns != b->ns)
		return a->ns < b->ns ? -1 : 1;
	if (a->section != b->section)
		return a->section - b->section;
	if (a->id != b->id)
		return a->id < b->id ? -1 : 1;
	return a->seq < b->seq ? -1 : a->seq > b->seq;
}

/* the rows of the batch in findmnt's order (-d backward: reversed) */
static int batch_rows(struct batch *b, const struct poll_opts *po,
		      size_t *n)
{
	*n = b->n;
	if (po->first_only && *n > 1)
		*n = 1; /* after the sort below: findmnt's first */
	if (b->n > b->rowcap) {
		if (mntkit__resize(&b->rows, b->n, sizeof(*b->rows)))
			return -ENOMEM;
		b->rowcap = b->n;
	}
	qsort(b->v, b->n, sizeof(*b->v), cmp_change);
	for (size_t i = 0; i < *n; i++)
		b->rows[i] = b->v[po->backward ? b->n - 1 - i : i].row;
	return 0;
}

/* ---- the loop ---- */

static int64_t mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/*
 * A watch, not a live table (mntkit_live(3)): a row is made of its event's
 * two records alone (ev->before gives OLD-TARGET and OLD-OPTIONS), no row
 * asks for a parent, a child or the rest of the table, and the watch's
 * RESYNC already brings its view to the kernel's by events. A live table
 * would index every mount (of every namespace with --all-namespaces) for
 * no row, and has no mntkit_watch_ns_skipped().
 */
static int open_watch(const struct poll_opts *po, struct mntkit_watch **w)
{
	/*
	 * No rescans: they find only mount(2) propagation changes, which
	 * the kernel signals to no one - findmnt never sees them, and
	 * they make no action anyway. (An all-namespace watch still scans
	 * /proc for new namespaces each second.)
	 */
	MNTKIT_WATCH_OPTS(wo, .mask = po->mask,
			  .rescan_ms = MNTKIT_WATCH_NO_RESCAN,
			  .flags = po->all_ns ? MNTKIT_WATCH_F_ALL_NS : 0);
	const char *subject = po->all_ns ? "--all-namespaces" : "--poll";
	int r;

	if (po->all_ns)
		cli_raise_fd_limit();
	r = mntkit_watch_new(&wo, po->all_ns ? NULL : po->ns, w);
	if (!r)
		return 0;
	if (cli_report_refusal(po->ns_subject ? po->ns_subject : subject,
			       CLI_REFUSED_WATCH, -r))
		return -1;
	if (r == -EPERM)
		cli_errmsg(po->ns_subject, "%s (%s)", cli_strerror(-r),
			   cli_eperm_hint());
	else if (r == -ENOENT && po->ns)
		cli_errmsg(po->ns_subject, "no such mount namespace");
	else
		cli_errmsg(po->ns_subject ? po->ns_subject : subject,
			   "cannot watch the mounts: %s", cli_strerror(-r));
	return -1;
}

/*
 * --all-namespaces: the namespaces the watch cannot follow (not ours to
 * see, too many open files, ...), said once as their number grows; the
 * library's debug trace has each one's reason
 */
static void report_skipped(struct mntkit_watch *w, ssize_t *told)
{
	ssize_t n = mntkit_watch_ns_skipped(w);

	if (n > *told)
		cli_errmsg("--all-namespaces",
			   "%zd mount namespace%s cannot be watched, "
			   "skipped (MNTKIT_DEBUG=info says why)",
			   n, n == 1 ? "" : "s");
	if (n >= 0)
		*told = n;
}

struct loop {
	const struct poll_opts *po;
	struct batch_printer bp;
	struct mntkit_watch *w;
	struct batch b;
	struct outbuf ob;
	int sfd;
	ssize_t skipped; /* --all-namespaces: the namespaces skipped, told */
	int sig;      /* the signal that ended it, 0 if none */
	bool done;    /* -f: the first batch is out */
};

/* print the batch read; 0 or -1 after a message */
static int flush_batch(struct loop *l)
{
	const struct poll_opts *po = l->po;
	size_t n;
	int r = batch_rows(&l->b, po, &n);

	if (!r && n && po->decorate)
		r = po->decorate(po->ctx, l->b.rows, n);
	if (r < 0) {
		cli_errmsg(NULL, "%s", cli_strerror(-r));
		return -1;
	}
	if (n && po->tree) {
		cli_errmsg("--poll", "prints its changes as a list: not with "
				     "--tree");
		return -1;
	}
	if (n) {
		r = print_batch(&l->bp, l->b.rows, n, &l->ob);
		if (!r)
			r = outbuf_flush(&l->ob, stdout);
		if (r < 0) {
			cli_errmsg("write error", "%s", cli_strerror(-r));
			return -1;
		}
		l->done = po->first_only;
	}
	if (po->undecorate)
		po->undecorate(po->ctx);
	batch_clear(&l->b);
	return 0;
}

/* read every event there is; 1 if any came, 0 none, -1 error */
static int read_events(struct loop *l)
{
	MNTKIT_EVENT(ev);
	int r, got = 0;

	l->b.nfresh = 0; /* a wakeup of its own */
	while ((r = mntkit_watch_read(l->w, &ev)) == 1) {
		got = 1;
		r = batch_event(&l->b, l->po, &ev);
		if (r < 0)
			break;
	}
	if (r < 0) {
		cli_errmsg("--poll", "%s", cli_strerror(-r));
		return -1;
	}
	if (l->po->all_ns)
		report_skipped(l->w, &l->skipped);
	return got;
}

static int setup_signals(struct loop *l)
{
	sigset_t sigs;

	sigemptyset(&sigs);
	sigaddset(&sigs, SIGINT);
	sigaddset(&sigs, SIGTERM);
	sigprocmask(SIG_BLOCK, &sigs, NULL);
	l->sfd = signalfd(-1, &sigs, SFD_CLOEXEC | SFD_NONBLOCK);
	if (l->sfd < 0) {
		cli_errmsg("signalfd", "%s", cli_strerror(errno));
		return -1;
	}
	return 0;
}

static int which_signal(int sfd)
{
	struct signalfd_siginfo si;

	if (read(sfd, &si, sizeof(si)) != (ssize_t)sizeof(si))
		return SIGTERM;
	return (int)si.ssi_signo;
}

/*
 * The wait: the watch, the signals, and stdout (a pipe's write end says
 * POLLERR once its reader is gone). 1: go on; 0: stop (timeout, signal,
 * no reader); -1: error.
 */
static int wait_events(struct loop *l, int64_t deadline)
{
	struct pollfd pfd[3] = {
		{.fd = mntkit_watch_fd(l->w), .events = POLLIN},
		{.fd = l->sfd, .events = POLLIN},
		{.fd = STDOUT_FILENO, .events = 0},
	};
	int wait_ms = -1;

	if (deadline >= 0) {
		int64_t left = deadline - mono_ms();

		if (left <= 0)
			return 0;
		wait_ms = left > INT_MAX ? INT_MAX : (int)left;
	}
	if (poll(pfd, 3, wait_ms) < 0) {
		if (errno == EINTR)
			return 1;
		cli_errmsg("poll", "%s", cli_strerror(errno));
		return -1;
	}
	if (pfd[1].revents) {
		l->sig = which_signal(l->sfd);
		return 0;
	}
	if (pfd[2].revents & POLLERR) {
		/* findmnt dies of SIGPIPE at its next write: so does lsmnt */
		l->sig = SIGPIPE;
		return 0;
	}
	return 1;
}

static int loop_run(struct loop *l)
{
	const struct poll_opts *po = l->po;
	int64_t deadline = -1;
	int r;

	if (po->timeout_ms >= 0)
		deadline = mono_ms() + po->timeout_ms;
	for (;;) {
		r = read_events(l);
		if (r < 0)
			return -1;
		if (r > 0 && po->timeout_ms >= 0)
			deadline = mono_ms() + po->timeout_ms; /* idle time */
		if (l->b.n && flush_batch(l) < 0)
			return -1;
		if (l->done)
			return 0;
		r = wait_events(l, deadline);
		if (r <= 0)
			return r;
	}
}

/*
 * End as the signal ends findmnt (which leaves SIGINT, SIGTERM and
 * SIGPIPE to their default action), once everything is freed; if it is
 * ignored, a write error for SIGPIPE, else status 0.
 */
static int end_by_signal(int sig)
{
	sigset_t one;

	fflush(stdout);
	if (sig != SIGPIPE)
		signal(sig, SIG_DFL);
	sigemptyset(&one);
	sigaddset(&one, sig);
	raise(sig);
	sigprocmask(SIG_UNBLOCK, &one, NULL);
	if (sig == SIGPIPE) {
		cli_errmsg("write error", "%s", cli_strerror(EPIPE));
		return -1;
	}
	return 0;
}

/*
 * Follow the mount table (with po->all_ns, those of every namespace) with
 * libmntkit's watch and print findmnt's --poll batches. Returns 0
 * (timeout, --first-only), -1 after an error message; SIGINT, SIGTERM and
 * a closed stdout end lsmnt as they end findmnt (by the signal).
 */
static int poll_run(const struct printer *pr, const struct poll_opts *po)
{
	struct loop l = {.po = po, .sfd = -1};
	int r = -1;

	l.bp.pr = *pr;
	outbuf_init(&l.ob);
	outbuf_init(&l.b.s1);
	outbuf_init(&l.b.s2);
	if (setup_signals(&l) == 0 && open_watch(po, &l.w) == 0)
		r = loop_run(&l);
	mntkit_watch_free(l.w);
	batch_free(&l.b);
	batch_printer_end(&l.bp);
	outbuf_free(&l.ob);
	if (l.sfd >= 0)
		close(l.sfd);
	if (!r && l.sig)
		r = end_by_signal(l.sig);
	return r;
}

/* ---- --poll from the command line ---- */

/* what the batches of --poll need from here: filters, statvfs, libblkid */
struct poll_ctx {
	struct cmdline *cl;
	struct matcher m;
	int tid; /* TID: 0 unless shown (of lsmnt's own namespace) */
	uint64_t self_ns; /* --all-namespaces: lsmnt's own namespace */
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

	/*
	 * --all-namespaces: the event's process in another namespace, as
	 * the lists' TID (lsmnt itself in its own, else the lowest there)
	 */
	for (size_t i = 0; i < n; i++)
		if (!pc->cl->all_ns || rows[i].sm->mnt_ns_id == pc->self_ns)
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
 * -p: the watch (poll_run()) with lsmnt's filters and printers. The
 * filters are findmnt's for --poll: those of a list, each change matched
 * by its new record (the old one for an umount); -T and one argument name
 * just what they say (no walk up to a mount point, no source/target swap).
 * --all-namespaces needs the namespace IDs, as its lists do.
 */
/*
 * -p with a table file (-F, or -N with one): findmnt waits for the file
 * to change as mountinfo does (POLLPRI), which a file never does: nothing
 * comes until the timeout, or a signal
 */
static int poll_file(const struct cmdline *cl)
{
	struct timespec ts = {.tv_sec = cl->timeout_ms / 1000,
			      .tv_nsec = (long)(cl->timeout_ms % 1000) * 1000000};

	if (cl->timeout_ms < 0) {
		for (;;)
			pause();
	}
	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
	return 0;
}

int run_poll(struct cmdline *cl)
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
			       .all_ns = cl->all_ns,
			       .mask = wanted_mask(cl) | need,
			       .actions = cl->actions,
			       .timeout_ms = cl->timeout_ms,
			       .first_only = f->first,
			       .backward = cl->backward,
			       .tree = cl->force_tree,
			       .match = poll_match,
			       .decorate = poll_decorate,
			       .undecorate = poll_undecorate,
			       .ctx = &pc};
	int r;

	if (cl->ntabfiles)
		return poll_file(cl);
	if (cl->all_ns && own_ns_id(&pc.self_ns) < 0)
		return -1;
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
	if (cl->pr.terminal && cl->pr.hyperlink && !scols_has_uri())
		cl->pr.terminal = false;
	outbuf_init(&pc.m.s1);
	outbuf_init(&pc.m.s2);
	r = poll_run(&cl->pr, &po);
	outbuf_free(&pc.m.s1);
	outbuf_free(&pc.m.s2);
	return r;
}
