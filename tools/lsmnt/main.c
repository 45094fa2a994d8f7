// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * lsmnt - list mounts like findmnt(8), from statmount(2)/listmount(2), in
 * time linear in the number of mounts.
 *
 * One snapshot (mntkit_table_new(): one listing, one statmount per mount,
 * the tree linked in the library) per mount namespace; the filters and the
 * rows to print are one pass over it; the printers (lsmnt-print.c) write
 * findmnt's bytes. A flat listing of every mount that needs nothing but
 * each mount's own reply goes without the snapshot (run_stream()). Output
 * is written a chunk of whole rows at a time, so a failure never leaves
 * half a record; every error is one line on stderr and exit status 1, as
 * is finding nothing (findmnt's convention).
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <dirent.h>
#include <unistd.h>

#include "cli.h"
#include "lsmnt.h"
#include "parts.h"
#include "verify.h"

/* ---- main work ---- */

/*
 * @len bytes of memory (malloc()ed: free(3) and realloc(3) take it).
 * When it will all be written (@all: every mount a row, the text of
 * every cell, a buffer used over and over), its pages are made present
 * at once, not a page fault each (dear in a virtual machine: about 8 us
 * a page; in the one of bench/, whose hypervisor shadows the page tables,
 * the first touch of a present page still costs 5 us), and a block of
 * several 2 MiB runs is aligned to them and has those it covers in huge
 * pages (about 0.3 us per 4 KiB), as the snapshot's records have
 * (lib/table.c). The memory held is the block's either way. A kernel
 * before 5.14 refuses MADV_POPULATE_WRITE: the pages come a fault at a
 * time.
 */
#define HUGE_RUN (2U << 20)

/* madvise() the whole units of @unit bytes within @v .. @v + @len */
static void advise_within(void *v, size_t len, uintptr_t unit, int advice)
{
	uintptr_t a = ((uintptr_t)v + unit - 1) & ~(unit - 1);
	uintptr_t e = ((uintptr_t)v + len) & ~(unit - 1);

	if (e > a)
		madvise((void *)a, e - a, advice);
}

/* big_alloc()'s present memory, aligned to huge runs from @huge bytes */
static void *present_alloc(size_t len, size_t huge)
{
	void *v = NULL;

	if (len < (16U << 10)) /* a few faults cost less */
		return malloc(len);
	if (len < huge || posix_memalign(&v, HUGE_RUN, len))
		v = malloc(len);
	if (!v)
		return NULL;
#ifdef MADV_HUGEPAGE
	advise_within(v, len, HUGE_RUN, MADV_HUGEPAGE);
#endif
#ifdef MADV_POPULATE_WRITE
	advise_within(v, len, (uintptr_t)sysconf(_SC_PAGESIZE),
		      MADV_POPULATE_WRITE);
#endif
	return v;
}

static void *big_alloc(size_t len, bool all)
{
	return all ? present_alloc(len, 2 * HUGE_RUN) : malloc(len);
}

static struct row *rows_alloc(size_t n, bool all)
{
	if (n > SIZE_MAX / sizeof(struct row))
		return NULL;
	return big_alloc(n * sizeof(struct row), all);
}

/* -m: the tables utab merges into (-F takes at most as many files) */
#define MTAB_MAX 8

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

/* @r: 0, or an error of the query, reported here */
static int query_failed(const struct cmdline *cl, int r)
{
	if (r == 0)
		return r;
	if (cli_report_refusal(ns_subject(cl), CLI_REFUSED_QUERY, -r))
		return r;
	if (r == -EPERM)
		cli_errmsg(ns_subject(cl), "%s (%s)", cli_strerror(-r),
			   cli_eperm_hint());
	else if (r == -ENOSYS)
		cli_errmsg(ns_subject(cl),
		       "%s (this kernel has no listmount(2); "
		       "try MNTKIT_BACKEND=mountinfo)",
		       cli_strerror(-r));
	else
		cli_errmsg(ns_subject(cl), "cannot list the mounts: %s",
		       cli_strerror(-r));
	return r;
}

static int take_snapshot(const struct cmdline *cl,
			 const struct mntkit_opts *opts, uint64_t mask,
			 struct mntkit_table **out, bool quiet)
{
	/* siblings in findmnt's order: build_rows() walks the links */
	unsigned int flags = MNTKIT_TABLE_OLD_ORDER;
	int r;

	if (cl->unreachable)
		flags |= MNTKIT_TABLE_UNREACHABLE;
	if (cl->lean)
		flags |= MNTKIT_TABLE_COMPACT;
	r = mntkit_table_new(mask, flags, opts, out);
	return quiet ? r : query_failed(cl, r);
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
	/*
	 * findmnt: -s and -x read fstab format, -F guesses; libmount reads
	 * every file into one table whose format is guessed once, from the
	 * first entry line: the files after it are read in its format
	 */
	enum mntkit_tab_format fmt = cl->fstab || cl->verify
					     ? MNTKIT_TAB_FSTAB
					     : MNTKIT_TAB_AUTO;
	for (size_t i = 0; i < cl->ntabfiles; i++) {
		MNTKIT_TAB_OPTS(o, .flags = MNTKIT_TAB_SKIP_BAD,
				.format = fmt);
		const char *path = cl->tabfiles[i];
		int r = mntkit_table_read_file(path, &o, &(*tabs)[i]);

		if (r < 0) {
			cli_errmsg(NULL, "can't read %s: %s", path,
				   cli_strerror(-r));
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
		/* a file without an entry line (good or bad) tells nothing */
		if (mntkit_table_count((*tabs)[i]) || o.nr_bad)
			fmt = o.format;
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
 * entry's (libmount's mnt_table_merge_user_fs()). With -F the files are
 * the kernel's table, as findmnt -m -F reads them (each file's table
 * merged on its own).
 */
static struct {
	const struct mntkit_table *t[MTAB_MAX];
	const char **user[MTAB_MAX]; /* per table index */
	size_t n;
	struct mntkit_table *utab;
} mtab;

static const char *mtab_user_options(const struct mntkit_statmount *sm)
{
	for (size_t k = 0; k < mtab.n; k++) {
		ssize_t i = mntkit_table_find(mtab.t[k], sm->mnt_id);

		if (i >= 0 && mntkit_table_get(mtab.t[k], (size_t)i) == sm)
			return mtab.user[k][i];
	}
	return NULL;
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

/* utab's entries into table @t, whose user options go to @user */
static int mtab_merge_one(const struct cmdline *cl,
			  const struct mntkit_table *t, const char **user)
{
	size_t n = mntkit_table_count(t), *order = list_order(cl, t);

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

			if (user[i] ||
			    !str_same(sm_string(sm, MNTKIT_FIELD_MNT_ROOT), root) ||
			    !str_same(sm_string(sm, MNTKIT_FIELD_MNT_POINT), target) ||
			    !str_same(sm_string(sm, MNTKIT_FIELD_SB_SOURCE), src))
				continue;
			user[i] = e.user_options;
			break;
		}
	}
	free(order);
	return 0;
}

static int mtab_merge(const struct cmdline *cl, struct mntkit_table **tabs,
		      size_t ntabs)
{
	MNTKIT_TAB_OPTS(o, .format = MNTKIT_TAB_UTAB,
			.flags = MNTKIT_TAB_SKIP_BAD);
	const char *path = secure_getenv("LIBMOUNT_UTAB");
	int r;

	if (!path || !*path)
		path = "/run/mount/utab";
	r = mntkit_table_read_file(path, &o, &mtab.utab);
	if (r == -ENOENT)
		return 0; /* no utab: nothing to merge */
	if (r < 0) {
		cli_errmsg(NULL, "can't read %s: %s", path, cli_strerror(-r));
		return r;
	}
	for (size_t k = 0; k < ntabs && k < MTAB_MAX; k++) {
		mtab.t[k] = tabs[k];
		mtab.user[k] = calloc(mntkit_table_count(tabs[k]) + 1,
				      sizeof(*mtab.user[k]));
		if (!mtab.user[k])
			return -ENOMEM;
		mtab.n = k + 1;
		mtab_merge_one(cl, tabs[k], mtab.user[k]);
	}
	cell_user_options = mtab_user_options;
	return 0;
}

static void mtab_free(void)
{
	for (size_t k = 0; k < mtab.n; k++)
		free(mtab.user[k]);
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
	if (cl->ntabfiles) {
		r = read_tabfiles(cl, tabs, ntabs);
		return !r && cl->mtab ? mtab_merge(cl, *tabs, *ntabs) : r;
	}
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
		return cl->mtab ? mtab_merge(cl, *tabs, 1) : 0;
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
		       skipped, n, cli_strerror(-last_err));
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
			  .every = matches_every(&cl->f),
			  .backward = cl->backward,
			  .first = cl->f.first,
			  .lean = cl->lean,
			  .linked = !cl->ntabfiles};
	struct uniq u = {0};
	int r = 0;

	outbuf_init(&m.s1);
	outbuf_init(&m.s2);
	/* room for every mount: the forest grows without a copy */
	if (!fo->v) {
		size_t all = 0;

		for (size_t k = 0; k < ntabs; k++)
			all += mntkit_table_count(tabs[k]);
		fo->v = rows_alloc(all ? all : 1,
				   (b.all || p->whole_tree) && !b.first);
		fo->cap = fo->v ? (all ? all : 1) : 0;
	}
	fo->first_root = fo->last_root = -1;
	fo->lean = cl->lean;
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
	free(b.smbuf);
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
	if (f->swap && (!f->target_arg || f->source_only)) {
		/*
		 * no such source: maybe a mount point (one argument; with -f,
		 * findmnt's mnt_table_find_target() of it, even before a
		 * second argument, which findmnt's -f lookup never reads)
		 */
		free(f->target);
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
	struct row_rec rr = {0};
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
		const struct row *r = row_get(&rows[i], &rr);

		if (!r) {
			row_rec_free(&rr);
			return -ENOMEM;
		}
		fs_usage_get(r->sm, &(*usage)[i]);
		rows[i].usage = &(*usage)[i];
	}
	row_rec_free(&rr);
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
 * -p: the watch (lsmnt-poll.c) with lsmnt's filters and printers. The
 * filters are findmnt's for --poll: those of a list, each change matched
 * by its new record (the old one for an umount); -T and one argument name
 * just what they say (no walk up to a mount point, no source/target swap).
 * --all-namespaces needs the namespace IDs, as its lists do.
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
			       .all_ns = cl->all_ns,
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
		cli_errmsg(NULL, "%s", cli_strerror(-r));
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

/*
 * The stream: a flat listing of every mount in findmnt's order, each row
 * of one reply and nothing else (no filter, sort, tree, file, -m, -U, -N,
 * --ns, statvfs or libblkid column, TID), printed as raw, pairs or JSON
 * straight from the replies, STREAM_ROWS at a time: neither a snapshot
 * nor a row per mount is kept. A list (-l) needs every row for its
 * widths: it keeps their cells' text only (struct text_cells). On the
 * native backend only, whose listing order (by ID) is findmnt's; the
 * emulation's needs the whole table (list_order()).
 *
 * The whole tree, unfiltered (findmnt's default output and -J), streams
 * too: it keeps each row's cells and the IDs that place it, and prints
 * once they are all in, in the order of the tree they make
 * (tree_shape()). When they do not make one tree - a mount gone during
 * the listing, a second root, a cycle - nothing is printed yet, and the
 * snapshot's tree is printed instead.
 */
#define STREAM_ROWS 128

enum stream_kind { STREAM_NONE, STREAM_FLAT, STREAM_TREE };

static enum stream_kind streamable(const struct cmdline *cl,
				   const struct plan *p)
{
	const struct printer *pr = &cl->pr;

	if (pr->terminal || !cl->lean || cl->ntabfiles || cl->mtab ||
	    cl->uniq || cl->df || cl->all_ns || cl->ns || cl->unreachable ||
	    cl->backward || cl->f.first || has_col(cl, COL_TID) ||
	    mntkit_get_backend() != MNTKIT_BACKEND_NATIVE)
		return STREAM_NONE;
	for (size_t c = 0; c < cl->ncols; c++)
		if (lsmnt_cols[cl->cols[c]].flags & (CF_STATVFS | CF_WRAP))
			return STREAM_NONE;
	if (p->whole_tree && pr->tree && matches_every(&cl->f) &&
	    (pr->json || pr->mode == OUT_TREE))
		return STREAM_TREE;
	if (p->tree_mode || p->submounts || pr->tree || !list_all(&cl->f))
		return STREAM_NONE;
	if (pr->json || pr->mode == OUT_RAW || pr->mode == OUT_PAIRS ||
	    pr->mode == OUT_LIST)
		return STREAM_FLAT;
	return STREAM_NONE;
}

/* the replies of a part of the stream, one after another */
struct stream_part {
	struct row rows[STREAM_ROWS + 1];
	size_t off[STREAM_ROWS + 1];
	size_t n;
	char *arena;
	size_t len, cap;
};

#define STREAM_ALIGN 8U
/* room for a reply at the end of the arena: most fit in it */
#define STREAM_ROOM 4096U
/* no reply is larger (the kernel's strings are page-bounded) */
#define STREAM_ROOM_MAX (64U << 20)

/* the arena with at least @room bytes from @at */
static int stream_room(struct stream_part *sp, size_t at, size_t room)
{
	/* a part's replies: a 512-byte fixed part and their strings each */
	size_t ncap = sp->cap ? sp->cap : (STREAM_ROWS + 1) * 1024U;
	char *nv;

	if (sp->cap >= at + room)
		return 0;
	while (ncap < at + room)
		ncap *= 2;
	/* the first: its pages present at once (big_alloc()) */
	nv = sp->arena ? realloc(sp->arena, ncap) : big_alloc(ncap, true);
	if (!nv)
		return -ENOMEM;
	sp->arena = nv;
	sp->cap = ncap;
	return 0;
}

/*
 * The replies of as many of @ids[0..@n) as the part has rows left for,
 * written by the library where they stay: at the end of the arena
 * (mntkit_stat_many(): one system call a mount, nothing between them).
 * The number read, or the first ID's -errno (-ENOENT: gone since the
 * listing).
 */
static ssize_t stream_stat(struct stream_part *sp, const uint64_t *ids,
			   size_t n, uint64_t mask)
{
	size_t at = (sp->len + STREAM_ALIGN - 1) & ~(size_t)(STREAM_ALIGN - 1);
	size_t want = STREAM_ROWS + 1 - sp->n, room = STREAM_ROOM;
	ssize_t got;
	int r;

	if (want > n)
		want = n;
	for (;;) {
		r = stream_room(sp, at, room);
		if (r < 0)
			return r;
		got = mntkit_stat_many(ids, want, mask, 0, NULL,
				       sp->arena + at, sp->cap - at);
		if (got != -EOVERFLOW || room >= STREAM_ROOM_MAX)
			break;
		room = 2 * (sp->cap - at);
	}
	for (ssize_t k = 0; k < got; k++) {
		const struct mntkit_statmount *sm = (const void *)(sp->arena + at);

		sp->off[sp->n++] = at;
		at += mntkit_stat_span(sm);
	}
	if (got > 0)
		sp->len = at;
	return got;
}

/*
 * The streamed tree's memory, all in one block (struct tree_mem): per row
 * its key, where its cells begin and its tree cell's width, tree_shape()'s
 * work and the order; then, for the rest of the block, the cells' text
 * (lent to its outbuf: more of it moves out). Present at once, and from
 * TREE_HUGE on in 2 MiB huge pages: the block is a few of those, not
 * hundreds of 4 KiB pages at a fault each (big_alloc()). TREE_TEXT: what
 * a row's cells take, about, to begin with.
 */
#define TREE_HUGE (1U << 20)
#define TREE_TEXT 96U

struct tree_mem {
	char *block;
	size_t len, used;
	struct mount_key *keys;
	struct tree_pos *order;
	uint32_t *work;
};

/* @size bytes of @m, 16-aligned */
static void *tree_take(struct tree_mem *m, size_t size)
{
	size_t at = (m->used + 15) & ~(size_t)15;

	if (at > m->len || size > m->len - at)
		return NULL;
	m->used = at + size;
	return m->block + at;
}

static int tree_mem_new(struct tree_mem *m, struct text_cells *tc, size_t n,
			bool text)
{
	size_t per = sizeof(*m->keys) + sizeof(*tc->at) + sizeof(*tc->tw) +
		     sizeof(*m->order) + TREE_SHAPE_WORK(1) + TREE_TEXT;

	if (n > (SIZE_MAX - HUGE_RUN) / 2 / per)
		return -ENOMEM;
	m->len = n * per + 256;
	if (m->len >= TREE_HUGE) /* whole huge runs */
		m->len = (m->len + HUGE_RUN - 1) & ~(size_t)(HUGE_RUN - 1);
	m->block = present_alloc(m->len, TREE_HUGE);
	if (!m->block)
		return -ENOMEM;
	m->keys = tree_take(m, n * sizeof(*m->keys));
	m->order = tree_take(m, n * sizeof(*m->order));
	m->work = tree_take(m, TREE_SHAPE_WORK(n));
	tc->at = tree_take(m, n * sizeof(*tc->at));
	if (text)
		tc->tw = tree_take(m, n * sizeof(*tc->tw));
	m->used = (m->used + 15) & ~(size_t)15;
	/* the rest: the cells' text */
	tc->text.data = m->block + m->used;
	tc->text.cap = m->len - m->used;
	tc->text.lent = true;
	return 0;
}

/* the row that waited goes first, alone */
static void stream_next(struct stream_part *sp)
{
	size_t at = sp->off[STREAM_ROWS];

	memmove(sp->arena, sp->arena + at, sp->len - at);
	sp->off[0] = 0;
	sp->len -= at;
	sp->n = 1;
}

/*
 * print the first @n rows of @sp, more to come when @more; or, for a
 * list or a tree, add them to @cells, and for a tree their IDs to @keys
 */
static int stream_print(struct printer *pr, struct stream_part *sp, size_t n,
			bool more, struct text_cells *cells,
			struct mount_key *keys, struct outbuf *ob)
{
	int r;

	for (size_t i = 0; i < n; i++) {
		const struct mntkit_statmount *rec =
			(const void *)(sp->arena + sp->off[i]);

		memset(&sp->rows[i], 0, sizeof(sp->rows[i]));
		sp->rows[i].sm = rec;
		if (keys)
			keys[cells->n + i] = (struct mount_key){
				.id = rec->mnt_id,
				.parent = rec->mnt_parent_id,
				.old = rec->mnt_id_old,
			};
	}
	if (cells)
		return text_cells_add(pr, cells, sp->rows, n);
	pr->more = more;
	r = print_rows(pr, sp->rows, n, ob);
	pr->cont = true;
	return r;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* @ids (sorted) each once; how many are left */
static ssize_t unique_ids(uint64_t *ids, size_t n)
{
	size_t m = 0;

	for (size_t i = 0; i < n; i++)
		if (!m || ids[i] != ids[m - 1])
			ids[m++] = ids[i];
	return (ssize_t)m;
}

/*
 * Room in @ob for the text of @n rows as long, on average, as those in
 * it (@m of them), and an eighth more, in big_alloc()'s pages: not a
 * page fault per 4 KiB as it grows. At most TEXT_RESERVE_MAX, as the
 * first rows may be longer than the rest (the memory is made present
 * at once). Without the memory it grows as it can.
 */
#define TEXT_RESERVE_MAX (16U << 20)

void text_reserve(struct outbuf *ob, size_t m, size_t n)
{
	size_t per = m ? ob->len / m + 1 : 0, len;
	char *v;

	if (ob->err || !ob->data || !per || n > SIZE_MAX / 2 / per)
		return;
	len = per * n + per * n / 8 + 4096;
	if (len > TEXT_RESERVE_MAX)
		len = TEXT_RESERVE_MAX;
	if (len <= ob->cap)
		return;
	v = big_alloc(len, true);
	if (!v)
		return;
	memcpy(v, ob->data, ob->len + 1);
	if (!ob->lent)
		free(ob->data);
	ob->lent = false;
	ob->data = v;
	ob->cap = len;
}

/* what the output of @n rows needs at most at once: a chunk and a row */
static size_t stream_out_size(size_t n)
{
	return n < PRINT_CHUNK / 128 ? n * 256 + 4096 : 2 * PRINT_CHUNK;
}

/*
 * The last row of a full part waits for the next part, so that the last
 * row printed is known to be the last (JSON closes after it). 0, -1 (an
 * error, told), or 1: the tree was no tree, to be printed from a
 * snapshot.
 */
static int run_stream(struct cmdline *cl, enum stream_kind kind)
{
	uint64_t mask = wanted_mask(cl) | MNTKIT_STATMOUNT_MNT_BASIC, *ids;
	struct stream_part *sp = calloc(1, sizeof(*sp));
	struct outbuf ob = OUTBUF_INIT;
	struct text_cells tcs = {.text = OUTBUF_INIT, .scratch = OUTBUF_INIT};
	bool tree = kind == STREAM_TREE;
	struct text_cells *cells =
		tree || (!cl->pr.json && cl->pr.mode == OUT_LIST) ? &tcs : NULL;
	struct tree_mem tm = {0};
	size_t shown = 0;
	ssize_t n;
	int r = 0;

	if (!sp) {
		cli_errmsg(NULL, "%s", cli_strerror(ENOMEM));
		return -1;
	}
	n = mntkit_list(MNTKIT_LSMT_ROOT, 0, NULL, &ids);
	if (n < 0) {
		query_failed(cl, (int)n);
		free(sp);
		return -1;
	}
	if (tree && tree_mem_new(&tm, &tcs, n ? (size_t)n : 1,
				 !cl->pr.json) < 0) {
		r = -ENOMEM;
		cli_errmsg(NULL, "%s", cli_strerror(ENOMEM));
		goto out;
	}
	/* the output's buffer: a chunk and a row, its pages present */
	ob.cap = stream_out_size((size_t)n);
	ob.data = big_alloc(ob.cap, true);
	if (!ob.data)
		ob.cap = 0;
	for (ssize_t i = 1; i < n; i++) {
		if (ids[i - 1] >= ids[i]) { /* the root may come first */
			qsort(ids, (size_t)n, sizeof(*ids), cmp_u64);
			n = unique_ids(ids, (size_t)n);
			break;
		}
	}
	for (size_t i = 0; i < (size_t)n && !r;) {
		ssize_t got = stream_stat(sp, ids + i, (size_t)n - i, mask);

		if (got == -ENOENT && tree) { /* its children may be left */
			r = 1;
			goto out;
		}
		if (got == -ENOENT) { /* gone since the listing */
			i++;
			continue;
		}
		if (got < 0) {
			r = (int)got;
			query_failed(cl, r);
			goto out;
		}
		i += (size_t)got;
		if (sp->n <= STREAM_ROWS)
			continue;
		r = stream_print(&cl->pr, sp, STREAM_ROWS, true, cells,
				 tm.keys, &ob);
		if (cells && !shown)
			text_reserve(&cells->text, STREAM_ROWS, (size_t)n);
		shown += STREAM_ROWS;
		stream_next(sp);
	}
	if (!r && sp->n) {
		r = stream_print(&cl->pr, sp, sp->n, false, cells, tm.keys,
				 &ob);
		shown += sp->n;
	}
	if (!r && !shown) {
		/* found nothing: exit 1, silently; or the empty tree */
		r = tree ? 1 : -ENOENT;
		goto out;
	}
	/* the replies' memory is done with */
	free(sp->arena);
	sp->arena = NULL;
	if (!r && tree) {
		r = tree_shape(tm.keys, shown, tm.work, tm.order);
		if (r == -EAGAIN) {
			r = 1;
			goto out;
		}
	}
	if (!r && cells)
		r = text_cells_print(&cl->pr, cells, NULL,
				     tree ? tm.order : NULL, &ob);
	if (!r)
		r = outbuf_flush(&ob, stdout);
	if (r < 0)
		cli_errmsg(r == -ENOMEM ? NULL : "write error", "%s",
			   cli_strerror(-r));
out:
	text_cells_free(&tcs);
	free(tm.block);
	free(ids);
	free(sp->arena);
	free(sp);
	outbuf_free(&ob);
	return r < 0 ? -1 : r;
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
	enum stream_kind kind;
	int r;

	/* libsmartcols nests (JSON "children", tree art) by TARGET only */
	cl->pr.tree = p.tree_mode && has_col(cl, COL_TARGET);
	cl->pr.stream = stdout;
	cl->pr.terminal = !cl->pr.json && isatty(STDOUT_FILENO) &&
			  (cl->pr.mode == OUT_TREE || cl->pr.mode == OUT_LIST);
	cl->lean = !cl->ntabfiles && !cl->mtab && !cl->uniq &&
		   !tags_wanted(cl);
	kind = streamable(cl, &p);
	if (kind != STREAM_NONE) {
		r = run_stream(cl, kind);
		if (r <= 0)
			return r;
	}
	r = snapshots(cl, &tabs, &ntabs, &cl->tids);
	if (r < 0)
		goto out;
	/*
	 * findmnt: a tree only of a mountinfo file (not of several files,
	 * even with --tree), and with -m (also of a file) only with --tree
	 */
	if ((cl->ntabfiles && !cl->tab_mountinfo) ||
	    cl->ntabfiles > 1 ||
	    (cl->mtab && !cl->force_tree))
		p.tree_mode = p.whole_tree = cl->pr.tree = false;
	r = select_rows(cl, &p, tabs, ntabs, &fo);
	if (!r)
		r = forest_rows(&fo, &rows, &n);
	free(fo.v); /* the rows have it all */
	fo.v = NULL;
	if (!r)
		r = add_usage(cl, rows, n, &usage);
	if (!r)
		r = add_tags(cl, rows, n, &tags, &ntags);
	if (r < 0) {
		cli_errmsg(NULL, "%s", cli_strerror(-r));
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
		cli_errmsg("write error", "%s", cli_strerror(-r));
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
	cli_wants_locale = true;
	cl.nsopts = nsopts;
	cl.timeout_ms = -1;
	r = parse_cmdline(&cl, argc, argv);
	/*
	 * The locale is set where it is first needed (cli_locale(), about
	 * 0.5 ms): a character beyond ASCII in text, a tree's art, a size
	 * (its decimal point), libsmartcols (a terminal), a message
	 * (cli_strerror()). JSON, raw and pairs never need it but for that.
	 */
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
