/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * expr.h - lsmnt's filter expressions (-Q/--filter): the language of
 * libsmartcols' filters (scols-filter(5)) as findmnt 2.42 accepts it,
 * with its messages, on Debian 12's libsmartcols 2.38, which has no
 * filter API.
 *
 * The language:
 *
 *   expr:  param | ( expr ) | ! expr | expr OP expr
 *   OP:    && || == != < <= > >= =~ !~  (and, or: AND OR; eq ne lt le
 *          gt ge: the same in upper case; !: not NOT)
 *   param: NUMBER (digits, or digits with a suffix K M G T P E Z Y and
 *          an optional "iB": powers of 1024) | FLOAT (digits.digits) |
 *          "STRING" | 'STRING' (no escapes; blanks around the text are
 *          dropped) | true TRUE false FALSE | HOLDER (a column name)
 *
 * with bison's precedences of libsmartcols' grammar: && and || on one
 * level, left-associative; every comparison and ! on a higher one, also
 * left-associative, so that `! A == B` is `(!A) == B` and `A == B == C`
 * is `(A == B) == C`. The right side of =~ and !~ is a POSIX extended
 * regular expression (regcomp(REG_EXTENDED | REG_NOSUB)) in a string.
 *
 * Values have a type: a string, an unsigned 64-bit number, a float (long
 * double) or a boolean. A holder has its column's type (expr_bind()), a
 * comparison is a boolean. A comparison converts both sides to one type:
 * their common type, or where they differ the type of the side that is
 * not a holder (FOO > 5.5 compares numbers even if FOO is a string
 * column), and a float where a number meets a float; a conversion that
 * fails (a string that is no number) is an error of the evaluation, as
 * the regular expression operators on anything but strings are. A holder
 * whose row has no value is false, and false in every comparison of its
 * own type; a string holder without a value is less than every string.
 *
 * The parser keeps findmnt's limits and messages: bison's "syntax error,
 * unexpected X[, expecting end of file]", its stack of 10,000 entries
 * ("memory exhausted" from about 10,000 open parentheses), the scanner's
 * number errors, regerror()'s text. Characters that start no token are
 * skipped, and copied to stdout as flex does (expr_echo()). It uses no
 * recursion; an evaluation allocates nothing, and uses no recursion
 * either (a program of the expression in postfix order).
 */
#ifndef MNTKIT_TOOLS_LSMNT_EXPR_H
#define MNTKIT_TOOLS_LSMNT_EXPR_H

#include <stdbool.h>
#include <stddef.h>

/* the types of values (libsmartcols' SCOLS_DATA_*) */
enum expr_type {
	EXPR_STRING = 1,
	EXPR_U64,
	EXPR_FLOAT,
	EXPR_BOOL,
};

struct expr;

/*
 * Parse @text. Returns the expression, also when @text is malformed
 * (expr_error() says why); NULL only when out of memory (errno ENOMEM).
 * An empty @text is an expression that every row matches.
 */
struct expr *expr_parse(const char *text);
void expr_free(struct expr *e);

/*
 * NULL when @e parsed, else findmnt's message: the text after its
 * `failed to parse "TEXT": `.
 */
const char *expr_error(const struct expr *e);

/*
 * The characters of the text that start no token, which findmnt's
 * scanner copies to its stdout as it meets them (before any output),
 * *@len bytes (not NUL-terminated).
 */
const char *expr_echo(const struct expr *e, size_t *len);

/*
 * The holders (column names, as written) of a parsed expression, one per
 * occurrence, in the order of the text: findmnt reports each unknown one.
 */
size_t expr_nholders(const struct expr *e);
const char *expr_holder(const struct expr *e, size_t i);

/*
 * Holder @i is the column @col (any number >= 0 of the caller's: it is
 * passed back to the value callback) of type @type. Bind every holder,
 * then call expr_prepare() once before the first expr_eval().
 */
void expr_bind(struct expr *e, size_t i, int col, enum expr_type type);

/* the comparisons' types and the literals' conversions: 0 or -ENOMEM */
int expr_prepare(struct expr *e);

/*
 * The value of column @col in the row being evaluated: its text as
 * findmnt's cell has it (blanks around it are ignored), or NULL when the
 * cell is empty. The text must stay valid until the next call.
 */
typedef const char *(*expr_value_fn)(void *ctx, int col);

/*
 * Evaluate the prepared @e for one row: 1 when the row matches, 0 when
 * not, a negative error code when the evaluation failed (findmnt:
 * "failed to apply filter: " and expr_strerror()). @value is called for
 * the holders the evaluation needs (&& and || stop early), at most once
 * each.
 */
int expr_eval(struct expr *e, expr_value_fn value, void *ctx);

/*
 * The text findmnt prints for the error @err of expr_eval(): strerror()
 * of a failed conversion; an operator that does not apply leaves errno
 * as findmnt's earlier calls left it: 0 after a number was converted,
 * else ENOTTY where stdout is no terminal (@tty false).
 */
const char *expr_strerror(const struct expr *e, int err, bool tty);

/*
 * The parsed expression in prefix form, for tests:
 * (and (eq:string FSTYPE "ext4") (not (reg:string OPTIONS "ro"))),
 * with the comparisons' types once prepared; malloc()ed, NULL when out
 * of memory or not parsed.
 */
char *expr_dump(const struct expr *e);

#endif /* MNTKIT_TOOLS_LSMNT_EXPR_H */
