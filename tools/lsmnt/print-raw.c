// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * lsmnt's raw (-r) and pairs (-P) output: a line per row, cells escaped,
 * no alignment.
 */
#include <errno.h>
#include <stdlib.h>

#include "lsmnt.h"
#include "escape.h"

/* ---- raw and pairs ---- */

int print_flat(const struct printer *pr, const struct row *rows,
	       size_t n, struct outbuf *ob)
{
	struct cellctx cc = cell_ctx(pr, false);
	struct outbuf scratch = OUTBUF_INIT, art = OUTBUF_INIT;
	struct row_rec rr = {0};
	bool pairs = pr->mode == OUT_PAIRS;
	bool *more = NULL; /* per depth: that level's row has a later sibling */
	size_t morecap = 0;
	int ret = 0;

	if (!pairs && !pr->noheadings && !pr->header_done && !pr->cont &&
	    n) {
		for (size_t c = 0; c < pr->ncols; c++) {
			char nb[COLNAME_MAX];

			if (c)
				outbuf_putc(ob, ' ');
			put_raw(ob, col_name(pr, c, nb));
		}
		outbuf_putc(ob, '\n');
	}
	for (size_t i = 0; i < n; i++) {
		unsigned int d = row_depth(pr, &rows[i]);
		const struct row *r = row_get(&rows[i], &rr);

		if (!r) {
			ret = -ENOMEM;
			break;
		}
		/* --tree: findmnt's art is part of the TARGET value here */
		if (grow_flags(&more, &morecap, d) < 0) {
			ret = -ENOMEM;
			break;
		}
		more[d] = !row_last(pr, rows, i, n);
		for (size_t c = 0; c < pr->ncols; c++) {
			char nb[COLNAME_MAX];
			const char *name = col_name(pr, c, nb);
			const char *v = cell_value(
				&cc, (enum col_id)pr->cols[c], r, &scratch);

			if (d && is_tree_col(pr, pr->cols[c])) {
				outbuf_reset(&art);
				put_art(&art, tree_art(pr), more, d, !more[d]);
				if (v)
					outbuf_puts(&art, v);
				v = outbuf_cstr(&art);
			}
			if (c)
				outbuf_putc(ob, ' ');
			if (!pairs) {
				if (v)
					put_raw(ob, v);
				continue;
			}
			outbuf_puts(ob, name);
			outbuf_puts(ob, "=\"");
			if (v)
				put_pairs(ob, v);
			outbuf_putc(ob, '"');
		}
		outbuf_putc(ob, '\n');
		if (row_done(pr, ob) < 0)
			break;
	}
	free(more);
	row_rec_free(&rr);
	outbuf_free(&art);
	outbuf_free(&scratch);
	if (ret)
		return ret;
	return ob->err ? -ob->err : 0;
}
