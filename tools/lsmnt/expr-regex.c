// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * expr-regex.c - the cost of a regular expression of =~ and !~, estimated
 * before regcomp() is asked to compile it (expr_re_too_big()).
 */
#include "expr-int.h"

#include <string.h>

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

bool expr_re_too_big(const char *p)
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
