// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * expr.c - lsmnt's filter expressions: the scanner, the parser, the
 * program and its evaluation (expr.h says what the language is).
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
#include "expr.h"

#include <errno.h>
#include <inttypes.h>
#include <regex.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* bison's default YYMAXDEPTH: its stack holds this many entries */
#define BISON_MAXDEPTH 10000

/* ---- growable bytes ---- */

struct sbuf {
	char *p;
	size_t len, cap;
};

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

static int sbuf_add(struct sbuf *b, const char *s, size_t n)
{
	if (sbuf_room(b, n))
		return -ENOMEM;
	memcpy(b->p + b->len, s, n);
	b->len += n;
	b->p[b->len] = '\0';
	return 0;
}

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

static bool is_blank(int c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' ||
	       c == '\r';
}

/* @s without the blanks around it, in @v (a string) */
static void val_set_trimmed(struct val *v, const char *s)
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
	if (sbuf_add(tmp, v->s, v->len))
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

static const char *const op_name[] = {
	[T_AND] = "and", [T_OR] = "or",	  [T_NEG] = "not",   [T_EQ] = "eq",
	[T_NE] = "ne",	 [T_LT] = "lt",	  [T_LE] = "le",     [T_GT] = "gt",
	[T_GE] = "ge",	 [T_REG] = "reg", [T_NREG] = "nreg",
};

static const char *const type_name[] = {
	[0] = "none",		[EXPR_STRING] = "string", [EXPR_U64] = "u64",
	[EXPR_FLOAT] = "float", [EXPR_BOOL] = "boolean",
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

static bool is_digit(int c)
{
	return c >= '0' && c <= '9';
}

static bool is_alpha(int c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

/* a character of a holder's name after its first */
static bool is_name(int c)
{
	return is_alpha(c) || is_digit(c) || c == '_' || c == '.' || c == '%' ||
	       c == ':' || c == '/' || c == '-';
}

static const struct {
	const char *word;
	enum tok tok;
} keywords[] = {
	{"and", T_AND},	    {"AND", T_AND},	{"or", T_OR},
	{"OR", T_OR},	    {"not", T_NEG},	{"NOT", T_NEG},
	{"eq", T_EQ},	    {"EQ", T_EQ},	{"ne", T_NE},
	{"NE", T_NE},	    {"le", T_LE},	{"LE", T_LE},
	{"lt", T_LT},	    {"LT", T_LT},	{"ge", T_GE},
	{"GE", T_GE},	    {"gt", T_GT},	{"GT", T_GT},
	{"false", T_FALSE}, {"FALSE", T_FALSE}, {"true", T_TRUE},
	{"TRUE", T_TRUE},
};

static enum tok word_tok(const char *s, size_t len)
{
	for (size_t i = 0; i < sizeof(keywords) / sizeof(keywords[0]); i++)
		if (strlen(keywords[i].word) == len &&
		    !memcmp(keywords[i].word, s, len))
			return keywords[i].tok;
	return T_HOLDER;
}

/* digits of base 10 (saturated, as strtoumax()) */
static uint64_t digits_u64(const char *s, size_t n)
{
	uint64_t v = 0;

	for (size_t i = 0; i < n; i++) {
		unsigned int d = (unsigned int)(s[i] - '0');

		if (v > (UINT64_MAX - d) / 10)
			return UINT64_MAX;
		v = v * 10 + d;
	}
	return v;
}

/*
 * util-linux's strtosize() of digits @s (@n of them; base 0: a leading 0
 * is octal) and one of the suffixes K M G T P E Z Y (powers of 1024).
 * 0 or -errno.
 */
static int digits_size(const char *s, size_t n, char suffix, uint64_t *out)
{
	static const char sufs[] = "KMGTPEZY";
	unsigned int base = s[0] == '0' ? 8 : 10;
	int pwr = (int)(strchr(sufs, suffix) - sufs) + 1;
	uint64_t v = 0;

	for (size_t i = 0; i < n; i++) {
		unsigned int d = (unsigned int)(s[i] - '0');

		if (d >= base)
			return -EINVAL; /* strtoumax() stopped at an 8 or 9 */
		if (v > (UINT64_MAX - d) / base)
			return -ERANGE;
		v = v * base + d;
	}
	while (pwr--) {
		if (v > UINT64_MAX / 1024)
			return -ERANGE;
		v *= 1024;
	}
	*out = v;
	return 0;
}

static int lex_number(struct lexer *lx)
{
	const char *s = lx->s + lx->start;
	size_t n = 0;

	while (is_digit((unsigned char)s[n]))
		n++;
	if (s[n] == '.' && is_digit((unsigned char)s[n + 1])) {
		char *tmp;
		size_t m = n + 1;

		while (is_digit((unsigned char)s[m]))
			m++;
		tmp = strndup(s, m);
		if (!tmp)
			return -ENOMEM;
		lx->fnum = strtold(tmp, NULL);
		free(tmp);
		lx->tok = T_FLOAT;
		lx->len = m;
		return 0;
	}
	if (s[n] && strchr("KMGTPEZY", s[n])) {
		lx->len = n + 1;
		if (s[n + 1] == 'i' && s[n + 2] == 'B')
			lx->len += 2;
		lx->badnum = digits_size(s, n, s[n], &lx->num);
		lx->tok = lx->badnum ? T_BADNUM : T_NUMBER;
		return 0;
	}
	lx->num = digits_u64(s, n);
	lx->tok = T_NUMBER;
	lx->len = n;
	return 0;
}

/* a quoted string at @s: its length with the quotes, 0 if unterminated */
static size_t quoted_len(const char *s)
{
	for (size_t i = 1; s[i]; i++) {
		if (s[i] == '\n')
			return 0;
		if (s[i] == s[0])
			return i + 1;
	}
	return 0;
}

/*
 * The operators: @two when @next follows @c, else @one (T_END: none, the
 * character is echoed)
 */
static const struct {
	char c, next;
	enum tok two, one;
} operators[] = {
	{'&', '&', T_AND, T_END},  {'|', '|', T_OR, T_END},
	{'!', '~', T_NREG, T_NEG}, {'!', '=', T_NE, T_NEG},
	{'=', '~', T_REG, T_END},  {'=', '=', T_EQ, T_END},
	{'<', '=', T_LE, T_LT},	   {'>', '=', T_GE, T_GT},
};

/* the operator at the lexer's position: its token, or T_END */
static enum tok lex_operator(struct lexer *lx)
{
	const char *s = lx->s + lx->pos;
	enum tok t = T_END;

	for (size_t i = 0; i < sizeof(operators) / sizeof(operators[0]); i++) {
		if (operators[i].c != s[0])
			continue;
		if (operators[i].next == s[1]) {
			lx->len = 2;
			return operators[i].two;
		}
		t = operators[i].one;
	}
	return t;
}

/*
 * The next token, as flex's scanner of libsmartcols (longest match,
 * first rule); characters that start none are copied to the echo.
 */
static int lex(struct expr *e, struct lexer *lx)
{
	for (;;) {
		const char *s = lx->s + lx->pos;
		unsigned char c = (unsigned char)*s;
		enum tok t = T_END;

		lx->start = lx->pos;
		lx->len = 1;
		switch (c) {
		case '\0':
			lx->tok = T_END;
			lx->len = 0;
			return 0;
		case ' ':
		case '\t':
		case '\n':
			lx->pos++;
			continue;
		case '(':
			t = T_LPAREN;
			break;
		case ')':
			t = T_RPAREN;
			break;
		case '"':
		case '\'':
			lx->len = quoted_len(s);
			if (lx->len)
				t = T_STRING;
			else if (c == '\'')
				t = T_UNDEF, lx->len = 1;
			else
				lx->len = 1;
			break;
		default:
			t = lex_operator(lx);
			if (t != T_END)
				break;
			if (is_digit(c)) {
				if (lex_number(lx))
					return -ENOMEM;
				lx->pos += lx->len;
				return 0;
			}
			if (is_alpha(c)) {
				size_t n = 1;

				while (is_name((unsigned char)s[n]))
					n++;
				lx->len = n;
				t = word_tok(s, n);
			}
			break;
		}
		if (t == T_END) {
			/* flex's default rule: ECHO */
			if (sbuf_add(&e->echo, s, 1))
				return -ENOMEM;
			lx->pos++;
			continue;
		}
		lx->tok = t;
		lx->pos += lx->len;
		return 0;
	}
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
		val_set_trimmed(&lf->lit, s);
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
 * glibc's regcomp() needs time or memory exponential in the nesting of
 * repetitions (a*++++++++++: a minute, ((a+)+)+) and about quadratic in
 * an interval's count times the size of what it repeats (x{1,32000}: two
 * minutes; a{999}{999}); findmnt waits for it, or is killed. A pattern
 * whose estimated cost is past these bounds is refused instead ("Regular
 * expression too big", regerror()'s REG_ESIZE); below them regcomp()
 * takes at most about a quarter of a second here. The cost: 16 for a
 * character or bracket expression; for a repetition of count N (2 for
 * * + ?) of something of size S, S * N * N plus 2 * 5^L, L its nesting.
 */
#define RE_MAX_REPEATS 256	 /* repetition operators */
#define RE_MAX_GROUPS  256	 /* open parentheses */
#define RE_MAX_COST    2000000UL /* about 0.1 us of regcomp() each */
#define RE_ATOM_COST   16

struct re_group {
	uint64_t size;	    /* its atoms, the repeated ones expanded */
	uint64_t last;	    /* the size of its last atom, 0: none */
	unsigned int level; /* the deepest repetition in it */
	unsigned int last_level;
};

static uint64_t sat_add(uint64_t a, uint64_t b)
{
	return a + b > RE_MAX_COST ? RE_MAX_COST + 1 : a + b;
}

static uint64_t sat_mul(uint64_t a, uint64_t b)
{
	return b && a > (RE_MAX_COST + 1) / b ? RE_MAX_COST + 1 : a * b;
}

/* 5^@n, saturated */
static uint64_t re_pow5(unsigned int n)
{
	uint64_t v = 1;

	while (n-- && v <= RE_MAX_COST)
		v *= 5;
	return v;
}

/* the end of the bracket expression at @p ('['), or the end of @p */
static const char *re_bracket_end(const char *p)
{
	p++;
	if (*p == '^')
		p++;
	if (*p == ']')
		p++;
	for (; *p && *p != ']'; p++) {
		if (p[0] == '[' &&
		    (p[1] == ':' || p[1] == '=' || p[1] == '.')) {
			const char *q = p + 2;

			while (*q && !(q[0] == p[1] && q[1] == ']'))
				q++;
			if (!*q)
				return q;
			p = q + 1;
		}
	}
	return *p ? p + 1 : p;
}

/* an interval {n}, {n,} or {n,m} at *@p: its largest count + 1, or 0 */
static uint64_t re_interval(const char **p)
{
	const char *q = *p + 1;
	uint64_t n = 0, m;

	if (!is_digit((unsigned char)*q))
		return 0;
	while (is_digit((unsigned char)*q))
		n = sat_add(sat_mul(n, 10), (uint64_t)(*q++ - '0'));
	m = n;
	if (*q == ',') {
		q++;
		m = n + 1;
		if (is_digit((unsigned char)*q))
			for (m = 0; is_digit((unsigned char)*q); q++)
				m = sat_add(sat_mul(m, 10),
					    (uint64_t)(*q - '0'));
	}
	if (*q != '}')
		return 0;
	*p = q;
	return sat_add(m > n ? m : n, 1);
}

/* @g's last atom done; the next one of @size and @level */
static void re_next(struct re_group *g, uint64_t size, unsigned int level)
{
	g->size = sat_add(g->size, g->last);
	g->last = size;
	g->last_level = level;
}

static bool re_too_big(const char *p)
{
	struct re_group st[RE_MAX_GROUPS + 1];
	unsigned int depth = 0, repeats = 0;
	struct re_group *g = st;
	uint64_t cost = 0;

	memset(g, 0, sizeof(*g));
	for (; *p; p++) {
		uint64_t count = 0, size = 1;
		unsigned int level = 0;

		switch (*p) {
		case '\\':
			if (p[1])
				p++;
			break;
		case '[':
			p = re_bracket_end(p) - 1;
			break;
		case '(':
			if (depth == RE_MAX_GROUPS)
				return true;
			g = &st[++depth];
			memset(g, 0, sizeof(*g));
			continue;
		case ')':
			if (!depth)
				break;
			re_next(g, 0, 0);
			size = g->size;
			level = g->level;
			g = &st[--depth];
			re_next(g, size, level);
			continue;
		case '{':
			count = re_interval(&p);
			if (!count)
				break;
			/* fallthrough */
		case '*':
		case '+':
		case '?':
			if (!g->last)
				break;
			if (++repeats > RE_MAX_REPEATS)
				return true;
			count = count ? count : 2;
			g->last = sat_mul(g->last, count);
			cost = sat_add(cost, sat_mul(g->last, count));
			if (++g->last_level > g->level)
				g->level = g->last_level;
			cost = sat_add(cost, 2 * re_pow5(g->last_level));
			if (cost > RE_MAX_COST)
				return true;
			continue;
		case '|':
			re_next(g, 0, 0);
			continue;
		}
		cost = sat_add(cost, RE_ATOM_COST);
		if (cost > RE_MAX_COST)
			return true;
		re_next(g, size, level);
	}
	return false;
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
	if (re_too_big(lf->lit.s)) {
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
			rc = lex(e, &p->lx);
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
		if (lex(e, &p->lx))
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

	val_set_trimmed(v, value(ctx, lf->col));
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
		if (sbuf_add(&e->tmp[0], l.s, l.len))
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
