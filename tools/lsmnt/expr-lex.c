// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * expr-lex.c - the scanner of lsmnt's filter expressions: a token at a
 * time for the parser, with flex's echo of what starts no token and the
 * number errors of libsmartcols' scanner.
 */
#include "expr-int.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

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
int expr_lex(struct expr *e, struct lexer *lx)
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
			if (expr_sbuf_add(&e->echo, s, 1))
				return -ENOMEM;
			lx->pos++;
			continue;
		}
		lx->tok = t;
		lx->pos += lx->len;
		return 0;
	}
}
