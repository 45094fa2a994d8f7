// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * lsmnt's list and tree on a terminal: through libsmartcols, as findmnt
 * prints them.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "lsmnt.h"
#include "dl.h"

/* ---- list and tree for a terminal: libsmartcols ---- */

static int scols_flags(const struct printer *pr, int col)
{
	unsigned int f = lsmnt_cols[col].flags;
	int fl = 0;

	if ((f & CF_TRUNC) && !pr->notrunc)
		fl |= SCOLS_FL_TRUNC;
	if (f & CF_RIGHT)
		fl |= SCOLS_FL_RIGHT;
	if (f & CF_NOEXTREMES)
		fl |= SCOLS_FL_NOEXTREMES;
	if (is_tree_col(pr, col))
		fl |= SCOLS_FL_TREE;
	if (f & CF_WRAP)
		fl |= SCOLS_FL_WRAP;
	if (f & CF_STRICT)
		fl |= SCOLS_FL_STRICTWIDTH;
	return fl;
}

static int scols_fill(const struct printer *pr, struct libscols_table *tb,
		      const struct row *rows, size_t n)
{
	struct cellctx cc = cell_ctx(pr, true);
	struct outbuf scratch = OUTBUF_INIT;
	struct libscols_line **up = NULL;
	struct row_rec rr = {0};
	size_t upcap = 0;
	int ret = 0;

	for (size_t i = 0; i < n && !ret; i++) {
		unsigned int d = row_depth(pr, &rows[i]);
		const struct row *r = row_get(&rows[i], &rr);
		struct libscols_line *ln;

		if (!r) {
			ret = -ENOMEM;
			break;
		}
		if (mntkit__reserve(&up, &upcap, (size_t)d + 1, sizeof(*up),
				    16)) {
			ret = -ENOMEM;
			break;
		}
		ln = sym_scols_table_new_line(tb, d ? up[d - 1] : NULL);
		if (!ln) {
			ret = -ENOMEM;
			break;
		}
		up[d] = ln;
		for (size_t c = 0; c < pr->ncols && !ret; c++) {
			const char *v = cell_value(
				&cc, (enum col_id)pr->cols[c], r, &scratch);

			if (v && sym_scols_line_set_data(ln, c, v))
				ret = -ENOMEM;
		}
	}
	free(up);
	row_rec_free(&rr);
	outbuf_free(&scratch);
	return ret;
}

/* libsmartcols 2.40's scols_column_set_uri(), NULL before */
typedef int (*set_uri_fn)(struct libscols_column *, const char *);

static int set_uri(struct libscols_column *cl, const char *uri)
{
	set_uri_fn fn = (set_uri_fn)dl_smartcols_optional("scols_column_set_uri");

	return fn ? fn(cl, uri) : -ENOSYS;
}

bool scols_has_uri(void)
{
	return dl_smartcols_optional("scols_column_set_uri") != NULL;
}

/* a libsmartcols table with the columns of @pr, and no lines yet */
static struct libscols_table *scols_table_for(const struct printer *pr)
{
	struct libscols_table *tb = sym_scols_new_table();

	if (!tb)
		return NULL;
	sym_scols_table_enable_ascii(tb, pr->ascii);
	sym_scols_table_enable_noheadings(tb, pr->noheadings);
	sym_scols_table_enable_shellvar(tb, pr->shell);
	for (size_t c = 0; c < pr->ncols; c++) {
		const struct colinfo *ci = &lsmnt_cols[pr->cols[c]];

		struct libscols_column *cl = sym_scols_table_new_column(
			tb, ci->name, ci->whint, scols_flags(pr, pr->cols[c]));

		if (!cl) {
			sym_scols_unref_table(tb);
			return NULL;
		}
		if (pr->hyperlink && pr->cols[c] == COL_TARGET &&
		    set_uri(cl, hyperlink_uri())) {
			sym_scols_unref_table(tb);
			return NULL;
		}
		if (ci->flags & CF_WRAP) {
			/* findmnt's multi-line cells (SOURCES) */
			sym_scols_column_set_wrapfunc(
				cl, sym_scols_wrapnl_chunksize,
				sym_scols_wrapnl_nextchunk, NULL);
			sym_scols_column_set_safechars(cl, "\n");
		}
	}
	return tb;
}

int print_scols(const struct printer *pr, const struct row *rows,
		size_t n)
{
	struct libscols_table *tb;
	int ret;

	if (!n)
		return 0; /* libsmartcols prints nothing, not even a header */
	dl_smartcols();
	tb = scols_table_for(pr);
	if (!tb)
		return -ENOMEM;
	ret = scols_fill(pr, tb, rows, n);
	if (!ret && sym_scols_print_table(tb))
		ret = -EIO;
	sym_scols_unref_table(tb);
	return ret;
}

/* ---- --poll: batch by batch ---- */

/*
 * A terminal: findmnt's own calls - the lines of the batch added to one
 * table, scols_table_print_range() (the header the first time only), a
 * newline, the lines removed.
 */
int batch_scols(struct batch_printer *bp, const struct row *rows,
		size_t n)
{
	int ret;

	dl_smartcols();
	if (!bp->tb)
		bp->tb = scols_table_for(&bp->pr);
	if (!bp->tb)
		return -ENOMEM;
	ret = scols_fill(&bp->pr, bp->tb, rows, n);
	if (!ret && sym_scols_table_print_range(bp->tb, NULL, NULL))
		ret = -EIO;
	if (!ret && fputc('\n', stdout) == EOF)
		ret = -EIO;
	sym_scols_table_remove_lines(bp->tb);
	return ret;
}

void batch_printer_end(struct batch_printer *bp)
{
	if (bp->tb)
		sym_scols_unref_table(bp->tb);
	bp->tb = NULL;
}
