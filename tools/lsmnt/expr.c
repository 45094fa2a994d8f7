// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * expr.c - lsmnt's filter expressions: the object (expr_free() and the
 * accessors) and what every part shares: growable bytes and the values
 * (expr.h says what the language is, expr-int.h how the parts fit).
 */
#include "expr-int.h"

#include <errno.h>
#include <regex.h>
#include <stdlib.h>
#include <string.h>

/* room for @n more bytes and a NUL: 0 or -ENOMEM */
static int sbuf_room(struct sbuf *b, size_t n)
{
	size_t cap;
	char *p;

	if (n < b->cap - b->len)
		return 0;
	if (n > SIZE_MAX / 2 - b->len - 64)
		return -ENOMEM;
	cap = (b->len + n + 1) * 2;
	p = realloc(b->p, cap < 64 ? 64 : cap);
	if (!p)
		return -ENOMEM;
	b->p = p;
	b->cap = cap < 64 ? 64 : cap;
	return 0;
}

int expr_sbuf_add(struct sbuf *b, const char *s, size_t n)
{
	if (sbuf_room(b, n))
		return -ENOMEM;
	memcpy(b->p + b->len, s, n);
	b->len += n;
	b->p[b->len] = '\0';
	return 0;
}

static bool is_blank(int c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' ||
	       c == '\r';
}

/* @s without the blanks around it, in @v (a string) */
void expr_val_set_trimmed(struct val *v, const char *s)
{
	size_t len;

	v->type = EXPR_STRING;
	v->empty = !s;
	v->s = s;
	v->len = 0;
	v->term = true;
	if (!s)
		return;
	while (is_blank((unsigned char)*s))
		s++;
	len = strlen(s);
	v->term = !len || !is_blank((unsigned char)s[len - 1]);
	while (len && is_blank((unsigned char)s[len - 1]))
		len--;
	v->s = s;
	v->len = len;
}

void expr_free(struct expr *e)
{
	if (!e)
		return;
	for (size_t i = 0; i < e->nleaves; i++) {
		struct leaf *lf = &e->leaves[i];

		if (lf->as.s != lf->lit.s)
			free((char *)lf->as.s);
		free((char *)lf->lit.s);
		free(lf->name);
		if (lf->re) {
			regfree(lf->re);
			free(lf->re);
		}
	}
	free(e->leaves);
	free(e->holders);
	free(e->code);
	free(e->stack);
	free(e->echo.p);
	free(e->tmp[0].p);
	free(e->tmp[1].p);
	free(e->err);
	free(e);
}

const char *expr_error(const struct expr *e)
{
	return e->err;
}

const char *expr_echo(const struct expr *e, size_t *len)
{
	*len = e->echo.len;
	return e->echo.p ? e->echo.p : "";
}

size_t expr_nholders(const struct expr *e)
{
	return e->err ? 0 : e->nholders;
}

const char *expr_holder(const struct expr *e, size_t i)
{
	return i < expr_nholders(e) ? e->leaves[e->holders[i]].name : NULL;
}

void expr_bind(struct expr *e, size_t i, int col, enum expr_type type)
{
	struct leaf *lf;

	if (i >= expr_nholders(e))
		return;
	lf = &e->leaves[e->holders[i]];
	lf->col = col;
	lf->lit.type = (unsigned char)type;
	lf->bound = true;
}
