// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * lsmnt - list mounts like findmnt(8), from statmount(2)/listmount(2), in
 * time linear in the number of mounts. This file: main() and the flow of
 * a run, from the command line to the printed rows (doc/lsmnt.md).
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "cli.h"
#include "lsmnt.h"

static struct row *rows_alloc(size_t n, bool all)
{
	if (n > SIZE_MAX / sizeof(struct row))
		return NULL;
	return big_alloc(n * sizeof(struct row), all);
}

static struct plan make_plan(const struct cmdline *cl)
{
	const struct filter *f = &cl->f;
	struct plan p = {0};

	/*
	 * findmnt: -l, -r, -P, -D, -I, -m, -s are a list, and so are -f,
	 * -S, -T and an argument without -R
	 */
	p.tree_mode = !cl->no_tree;
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
	struct matcher m = {.f = &cl->f, .q = cl->query};
	struct build b = {.cl = cl,
			  .m = &m,
			  .fo = fo,
			  .tree = p->tree_mode,
			  .all = list_all(&cl->f),
			  .every = matches_every(&cl->f) && !cl->query,
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

/*
 * What findmnt counts as found: its lines, but with -R and for -f's
 * lookup of a source the matches (-Q may drop them all)
 */
static size_t found(const struct cmdline *cl, const struct plan *p,
		    const struct forest *fo)
{
	return p->submounts || cl->f.source_only ? fo->matched : fo->n;
}

/*
 * -T, -S, arguments: resolve them as findmnt does, then build. The
 * whole tree is walked once, each mount matched as it is (no source
 * taken for a mount point, no walk up from a path).
 */
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
		if (r < 0 || found(cl, p, fo))
			return r;
		f->source_pass = 2;
	}
	r = build_rows(cl, p, tabs, ntabs, fo);
	if (r < 0 || found(cl, p, fo) || p->whole_tree)
		return r;
	if (f->swap && (!f->target_arg || f->source_only)) {
		/*
		 * no such source: maybe a mount point (one argument; with -f,
		 * findmnt's mnt_table_find_target() of it, even before a
		 * second argument, which findmnt's -f lookup never reads)
		 */
		swap_to_target(f);
		r = build_rows(cl, p, tabs, ntabs, fo);
		if (r < 0 || found(cl, p, fo))
			return r;
	}
	/*
	 * findmnt walks up from -T's path in its kernel table only: not in
	 * the --kernel=listmount one (2.42), nor with -m and -F
	 */
	if (f->target_arg && !f->strict && f->target && !f->listmount &&
	    !(cl->mtab && cl->ntabfiles)) {
		target_walk_up(f, tabs, ntabs);
		r = build_rows(cl, p, tabs, ntabs, fo);
	}
	return r;
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
	/* links need libsmartcols 2.40; else lsmnt's own text, untruncated */
	if (cl->pr.terminal && cl->pr.hyperlink && !scols_has_uri())
		cl->pr.terminal = false;
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
		if (r != QUERY_FAILED)
			cli_errmsg(NULL, "%s", cli_strerror(-r));
		goto out;
	}
	if (!n && !p.whole_tree && !(p.submounts && fo.matched)) {
		r = -ENOENT; /* found nothing: exit 1, silently */
		goto out;
	}
	/*
	 * no column (a --poll column without -p came first): findmnt
	 * prints nothing, but an empty JSON list
	 */
	if (!cl->pr.ncols && (n || !cl->pr.json))
		goto out;
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
	if (r == 0 && !cl.poll && !cl.verify)
		r = finish_columns(&cl);
	if (r == 0)
		r = cl.poll	? run_poll(&cl)
		    : cl.verify ? run_verify(&cl)
				: run(&cl);
	if (cl.nsopts.mnt_ns_fd > 0)
		close(cl.nsopts.mnt_ns_fd);
	free(cl.f.source_canon);
	free(cl.f.target);
	query_free(cl.query);
	if (r > 0)
		return fflush(stdout) ? EXIT_FAILURE : EXIT_SUCCESS;
	return r < 0 ? EXIT_FAILURE : EXIT_SUCCESS;
}
