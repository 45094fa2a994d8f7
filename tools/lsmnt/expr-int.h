/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * expr-int.h - what the parts of lsmnt's filter expressions share (expr.h
 * is the language and the API):
 *
 *   expr.c        the object and its accessors; growable bytes, values
 *   expr-lex.c    the scanner (expr_lex())
 *   expr-parse.c  the parser, the program built: expr_parse()
 *   expr-regex.c  the cost of a regular expression (expr_re_too_big())
 *   expr-eval.c   conversions, expr_prepare(), expr_eval()
 *   expr-dump.c   expr_dump()
 *
 * The parser is an operator-precedence parser with a stack of its own
 * (no recursion): frames for "(", "!", a comparison and a && or || whose
 * right side is being read. It counts the symbols bison's LALR parser
 * of libsmartcols' grammar would hold, to give "memory exhausted" where
 * bison's stack of YYMAXDEPTH (10,000) entries runs out, and reads the
 * next token exactly where bison does (after a comparison is reduced, so
 * that a bad regular expression is reported before a bad token after it).
 * Its error messages are the ones bison makes of that grammar: after a
 * complete expression at the top the only expected token is the end
 * ("expecting end of file"); everywhere else more than four tokens are
 * expected, and bison then names none.
 *
 * The program is the expression in postfix order, emitted while parsing:
 * LEAF pushes a holder's or literal's truth, CMP compares two operands
 * (leaves it reads itself, or booleans it pops), NOT, and JF/JT for &&
 * and || (jump over the right side, keeping the left's value, else pop
 * it). Its evaluation needs a stack of booleans as deep as the deepest
 * point of the program, allocated once.
 */
#ifndef MNTKIT_TOOLS_LSMNT_EXPR_INT_H
#define MNTKIT_TOOLS_LSMNT_EXPR_INT_H

#include "expr.h"

#include <regex.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* ---- growable bytes ---- */

struct sbuf {
	char *p;
	size_t len, cap;
};

/* @n bytes of @s appended, NUL-terminated: 0 or -ENOMEM */
int expr_sbuf_add(struct sbuf *b, const char *s, size_t n);

/* ---- values ---- */

struct val {
	union {
		uint64_t u;
		long double f;
		bool b;
	} n;
	const char *s; /* EXPR_STRING: the text (NULL: no value) */
	size_t len;
	unsigned char type;
	bool empty; /* a holder without a value */
	bool term;  /* s[len] is a NUL */
};

/* @s without the blanks around it, in @v (a string) */
void expr_val_set_trimmed(struct val *v, const char *s);

/* ---- the expression ---- */

enum tok {
	T_END,
	T_NUMBER,
	T_FLOAT,
	T_STRING,
	T_HOLDER,
	T_TRUE,
	T_FALSE,
	T_BADNUM,
	T_AND,
	T_OR,
	T_NEG,
	T_EQ,
	T_NE,
	T_LT,
	T_LE,
	T_GT,
	T_GE,
	T_REG,
	T_NREG,
	T_LPAREN,
	T_RPAREN,
	T_UNDEF,
};

struct leaf {
	struct val lit; /* a literal (lit.s owned), or a holder's type */
	struct val as;	/* a literal in its comparison's type (as.s owned
			   where it is not lit.s) */
	int as_err;	/* converting it failed: -errno */
	bool as_reset;	/* converting it parsed a number (errno 0) */
	bool holder;
	bool bound;
	int col;
	char *name; /* a holder's */
	regex_t *re;
};

enum op {
	OP_LEAF,
	OP_NOT,
	OP_CMP,
	OP_JF,
	OP_JT,
};

/* an operand: a leaf (>= 0), or a boolean the program pushed */
#define ON_STACK (-1)

struct insn {
	unsigned char op;
	unsigned char cmp;   /* OP_CMP: T_EQ ... T_NREG */
	unsigned char ctype; /* OP_CMP: the type it compares in */
	int32_t l, r;	     /* OP_LEAF: l; OP_CMP: leaves or ON_STACK */
	uint32_t target;     /* OP_JF, OP_JT */
};

struct expr {
	char *err;
	struct sbuf echo;
	struct leaf *leaves;
	size_t nleaves, leaves_cap;
	size_t *holders; /* leaf of each holder */
	size_t nholders, holders_cap;
	struct insn *code;
	size_t ncode, code_cap;
	size_t height, max_height; /* of the value stack */
	unsigned char *stack;
	bool prepared;
	bool errno_zero; /* an evaluation parsed a number: errno is 0 */
	struct sbuf tmp[2];
	char num[2][64];
};

/* ---- the scanner ---- */

struct lexer {
	const char *s;
	size_t pos;
	enum tok tok;
	size_t start, len; /* the token's text */
	uint64_t num;
	long double fnum;
	int badnum; /* T_BADNUM: -errno */
};

static inline bool is_digit(int c)
{
	return c >= '0' && c <= '9';
}

/* the next token of @lx (expr-lex.c): 0, or -ENOMEM */
int expr_lex(struct expr *e, struct lexer *lx);

/* the pattern @p of =~ or !~ would cost regcomp() too much (expr-regex.c) */
bool expr_re_too_big(const char *p);

#endif /* MNTKIT_TOOLS_LSMNT_EXPR_INT_H */
