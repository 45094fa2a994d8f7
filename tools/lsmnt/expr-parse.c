// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * expr-parse.c - the parser of lsmnt's filter expressions: the program
 * built, bison's stack and messages, the regular expressions compiled;
 * expr_parse() (expr-int.h tells how it works).
 */
#include "expr-int.h"

#include <errno.h>
#include <regex.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* bison's default YYMAXDEPTH: its stack holds this many entries */
#define BISON_MAXDEPTH 10000

/* bison's names of the tokens, "T_" dropped as libsmartcols does */
static const char *const tok_name[] = {
	[T_END] = "end of file", [T_NUMBER] = "NUMBER",
	[T_FLOAT] = "FLOAT",	 [T_STRING] = "STRING",
	[T_HOLDER] = "HOLDER",	 [T_TRUE] = "TRUE",
	[T_FALSE] = "FALSE",	 [T_BADNUM] = "INVALID_NUMBER",
	[T_AND] = "AND",	 [T_OR] = "OR",
	[T_NEG] = "NEG",	 [T_EQ] = "EQ",
	[T_NE] = "NE",		 [T_LT] = "LT",
	[T_LE] = "LE",		 [T_GT] = "GT",
	[T_GE] = "GE",		 [T_REG] = "REG",
	[T_NREG] = "NREG",	 [T_LPAREN] = "'('",
	[T_RPAREN] = "')'",	 [T_UNDEF] = "invalid token",
};

/* ---- building ---- */

static int grow(void **p, size_t *cap, size_t n, size_t size)
{
	size_t ncap;
	void *np;

	if (n < *cap)
		return 0;
	ncap = *cap ? *cap * 2 : 16;
	if (ncap > SIZE_MAX / size)
		return -ENOMEM;
	np = realloc(*p, ncap * size);
	if (!np)
		return -ENOMEM;
	*p = np;
	*cap = ncap;
	return 0;
}

static int emit(struct expr *e, unsigned char op, int32_t l, int32_t r)
{
	struct insn *in;

	if (e->ncode >= UINT32_MAX ||
	    grow((void **)&e->code, &e->code_cap, e->ncode, sizeof(*in)))
		return -ENOMEM;
	in = &e->code[e->ncode++];
	memset(in, 0, sizeof(*in));
	in->op = op;
	in->l = l;
	in->r = r;
	switch (op) {
	case OP_LEAF:
		e->height++;
		break;
	case OP_CMP:
		e->height -= (l == ON_STACK) + (r == ON_STACK);
		e->height++;
		break;
	case OP_JF:
	case OP_JT:
		/* falling through pops; the right side pushes again */
		e->height--;
		break;
	}
	if (e->height > e->max_height)
		e->max_height = e->height;
	return 0;
}

/* a leaf operand as a boolean on the stack */
static int materialize(struct expr *e, int32_t *o)
{
	if (*o == ON_STACK)
		return 0;
	if (emit(e, OP_LEAF, *o, 0))
		return -ENOMEM;
	*o = ON_STACK;
	return 0;
}

static struct leaf *new_leaf(struct expr *e, int32_t *idx)
{
	struct leaf *lf;

	if (e->nleaves >= INT32_MAX ||
	    grow((void **)&e->leaves, &e->leaves_cap, e->nleaves, sizeof(*lf)))
		return NULL;
	*idx = (int32_t)e->nleaves;
	lf = &e->leaves[e->nleaves++];
	memset(lf, 0, sizeof(*lf));
	lf->col = -1;
	return lf;
}

static int set_err(struct expr *e, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static int set_err(struct expr *e, const char *fmt, ...)
{
	va_list ap;
	char *s;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&s, fmt, ap);
	va_end(ap);
	if (n < 0)
		return -ENOMEM;
	free(e->err);
	e->err = s;
	return -EINVAL;
}

/* ---- the parser ---- */

enum frame_kind {
	F_PAREN,
	F_NEG,
	F_CMP,	 /* left OP, reading the right side */
	F_LOGIC, /* left && or ||, reading the right side */
};

struct frame {
	unsigned char kind;
	unsigned char op;
	int32_t left;
	uint32_t jump; /* F_LOGIC: its JF or JT */
};

struct parser {
	struct expr *e;
	struct lexer lx;
	struct frame *fr;
	size_t nfr, fr_cap;
	size_t nsym;  /* bison's symbols of the frames */
	bool cur_neg; /* the operand being read is a "!" expression */
};

static const unsigned char frame_syms[] = {
	[F_PAREN] = 1, [F_NEG] = 1, [F_CMP] = 2, [F_LOGIC] = 2};

/*
 * Bison shifts a token with @n symbols on its stack (the token
 * included): "memory exhausted" when its stack is full.
 */
static int shift(struct parser *p, size_t n)
{
	if (p->nsym + n + 1 >= BISON_MAXDEPTH)
		return set_err(p->e, "memory exhausted");
	return 0;
}

static int push(struct parser *p, unsigned char kind, unsigned char op,
		int32_t left, uint32_t jump)
{
	struct frame *f;

	if (grow((void **)&p->fr, &p->fr_cap, p->nfr, sizeof(*f)))
		return -ENOMEM;
	f = &p->fr[p->nfr++];
	f->kind = kind;
	f->op = op;
	f->left = left;
	f->jump = jump;
	p->nsym += frame_syms[kind];
	return 0;
}

static struct frame *top(struct parser *p)
{
	return p->nfr ? &p->fr[p->nfr - 1] : NULL;
}

static void pop(struct parser *p)
{
	p->nsym -= frame_syms[p->fr[--p->nfr].kind];
}

static int syntax_error(struct parser *p, bool at_top)
{
	return set_err(p->e, "syntax error, unexpected %s%s",
		       tok_name[p->lx.tok],
		       at_top ? ", expecting end of file" : "");
}

/* the leaf of a literal or holder token */
static int param(struct parser *p, int32_t *out)
{
	struct lexer *lx = &p->lx;
	struct expr *e = p->e;
	const char *text = lx->s + lx->start;
	struct leaf *lf = new_leaf(e, out);

	if (!lf)
		return -ENOMEM;
	lf->lit.term = true;
	switch (lx->tok) {
	case T_NUMBER:
		lf->lit.type = EXPR_U64;
		lf->lit.n.u = lx->num;
		break;
	case T_FLOAT:
		lf->lit.type = EXPR_FLOAT;
		lf->lit.n.f = lx->fnum;
		break;
	case T_TRUE:
	case T_FALSE:
		lf->lit.type = EXPR_BOOL;
		lf->lit.n.b = lx->tok == T_TRUE;
		break;
	case T_STRING: {
		char *s = strndup(text + 1, lx->len - 2);

		if (!s)
			return -ENOMEM;
		expr_val_set_trimmed(&lf->lit, s);
		/* own the trimmed text from its start */
		memmove(s, lf->lit.s, lf->lit.len);
		s[lf->lit.len] = '\0';
		lf->lit.s = s;
		lf->lit.term = true;
		break;
	}
	default: /* T_HOLDER */
		lf->holder = true;
		lf->name = strndup(text, lx->len);
		if (!lf->name || grow((void **)&e->holders, &e->holders_cap,
				      e->nholders, sizeof(size_t)))
			return -ENOMEM;
		e->holders[e->nholders++] = (size_t)*out;
		break;
	}
	return 0;
}

/*
 * The right side of =~ or !~: a string, compiled. libsmartcols compiles
 * whatever it is as a string: a holder, false, a zero and a "!" have a
 * NULL string there ("(null)" is all findmnt says); another number, float
 * or true is a pointer that crashes it (a message of ours); a comparison
 * or a && or || it leaves as it is, and the evaluation fails.
 */
static int compile_regex(struct parser *p, int32_t r, unsigned char op)
{
	struct expr *e = p->e;
	struct leaf *lf = r == ON_STACK ? NULL : &e->leaves[r];
	char msg[256];
	int rc;

	if (!lf)
		return p->cur_neg ? set_err(e, "(null)") : 0;
	if (lf->holder || (lf->lit.type == EXPR_BOOL && !lf->lit.n.b) ||
	    (lf->lit.type == EXPR_U64 && !lf->lit.n.u) ||
	    (lf->lit.type == EXPR_FLOAT && lf->lit.n.f == 0))
		return set_err(e, "(null)");
	if (lf->lit.type != EXPR_STRING)
		return set_err(e, "the right side of %s is not a string",
			       op == T_REG ? "=~" : "!~");
	if (expr_re_too_big(lf->lit.s)) {
		regerror(REG_ESIZE, NULL, msg, sizeof(msg));
		return set_err(e, "%s", msg);
	}
	lf->re = calloc(1, sizeof(*lf->re));
	if (!lf->re)
		return -ENOMEM;
	rc = regcomp(lf->re, lf->lit.s, REG_EXTENDED | REG_NOSUB);
	if (!rc)
		return 0;
	regerror(rc, lf->re, msg, sizeof(msg));
	free(lf->re);
	lf->re = NULL;
	return set_err(e, "%s", msg);
}

/*
 * Bison's reductions that need no look-ahead: "!" and the comparisons
 * whose right side @cur is.
 */
static int reduce_tight(struct parser *p, int32_t *cur)
{
	struct frame *f;

	while ((f = top(p)) && (f->kind == F_NEG || f->kind == F_CMP)) {
		if (f->kind == F_NEG) {
			if (materialize(p->e, cur) || emit(p->e, OP_NOT, 0, 0))
				return -ENOMEM;
			p->cur_neg = true;
		} else {
			int rc = 0;

			if (f->op == T_REG || f->op == T_NREG)
				rc = compile_regex(p, *cur, f->op);
			if (rc)
				return rc;
			if (emit(p->e, OP_CMP, f->left, *cur))
				return -ENOMEM;
			p->e->code[p->e->ncode - 1].cmp = f->op;
			*cur = ON_STACK;
			p->cur_neg = false;
		}
		pop(p);
	}
	return 0;
}

/* the && and || whose right side @cur is */
static int reduce_logic(struct parser *p, int32_t *cur)
{
	struct frame *f;

	while ((f = top(p)) && f->kind == F_LOGIC) {
		if (materialize(p->e, cur))
			return -ENOMEM;
		p->e->code[f->jump].target = (uint32_t)p->e->ncode;
		p->cur_neg = false;
		pop(p);
	}
	return 0;
}

static bool is_cmp(enum tok t)
{
	return t >= T_EQ && t <= T_NREG;
}

/* after an operand @cur: 1 more to read, 0 done, < 0 error */
static int after_operand(struct parser *p, int32_t cur)
{
	struct expr *e = p->e;
	enum tok t;
	int rc;

	for (;;) {
		rc = reduce_tight(p, &cur);
		if (!rc)
			rc = expr_lex(e, &p->lx);
		if (rc)
			return rc;
		t = p->lx.tok;
		if (is_cmp(t)) {
			if (shift(p, 2))
				return -EINVAL;
			return push(p, F_CMP, (unsigned char)t, cur, 0) ?: 1;
		}
		if (reduce_logic(p, &cur))
			return -ENOMEM;
		if (t == T_AND || t == T_OR) {
			if (shift(p, 2))
				return -EINVAL;
			if (materialize(e, &cur) ||
			    emit(e, t == T_AND ? OP_JF : OP_JT, 0, 0))
				return -ENOMEM;
			return push(p, F_LOGIC, (unsigned char)t, ON_STACK,
				    (uint32_t)(e->ncode - 1))
				       ?: 1;
		}
		if (t == T_RPAREN && top(p)) {
			/* the top is "(" after the reductions */
			if (shift(p, 2))
				return -EINVAL;
			pop(p);
			continue;
		}
		if (t == T_END && !top(p))
			return materialize(e, &cur);
		return syntax_error(p, !top(p));
	}
}

static int parse(struct parser *p)
{
	struct expr *e = p->e;
	int32_t cur;
	int rc;

	for (;;) {
		if (expr_lex(e, &p->lx))
			return -ENOMEM;
		switch (p->lx.tok) {
		case T_LPAREN:
		case T_NEG:
			if (shift(p, 1))
				return -EINVAL;
			if (push(p, p->lx.tok == T_NEG ? F_NEG : F_PAREN, 0, 0,
				 0))
				return -ENOMEM;
			continue;
		case T_NUMBER:
		case T_FLOAT:
		case T_STRING:
		case T_HOLDER:
		case T_TRUE:
		case T_FALSE:
			if (shift(p, 1))
				return -EINVAL;
			rc = param(p, &cur);
			if (rc)
				return rc;
			p->cur_neg = false;
			break;
		case T_BADNUM:
			if (shift(p, 1))
				return -EINVAL;
			return set_err(e, "\"%.*s\" token error: %s",
				       (int)p->lx.len, p->lx.s + p->lx.start,
				       strerror(-p->lx.badnum));
		default:
			return syntax_error(p, false);
		}
		rc = after_operand(p, cur);
		if (rc <= 0)
			return rc;
	}
}

struct expr *expr_parse(const char *text)
{
	struct parser p = {0};
	struct expr *e = calloc(1, sizeof(*e));
	int rc = 0;

	if (!e)
		return NULL;
	p.e = e;
	p.lx.s = text;
	if (*text)
		rc = parse(&p);
	free(p.fr);
	if (rc == -ENOMEM || (rc && !e->err))
		goto oom;
	if (!rc && e->max_height) {
		e->stack = malloc(e->max_height);
		if (!e->stack)
			goto oom;
	}
	return e;
oom:
	expr_free(e);
	errno = ENOMEM;
	return NULL;
}
