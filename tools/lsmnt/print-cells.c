// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * lsmnt's kept cells (struct text_cells): the text of a list or a tree
 * kept, compactly, until every row is in and the widths are known.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lsmnt.h"
#include "escape.h"

/* ---- a flat list of rows that come in parts ---- */

/*
 * The cells as kept: escaped as put_safe() writes them, and front-coded
 * against the same column of the row before, as consecutive rows share
 * most of their text (a file system type, its options, a source, the
 * directory of mount points): a varint of the bytes that follow and of
 * whether the width is not the length, the width then, a varint of the
 * bytes shared with the cell above, then the bytes that follow. At 10,000
 * bind mounts under one directory the text of lsmnt -l takes about 10
 * bytes a row, not 130: memory, and pages that a virtual machine makes
 * dear to touch the first time.
 */
static inline void put_varint(struct outbuf *ob, size_t v)
{
	unsigned char b[(sizeof(v) * 8 + 6) / 7];
	size_t n = 0;

	do {
		b[n++] = (unsigned char)((v & 0x7f) | (v > 0x7f ? 0x80 : 0));
		v >>= 7;
	} while (v);
	outbuf_write(ob, b, n);
}

static size_t get_varint(const unsigned char **p)
{
	size_t v = 0;
	unsigned int shift = 0;
	unsigned char c;

	do {
		c = *(*p)++;
		v |= (size_t)(c & 0x7f) << shift;
		shift += 7;
	} while (c & 0x80);
	return v;
}

/* the length of the common prefix of @a (@alen bytes) and @b (@blen) */
static size_t common_prefix(const char *a, size_t alen, const char *b,
			    size_t blen)
{
	size_t n = alen < blen ? alen : blen, i = 0;

	for (; n - i >= 8; i += 8) {
		uint64_t x, y;

		memcpy(&x, a + i, 8);
		memcpy(&y, b + i, 8);
		if (x != y)
			break;
	}
	while (i < n && a[i] == b[i])
		i++;
	return i;
}

static int text_cells_init(const struct printer *pr, struct text_cells *tc)
{
	size_t ncols = pr->ncols ? pr->ncols : 1;

	if (tc->ncols)
		return 0;
	tc->width = calloc(ncols, sizeof(*tc->width));
	tc->rawidth = calloc(ncols, sizeof(*tc->rawidth));
	tc->last = calloc(ncols, sizeof(*tc->last));
	tc->raw = calloc(ncols, sizeof(*tc->raw));
	if (!tc->width || !tc->rawidth || !tc->last || !tc->raw)
		return -ENOMEM; /* text_cells_free() frees what there is */
	for (size_t c = 0; c < ncols; c++) {
		tc->last[c] = (struct outbuf)OUTBUF_INIT;
		tc->raw[c] = (struct outbuf)OUTBUF_INIT;
	}
	tc->ncols = ncols;
	return 0;
}

/* @v as kept: escaped text, or for JSON (tc->at) the value; its width */
static size_t put_kept(const struct printer *pr, int col, const char *v,
		       bool wrap, struct outbuf *ob)
{
	size_t at = ob->len;

	if (!pr->json)
		return put_cell_text(pr, col, v, ob);
	put_json_value(pr, &lsmnt_cols[col], v, wrap, 0, ob);
	return ob->len - at;
}

/*
 * A kept row's cell header is written before its value, in a fixed 3
 * bytes a number (a varint padded with 0x80 bytes, which get_varint()
 * reads as any other), then filled in; a value of KEPT_BIG or more (none
 * of the kernel's strings, escaped, comes near) moves to make room for
 * a varint of its length.
 */
#define KEPT_BIG (1U << 20)

static void put_varint3(char *p, size_t v)
{
	p[0] = (char)(0x80 | (v & 0x7f));
	p[1] = (char)(0x80 | ((v >> 7) & 0x7f));
	p[2] = (char)((v >> 14) & 0x7f);
}

/*
 * A row kept for any order (tc->at): each cell whole, written where it
 * stays, with no "value above" to compare or share with
 */
static void kept_row_add(const struct printer *pr, const struct cellctx *cc,
			 struct text_cells *tc, const struct row *r, size_t i)
{
	size_t hdr = pr->json ? 4 : 7; /* (len, width,) shared */

	tc->at[i] = tc->text.len;
	for (size_t c = 0; c < pr->ncols && !tc->text.err; c++) {
		int col = pr->cols[c];
		const char *v = cell_value(cc, (enum col_id)col, r,
					   &tc->scratch);
		size_t at = tc->text.len, w, len;
		char *p;

		if (!outbuf_room(&tc->text, hdr))
			return;
		tc->text.len += hdr;
		w = put_kept(pr, col, v ? v : "", cell_wraps(r, col),
			     &tc->text);
		len = tc->text.len - at - hdr;
		if (tc->text.err)
			return;
		if (len >= KEPT_BIG || w >= KEPT_BIG) {
			outbuf_reset(&tc->esc);
			outbuf_write(&tc->esc, tc->text.data + at + hdr, len);
			tc->text.len = at;
			put_varint(&tc->text, len << 1 | 1);
			put_varint(&tc->text, w);
			put_varint(&tc->text, 0);
			outbuf_write(&tc->text, tc->esc.data, len);
		} else {
			p = tc->text.data + at;
			put_varint3(p, len << 1 | !pr->json);
			if (!pr->json)
				put_varint3(p + 3, w);
			p[hdr - 1] = 0;
		}
		if (w > tc->width[c])
			tc->width[c] = w;
		if (tc->tw && is_tree_col(pr, col))
			tc->tw[i] = (uint32_t)w;
	}
}

int text_cells_add(const struct printer *pr, struct text_cells *tc,
		   const struct row *rows, size_t n)
{
	/* JSON is kept only for a tree (tc->at), flat JSON printed as it comes */
	struct cellctx cc = cell_ctx(pr, !pr->json);

	if (text_cells_init(pr, tc) < 0)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		const struct row *r = row_get(&rows[i], &tc->rr);

		if (!r)
			return -ENOMEM;
		if (tc->at) {
			kept_row_add(pr, &cc, tc, r, tc->n + i);
			if (tc->esc.err || tc->text.err)
				return -ENOMEM;
			continue;
		}
		for (size_t c = 0; c < pr->ncols; c++) {
			const char *v = cell_value(&cc, (enum col_id)pr->cols[c],
						   r, &tc->scratch);
			struct outbuf *above = &tc->last[c], t;
			size_t w, len, shared, wide;

			if (!v)
				v = ""; /* no value prints as an empty one */
			if (tc->raw[c].data && !strcmp(tc->raw[c].data, v)) {
				/* the value above: all of its text shared */
				w = tc->rawidth[c];
				len = shared = above->len;
			} else {
				outbuf_reset(&tc->esc);
				w = put_cell_text(pr, pr->cols[c], v, &tc->esc);
				outbuf_reset(&tc->raw[c]);
				outbuf_puts(&tc->raw[c], v);
				tc->rawidth[c] = w;
				if (tc->esc.err || tc->raw[c].err)
					return -ENOMEM;
				len = tc->esc.len;
				shared = common_prefix(tc->esc.data, len,
						       above->data, above->len);
			}
			put_varint(&tc->text, (len - shared) << 1 | (w != len));
			if (w != len)
				put_varint(&tc->text, w);
			put_varint(&tc->text, shared);
			wide = w + art_cols(pr, pr->cols[c], r);
			if (wide > tc->width[c])
				tc->width[c] = wide;
			if (len == above->len && shared == len)
				continue; /* the above is this cell */
			if (len > shared)
				outbuf_write(&tc->text, tc->esc.data + shared,
					     len - shared);
			/* this cell is the next row's above */
			t = *above;
			*above = tc->esc;
			tc->esc = t;
		}
	}
	tc->n += n;
	if (tc->text.err || tc->scratch.err)
		return -ENOMEM;
	return 0;
}

/*
 * A row of kept cells, written in place (outbuf_room()): each cell as
 * put_cell() writes it - a left-aligned one then padded to its column's
 * width, but for the last column; a right-aligned one padded first, an
 * empty last one not at all - the tree's art before the tree column's
 * text (@art, NULL in a row without), one blank between columns.
 */
struct cell_ref {
	const char *text;
	size_t len, width;
};

static void put_kept_row(const struct printer *pr, const struct text_cells *tc,
			 const struct cell_ref *cells, const struct outbuf *art,
			 size_t d, struct outbuf *ob)
{
	size_t need = 1;
	char *p, *start;

	for (size_t c = 0; c < pr->ncols; c++)
		need += tc->width[c] + cells[c].len + 1 +
			(art ? art->len : 0);
	start = p = outbuf_room(ob, need);
	if (!p)
		return;
	for (size_t c = 0; c < pr->ncols; c++) {
		const struct colinfo *ci = &lsmnt_cols[pr->cols[c]];
		const struct cell_ref *cell = &cells[c];
		bool tree = art && is_tree_col(pr, pr->cols[c]);
		bool lastcol = c + 1 == pr->ncols;
		size_t wide = cell->width + (tree ? 2 * d : 0);
		size_t pad = tc->width[c] > wide ? tc->width[c] - wide : 0;

		bool right = ci->flags & CF_RIGHT;

		if (c)
			*p++ = ' ';
		if (right && lastcol && !wide)
			continue; /* as put_cell(): not even padded */
		if (right) {
			memset(p, ' ', pad);
			p += pad;
		}
		if (tree && art->len) {
			memcpy(p, art->data, art->len);
			p += art->len;
		}
		if (cell->len) {
			memcpy(p, cell->text, cell->len);
			p += cell->len;
		}
		if (!right && !lastcol) {
			memset(p, ' ', pad);
			p += pad;
		}
	}
	*p++ = '\n';
	*p = '\0';
	ob->len += (size_t)(p - start);
}

/* the next kept cell at *@p: its text (@len bytes), its width into *@w */
static const unsigned char *kept_cell(const unsigned char **p, size_t *len,
				      size_t *shared, size_t *w)
{
	size_t rest = get_varint(p);
	const unsigned char *text;

	*w = rest & 1 ? get_varint(p) : SIZE_MAX;
	*shared = get_varint(p);
	*len = rest >> 1;
	text = *p;
	*p += *len;
	return text;
}

/* the JSON tree of rows kept with tc->at, in @order */
static int kept_json(const struct printer *pr, const struct text_cells *tc,
		     const struct tree_pos *order, struct outbuf *ob)
{
	struct json_keys keys = {.text = OUTBUF_INIT};
	size_t lastcap = 0;
	bool *lastv = NULL, opened = false;
	int ret = 0;

	outbuf_puts(ob, "{\n   \"filesystems\": [\n");
	for (size_t i = 0; !ret && i < tc->n; i++) {
		const struct tree_pos *at = &order[i];
		const unsigned char *p =
			(const unsigned char *)tc->text.data + tc->at[at->row];

		ret = grow_flags(&lastv, &lastcap, at->depth);
		if (!ret)
			ret = json_keys_at(pr, &keys, at->depth);
		if (ret < 0)
			break;
		lastv[at->depth] = at->last;
		json_row_open(ob, at->depth, opened);
		for (size_t c = 0; c < pr->ncols; c++) {
			size_t len, shared, w;
			const unsigned char *v = kept_cell(&p, &len, &shared, &w);

			put_key(ob, &keys, c);
			outbuf_write(ob, v, len);
		}
		opened = json_row_end(ob, &keys, pr->ncols, at->depth,
				      at->kids, lastv);
		ret = row_done(pr, ob);
	}
	if (!ret)
		outbuf_puts(ob, "   ]\n}\n");
	free(lastv);
	json_keys_free(&keys);
	if (ret)
		return ret;
	return ob->err ? -ob->err : 0;
}

/* the widest tree cell with its art, of rows kept in @order */
static void kept_tree_width(const struct printer *pr, struct text_cells *tc,
			    const struct tree_pos *order)
{
	for (size_t c = 0; c < pr->ncols; c++) {
		if (!is_tree_col(pr, pr->cols[c]))
			continue;
		for (size_t i = 0; i < tc->n; i++) {
			size_t wide = tc->tw[order[i].row] +
				      2 * (size_t)order[i].depth;

			if (wide > tc->width[c])
				tc->width[c] = wide;
		}
	}
}

int text_cells_print(const struct printer *pr, struct text_cells *tc,
		     const struct row *rows, const struct tree_pos *order,
		     struct outbuf *ob)
{
	const unsigned char *p = (const unsigned char *)tc->text.data;
	struct textctx tx = {.pr = pr, .art = OUTBUF_INIT};
	const struct treeart *style;
	struct cell_ref *cells;
	int ret = 0;

	if (!tc->n)
		return 0; /* libsmartcols prints nothing, not even a header */
	if (tc->text.err)
		return -tc->text.err;
	if (order && pr->json)
		return kept_json(pr, tc, order, ob);
	/* the locale (cli_locale()) only for a tree's art */
	style = pr->tree ? tree_art(pr) : NULL;
	if (order)
		kept_tree_width(pr, tc, order);
	cells = calloc(pr->ncols ? pr->ncols : 1, sizeof(*cells)); /* a row's */
	if (!cells)
		return -ENOMEM;
	for (size_t c = 0; c < pr->ncols; c++) {
		tc->width[c] = col_width(pr, &lsmnt_cols[pr->cols[c]],
					 tc->width[c]);
		outbuf_reset(&tc->last[c]); /* the cell above, rebuilt */
	}
	put_header(pr, tc->width, ob);
	for (size_t i = 0; i < tc->n && !ret; i++) {
		unsigned int d = 0;

		if (order) {
			d = order[i].depth;
			p = (const unsigned char *)tc->text.data +
			    tc->at[order[i].row];
			ret = art_of(&tx, style, d, order[i].last);
		} else if (rows) {
			ret = row_art(&tx, style, rows, i, tc->n, &d);
		}
		if (ret < 0)
			break;
		for (size_t c = 0; c < pr->ncols; c++) {
			struct outbuf *above = &tc->last[c];
			struct cell_ref *cell = &cells[c];
			size_t len, shared, w;
			const unsigned char *v = kept_cell(&p, &len, &shared, &w);

			if (order) { /* whole, where it is */
				cell->text = (const char *)v;
				cell->len = len;
			} else {
				/* its first bytes are the above's */
				above->len = shared;
				outbuf_write(above, v, len);
				cell->text = above->data;
				cell->len = above->len;
			}
			cell->width = w == SIZE_MAX ? cell->len : w;
		}
		put_kept_row(pr, tc, cells, d ? &tx.art : NULL, d, ob);
		ret = row_done(pr, ob);
	}
	for (size_t c = 0; !ret && c < pr->ncols; c++)
		if (tc->last[c].err)
			ret = -ENOMEM;
	if (!ret && tx.art.err)
		ret = -ENOMEM;
	free(tx.more);
	free(cells);
	outbuf_free(&tx.art);
	if (ret)
		return ret;
	return ob->err ? -ob->err : 0;
}

void text_cells_free(struct text_cells *tc)
{
	outbuf_free(&tc->text);
	outbuf_free(&tc->scratch);
	outbuf_free(&tc->esc);
	for (size_t c = 0; c < tc->ncols; c++) {
		outbuf_free(&tc->last[c]);
		outbuf_free(&tc->raw[c]);
	}
	free(tc->last);
	free(tc->raw);
	tc->at = NULL; /* the caller's */
	tc->tw = NULL;
	free(tc->rawidth);
	free(tc->width);
	tc->last = tc->raw = NULL;
	tc->rawidth = tc->width = NULL;
	tc->ncols = 0;
	tc->n = 0;
	row_rec_free(&tc->rr);
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
