// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * lsmnt's JSON output (-J): findmnt's "filesystems" array, nested by
 * "children" for a tree.
 */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lsmnt.h"
#include "escape.h"

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
 * of the value (the chunks between its '\n's; with @split false the whole
 * value), on one line of their own; an empty chunk - a "\n\n" or a '\n'
 * at the end - is null, as findmnt writes it ("trail\n" gives "trail",
 * null); an empty cell is an empty array.
 */
static void put_json_array(struct outbuf *ob, const char *v, bool split,
			   size_t ind)
{
	if (!v || !*v) {
		outbuf_puts(ob, "[]"); /* libsmartcols 2.42: no item at all */
		return;
	}
	outbuf_puts(ob, "[\n");
	put_spaces(ob, ind + 4);
	for (v = v ? v : "";; v++) {
		const char *nl = split ? strchr(v, '\n') : NULL;
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
void put_json_value(const struct printer *pr, const struct colinfo *ci,
		    const char *v, bool wrap, size_t ind, struct outbuf *ob)
{
	if (ci->flags & CF_WRAP)
		put_json_array(ob, v, wrap, ind + 3);
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
int json_keys_at(const struct printer *pr, struct json_keys *k,
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
void put_key(struct outbuf *ob, const struct json_keys *k, size_t c)
{
	outbuf_write(ob, k->text.data + k->at[c], k->at[c + 1] - k->at[c]);
}

void json_keys_free(struct json_keys *k)
{
	outbuf_free(&k->text);
	free(k->at);
}

/* a row's object at depth @d, unless open already ("},{") */
void json_row_open(struct outbuf *ob, unsigned int d, bool opened)
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
bool json_row_end(struct outbuf *ob, const struct json_keys *k,
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

int print_json(const struct printer *pr, const struct row *rows,
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
			put_json_value(pr, ci, v, cell_wraps(r, pr->cols[c]),
				       json_indent(d), ob);
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
