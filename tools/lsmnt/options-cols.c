// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * lsmnt's columns of the command line: -H (findmnt's, listed), -o, the
 * default ones (df's too), and --poll's cut.
 */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "lsmnt.h"
#include "escape.h"

/* ---- -H ---- */

/* findmnt 2.42's -H type of a column */
static const char *col_type(int col)
{
	if (lsmnt_cols[col].flags & CF_SIZE)
		return "<string|number>";
	return lsmnt_cols[col].number ? "<integer>" : "<string>";
}

/*
 * -H: findmnt 2.42's columns, in its order, as its table prints them
 * (the names right-aligned, the types left-aligned; -r raw, -J JSON).
 * lsmnt's own columns are in --help and lsmnt(8).
 */
int list_findmnt_columns(const struct cmdline *cl)
{
	struct outbuf ob = OUTBUF_INIT;
	size_t wname = 0, wtype = 0;
	int r;

	for (int i = 0; i < NR_FINDMNT_COLS; i++) {
		int c = findmnt_cols[i];
		size_t n = strlen(lsmnt_cols[c].name), t = strlen(col_type(c));

		wname = n > wname ? n : wname;
		wtype = t > wtype ? t : wtype;
	}
	if (cl->pr.json)
		outbuf_puts(&ob, "{\n   \"findmnt-columns\": [\n");
	for (int i = 0; i < NR_FINDMNT_COLS; i++) {
		const struct colinfo *ci = &lsmnt_cols[findmnt_cols[i]];
		const char *type = col_type(findmnt_cols[i]);

		if (cl->pr.json) {
			outbuf_puts(&ob, i ? "},{\n" : "      {\n");
			outbuf_puts(&ob, "         \"holder\": ");
			put_json(&ob, ci->name);
			outbuf_puts(&ob, ",\n         \"type\": ");
			put_json(&ob, type);
			outbuf_puts(&ob, ",\n         \"description\": ");
			put_json(&ob, ci->help);
			outbuf_puts(&ob, "\n      ");
		} else if (cl->pr.mode == OUT_RAW) {
			put_raw(&ob, ci->name);
			outbuf_putc(&ob, ' ');
			put_raw(&ob, type);
			outbuf_putc(&ob, ' ');
			put_raw(&ob, ci->help);
			outbuf_putc(&ob, '\n');
		} else {
			outbuf_printf(&ob, "%*s %-*s %s\n", (int)wname, ci->name,
				      (int)wtype, type, ci->help);
		}
	}
	if (cl->pr.json)
		outbuf_puts(&ob, "}\n   ]\n}\n");
	r = outbuf_flush(&ob, stdout);
	outbuf_free(&ob);
	if (r < 0)
		cli_errmsg("write error", "%s", cli_strerror(-r));
	return r < 0 ? -1 : 1;
}

/* ---- -o ---- */

/*
 * -o LIST: util-linux's string_add_to_idarray(): "+LIST" adds to the
 * columns, LIST replaces them; findmnt's columns[] holds 64. An unknown
 * name is findmnt's message (which names the rest of the list); where
 * findmnt fails silently (an empty name, a full list) lsmnt says why.
 */
#define MAX_OUT_COLS 64

static int add_columns(struct cmdline *cl, const char *list)
{
	const char *p = list;

	if (*p == '+')
		p++;
	else
		cl->ncols = 0;
	if (!*p) {
		cli_errmsg("-o", "empty column list");
		return -1;
	}
	for (;;) {
		size_t n = strcspn(p, ",");
		int id;

		if (!n) {
			cli_errmsg("-o", "empty column name in '%s'", list);
			return -1;
		}
		if (cl->ncols >= MAX_OUT_COLS) {
			cli_errmsg("-o", "too many columns (at most %d)",
				   MAX_OUT_COLS);
			return -1;
		}
		id = col_by_name(p, n);
		if (id < 0) {
			fm_errmsg("unknown column: %s", p);
			return -1;
		}
		cl->cols[cl->ncols++] = id;
		if (!p[n] || !p[n + 1])
			return 0; /* a comma may end the list */
		p += n + 1;
	}
}

/*
 * ACTION, OLD-TARGET, OLD-OPTIONS without -p: findmnt warns and prints
 * the columns before the first of them only
 */
static void cut_poll_columns(struct cmdline *cl)
{
	cl->pr.ncols = cl->ncols;
	for (size_t c = 0; !cl->poll && c < cl->ncols; c++) {
		if (cl->cols[c] >= NR_LIST_COLS) {
			cli_errmsg(NULL, "%s column is requested, but --poll "
					 "is not enabled",
				   lsmnt_cols[cl->cols[c]].name);
			cl->pr.ncols = c;
			cl->cut = true;
			return;
		}
	}
}

int set_columns(struct cmdline *cl)
{
	if (!cl->ncols && cl->df) {
		static const int df_cols[] = {COL_SIZE, COL_USED, COL_AVAIL,
					      COL_USE_PCT};
		static const int dfi_cols[] = {COL_INO_TOTAL, COL_INO_USED,
					       COL_INO_AVAIL, COL_INO_USE_PCT};

		if (cl->all_ns)
			cl->cols[cl->ncols++] = COL_NS;
		cl->cols[cl->ncols++] = COL_SOURCE;
		cl->cols[cl->ncols++] = COL_FSTYPE;
		for (size_t i = 0; i < 4; i++)
			cl->cols[cl->ncols++] = cl->dfi ? dfi_cols[i]
							: df_cols[i];
		cl->cols[cl->ncols++] = COL_TARGET;
	}
	if (!cl->ncols) {
		if (cl->all_ns)
			cl->cols[cl->ncols++] = COL_NS;
		if (cl->poll)
			cl->cols[cl->ncols++] = COL_ACTION;
		cl->cols[cl->ncols++] = COL_TARGET;
		cl->cols[cl->ncols++] = COL_SOURCE;
		cl->cols[cl->ncols++] = COL_FSTYPE;
		cl->cols[cl->ncols++] = COL_OPTIONS;
	}
	if (cl->outarg && add_columns(cl, cl->outarg) < 0)
		return -1;
	cl->pr.cols = cl->cols;
	cl->pr.ncols = cl->ncols;
	return 0;
}

/*
 * The columns findmnt's table has, but --poll's cut: the output's, and
 * -Q's hidden ones (query_bind()); then a row's.
 */
int finish_columns(struct cmdline *cl)
{
	cut_poll_columns(cl);
	return query_bind(cl);
}

bool has_col(const struct cmdline *cl, int col)
{
	for (size_t c = 0; c < cl->pr.ncols; c++)
		if (cl->pr.cols[c] == col)
			return true;
	return false;
}
