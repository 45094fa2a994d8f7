// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * lsmnt's list and tree text for a pipe or a file: the columns aligned,
 * findmnt's tree art, multi-line cells (SOURCES).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lsmnt.h"
#include "escape.h"

/* ---- list and tree text, for a pipe or a file ---- */

/*
 * libsmartcols' width of a column on a non-terminal, as findmnt 2.42
 * has it: the widest cell, at least the header (unless -n, when the
 * column has no header, and one with no text at all takes no room);
 * wider than the header, the cells take the width hint when that is
 * wider still. A strict-width column (ACTION) is not widened to its
 * header first, so its hint applies even when the header is wider than
 * the cells.
 */
size_t col_width(const struct printer *pr, const struct colinfo *ci,
		 size_t widest)
{
	size_t min = pr->noheadings ? 1 : strlen(ci->name), w = widest;

	if (w <= min && !(ci->flags & CF_STRICT))
		w = min;
	else if (ci->whint >= 1 && w < (size_t)ci->whint &&
		 min < (size_t)ci->whint)
		w = (size_t)ci->whint;
	if (pr->noheadings && !widest && w <= 1)
		w = 0;
	return w;
}

/*
 * A cell padded to @width. A left-aligned one is written, then padded by
 * the width the writing found; only a right-aligned one is measured first.
 */
static void put_cell(struct outbuf *ob, const struct printer *pr, int col,
		     const char *art_prefix, size_t art_w, const char *v,
		     size_t width, bool lastcol)
{
	const struct colinfo *ci = &lsmnt_cols[col];
	size_t w;

	if (!(ci->flags & CF_RIGHT)) {
		if (art_prefix)
			outbuf_puts(ob, art_prefix);
		w = art_w + (v ? put_cell_text(pr, col, v, ob) : 0);
		if (!lastcol && width > w)
			put_spaces(ob, width - w);
		return;
	}
	w = art_w + (v ? put_safe(NULL, v) : 0);
	if (lastcol && !w)
		return; /* libsmartcols pads no empty last cell, even right */
	if (width > w)
		put_spaces(ob, width - w);
	if (art_prefix)
		outbuf_puts(ob, art_prefix);
	if (v)
		put_cell_text(pr, col, v, ob);
}

/* the art of a row at depth @d, @last of its siblings, into tc->art */
int art_of(struct textctx *tc, const struct treeart *style,
	   unsigned int d, bool last)
{
	if (grow_flags(&tc->more, &tc->morecap, d) < 0)
		return -ENOMEM;
	tc->more[d] = !last;
	/*
	 * a row at the depth of the row before, both last or neither, has
	 * its art: the row before set the bar of its own depth only
	 */
	if (tc->art_made && tc->art_depth == d && tc->art_last == last)
		return 0;
	outbuf_reset(&tc->art);
	if (d)
		put_art(&tc->art, style, tc->more, d, last);
	tc->art_depth = d;
	tc->art_last = last;
	tc->art_made = true;
	return 0;
}

/*
 * The art of row @i of @n (into tc->art, empty at depth 0) after the
 * rows before it; its depth into *@d. 0 or -ENOMEM.
 */
int row_art(struct textctx *tc, const struct treeart *style,
	    const struct row *rows, size_t i, size_t n, unsigned int *d)
{
	*d = row_depth(tc->pr, &rows[i]);
	return art_of(tc, style, *d, row_last(tc->pr, rows, i, n));
}

/*
 * A CF_WRAP cell (SOURCES) is one line per '\n'-separated chunk, as with
 * findmnt's scols_wrapnl_*(): its width is that of the widest chunk.
 */
static bool is_wrap(const struct printer *pr, size_t c)
{
	return lsmnt_cols[pr->cols[c]].flags & CF_WRAP;
}

static size_t wrap_width(const char *v)
{
	size_t widest = 0;

	while (v) {
		const char *nl = strchr(v, '\n');
		char *chunk = nl ? strndup(v, (size_t)(nl - v)) : NULL;
		size_t w = put_safe(NULL, chunk ? chunk : v);

		free(chunk);
		if (w > widest)
			widest = w;
		v = nl ? nl + 1 : NULL;
	}
	return widest;
}

/* the widest cell of each column into tc->width (its widest cells) */
static int measure(struct textctx *tc, const struct row *rows, size_t n)
{
	const struct printer *pr = tc->pr;
	struct cellctx cc = cell_ctx(pr, true);

	for (size_t i = 0; i < n; i++) {
		const struct row *r = row_get(&rows[i], &tc->rr);

		if (!r)
			return -ENOMEM;
		for (size_t c = 0; c < pr->ncols; c++) {
			const char *v = cell_value(&cc, (enum col_id)pr->cols[c],
						   r, &tc->scratch);
			size_t w = !v ? 0
				   : cell_wraps(r, pr->cols[c]) ? wrap_width(v)
						    : put_safe(NULL, v);

			w += art_cols(pr, pr->cols[c], r);
			if (w > tc->width[c])
				tc->width[c] = w;
		}
	}
	for (size_t c = 0; c < pr->ncols; c++)
		tc->width[c] = col_width(pr, &lsmnt_cols[pr->cols[c]],
					 tc->width[c]);
	return 0;
}

/*
 * A CF_WRAP cell's value @v cut at its first '\n': the first chunk (in
 * *@first, NULL when there is no '\n' and @v itself is the cell) and the
 * rest (in *@pend), which the continuation lines print. As in
 * libsmartcols, a '\n' that ends the value starts no line of its own, and
 * a value whose every chunk is empty ("\n\n") is one empty line.
 */
static const char *wrap_first(const char *v, char **pend, char **first)
{
	const char *nl = v ? strchr(v, '\n') : NULL;

	*first = NULL;
	if (!nl)
		return v;
	if (v[strspn(v, "\n")] == '\0')
		return "";
	*pend = nl[1] ? strdup(nl + 1) : NULL;
	*first = strndup(v, (size_t)(nl - v));
	return *first ? *first : "";
}

/* the next chunk of a pending cell (to free), NULL when there is none */
static char *wrap_next(char **pend)
{
	char *cur = *pend, *nl;

	*pend = NULL;
	if (cur && (nl = strchr(cur, '\n'))) {
		*nl = '\0';
		*pend = nl[1] ? strdup(nl + 1) : NULL;
	}
	return cur;
}

/* an empty tree cell under a multi-line row: its art continued */
static void put_tree_gap(struct outbuf *ob, const struct textctx *tc,
			 const struct treeart *art, unsigned int d, bool kids,
			 size_t width, bool lastcol)
{
	size_t w = 0;

	for (unsigned int k = 1; k <= d; k++, w += 2)
		outbuf_puts(ob, tc->more[k] ? art->vert : art->space);
	if (kids) {
		outbuf_puts(ob, art->vert);
		w += 2;
	}
	if (!lastcol && width > w)
		put_spaces(ob, width - w);
}

/*
 * The lines after a row with a multi-line cell, as libsmartcols prints
 * them: each such column its next chunk, every other column empty - the
 * tree column with the row's art continued (a bar for its children).
 */
static void print_pending(struct textctx *tc, const struct treeart *art,
			  unsigned int d, bool kids, char **pend,
			  struct outbuf *ob)
{
	const struct printer *pr = tc->pr;
	bool more = true;

	while (more) {
		more = false;
		for (size_t c = 0; c < pr->ncols; c++) {
			bool lastcol = c + 1 == pr->ncols;
			char *v = wrap_next(&pend[c]);

			if (c)
				outbuf_putc(ob, ' ');
			if (!v && is_tree_col(pr, pr->cols[c]))
				put_tree_gap(ob, tc, art, d, kids, tc->width[c],
					     lastcol);
			else
				put_cell(ob, pr, pr->cols[c], NULL, 0, v,
					 tc->width[c], lastcol);
			free(v);
			more |= pend[c] != NULL;
		}
		outbuf_putc(ob, '\n');
	}
}

/* the header line of aligned text output (none with -n) */
void put_header(const struct printer *pr, const size_t *width,
		struct outbuf *ob)
{
	if (pr->noheadings || pr->header_done)
		return;
	for (size_t c = 0; c < pr->ncols; c++) {
		char nb[COLNAME_MAX];

		if (c)
			outbuf_putc(ob, ' ');
		/* the header is no link */
		struct printer plain = *pr;

		plain.hyperlink = false;
		put_cell(ob, &plain, pr->cols[c], NULL, 0, col_name(pr, c, nb),
			 width[c], c + 1 == pr->ncols);
	}
	outbuf_putc(ob, '\n');
}

/*
 * A list or a tree without a multi-line column: each cell made and
 * escaped once, kept (struct text_cells), then printed with the widths
 */
static int print_kept(const struct printer *pr, const struct row *rows,
		      size_t n, struct outbuf *ob)
{
	struct text_cells tcs = {.text = OUTBUF_INIT, .scratch = OUTBUF_INIT};
	size_t first = n < 128 ? n : 128;
	int ret;

	ret = text_cells_add(pr, &tcs, rows, first);
	if (!ret && first < n) {
		text_reserve(&tcs.text, first, n);
		ret = text_cells_add(pr, &tcs, rows + first, n - first);
	}
	if (!ret)
		ret = text_cells_print(pr, &tcs, rows, NULL, ob);
	text_cells_free(&tcs);
	return ret;
}

static bool any_wrap(const struct printer *pr)
{
	for (size_t c = 0; c < pr->ncols; c++)
		if (is_wrap(pr, c))
			return true;
	return false;
}

int print_text(const struct printer *pr, const struct row *rows,
	       size_t n, struct outbuf *ob)
{
	struct textctx tc = {.pr = pr};
	const struct treeart *art = tree_art(pr);
	struct cellctx cc = cell_ctx(pr, true);
	char **pend; /* per column: the chunks of a multi-line cell to come */
	int ret = -ENOMEM;

	if (!n)
		return 0; /* libsmartcols prints nothing, not even a header */
	if (!any_wrap(pr))
		return print_kept(pr, rows, n, ob);
	outbuf_init(&tc.art);
	outbuf_init(&tc.scratch);
	tc.width = calloc(pr->ncols ? pr->ncols : 1, sizeof(*tc.width));
	pend = calloc(pr->ncols ? pr->ncols : 1, sizeof(*pend));
	if (!tc.width || !pend)
		goto out;
	if (measure(&tc, rows, n) < 0)
		goto out;
	put_header(pr, tc.width, ob);
	for (size_t i = 0; i < n; i++) {
		const struct row *r = row_get(&rows[i], &tc.rr);
		bool wrapped = false;
		unsigned int d;

		if (!r || row_art(&tc, art, rows, i, n, &d) < 0)
			goto out;
		for (size_t c = 0; c < pr->ncols; c++) {
			int col = pr->cols[c];
			const char *v = cell_value(&cc, (enum col_id)col, r,
						   &tc.scratch);
			bool treecol = is_tree_col(pr, col) && d;
			char *first = NULL;

			if (cell_wraps(r, col))
				v = wrap_first(v, &pend[c], &first);
			wrapped |= pend[c] != NULL;
			if (c)
				outbuf_putc(ob, ' ');
			put_cell(ob, pr, col,
				 treecol ? outbuf_cstr(&tc.art) : NULL,
				 treecol ? 2 * (size_t)d : 0, v, tc.width[c],
				 c + 1 == pr->ncols);
			free(first);
		}
		outbuf_putc(ob, '\n');
		if (wrapped)
			print_pending(&tc, art, d,
				      pr->tree && i + 1 < n &&
					      row_depth(pr, &rows[i + 1]) > d,
				      pend, ob);
		ret = row_done(pr, ob);
		if (ret < 0)
			goto out;
		ret = -ENOMEM;
	}
	ret = 0;
out:
	if (!ret && (tc.art.err || tc.scratch.err))
		ret = -ENOMEM;
	for (size_t c = 0; pend && c < pr->ncols; c++)
		free(pend[c]);
	free(pend);
	free(tc.width);
	free(tc.more);
	row_rec_free(&tc.rr);
	outbuf_free(&tc.art);
	outbuf_free(&tc.scratch);
	if (!ret && ob->err)
		ret = -ob->err;
	return ret;
}
