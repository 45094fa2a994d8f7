// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * expr-dump.c - a parsed filter expression in prefix form, for the tests
 * (expr_dump()).
 */
#include "expr-int.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const op_name[] = {
	[T_AND] = "and", [T_OR] = "or",	  [T_NEG] = "not",   [T_EQ] = "eq",
	[T_NE] = "ne",	 [T_LT] = "lt",	  [T_LE] = "le",     [T_GT] = "gt",
	[T_GE] = "ge",	 [T_REG] = "reg", [T_NREG] = "nreg",
};

static const char *const type_name[] = {
	[0] = "none",		[EXPR_STRING] = "string", [EXPR_U64] = "u64",
	[EXPR_FLOAT] = "float", [EXPR_BOOL] = "boolean",
};

/* ---- the dump ---- */

static char *leaf_text(const struct leaf *lf)
{
	char *s = NULL;
	int n;

	if (lf->holder)
		return strdup(lf->name);
	switch (lf->lit.type) {
	case EXPR_STRING:
		n = asprintf(&s, "\"%s\"", lf->lit.s);
		break;
	case EXPR_U64:
		n = asprintf(&s, "%" PRIu64, lf->lit.n.u);
		break;
	case EXPR_FLOAT:
		n = asprintf(&s, "%Lg", lf->lit.n.f);
		break;
	default:
		n = asprintf(&s, "%s", lf->lit.n.b ? "true" : "false");
		break;
	}
	return n < 0 ? NULL : s;
}

struct dump {
	char **st;
	size_t n;
	uint32_t *joins; /* pending && and || : their insn */
	size_t nj;
};

/* push @s (made by asprintf(), which returned @n) in place of @l and @r */
static int dump_push(struct dump *d, char *s, int n, char *l, char *r)
{
	free(l);
	free(r);
	if (n < 0)
		return -ENOMEM;
	d->st[d->n++] = s;
	return 0;
}

static char *dump_operand(const struct expr *e, struct dump *d, int32_t o)
{
	return o == ON_STACK ? d->st[--d->n] : leaf_text(&e->leaves[o]);
}

static int dump_insn(const struct expr *e, struct dump *d,
		     const struct insn *in)
{
	char *l = NULL, *r = NULL, *s = NULL;
	int n = -1;

	switch (in->op) {
	case OP_LEAF:
		s = leaf_text(&e->leaves[in->l]);
		n = s ? 0 : -1;
		break;
	case OP_NOT:
		r = d->st[--d->n];
		n = asprintf(&s, "(not %s)", r);
		break;
	case OP_CMP:
		r = dump_operand(e, d, in->r);
		l = dump_operand(e, d, in->l);
		if (l && r)
			n = asprintf(&s, "(%s%s%s %s %s)", op_name[in->cmp],
				     e->prepared ? ":" : "",
				     e->prepared ? type_name[in->ctype] : "", l,
				     r);
		break;
	default:
		d->joins[d->nj++] = (uint32_t)(in - e->code);
		return 0;
	}
	return dump_push(d, s, n, l, r);
}

/* the && and || whose right side ends at @pc */
static int dump_joins(const struct expr *e, struct dump *d, size_t pc)
{
	while (d->nj && e->code[d->joins[d->nj - 1]].target == pc) {
		const struct insn *in = &e->code[d->joins[--d->nj]];
		char *r = d->st[--d->n], *l = d->st[--d->n], *s;
		int n = asprintf(&s, "(%s %s %s)",
				 in->op == OP_JF ? "and" : "or", l, r);

		if (dump_push(d, s, n, l, r))
			return -ENOMEM;
	}
	return 0;
}

char *expr_dump(const struct expr *e)
{
	struct dump d = {0};
	char *out = NULL;
	size_t pc;

	if (e->err)
		return NULL;
	if (!e->ncode)
		return strdup("");
	d.st = calloc(e->ncode + 1, sizeof(*d.st));
	d.joins = calloc(e->ncode + 1, sizeof(*d.joins));
	if (!d.st || !d.joins)
		goto out;
	for (pc = 0; pc < e->ncode; pc++) {
		if (dump_joins(e, &d, pc) || dump_insn(e, &d, &e->code[pc]))
			goto out;
	}
	if (dump_joins(e, &d, pc))
		goto out;
	if (d.n == 1)
		out = d.st[--d.n];
out:
	while (d.n)
		free(d.st[--d.n]);
	free(d.st);
	free(d.joins);
	return out;
}
