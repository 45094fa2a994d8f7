// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Fuzz target: lsmnt's filter expressions (tools/lsmnt/expr*.c). The
 * input, up to its first NUL, is parsed; a parse that fails must say why;
 * one that succeeds is dumped, its holders bound to columns of every type
 * (chosen by the input's bytes), prepared and evaluated on rows of
 * strings, numbers, floats, booleans, blanks and empty cells, with a
 * callback whose text lives only until its next call. Every result must
 * be 0, 1 or an error with a message. Built like fuzz-mountinfo.c:
 * libFuzzer with clang, else replay.c over fuzz/corpus-expr/.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "expr.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *const cells[][6] = {
	{"/", "ext4", "26", "251.9G", NULL, "yes"},
	{" sp ace ", "", "0", "1M", "0.5", "0"},
	{"12abc", "-1", " 316 ", "18446744073709551616", "nan", "TRUE"},
	{NULL, NULL, NULL, NULL, NULL, NULL},
	{"\t\n", "inf", "1e5", "+7", "1.5", "n"},
};

#define NROWS (sizeof(cells) / sizeof(cells[0]))
#define NCOLS 6

struct row {
	size_t r;
	char buf[64];
};

static const char *value(void *ctx, int col)
{
	struct row *row = ctx;
	const char *v;

	if (col < 0 || col >= NCOLS)
		abort();
	v = cells[row->r][col];
	if (!v)
		return NULL;
	/* the text lives until the next call */
	snprintf(row->buf, sizeof(row->buf), "%s", v);
	return row->buf;
}

static void run(struct expr *e, const uint8_t *data, size_t size)
{
	static const enum expr_type types[] = {EXPR_STRING, EXPR_U64,
					       EXPR_FLOAT, EXPR_BOOL};
	size_t n = expr_nholders(e), len;
	char *d;

	expr_echo(e, &len);
	for (size_t i = 0; i < n; i++) {
		uint8_t b = size ? data[i % size] : 0;

		if (!expr_holder(e, i))
			abort();
		expr_bind(e, i, b % NCOLS, types[(b / NCOLS) % 4]);
	}
	if (expr_prepare(e))
		return; /* out of memory */
	if (size < 4096) {
		d = expr_dump(e);
		free(d);
	}
	for (size_t r = 0; r < NROWS; r++) {
		struct row row = {.r = r};
		int rc = expr_eval(e, value, &row);

		if (rc > 1 || (rc < 0 && !expr_strerror(e, rc, false)))
			abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = malloc(size + 1);
	struct expr *e;

	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	e = expr_parse(text);
	if (e) {
		if (expr_error(e)) {
			if (!*expr_error(e) || expr_nholders(e))
				abort();
		} else {
			run(e, data, size);
		}
		expr_free(e);
	}
	free(text);
	return 0;
}
