// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * expr-run COLUMNS NUMBERS EXPR < ROWS - the filter engine of lsmnt
 * (tools/lsmnt/expr*.c) as `findmnt -r -n -o ID -Q EXPR` uses libsmartcols'
 * filter, over rows read from stdin, for tests/cli/py/lsmnt_filter.py to
 * compare with the real findmnt 2.42 on the same mount table.
 *
 * COLUMNS: every column name findmnt knows, comma-separated; NUMBERS:
 * those whose values are numbers (findmnt: JSON numbers). ROWS: one
 * "NAME=HEX" line per column that has a value (HEX: its bytes in hex),
 * an empty line after each row.
 *
 * It prints what findmnt would: the characters the scanner echoes, then
 * the ID of each row that matches, one per line; findmnt's messages on
 * stderr ("findmnt: failed to parse ...", "findmnt: unknown column: ...",
 * "findmnt: failed to apply filter: ...") and its exit status: 1 when the
 * expression is refused, an evaluation fails or no row matches.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "../tools/lsmnt/expr.h"

#define MAX_COLS 64 /* findmnt's columns[]: twice its 32 columns */

struct table {
	char **names; /* the known columns */
	bool *number;
	size_t ncols;
	char ***rows; /* rows[i][col]: the value or NULL */
	size_t nrows;
};

static char **split(char *s, size_t *n)
{
	char **v = NULL, *tok, *save = NULL;

	*n = 0;
	for (tok = strtok_r(s, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		v = realloc(v, (*n + 1) * sizeof(*v));
		if (!v)
			exit(2);
		v[(*n)++] = tok;
	}
	return v;
}

static int col_index(const struct table *t, const char *name, bool anycase)
{
	for (size_t i = 0; i < t->ncols; i++)
		if (anycase ? !strcasecmp(t->names[i], name)
			    : !strcmp(t->names[i], name))
			return (int)i;
	return -1;
}

static char *unhex(const char *h)
{
	size_t n = strlen(h) / 2;
	char *s = malloc(n + 1);

	if (!s)
		exit(2);
	for (size_t i = 0; i < n; i++) {
		unsigned int b;

		if (sscanf(h + 2 * i, "%2x", &b) != 1)
			exit(2);
		s[i] = (char)b;
	}
	s[n] = '\0';
	return s;
}

static void read_rows(struct table *t)
{
	char *line = NULL, **row = NULL;
	size_t cap = 0;
	ssize_t len;

	while ((len = getline(&line, &cap, stdin)) >= 0) {
		char *eq;
		int c;

		if (len && line[len - 1] == '\n')
			line[--len] = '\0';
		if (!row) {
			row = calloc(t->ncols, sizeof(*row));
			if (!row)
				exit(2);
		}
		if (!len) {
			t->rows = realloc(t->rows,
					  (t->nrows + 1) * sizeof(*t->rows));
			if (!t->rows)
				exit(2);
			t->rows[t->nrows++] = row;
			row = NULL;
			continue;
		}
		eq = strchr(line, '=');
		if (!eq)
			exit(2);
		*eq = '\0';
		c = col_index(t, line, false);
		if (c >= 0)
			row[c] = unhex(eq + 1);
	}
	free(line);
	free(row);
}

static const char *value(void *ctx, int col)
{
	return ((char **)ctx)[col];
}

/*
 * findmnt's init_scols_filter(): each holder is a column of the table
 * (the output's ID, or one added hidden, named as findmnt names it), found
 * by its exact name, else added; an unknown name is reported.
 */
static int bind_holders(const struct table *t, struct expr *e)
{
	const char *have[MAX_COLS] = {"ID"};
	size_t nhave = 1;
	int unknown = 0;

	for (size_t i = 0; i < expr_nholders(e); i++) {
		const char *name = expr_holder(e, i);
		int c = col_index(t, name, true);
		bool found = false;

		if (c < 0) {
			fprintf(stderr, "findmnt: unknown column: %s\n", name);
			unknown++;
			continue;
		}
		for (size_t j = 0; j < nhave; j++)
			found |= !strcmp(have[j], name);
		if (!found) {
			if (nhave >= MAX_COLS) {
				fprintf(stderr,
					"findmnt: too many columns "
					"specified, the limit is %d "
					"columns\n",
					MAX_COLS - 1);
				return -1;
			}
			have[nhave++] = t->names[c];
		}
		expr_bind(e, i, c, t->number[c] ? EXPR_U64 : EXPR_STRING);
	}
	if (!unknown)
		return 0;
	fprintf(stderr, "findmnt: failed to initialize filter\n");
	return -1;
}

static void table_free(struct table *t)
{
	for (size_t i = 0; i < t->nrows; i++) {
		for (size_t c = 0; c < t->ncols; c++)
			free(t->rows[i][c]);
		free(t->rows[i]);
	}
	free(t->rows);
	free(t->names);
	free(t->number);
}

/* the evaluation of @e over the rows: findmnt's exit status */
static int filter_rows(struct table *t, struct expr *e)
{
	int id = col_index(t, "ID", false), rc;
	bool *match = calloc(t->nrows + 1, sizeof(*match));
	size_t matched = 0;

	if (!match)
		return 2;
	/* findmnt prints the table once every row is in */
	for (size_t i = 0; i < t->nrows && id >= 0; i++) {
		rc = expr_eval(e, value, t->rows[i]);
		if (rc < 0) {
			fflush(stdout);
			fprintf(stderr, "findmnt: failed to apply filter: %s\n",
				expr_strerror(e, rc, isatty(1)));
			free(match);
			return 1;
		}
		match[i] = rc;
		matched += (size_t)rc;
	}
	for (size_t i = 0; i < t->nrows && matched; i++)
		if (match[i])
			printf("%s\n", t->rows[i][id] ? t->rows[i][id] : "");
	free(match);
	return matched ? 0 : 1;
}

int main(int argc, char **argv)
{
	struct table t = {0};
	struct expr *e = NULL;
	const char *echo;
	size_t nnum, len;
	char **nums;
	int rc = 1;

	if (argc != 4) {
		fprintf(stderr, "usage: expr-run COLUMNS NUMBERS EXPR\n");
		return 2;
	}
	t.names = split(argv[1], &t.ncols);
	t.number = calloc(t.ncols + 1, sizeof(*t.number));
	nums = split(argv[2], &nnum);
	if (!t.number)
		return 2;
	for (size_t i = 0; i < nnum; i++) {
		int c = col_index(&t, nums[i], false);

		if (c >= 0)
			t.number[c] = true;
	}
	free(nums);
	e = expr_parse(argv[3]);
	if (!e)
		return 2;
	echo = expr_echo(e, &len);
	fwrite(echo, 1, len, stdout);
	if (expr_error(e)) {
		fflush(stdout);
		fprintf(stderr, "findmnt: failed to parse \"%s\": %s\n",
			argv[3], expr_error(e));
		goto out;
	}
	if (bind_holders(&t, e) || expr_prepare(e))
		goto out;
	read_rows(&t);
	rc = filter_rows(&t, e);
out:
	expr_free(e);
	table_free(&t);
	return rc;
}
