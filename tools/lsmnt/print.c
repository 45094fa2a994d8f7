// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * lsmnt-print.c - lsmnt's printers.
 *
 * findmnt prints through libsmartcols. lsmnt writes the same bytes itself
 * for JSON, raw, pairs and for list/tree text going to a pipe or a file, in
 * time linear in the output: libsmartcols spends about 3 us per line in
 * tree and list mode (wcwidth() and mbrtowc() on every character), more
 * than the whole statmount(2) of the mount. For a terminal, list and tree
 * go through libsmartcols itself, so that its width reduction and
 * truncation are findmnt's to the column.
 *
 * The escaping rules are those of libsmartcols 2.38:
 *  - list/tree: a character that is not printable in the locale as \xHH
 *    (each byte), a backslash before an 'x' as \x5c; width by wcwidth();
 *  - raw: blanks, backslash and anything but printable ASCII as \xHH;
 *  - pairs: '"', '\', '`', '$' and anything but printable ASCII as \xHH;
 *  - JSON: '"' and '\' escaped, bytes 0x01-0x1f as \b \f \n \r \t or
 *    \u00XX; every other byte as it is (findmnt passes invalid UTF-8
 *    through, and so does lsmnt, to stay byte-identical).
 */
#include <ctype.h>
#include <errno.h>
#include <langinfo.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>
#include <wctype.h>

#include "cli.h"
#include "lsmnt.h"
#include "parts.h"
#include "dl.h"

static const char hexdig[] = "0123456789abcdef";

static void put_hex(struct outbuf *ob, unsigned char c)
{
	char esc[4] = {'\\', 'x', hexdig[c >> 4], hexdig[c & 15]};

	if (ob)
		outbuf_write(ob, esc, 4);
}

/*
 * What each printer writes as it is, found a word at a time: the bytes
 * from 0x20 on, below 0x7f too when @high (raw, pairs, list/tree; JSON
 * passes the others through), and none of @stop (4 bytes; a 0 there
 * stops nothing, as no NUL is inside a string). The tests are exact for
 * "some byte of the word is one" (the hacks of Sean Anderson's bit
 * twiddling page: haszero, hasless, hasmore).
 */
#define ONES UINT64_C(0x0101010101010101)
#define HIGHS (ONES * 0x80)

static bool byte_plain(unsigned char c, bool high, const unsigned char *stop)
{
	return c >= 0x20 && (!high || c < 0x7f) && c != stop[0] &&
	       c != stop[1] && c != stop[2] && c != stop[3];
}

static bool word_plain(uint64_t x, bool high, const unsigned char *stop)
{
	uint64_t t = (x - ONES * 0x20) & ~x; /* a byte below 0x20 */

	if (high)
		t |= (x + ONES) | x; /* a byte above 0x7e */
	for (int k = 0; k < 4; k++) {
		uint64_t y = x ^ (ONES * stop[k]);

		t |= (y - ONES) & ~y; /* a byte equal to stop[k] */
	}
	return !(t & HIGHS);
}

/* the length of the plain prefix of the @len bytes at @s */
static size_t plain_run(const unsigned char *s, size_t len, bool high,
			const unsigned char *stop)
{
	size_t i = 0;

	for (; len - i >= 8; i += 8) {
		uint64_t x;

		memcpy(&x, s + i, 8);
		if (!word_plain(x, high, stop))
			break;
	}
	while (i < len && byte_plain(s[i], high, stop))
		i++;
	return i;
}

static bool locale_utf8(void)
{
	static int utf8 = -1;

	if (utf8 < 0) {
		cli_locale(); /* set here at its first need */
		utf8 = !strcmp(nl_langinfo(CODESET), "UTF-8");
	}
	return utf8;
}

/*
 * list/tree text: write @s escaped into @ob (NULL: only measure) and return
 * its width in terminal columns.
 */
static size_t put_safe(struct outbuf *ob, const char *s)
{
	static const unsigned char stop[4] = {'\\'};
	const unsigned char *p = (const unsigned char *)s;
	size_t len = strlen(s), width = 0;

	while (len) {
		size_t run = plain_run(p, len, true, stop);

		if (run) {
			if (ob)
				outbuf_write(ob, p, run);
			width += run;
			p += run;
			len -= run;
			continue;
		}
		if (*p == '\\' && p[1] != 'x') {
			if (ob)
				outbuf_putc(ob, '\\');
			width++;
			p++;
			len--;
			continue;
		}
		if (*p < 0x80 || !locale_utf8()) {
			put_hex(ob, *p++);
			len--;
			width += 4;
			continue;
		}
		{
			mbstate_t st;
			wchar_t wc;
			size_t n;

			memset(&st, 0, sizeof(st));
			n = mbrtowc(&wc, (const char *)p, len, &st);
			if (n == (size_t)-1 || n == (size_t)-2 || n == 0) {
				put_hex(ob, *p++);
				len--;
				width += 4;
			} else if (!iswprint((wint_t)wc)) {
				for (size_t i = 0; i < n; i++)
					put_hex(ob, p[i]);
				width += 4 * n;
				p += n;
				len -= n;
			} else {
				int w = wcwidth(wc);

				if (ob)
					outbuf_write(ob, p, n);
				width += w > 0 ? (size_t)w : 0;
				p += n;
				len -= n;
			}
		}
	}
	return width;
}

/*
 * @s with its plain runs (plain_run() by @high and @stop) as they are and
 * every other byte as @esc writes it
 */
static void put_escaped(struct outbuf *ob, const char *s, bool high,
			const unsigned char *stop,
			void (*esc)(struct outbuf *, unsigned char))
{
	const unsigned char *p = (const unsigned char *)s;
	size_t len = strlen(s);

	while (len) {
		size_t run = plain_run(p, len, high, stop);

		outbuf_write(ob, p, run);
		p += run;
		len -= run;
		if (!len)
			break;
		esc(ob, *p++);
		len--;
	}
}

/* raw: blanks, backslash and anything but printable ASCII as \xHH */
static void put_raw(struct outbuf *ob, const char *s)
{
	static const unsigned char stop[4] = {' ', '\\'};

	put_escaped(ob, s, true, stop, put_hex);
}

/* pairs: '"', '\', '`', '$' and anything but printable ASCII as \xHH */
static void put_pairs(struct outbuf *ob, const char *s)
{
	static const unsigned char stop[4] = {'"', '\\', '`', '$'};

	put_escaped(ob, s, true, stop, put_hex);
}

/* a JSON string's escape of @c: '"', '\' or a control character */
static void put_json_escape(struct outbuf *ob, unsigned char c)
{
	static const char from[] = "\"\\\b\f\n\r\t", to[] = "\"\\bfnrt";
	const char *k = c ? strchr(from, c) : NULL;

	if (k) {
		char e[2] = {'\\', to[k - from]};

		outbuf_write(ob, e, 2);
	} else {
		outbuf_printf(ob, "\\u%04x", c);
	}
}

static void put_json(struct outbuf *ob, const char *s)
{
	static const unsigned char stop[4] = {'"', '\\'};

	outbuf_putc(ob, '"');
	put_escaped(ob, s, false, stop, put_json_escape);
	outbuf_putc(ob, '"');
}

static void put_spaces(struct outbuf *ob, size_t n)
{
	static const char sp[] = "                                ";

	while (n) {
		size_t k = n < sizeof(sp) - 1 ? n : sizeof(sp) - 1;

		outbuf_write(ob, sp, k);
		n -= k;
	}
}

/*
 * After a row: hand a full chunk (PRINT_CHUNK) to the stream. The
 * snapshot is complete before the first byte, so streaming only bounds
 * the memory; a chunk ends with a whole row, so even a failure leaves no
 * half record.
 */
static int row_done(const struct printer *pr, struct outbuf *ob)
{
	int r;

	if (ob->len < PRINT_CHUNK || !pr->stream)
		return ob->err ? -ob->err : 0;
	r = outbuf_flush(ob, pr->stream);
	if (r < 0)
		ob->err = -r; /* keep it: later appends do nothing */
	return r;
}

/* ---- the shape of the rows ---- */

/*
 * Rows as printed: nested (depth, last) or flat. A flat view of tree rows
 * (no TARGET column to draw the tree in) keeps their order.
 */
static unsigned int row_depth(const struct printer *pr, const struct row *r)
{
	return pr->tree ? r->depth : 0;
}

static bool row_last(const struct printer *pr, const struct row *rows, size_t i,
		     size_t n)
{
	return pr->tree ? rows[i].last : i + 1 == n && !pr->more;
}

static struct cellctx cell_ctx(const struct printer *pr, bool text)
{
	struct cellctx cc = {.text = text,
			     .nofsroot = pr->nofsroot,
			     .bytes = pr->bytes,
			     .canonicalize = pr->canonicalize,
			     .evaluate = pr->evaluate,
			     .vfs_all = pr->vfs_all};

	return cc;
}

/*
 * A column's name as printed: with -y, libsmartcols' shell variable name
 * ('_' before a leading non-letter, '_' for every other character, and a
 * trailing '%' is "_PCT": MAJ_MIN, USE_PCT) in every mode - the header,
 * -P's keys and JSON's keys alike. @buf holds at least COLNAME_MAX bytes.
 */
#define COLNAME_MAX 64

static const char *col_name(const struct printer *pr, size_t c, char *buf)
{
	const char *name = lsmnt_cols[pr->cols[c]].name;
	size_t len = strlen(name), k = 0;

	if (!pr->shell || len + 5 > COLNAME_MAX)
		return name;
	if (!isalpha((unsigned char)name[0]))
		buf[k++] = '_';
	for (const char *p = name; *p; p++)
		buf[k++] = isalnum((unsigned char)*p) ? *p : '_';
	if (len && name[len - 1] == '%') {
		memcpy(buf + k, "PCT", 3);
		k += 3;
	}
	buf[k] = '\0';
	return buf;
}

/* ---- JSON ---- */

static void json_key_lower(struct outbuf *ob, const char *name)
{
	char key[64];
	size_t i;

	for (i = 0; name[i] && i < sizeof(key) - 1; i++)
		key[i] = (char)tolower((unsigned char)name[i]);
	key[i] = '\0';
	put_json(ob, key);
}

/*
 * A CF_WRAP cell (SOURCES): libsmartcols' array of strings, one per line
 * of the value (the chunks between its '\n's), on one line of their own;
 * an empty chunk - an empty cell, a "\n\n" or a '\n' at the end - is null,
 * as findmnt writes it ("trail\n" gives "trail", null).
 */
static void put_json_array(struct outbuf *ob, const char *v, size_t ind)
{
	outbuf_puts(ob, "[\n");
	put_spaces(ob, ind + 4);
	for (v = v ? v : "";; v++) {
		const char *nl = strchr(v, '\n');
		size_t len = nl ? (size_t)(nl - v) : strlen(v);
		char *item = len ? strndup(v, len) : NULL;

		if (len && !item) {
			ob->err = ENOMEM;
			return;
		}
		if (item)
			put_json(ob, item);
		else
			outbuf_puts(ob, "null");
		free(item);
		if (!nl)
			break;
		outbuf_puts(ob, ", ");
		v = nl;
	}
	outbuf_putc(ob, '\n');
	put_spaces(ob, ind);
	outbuf_putc(ob, ']');
}

static size_t json_indent(unsigned int depth)
{
	return 6 + 6 * (size_t)depth;
}

/* the value @v of column @ci, of an object indented by @ind */
static void put_json_value(const struct printer *pr, const struct colinfo *ci,
			   const char *v, size_t ind, struct outbuf *ob)
{
	if (ci->flags & CF_WRAP)
		put_json_array(ob, v, ind + 3);
	else if (!v || !*v)
		outbuf_puts(ob, "null");
	else if (ci->number || (pr->bytes && (ci->flags & CF_SIZE)))
		outbuf_puts(ob, v);
	else
		put_json(ob, v);
}

/*
 * The columns' keys as written before their values at one depth, made
 * once for all the rows there: the first `<indentation>"name": `, each
 * other `,\n<indentation>"name": `; and what closes a row there that has
 * neither children nor the last place among its siblings.
 */
struct json_keys {
	struct outbuf text; /* the keys, then the close */
	size_t *at;	    /* per column where its key begins; the close */
	unsigned int depth;
	bool made;
};

static int json_keys_at(const struct printer *pr, struct json_keys *k,
			unsigned int d)
{
	if (k->made && k->depth == d)
		return 0;
	if (!k->at && !(k->at = malloc((pr->ncols + 2) * sizeof(*k->at))))
		return -ENOMEM;
	outbuf_reset(&k->text);
	for (size_t c = 0; c < pr->ncols; c++) {
		char nb[COLNAME_MAX];

		k->at[c] = k->text.len;
		if (c)
			outbuf_puts(&k->text, ",\n");
		put_spaces(&k->text, json_indent(d) + 3);
		json_key_lower(&k->text, col_name(pr, c, nb));
		outbuf_puts(&k->text, ": ");
	}
	k->at[pr->ncols] = k->text.len;
	outbuf_putc(&k->text, '\n');
	put_spaces(&k->text, json_indent(d));
	outbuf_puts(&k->text, "},{\n");
	k->at[pr->ncols + 1] = k->text.len;
	k->depth = d;
	k->made = !k->text.err;
	return k->text.err ? -k->text.err : 0;
}

/* the key of column @c at json_keys_at()'s depth; ncols: the close */
static void put_key(struct outbuf *ob, const struct json_keys *k, size_t c)
{
	outbuf_write(ob, k->text.data + k->at[c], k->at[c + 1] - k->at[c]);
}

static void json_keys_free(struct json_keys *k)
{
	outbuf_free(&k->text);
	free(k->at);
}

/* room in *@v (of *@cap) for a flag per depth up to @d: 0 or -ENOMEM */
static int grow_flags(bool **v, size_t *cap, unsigned int d)
{
	size_t ncap = (size_t)d * 2 + 16;
	bool *nv;

	if (d < *cap)
		return 0;
	nv = realloc(*v, ncap * sizeof(*nv));
	if (!nv)
		return -ENOMEM;
	*v = nv;
	*cap = ncap;
	return 0;
}

/* a row's object at depth @d, unless open already ("},{") */
static void json_row_open(struct outbuf *ob, unsigned int d, bool opened)
{
	if (opened)
		return;
	put_spaces(ob, json_indent(d));
	outbuf_puts(ob, "{\n");
}

/*
 * After the members of a row at depth @d: its children open, or its
 * object closes with every parent's that it was the last row of (@lastv:
 * per depth, the row there is the last of its siblings). True when that
 * leaves the next row's object open already.
 */
static bool json_row_end(struct outbuf *ob, const struct json_keys *k,
			 size_t ncols, unsigned int d, bool kids,
			 const bool *lastv)
{
	if (!kids && !lastv[d]) {
		put_key(ob, k, ncols); /* the close */
		return true;
	}
	if (kids) {
		outbuf_puts(ob, ",\n");
		put_spaces(ob, json_indent(d) + 3);
		outbuf_puts(ob, "\"children\": [\n");
		return false;
	}
	outbuf_putc(ob, '\n');
	for (;;) {
		put_spaces(ob, json_indent(d));
		outbuf_putc(ob, '}');
		if (!lastv[d]) {
			outbuf_puts(ob, ",{\n");
			return true;
		}
		outbuf_putc(ob, '\n');
		if (d == 0)
			return false;
		d--;
		put_spaces(ob, json_indent(d) + 3);
		outbuf_puts(ob, "]\n");
	}
}

static int print_json(const struct printer *pr, const struct row *rows,
		      size_t n, struct outbuf *ob)
{
	struct cellctx cc = cell_ctx(pr, false);
	struct outbuf scratch = OUTBUF_INIT;
	struct json_keys keys = {.text = OUTBUF_INIT};
	struct row_rec rr = {0};
	bool *lastv = NULL;
	size_t lastcap = 0;
	bool opened = pr->cont;
	int ret = 0;

	if (!pr->cont)
		outbuf_puts(ob, "{\n   \"filesystems\": [\n");
	if (!n && !pr->cont)
		outbuf_putc(ob, '\n');
	for (size_t i = 0; i < n; i++) {
		unsigned int d = row_depth(pr, &rows[i]);
		bool kids = i + 1 < n && row_depth(pr, &rows[i + 1]) > d;
		const struct row *r = row_get(&rows[i], &rr);

		if (!r || grow_flags(&lastv, &lastcap, d) < 0 ||
		    json_keys_at(pr, &keys, d) < 0) {
			ret = -ENOMEM;
			break;
		}
		lastv[d] = row_last(pr, rows, i, n);
		if (row_done(pr, ob) < 0)
			break;
		json_row_open(ob, d, opened);
		for (size_t c = 0; c < pr->ncols; c++) {
			const struct colinfo *ci = &lsmnt_cols[pr->cols[c]];
			const char *v = cell_value(
				&cc, (enum col_id)pr->cols[c], r, &scratch);

			put_key(ob, &keys, c);
			put_json_value(pr, ci, v, json_indent(d), ob);
		}
		opened = json_row_end(ob, &keys, pr->ncols, d, kids, lastv);
	}
	if (!ret && !ob->err && !pr->more)
		outbuf_puts(ob, "   ]\n}\n");
	free(lastv);
	json_keys_free(&keys);
	row_rec_free(&rr);
	if (scratch.err && !ob->err)
		ob->err = scratch.err;
	outbuf_free(&scratch);
	if (ret)
		return ret;
	return ob->err ? -ob->err : 0;
}

/* ---- tree art, for every printer of ours ---- */

static bool is_tree_col(const struct printer *pr, int col)
{
	return pr->tree && (lsmnt_cols[col].flags & CF_TREE);
}

/* the columns the tree's art takes before a cell of @col in row @r */
static size_t art_cols(const struct printer *pr, int col, const struct row *r)
{
	return is_tree_col(pr, col) ? 2 * (size_t)row_depth(pr, r) : 0;
}

struct treeart {
	const char *branch, *last, *vert, *space; /* 2 columns each */
};

static const struct treeart art_utf8 = {"\u251c\u2500", "\u2514\u2500",
					"\u2502 ", "  "};
static const struct treeart art_ascii = {"|-", "`-", "| ", "  "};

static const struct treeart *tree_art(const struct printer *pr)
{
	return !pr->ascii && locale_utf8() ? &art_utf8 : &art_ascii;
}

/*
 * The art before a row at depth d > 0: for each ancestor level 1..d-1 a
 * bar when that ancestor has a later sibling, then the branch.
 */
static void put_art(struct outbuf *ob, const struct treeart *art,
		    const bool *more, unsigned int d, bool last)
{
	for (unsigned int k = 1; k < d; k++)
		outbuf_puts(ob, more[k] ? art->vert : art->space);
	outbuf_puts(ob, last ? art->last : art->branch);
}

/* ---- raw and pairs ---- */

static int print_flat(const struct printer *pr, const struct row *rows,
		      size_t n, struct outbuf *ob)
{
	struct cellctx cc = cell_ctx(pr, false);
	struct outbuf scratch = OUTBUF_INIT, art = OUTBUF_INIT;
	struct row_rec rr = {0};
	bool pairs = pr->mode == OUT_PAIRS;
	bool *more = NULL; /* per depth: that level's row has a later sibling */
	size_t morecap = 0;
	int ret = 0;

	if (!pairs && !pr->noheadings && !pr->cont && n) {
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
		if (d >= morecap) {
			bool *nv = realloc(more, (d + 16) * sizeof(*nv));

			if (!nv) {
				ret = -ENOMEM;
				break;
			}
			more = nv;
			morecap = d + 16;
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

/* ---- list and tree text, for a pipe or a file ---- */

/*
 * libsmartcols' width of a column on a non-terminal: the widest cell, at
 * least the header, or the width hint when that is wider than both. A
 * strict-width column (ACTION) is not widened to its header first, so its
 * hint applies even when the header is wider than the cells.
 */
static size_t col_width(const struct colinfo *ci, size_t widest)
{
	size_t hdr = strlen(ci->name);

	if (widest < hdr && !(ci->flags & CF_STRICT))
		return hdr;
	if (widest < hdr)
		widest = hdr;
	if (ci->whint >= 1 && widest < (size_t)ci->whint &&
	    hdr < (size_t)ci->whint)
		return (size_t)ci->whint;
	return widest;
}

/*
 * A cell padded to @width. A left-aligned one is written, then padded by
 * the width the writing found; only a right-aligned one is measured first.
 */
static void put_cell(struct outbuf *ob, const struct colinfo *ci,
		     const char *art_prefix, size_t art_w, const char *v,
		     size_t width, bool lastcol)
{
	size_t w;

	if (!(ci->flags & CF_RIGHT)) {
		if (art_prefix)
			outbuf_puts(ob, art_prefix);
		w = art_w + (v ? put_safe(ob, v) : 0);
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
		put_safe(ob, v);
}

struct textctx {
	const struct printer *pr;
	size_t *width;
	bool *more; /* per depth: that level's row has a later sibling */
	size_t morecap;
	struct outbuf art;
	/* @art is of the row before: at this depth, last or not */
	unsigned int art_depth;
	bool art_last, art_made;
	struct outbuf scratch;
	struct row_rec rr;
};

/* the art of a row at depth @d, @last of its siblings, into tc->art */
static int art_of(struct textctx *tc, const struct treeart *style,
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
static int row_art(struct textctx *tc, const struct treeart *style,
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
				   : is_wrap(pr, c) ? wrap_width(v)
						    : put_safe(NULL, v);

			w += art_cols(pr, pr->cols[c], r);
			if (w > tc->width[c])
				tc->width[c] = w;
		}
	}
	for (size_t c = 0; c < pr->ncols; c++)
		tc->width[c] = col_width(&lsmnt_cols[pr->cols[c]], tc->width[c]);
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
				put_cell(ob, &lsmnt_cols[pr->cols[c]], NULL, 0,
					 v, tc->width[c], lastcol);
			free(v);
			more |= pend[c] != NULL;
		}
		outbuf_putc(ob, '\n');
	}
}

/* the header line of aligned text output (none with -n) */
static void put_header(const struct printer *pr, const size_t *width,
		       struct outbuf *ob)
{
	if (pr->noheadings)
		return;
	for (size_t c = 0; c < pr->ncols; c++) {
		char nb[COLNAME_MAX];

		if (c)
			outbuf_putc(ob, ' ');
		put_cell(ob, &lsmnt_cols[pr->cols[c]], NULL, 0,
			 col_name(pr, c, nb), width[c], c + 1 == pr->ncols);
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

static int print_text(const struct printer *pr, const struct row *rows,
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

			if (is_wrap(pr, c))
				v = wrap_first(v, &pend[c], &first);
			wrapped |= pend[c] != NULL;
			if (c)
				outbuf_putc(ob, ' ');
			put_cell(ob, &lsmnt_cols[col],
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
		if (d + 1 > upcap) {
			size_t ncap = (size_t)d * 2 + 16;
			struct libscols_line **nv =
				realloc(up, ncap * sizeof(*nv));

			if (!nv) {
				ret = -ENOMEM;
				break;
			}
			up = nv;
			upcap = ncap;
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

static int print_scols(const struct printer *pr, const struct row *rows,
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
static void put_varint(struct outbuf *ob, size_t v)
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
		       struct outbuf *ob)
{
	size_t at = ob->len;

	if (!pr->json)
		return put_safe(ob, v);
	put_json_value(pr, &lsmnt_cols[col], v, 0, ob);
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
		w = put_kept(pr, col, v ? v : "", &tc->text);
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
				w = put_safe(&tc->esc, v);
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
		tc->width[c] = col_width(&lsmnt_cols[pr->cols[c]], tc->width[c]);
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

int print_rows(const struct printer *pr, const struct row *rows, size_t n,
	       struct outbuf *ob)
{
	if (pr->json)
		return print_json(pr, rows, n, ob);
	if (pr->mode == OUT_RAW || pr->mode == OUT_PAIRS)
		return print_flat(pr, rows, n, ob);
	if (pr->terminal)
		return print_scols(pr, rows, n);
	return print_text(pr, rows, n, ob);
}

/* ---- --poll: batch by batch ---- */

/*
 * A terminal: findmnt's own calls - the lines of the batch added to one
 * table, scols_table_print_range() (the header the first time only), a
 * newline, the lines removed.
 */
static int batch_scols(struct batch_printer *bp, const struct row *rows,
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

int print_batch(struct batch_printer *bp, const struct row *rows, size_t n,
		struct outbuf *ob)
{
	struct printer *pr = &bp->pr;
	int ret;

	if (!n)
		return 0;
	if (pr->json)
		return print_json(pr, rows, n, ob);
	if (pr->terminal)
		return batch_scols(bp, rows, n);
	if (pr->mode == OUT_RAW || pr->mode == OUT_PAIRS)
		ret = print_flat(pr, rows, n, ob);
	else
		ret = print_text(pr, rows, n, ob);
	/* the header goes with the first batch; the widths still count it */
	pr->noheadings = true;
	return ret;
}

void batch_printer_end(struct batch_printer *bp)
{
	if (bp->tb)
		sym_scols_unref_table(bp->tb);
	bp->tb = NULL;
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
