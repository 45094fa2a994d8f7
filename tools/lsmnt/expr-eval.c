// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * expr-eval.c - the evaluation of lsmnt's filter expressions: the
 * conversions of values (libsmartcols' casts), expr_prepare(),
 * expr_eval() over the program and expr_strerror().
 */
#include "expr-int.h"

#include <errno.h>
#include <inttypes.h>
#include <regex.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- values ---- */

/*
 * The text of a string value as a C string: itself, or a copy in @tmp
 * where blanks followed it. NULL only when out of memory.
 */
static const char *val_cstr(const struct val *v, struct sbuf *tmp)
{
	if (!v->s)
		return "";
	if (v->term)
		return v->s;
	tmp->len = 0;
	if (expr_sbuf_add(tmp, v->s, v->len))
		return NULL;
	return tmp->p;
}

/* after strto*() of @s up to @end: 0, or -errno, or -EINVAL for junk */
static int parsed(const char *s, const char *end)
{
	if (errno)
		return -errno;
	return end == s || *end ? -EINVAL : 0;
}

/*
 * util-linux's ul_strtou64(): digits of base 10 after optional blanks and
 * a sign, nothing after them; a negative number is ERANGE. 0 or -errno.
 */
static int parse_u64(const char *s, uint64_t *out)
{
	char *end = NULL;

	if (!s || !*s)
		return -EINVAL;
	errno = 0;
	if (strtoimax(s, &end, 10) < 0)
		return -ERANGE;
	errno = 0;
	*out = strtoumax(s, &end, 10);
	return parsed(s, end);
}

/* util-linux's ul_strtold(): 0 or -errno */
static int parse_float(const char *s, long double *out)
{
	char *end = NULL;

	if (!s || !*s)
		return -EINVAL;
	errno = 0;
	*out = strtold(s, &end);
	return parsed(s, end);
}

static bool ascii_caseeq(const char *a, const char *b)
{
	for (; *a && *b; a++, b++) {
		int x = (unsigned char)*a, y = (unsigned char)*b;

		if (x >= 'A' && x <= 'Z')
			x += 'a' - 'A';
		if (y >= 'A' && y <= 'Z')
			y += 'a' - 'A';
		if (x != y)
			return false;
	}
	return !*a && !*b;
}

/* a string as a boolean: "1", "true" (any case), or the locale's "yes" */
static bool str_truth(const char *s)
{
	if (!s || !*s)
		return false;
	if (!strcmp(s, "1") || ascii_caseeq(s, "true"))
		return true;
#ifdef __GLIBC__
	return rpmatch(s) == 1;
#else
	return *s == 'y' || *s == 'Y';
#endif
}

/* ---- conversions ---- */

/*
 * Convert @v to @type (libsmartcols' casts): 0, or -errno when a string
 * is no number. @num: room for a number's text; *@reset set when a number
 * was parsed (which leaves errno 0 in findmnt).
 */
static int val_cast(struct val *v, unsigned char type, char *num, size_t size,
		    struct sbuf *tmp, bool *reset)
{
	const char *s;
	int rc = 0;

	if (v->type == type)
		return 0;
	switch (v->type) {
	case EXPR_STRING:
		if (!v->s) {
			/* no value: a zero that stays empty */
			memset(&v->n, 0, sizeof(v->n));
			break;
		}
		s = val_cstr(v, tmp);
		if (!s)
			return -ENOMEM;
		if (type == EXPR_U64)
			rc = parse_u64(s, &v->n.u);
		else if (type == EXPR_FLOAT)
			rc = parse_float(s, &v->n.f);
		else
			v->n.b = str_truth(s);
		if (rc)
			return rc;
		if (type != EXPR_BOOL)
			*reset = true;
		break;
	case EXPR_U64:
		if (type == EXPR_STRING)
			snprintf(num, size, "%" PRIu64, v->n.u);
		else if (type == EXPR_FLOAT)
			v->n.f = (long double)v->n.u;
		else
			v->n.b = v->n.u > 0;
		break;
	case EXPR_FLOAT:
		if (type == EXPR_STRING)
			snprintf(num, size, "%Lg", v->n.f);
		else if (type == EXPR_U64)
			v->n.u = !(v->n.f > 0)	     ? 0
				 : v->n.f >= 0x1p64L ? UINT64_MAX
						     : (uint64_t)v->n.f;
		else
			v->n.b = v->n.f > 0;
		break;
	case EXPR_BOOL:
		if (type == EXPR_STRING)
			snprintf(num, size, "%s", v->n.b ? "true" : "false");
		else if (type == EXPR_U64)
			v->n.u = v->n.b;
		else
			v->n.f = v->n.b;
		break;
	}
	if (type == EXPR_STRING && v->type != EXPR_STRING) {
		v->s = num;
		v->len = strlen(num);
		v->term = true;
	}
	v->type = type;
	return 0;
}

/* a literal in the type of its comparison, once */
static int prepare_literal(struct expr *e, struct leaf *lf, unsigned char type)
{
	char num[64];

	lf->as = lf->lit;
	lf->as_err = val_cast(&lf->as, type, num, sizeof(num), &e->tmp[0],
			      &lf->as_reset);
	if (lf->as_err == -ENOMEM)
		return -ENOMEM;
	if (!lf->as_err && lf->as.s == num) {
		lf->as.s = strdup(num);
		if (!lf->as.s)
			return -ENOMEM;
	}
	return 0;
}

static unsigned char operand_type(const struct expr *e, int32_t o)
{
	return o == ON_STACK ? EXPR_BOOL : e->leaves[o].lit.type;
}

static bool operand_holder(const struct expr *e, int32_t o)
{
	return o != ON_STACK && e->leaves[o].holder;
}

/* libsmartcols' choice of the type a comparison compares in */
static unsigned char cmp_type(const struct expr *e, const struct insn *in)
{
	unsigned char l = operand_type(e, in->l), r = operand_type(e, in->r);
	bool lh = operand_holder(e, in->l), rh = operand_holder(e, in->r);
	unsigned char t;

	if (l == r)
		return l;
	t = lh && !rh ? r : l;
	if (t == EXPR_U64 && (l == EXPR_FLOAT || r == EXPR_FLOAT))
		t = EXPR_FLOAT;
	return t;
}

int expr_prepare(struct expr *e)
{
	if (e->err)
		return -EINVAL;
	if (e->prepared)
		return 0;
	for (size_t i = 0; i < e->nholders; i++)
		if (!e->leaves[e->holders[i]].bound)
			return -EINVAL;
	for (size_t i = 0; i < e->ncode; i++) {
		struct insn *in = &e->code[i];

		if (in->op != OP_CMP)
			continue;
		in->ctype = cmp_type(e, in);
		if (in->l != ON_STACK && !e->leaves[in->l].holder &&
		    prepare_literal(e, &e->leaves[in->l], in->ctype))
			return -ENOMEM;
		if (in->r != ON_STACK && !e->leaves[in->r].holder &&
		    prepare_literal(e, &e->leaves[in->r], in->ctype))
			return -ENOMEM;
	}
	e->prepared = true;
	return 0;
}

/* ---- evaluation ---- */

/* an error of the evaluation where findmnt sets no errno */
#define EXPR_EOP (-4096)

/* a holder's value in its column's type */
static int holder_value(struct expr *e, const struct leaf *lf,
			expr_value_fn value, void *ctx, struct val *v, int slot)
{
	bool reset = false;
	int rc;

	expr_val_set_trimmed(v, value(ctx, lf->col));
	if (lf->lit.type == EXPR_STRING)
		return 0;
	rc = val_cast(v, lf->lit.type, e->num[slot], sizeof(e->num[slot]),
		      &e->tmp[slot], &reset);
	if (reset)
		e->errno_zero = true;
	return rc;
}

/* the value of operand @o in @type */
static int operand(struct expr *e, int32_t o, bool b, unsigned char type,
		   expr_value_fn value, void *ctx, struct val *v, int slot)
{
	const struct leaf *lf;
	bool reset = false;
	int rc;

	memset(v, 0, sizeof(*v));
	if (o == ON_STACK) {
		v->type = EXPR_BOOL;
		v->n.b = b;
		v->term = true;
	} else if (!e->leaves[o].holder) {
		lf = &e->leaves[o];
		if (lf->as_reset)
			e->errno_zero = true;
		*v = lf->as;
		return lf->as_err;
	} else {
		rc = holder_value(e, &e->leaves[o], value, ctx, v, slot);
		if (rc)
			return rc;
		/*
		 * libsmartcols converts a copy, which has a value (the zero
		 * of its type) unless it is a string
		 */
		if (v->empty && v->type != EXPR_STRING && v->type != type)
			v->empty = false;
	}
	rc = val_cast(v, type, e->num[slot], sizeof(e->num[slot]),
		      &e->tmp[slot], &reset);
	if (reset)
		e->errno_zero = true;
	return rc;
}

/* strcmp() of two values that may have none (none sorts first) */
static int str_cmp(const struct val *l, const struct val *r)
{
	int c;

	if (!l->s || !r->s)
		return !l->s && !r->s ? 0 : !l->s ? -1 : 1;
	c = memcmp(l->s, r->s, l->len < r->len ? l->len : r->len);
	if (c)
		return c;
	return l->len < r->len ? -1 : l->len > r->len;
}

static int cmp_result(unsigned char op, int c)
{
	switch (op) {
	case T_EQ:
		return c == 0;
	case T_NE:
		return c != 0;
	case T_LT:
		return c < 0;
	case T_LE:
		return c <= 0;
	case T_GT:
		return c > 0;
	default: /* T_GE */
		return c >= 0;
	}
}

static int compare_strings(struct expr *e, const struct insn *in,
			   const struct val *l, const struct val *r)
{
	const char *s;
	int m;

	if (in->cmp != T_REG && in->cmp != T_NREG)
		return cmp_result(in->cmp, str_cmp(l, r));
	if (in->r == ON_STACK)
		return EXPR_EOP; /* no regular expression */
	s = val_cstr(l, &e->tmp[1]);
	if (!s)
		return -ENOMEM;
	m = !regexec(e->leaves[in->r].re, s, 0, NULL, 0);
	return in->cmp == T_REG ? m : !m;
}

static int compare(struct expr *e, const struct insn *in, bool lb, bool rb,
		   expr_value_fn value, void *ctx)
{
	struct val l, r;
	int rc, c;

	rc = operand(e, in->l, lb, in->ctype, value, ctx, &l, 0);
	if (rc)
		return rc;
	/* a holder's text on the right may take the place of the left's */
	if (l.type == EXPR_STRING && l.s && l.s != e->num[0] &&
	    operand_holder(e, in->l) && operand_holder(e, in->r)) {
		e->tmp[0].len = 0;
		if (expr_sbuf_add(&e->tmp[0], l.s, l.len))
			return -ENOMEM;
		l.s = e->tmp[0].p;
		l.term = true;
	}
	rc = operand(e, in->r, rb, in->ctype, value, ctx, &r, 1);
	if (rc)
		return rc;
	if (in->ctype == EXPR_STRING)
		return compare_strings(e, in, &l, &r);
	if (l.empty || r.empty)
		return 0;
	if (in->cmp == T_REG || in->cmp == T_NREG)
		return EXPR_EOP;
	switch (in->ctype) {
	case EXPR_U64:
		c = l.n.u < r.n.u ? -1 : l.n.u > r.n.u;
		break;
	case EXPR_FLOAT:
		c = l.n.f < r.n.f ? -1 : l.n.f > r.n.f;
		if (!(l.n.f == r.n.f) && !c) /* NaN: only != holds */
			return in->cmp == T_NE;
		break;
	default:
		c = l.n.b < r.n.b ? -1 : l.n.b > r.n.b;
		break;
	}
	return cmp_result(in->cmp, c);
}

/* a leaf alone: a holder with a value that is not zero or empty */
static int leaf_truth(struct expr *e, const struct leaf *lf,
		      expr_value_fn value, void *ctx)
{
	struct val v;
	int rc;

	if (lf->holder) {
		rc = holder_value(e, lf, value, ctx, &v, 0);
		if (rc)
			return rc;
		if (v.empty)
			return 0;
	} else {
		v = lf->lit;
	}
	switch (v.type) {
	case EXPR_STRING:
		return v.len > 0;
	case EXPR_U64:
		return v.n.u != 0;
	case EXPR_FLOAT:
		return v.n.f != 0;
	default:
		return v.n.b;
	}
}

int expr_eval(struct expr *e, expr_value_fn value, void *ctx)
{
	unsigned char *st = e->stack;
	size_t sp = 0;
	int rc;

	if (!e->prepared)
		return -EINVAL;
	for (size_t pc = 0; pc < e->ncode; pc++) {
		const struct insn *in = &e->code[pc];
		bool lb = false, rb = false;

		switch (in->op) {
		case OP_LEAF:
			rc = leaf_truth(e, &e->leaves[in->l], value, ctx);
			if (rc < 0)
				return rc;
			st[sp++] = (unsigned char)rc;
			break;
		case OP_NOT:
			st[sp - 1] = !st[sp - 1];
			break;
		case OP_CMP:
			if (in->r == ON_STACK)
				rb = st[--sp];
			if (in->l == ON_STACK)
				lb = st[--sp];
			rc = compare(e, in, lb, rb, value, ctx);
			if (rc < 0)
				return rc;
			st[sp++] = (unsigned char)rc;
			break;
		case OP_JF:
		case OP_JT:
			if (!st[sp - 1] == (in->op == OP_JF))
				pc = in->target - 1;
			else
				sp--;
			break;
		}
	}
	return e->ncode ? st[0] : 1;
}

const char *expr_strerror(const struct expr *e, int err, bool tty)
{
	if (err == EXPR_EOP)
		return strerror(e->errno_zero || tty ? 0 : ENOTTY);
	return strerror(-err);
}
