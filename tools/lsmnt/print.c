// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * lsmnt's printers: print_rows() and --poll's print_batch() hand the rows
 * to the printer of the output format; what every format shares.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <ctype.h>
#include <unistd.h>

#include "lsmnt.h"
#include "escape.h"

void put_spaces(struct outbuf *ob, size_t n)
{
	static const char sp[] = "                                ";

	while (n) {
		size_t k = n < sizeof(sp) - 1 ? n : sizeof(sp) - 1;

		outbuf_write(ob, sp, k);
		n -= k;
	}
}

/* ---- the shape of the rows ---- */

struct cellctx cell_ctx(const struct printer *pr, bool text)
{
	struct cellctx cc = {.text = text,
			     .nofsroot = pr->nofsroot,
			     .bytes = pr->bytes,
			     .canonicalize = pr->canonicalize,
			     .evaluate = pr->evaluate,
			     .vfs_all = pr->vfs_all,
			     .listmount = pr->listmount,
			     .tabfile = pr->tabfile};

	return cc;
}

/*
 * A column's name as printed: with -y, libsmartcols' shell variable name
 * ('_' before a leading non-letter, '_' for every other character, and a
 * trailing '%' is "_PCT": MAJ_MIN, USE_PCT) in every mode - the header,
 * -P's keys and JSON's keys alike. @buf holds at least COLNAME_MAX bytes.
 */
const char *col_name(const struct printer *pr, size_t c, char *buf)
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

/* ---- --hyperlink ---- */

/* util-linux's xgethosturi(NULL): "file://" and the host's name */
const char *hyperlink_uri(void)
{
	static char uri[7 + 256 + 1];
	char host[256 + 1];

	if (uri[0])
		return uri;
	if (gethostname(host, sizeof(host) - 1) < 0)
		host[0] = '\0';
	host[sizeof(host) - 1] = '\0';
	snprintf(uri, sizeof(uri), "file://%s", host);
	return uri;
}

size_t put_cell_text(const struct printer *pr, int col, const char *v,
		     struct outbuf *ob)
{
	size_t w;

	if (!pr->hyperlink || col != COL_TARGET || !v || !ob)
		return put_safe(ob, v);
	/* libsmartcols' OSC 8 link: the host's URI and the path as it is */
	outbuf_puts(ob, "\033]8;;");
	outbuf_puts(ob, hyperlink_uri());
	outbuf_puts(ob, v);
	outbuf_puts(ob, "\033\\");
	w = put_safe(ob, v);
	outbuf_puts(ob, "\033]8;;\033\\");
	return w;
}

/* ---- tree art, for every printer of ours ---- */

static const struct treeart art_utf8 = {"\u251c\u2500", "\u2514\u2500",
					"\u2502 ", "  "};
static const struct treeart art_ascii = {"|-", "`-", "| ", "  "};

const struct treeart *tree_art(const struct printer *pr)
{
	return !pr->ascii && locale_utf8() ? &art_utf8 : &art_ascii;
}

/*
 * The art before a row at depth d > 0: for each ancestor level 1..d-1 a
 * bar when that ancestor has a later sibling, then the branch.
 */
void put_art(struct outbuf *ob, const struct treeart *art,
	     const bool *more, unsigned int d, bool last)
{
	for (unsigned int k = 1; k < d; k++)
		outbuf_puts(ob, more[k] ? art->vert : art->space);
	outbuf_puts(ob, last ? art->last : art->branch);
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
	pr->header_done = true;
	return ret;
}
