// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * lsmnt -Q/--filter: findmnt 2.42's filter expression (expr.h) on lsmnt's
 * rows: parsed as the option is read, its holders bound to columns as
 * findmnt binds them, evaluated on each candidate row with the values
 * its cells would show.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "expr.h"
#include "lsmnt.h"

/* findmnt's columns[]: twice its 32 columns, one slot kept free */
#define QUERY_MAX_COLS 64

struct query {
	struct expr *e;
	const char *text;
	struct cellctx cc;
	bool tty;	     /* stdout is a terminal (expr_strerror()) */
	unsigned int tags;   /* the libblkid data its holders need */
	uint64_t mask;	     /* the statmount groups they need */
	bool tid;	     /* a holder reads TID */
	struct outbuf scratch, first;
	struct devlookup *dl;
	/* the tags of the last source looked up */
	char *tags_src;
	struct devtags tags_of;
	bool have_tags;
};

/* what one evaluation reads: the row, its statvfs and tags when asked */
struct query_row {
	struct query *q;
	struct row row;
	struct fs_usage usage;
	bool usage_done, tags_done;
};

int query_parse(struct cmdline *cl, const char *text)
{
	struct expr *e = expr_parse(text);
	const char *echo;
	size_t len;

	if (!e) {
		cli_errmsg(NULL, "%s", cli_strerror(ENOMEM));
		return -1;
	}
	/* the characters findmnt's scanner copies to stdout as it meets them */
	echo = expr_echo(e, &len);
	if (len)
		fwrite(echo, 1, len, stdout);
	if (expr_error(e)) {
		fm_errmsg("failed to parse \"%s\": %s", text, expr_error(e));
		expr_free(e);
		return -1;
	}
	/* the last -Q counts, as in findmnt */
	if (cl->query)
		query_free(cl->query);
	cl->query = calloc(1, sizeof(*cl->query));
	if (!cl->query) {
		expr_free(e);
		cli_errmsg(NULL, "%s", cli_strerror(ENOMEM));
		return -1;
	}
	cl->query->e = e;
	cl->query->text = text;
	outbuf_init(&cl->query->scratch);
	outbuf_init(&cl->query->first);
	return 0;
}

void query_free(struct query *q)
{
	if (!q)
		return;
	expr_free(q->e);
	outbuf_free(&q->scratch);
	outbuf_free(&q->first);
	if (q->have_tags)
		devtags_release(&q->tags_of);
	free(q->tags_src);
	devlookup_free(q->dl);
	free(q);
}

/* the scols column (of the @n of @cl) whose header is @name, -1: none */
static int scols_column(const struct cmdline *cl, size_t n, const char *name)
{
	for (size_t k = 0; k < n; k++)
		if (!strcmp(lsmnt_cols[cl->cols[k]].name, name))
			return (int)k;
	return -1;
}

/* the value type of column @col, as findmnt gives its filter */
static enum expr_type query_type(const struct cmdline *cl, int col)
{
	return lsmnt_cols[col].number ||
			       (cl->pr.bytes && (lsmnt_cols[col].flags & CF_SIZE))
		       ? EXPR_U64
		       : EXPR_STRING;
}

/*
 * findmnt's init_scols_filter(): each holder is a column named in any
 * case ("unknown column: X" for each one that is none); it reads the
 * output column of that very name, or a hidden one added for it. The
 * output's columns are the first pr.ncols of cl->cols (fewer than
 * cl->ncols when a --poll column cut them short); a hidden column k
 * reads, as findmnt's get_data() does, the cells of cl->cols[k].
 */
int query_bind(struct cmdline *cl)
{
	struct query *q = cl->query;
	size_t nscols = cl->pr.ncols, nh;
	/* per scols column: its type (its own column's) */
	enum expr_type type[QUERY_MAX_COLS];
	int bad = 0;

	if (!q)
		return 0;
	for (size_t k = 0; k < nscols && k < QUERY_MAX_COLS; k++)
		type[k] = query_type(cl, cl->cols[k]);
	nh = expr_nholders(q->e);
	for (size_t i = 0; i < nh; i++) {
		const char *name = expr_holder(q->e, i);
		int id = col_by_name(name, strlen(name)), k;

		if (id < 0) {
			fm_errmsg("unknown column: %s", name);
			bad++;
			continue;
		}
		k = scols_column(cl, nscols, name);
		if (k < 0) {
			if (cl->ncols >= QUERY_MAX_COLS) {
				cli_errmsg(NULL, "too many columns specified, "
						 "the limit is %d columns",
					   QUERY_MAX_COLS - 1);
				return -1;
			}
			cl->cols[cl->ncols++] = id;
			type[nscols] = query_type(cl, id);
			k = (int)nscols++;
		}
		expr_bind(q->e, i, cl->cols[k], type[k]);
		q->mask |= lsmnt_cols[cl->cols[k]].mask;
		q->tags |= tags_of_col(cl->cols[k]);
		q->tid |= cl->cols[k] == COL_TID;
	}
	if (bad) {
		cli_errmsg(NULL, "failed to initialize filter");
		return -1;
	}
	if (expr_prepare(q->e) < 0) {
		cli_errmsg(NULL, "%s", cli_strerror(ENOMEM));
		return -1;
	}
	q->cc = cell_ctx(&cl->pr, !cl->pr.json && (cl->pr.mode == OUT_TREE ||
						  cl->pr.mode == OUT_LIST));
	q->tty = isatty(STDOUT_FILENO);
	return 0;
}

uint64_t query_mask(const struct query *q)
{
	return q ? q->mask : 0;
}

bool query_needs_tid(const struct query *q)
{
	return q && q->tid;
}

/* the libblkid data of @src, the last source's kept */
static const struct devtags *query_tags(struct query *q, const char *src)
{
	if (q->have_tags && q->tags_src && !strcmp(q->tags_src, src))
		return &q->tags_of;
	if (q->have_tags)
		devtags_release(&q->tags_of);
	free(q->tags_src);
	q->have_tags = false;
	q->tags_src = strdup(src);
	if (!q->tags_src)
		return NULL;
	if (!q->dl)
		q->dl = devlookup_new();
	if (!q->dl)
		return NULL;
	devtags_lookup(q->dl, src, q->tags, q->cc.evaluate, &q->tags_of);
	q->have_tags = true;
	return &q->tags_of;
}

/* the cell of column @col in the row, as findmnt's filter reads it */
static const char *query_value(void *ctx, int col)
{
	struct query_row *x = ctx;
	struct query *q = x->q;
	unsigned int flags = lsmnt_cols[col].flags;
	const char *v, *nl;

	if ((flags & CF_STATVFS) && !x->usage_done) {
		fs_usage_get(x->row.sm, &x->usage);
		x->row.usage = &x->usage;
		x->usage_done = true;
	}
	if ((flags & CF_BLKID) && !x->tags_done) {
		const char *src = sm_str(x->row.sm, MNTKIT_FIELD_SB_SOURCE);

		x->row.tags = src ? query_tags(q, src) : NULL;
		x->tags_done = true;
	}
	v = cell_value(&q->cc, (enum col_id)col, &x->row, &q->scratch);
	/* SOURCES: its first device (the cell's first chunk) */
	if (v && col == COL_SOURCES && x->row.tags && x->row.tags->sources &&
	    (nl = strchr(v, '\n'))) {
		outbuf_reset(&q->first);
		outbuf_write(&q->first, v, (size_t)(nl - v));
		v = outbuf_cstr(&q->first);
	}
	return v;
}

int query_match(struct query *q, const struct row *r)
{
	struct query_row x = {.q = q, .row = *r};
	int m;

	x.row.usage = NULL;
	x.row.tags = NULL;
	m = expr_eval(q->e, query_value, &x);
	if (m >= 0)
		return m;
	cli_errmsg(NULL, "failed to apply filter: %s",
		   expr_strerror(q->e, m, q->tty));
	return QUERY_FAILED;
}
