// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * test-expr - lsmnt's filter expressions (tools/lsmnt/expr*.c, compiled
 * in): the parse of each construct, the types of comparisons, truth
 * tables, conversions, regular expressions and every message, as findmnt
 * 2.42 (util-linux 2.42.4, libsmartcols' filter) has them: the expected
 * values below are what that findmnt printed for the same expressions
 * (tests/cli/lsmnt-filter.sh compares the two live). And the limits:
 * bison's stack, 1 MiB expressions, no recursion.
 */
#include "harness.h"

#include "../tools/lsmnt/expr.h"

/* ---- a table of columns and rows ---- */

enum {
	C_TARGET,
	C_SOURCE,
	C_FSTYPE,
	C_ID,
	C_FREQ,
	C_SIZE,
	C_LABEL,
	C_OPTIONS,
	C_RATIO, /* a float column (findmnt has none) */
	C_FLAG,	 /* a boolean column (findmnt has none) */
	NCOLS
};

static const struct {
	const char *name;
	enum expr_type type;
} cols[NCOLS] = {
	[C_TARGET] = {"TARGET", EXPR_STRING},
	[C_SOURCE] = {"SOURCE", EXPR_STRING},
	[C_FSTYPE] = {"FSTYPE", EXPR_STRING},
	[C_ID] = {"ID", EXPR_U64},
	[C_FREQ] = {"FREQ", EXPR_U64},
	[C_SIZE] = {"SIZE", EXPR_STRING},
	[C_LABEL] = {"LABEL", EXPR_STRING},
	[C_OPTIONS] = {"OPTIONS", EXPR_STRING},
	[C_RATIO] = {"RATIO", EXPR_FLOAT},
	[C_FLAG] = {"FLAG", EXPR_BOOL},
};

/* the row: NULL is an empty cell */
struct row {
	const char *v[NCOLS];
	unsigned int calls[NCOLS]; /* value callback calls */
};

static struct row row_ext4 = {.v = {
	[C_TARGET] = "/",
	[C_SOURCE] = "/dev/vda",
	[C_FSTYPE] = "ext4",
	[C_ID] = "26",
	[C_SIZE] = "251.9G",
	[C_OPTIONS] = "rw,relatime,discard",
	[C_RATIO] = "0.25",
	[C_FLAG] = "yes",
}};

static struct row row_tmpfs = {.v = {
	[C_TARGET] = "/tmp/fx/a",
	[C_SOURCE] = " sp ace ",
	[C_FSTYPE] = "tmpfs",
	[C_ID] = " 316 ",
	[C_FREQ] = NULL,
	[C_SIZE] = "1M",
	[C_LABEL] = "data",
	[C_OPTIONS] = "ro,nosuid,size=1024k",
	[C_RATIO] = "2",
	[C_FLAG] = "0",
}};

static const char *value(void *ctx, int col)
{
	struct row *r = ctx;

	T_ASSERTF(col >= 0 && col < NCOLS, "column %d", col);
	r->calls[col]++;
	return r->v[col];
}

/* the column of a holder (any case, as findmnt), -1 if none */
static int col_of(const char *name)
{
	for (int i = 0; i < NCOLS; i++)
		if (!strcasecmp(cols[i].name, name))
			return i;
	return -1;
}

static struct expr *parse_ok(const char *text)
{
	struct expr *e = expr_parse(text);

	T_ASSERTF(e, "%s: out of memory", text);
	T_ASSERTF(!expr_error(e), "%s: %s", text, expr_error(e));
	return e;
}

/* parsed, bound to the columns above, prepared */
static struct expr *prepared(const char *text)
{
	struct expr *e = parse_ok(text);

	for (size_t i = 0; i < expr_nholders(e); i++) {
		int c = col_of(expr_holder(e, i));

		T_ASSERTF(c >= 0, "%s: unknown column %s", text,
			  expr_holder(e, i));
		expr_bind(e, i, c, cols[c].type);
	}
	T_ASSERTF(!expr_prepare(e), "%s: prepare", text);
	return e;
}

static int eval_row(struct expr *e, struct row *r)
{
	memset(r->calls, 0, sizeof(r->calls));
	return expr_eval(e, value, r);
}

/* ---- the parse ---- */

static const struct {
	const char *text, *dump;
} parses[] = {
	{"FSTYPE == \"ext4\"", "(eq FSTYPE \"ext4\")"},
	{"FSTYPE eq 'ext4'", "(eq FSTYPE \"ext4\")"},
	{"FSTYPE EQ \"ext4\"", "(eq FSTYPE \"ext4\")"},
	{"a != 1", "(ne a 1)"},
	{"a ne 1", "(ne a 1)"},
	{"a NE 1", "(ne a 1)"},
	{"a < 1", "(lt a 1)"},
	{"a lt 1", "(lt a 1)"},
	{"a LT 1", "(lt a 1)"},
	{"a <= 1", "(le a 1)"},
	{"a le 1", "(le a 1)"},
	{"a LE 1", "(le a 1)"},
	{"a > 1", "(gt a 1)"},
	{"a gt 1", "(gt a 1)"},
	{"a GT 1", "(gt a 1)"},
	{"a >= 1", "(ge a 1)"},
	{"a ge 1", "(ge a 1)"},
	{"a GE 1", "(ge a 1)"},
	{"a =~ \"x\"", "(reg a \"x\")"},
	{"a !~ \"x\"", "(nreg a \"x\")"},
	{"a && b", "(and a b)"},
	{"a and b", "(and a b)"},
	{"a AND b", "(and a b)"},
	{"a || b", "(or a b)"},
	{"a or b", "(or a b)"},
	{"a OR b", "(or a b)"},
	{"!a", "(not a)"},
	{"not a", "(not a)"},
	{"NOT a", "(not a)"},
	/* && and || on one level, left-associative (bison's %left) */
	{"a || b && c", "(and (or a b) c)"},
	{"a && b || c", "(or (and a b) c)"},
	{"a || (b && c)", "(or a (and b c))"},
	{"a && b && c && d", "(and (and (and a b) c) d)"},
	/* comparisons and ! on one level above them, left-associative */
	{"a == 1 && b == 2", "(and (eq a 1) (eq b 2))"},
	{"! a == b", "(eq (not a) b)"},
	{"!(a == b)", "(not (eq a b))"},
	{"a == b == c", "(eq (eq a b) c)"},
	{"a < b > c", "(gt (lt a b) c)"},
	{"a == !b", "(eq a (not b))"},
	{"a == ! b == c", "(eq (eq a (not b)) c)"},
	{"!!a", "(not (not a))"},
	{"not not NOT a", "(not (not (not a)))"},
	{"((a))", "a"},
	{"(a || b) && !(c || d == 1)",
	 "(and (or a b) (not (or c (eq d 1))))"},
	{"a =~ \"x\" == true", "(eq (reg a \"x\") true)"},
	{"x && (y || !z) == w", "(and x (eq (or y (not z)) w))"},
	/* values: numbers, sizes, floats, booleans, strings */
	{"1", "1"},
	{"0", "0"},
	{"010", "10"},
	{"18446744073709551615", "18446744073709551615"},
	{"99999999999999999999", "18446744073709551615"}, /* strtoumax */
	{"1K", "1024"},
	{"1KiB", "1024"},
	{"3M", "3145728"},
	{"1G", "1073741824"},
	{"2T", "2199023255552"},
	{"1P", "1125899906842624"},
	{"15E", "17293822569102704640"},
	{"010K", "8192"}, /* strtosize(): base 0, octal */
	{"0K", "0"},
	{"1.5", "1.5"},
	{"2.50", "2.5"},
	{"0.0", "0"},
	{"true", "true"},
	{"TRUE", "true"},
	{"false", "false"},
	{"FALSE", "false"},
	{"\"x\"", "\"x\""},
	{"'x'", "\"x\""},
	{"\"  x y  \"", "\"x y\""}, /* blanks around dropped */
	{"\"\"", "\"\""},
	{"'a\"b'", "\"a\"b\""},
	{"\"a\\\"", "\"a\\\""}, /* no escapes */
	/* holders: letters, then letters, digits and _ . % : / - */
	{"MAJ:MIN", "MAJ:MIN"},
	{"USE%", "USE%"},
	{"INO.USE%", "INO.USE%"},
	{"FS-OPTIONS", "FS-OPTIONS"},
	{"a/b_c", "a/b_c"},
	{"True", "True"},
	{"Not", "Not"},
	{"andx", "andx"},
	{"eq1", "eq1"},
	/* blanks: space, tab and newline */
	{" \ta\n==\n1 ", "(eq a 1)"},
	/* tokens next to each other */
	{"a==1&&b!=2||!c", "(or (and (eq a 1) (ne b 2)) (not c))"},
	{"a=~'x'", "(reg a \"x\")"},
	{"a<=1", "(le a 1)"},
	{"5abc", NULL}, /* NUMBER then HOLDER: an error, below */
	{"", ""},
};

T_CASE(parse)
{
	for (size_t i = 0; i < sizeof(parses) / sizeof(parses[0]); i++) {
		struct expr *e;
		char *d;

		if (!parses[i].dump)
			continue;
		e = parse_ok(parses[i].text);
		d = expr_dump(e);
		T_ASSERTF(d && !strcmp(d, parses[i].dump),
			  "%s: %s, expected %s", parses[i].text,
			  d ? d : "NULL", parses[i].dump);
		free(d);
		expr_free(e);
	}
}

T_CASE(holders)
{
	struct expr *e = parse_ok("b == 1 && (a || b) && C.D =~ \"x\" || a");
	static const char *const want[] = {"b", "a", "b", "C.D", "a"};

	T_EQ_U(expr_nholders(e), 5);
	for (size_t i = 0; i < 5; i++)
		T_EQ_STR(expr_holder(e, i), want[i]);
	T_NULL(expr_holder(e, 5));
	expr_free(e);
	/* none where the parse failed */
	e = expr_parse("a == ");
	T_ASSERT(e && expr_error(e));
	T_EQ_U(expr_nholders(e), 0);
	T_ASSERT(expr_prepare(e) < 0);
	expr_free(e);
	/* every holder must be bound before the evaluation */
	e = parse_ok("a && b");
	expr_bind(e, 0, 0, EXPR_STRING);
	T_ASSERT(expr_prepare(e) < 0);
	T_ASSERT(expr_eval(e, value, &row_ext4) < 0);
	expr_free(e);
}

/* ---- the messages ---- */

static const struct {
	const char *text, *msg, *echo;
} errors[] = {
	{"ID = 5", "syntax error, unexpected NUMBER, expecting end of file",
	 "="},
	{"ID ==", "syntax error, unexpected end of file", ""},
	{"(ID == 5", "syntax error, unexpected end of file", ""},
	{"ID == 5)", "syntax error, unexpected ')', expecting end of file",
	 ""},
	{"and", "syntax error, unexpected AND", ""},
	{"'", "syntax error, unexpected invalid token", ""},
	{"ID == 'x", "syntax error, unexpected invalid token", ""},
	{"()", "syntax error, unexpected ')'", ""},
	{"( )", "syntax error, unexpected ')'", ""},
	{")", "syntax error, unexpected ')'", ""},
	{"!", "syntax error, unexpected end of file", ""},
	{"not", "syntax error, unexpected end of file", ""},
	{"   ", "syntax error, unexpected end of file", ""},
	{"ID == == 5", "syntax error, unexpected EQ", ""},
	{"ID 5 6 7", "syntax error, unexpected NUMBER, expecting end of file",
	 ""},
	{"ID == 5 ID",
	 "syntax error, unexpected HOLDER, expecting end of file", ""},
	{"ID == 5 (", "syntax error, unexpected '(', expecting end of file",
	 ""},
	{"(ID ID", "syntax error, unexpected HOLDER", ""},
	{"1.5 1", "syntax error, unexpected NUMBER, expecting end of file",
	 ""},
	{"ID == 1.5 1.5",
	 "syntax error, unexpected FLOAT, expecting end of file", ""},
	{"\"x\" \"y\"",
	 "syntax error, unexpected STRING, expecting end of file", ""},
	{"ID true", "syntax error, unexpected TRUE, expecting end of file",
	 ""},
	{"ID false", "syntax error, unexpected FALSE, expecting end of file",
	 ""},
	{"ID !", "syntax error, unexpected NEG, expecting end of file", ""},
	{"ID not", "syntax error, unexpected NEG, expecting end of file",
	 ""},
	{"ID =~ =~", "syntax error, unexpected REG", ""},
	{"EQ", "syntax error, unexpected EQ", ""},
	{"ne", "syntax error, unexpected NE", ""},
	{"lt 5", "syntax error, unexpected LT", ""},
	{"GE", "syntax error, unexpected GE", ""},
	{"gt", "syntax error, unexpected GT", ""},
	{"le", "syntax error, unexpected LE", ""},
	{"a || or", "syntax error, unexpected OR", ""},
	{"a !~ !~", "syntax error, unexpected NREG", ""},
	{"5abc", "syntax error, unexpected HOLDER, expecting end of file",
	 ""},
	{"5KB", "syntax error, unexpected HOLDER, expecting end of file", ""},
	{"5Ki", "syntax error, unexpected HOLDER, expecting end of file", ""},
	{"5k", "syntax error, unexpected HOLDER, expecting end of file", ""},
	{"1.5K", "syntax error, unexpected HOLDER, expecting end of file",
	 ""},
	/* characters that start no token: echoed, skipped */
	{"1.5.6", "syntax error, unexpected NUMBER, expecting end of file",
	 "."},
	{"ID =! 5", "syntax error, unexpected NEG, expecting end of file",
	 "="},
	{"ID & 5", "syntax error, unexpected NUMBER, expecting end of file",
	 "&"},
	{"ID | 5", "syntax error, unexpected NUMBER, expecting end of file",
	 "|"},
	{"1 + 2", "syntax error, unexpected NUMBER, expecting end of file",
	 "+"},
	{"\"abc", "", "\""}, /* then the holder abc: no parse error */
	{"ID == \"a\"b\"",
	 "syntax error, unexpected HOLDER, expecting end of file", ""},
	{"ID == \"x\ny\"",
	 "syntax error, unexpected HOLDER, expecting end of file", "\""},
	{"@ # $ ID ;;", "", "@#$;;"},
	{"ID\r\v\f== 1", "", "\r\v\f"},
	{"\xc3\xa9 == 1", "syntax error, unexpected EQ", "\xc3\xa9"},
	/* the scanner's numbers */
	{"99999999999999999999K",
	 "\"99999999999999999999K\" token error: Numerical result out of "
	 "range",
	 ""},
	{"20000000000000000000K",
	 "\"20000000000000000000K\" token error: Numerical result out of "
	 "range",
	 ""},
	{"16E", "\"16E\" token error: Numerical result out of range", ""},
	{"1Z", "\"1Z\" token error: Numerical result out of range", ""},
	{"1Y", "\"1Y\" token error: Numerical result out of range", ""},
	{"08K", "\"08K\" token error: Invalid argument", ""},
	{"ID == 99999999999999999999K",
	 "\"99999999999999999999K\" token error: Numerical result out of "
	 "range",
	 ""},
	{"ID 99999999999999999999K",
	 "syntax error, unexpected INVALID_NUMBER, expecting end of file",
	 ""},
	{"(ID 99999999999999999999K", "syntax error, unexpected INVALID_NUMBER",
	 ""},
	/* regular expressions: regerror(), before any later token */
	{"ID =~ \"(\"", "Unmatched ( or \\(", ""},
	{"ID =~ \"(\" ID", "Unmatched ( or \\(", ""},
	{"ID =~ \"(\" 99999999999999999999K", "Unmatched ( or \\(", ""},
	{"ID =~ \"[\"", "Invalid regular expression", ""},
	{"ID =~ \"*\"", "Invalid preceding regular expression", ""},
	{"ID =~ \"a{2\"", "Unmatched \\{", ""},
	{"ID =~ \"a{2,1}\"", "Invalid content of \\{\\}", ""},
	{"ID =~ \"[[:nope:]]\"", "Invalid character class name", ""},
	{"ID =~ \"\\\"", "Trailing backslash", ""},
	{"ID !~ \"(\"", "Unmatched ( or \\(", ""},
	/*
	 * where glibc's regcomp() would take minutes or all memory (findmnt
	 * waits): refused
	 */
	{"ID =~ \"x{1,32000}\"", "Regular expression too big", ""},
	{"ID =~ \"a{1000}{1000}\"", "Regular expression too big", ""},
	{"ID =~ \"q*++++++++\"", "Regular expression too big", ""},
	{"ID =~ \"(((((((((((((a)+)+)+)+)+)+)+)+)+)+)+)+)+\"",
	 "Regular expression too big", ""},
	/* right sides libsmartcols takes for a NULL string */
	{"ID =~ ID", "(null)", ""},
	{"ID =~ (ID)", "(null)", ""},
	{"ID =~ false", "(null)", ""},
	{"ID =~ ((FALSE))", "(null)", ""},
	{"ID =~ 0", "(null)", ""},
	{"ID =~ 0K", "(null)", ""},
	{"ID =~ 0.0", "(null)", ""},
	{"ID =~ !x", "(null)", ""},
	{"ID =~ not not ID", "(null)", ""},
	{"ID =~ !(ID == 1)", "(null)", ""},
	/* and where findmnt crashes */
	{"ID =~ 1", "the right side of =~ is not a string", ""},
	{"ID !~ 0.5", "the right side of !~ is not a string", ""},
	{"ID =~ true", "the right side of =~ is not a string", ""},
};

T_CASE(messages)
{
	for (size_t i = 0; i < sizeof(errors) / sizeof(errors[0]); i++) {
		struct expr *e = expr_parse(errors[i].text);
		const char *echo, *msg;
		size_t len;

		T_ASSERT(e);
		msg = expr_error(e) ? expr_error(e) : "";
		T_ASSERTF(!strcmp(msg, errors[i].msg), "%s: '%s', expected '%s'",
			  errors[i].text, msg, errors[i].msg);
		echo = expr_echo(e, &len);
		T_ASSERTF(len == strlen(errors[i].echo) &&
				  !memcmp(echo, errors[i].echo, len),
			  "%s: echo '%.*s', expected '%s'", errors[i].text,
			  (int)len, echo, errors[i].echo);
		expr_free(e);
	}
}

/* ---- types and values ---- */

static const struct {
	const char *text, *dump;
	int ext4, tmpfs; /* the result on row_ext4 and row_tmpfs */
} evals[] = {
	/* strings: blanks around a cell or a literal ignored */
	{"FSTYPE == \"ext4\"", "(eq:string FSTYPE \"ext4\")", 1, 0},
	{"FSTYPE != \"ext4\"", "(ne:string FSTYPE \"ext4\")", 0, 1},
	{"SOURCE == \"sp ace\"", "(eq:string SOURCE \"sp ace\")", 0, 1},
	{"SOURCE == \" sp ace \"", "(eq:string SOURCE \"sp ace\")", 0, 1},
	{"FSTYPE < \"f\"", "(lt:string FSTYPE \"f\")", 1, 0},
	{"FSTYPE <= \"ext4\"", "(le:string FSTYPE \"ext4\")", 1, 0},
	{"FSTYPE >= \"tmpfs\"", "(ge:string FSTYPE \"tmpfs\")", 0, 1},
	{"FSTYPE > \"ext4\"", "(gt:string FSTYPE \"ext4\")", 0, 1},
	{"\"abc\" < \"abd\"", "(lt:string \"abc\" \"abd\")", 1, 1},
	{"\"b\" > \"abc\"", "(gt:string \"b\" \"abc\")", 1, 1},
	{"\"\" == \"\"", "(eq:string \"\" \"\")", 1, 1},
	/* an empty string cell: less than every string, equal to none */
	{"LABEL == \"\"", "(eq:string LABEL \"\")", 0, 0},
	{"LABEL != \"\"", "(ne:string LABEL \"\")", 1, 1},
	{"LABEL < \"a\"", "(lt:string LABEL \"a\")", 1, 0},
	{"LABEL == false", "(eq:boolean LABEL false)", 0, 1},
	/* numbers */
	{"ID == 26", "(eq:u64 ID 26)", 1, 0},
	{"ID > 25 && ID < 27", "(and (gt:u64 ID 25) (lt:u64 ID 27))", 1, 0},
	{"ID >= 316", "(ge:u64 ID 316)", 0, 1},
	{"ID == \"26\"", "(eq:string ID \"26\")", 1, 0},
	{"ID == \" 316 \"", "(eq:string ID \"316\")", 0, 1},
	{"ID == \"abc\"", "(eq:string ID \"abc\")", 0, 0},
	{"ID > 25.5", "(gt:float ID 25.5)", 1, 1},
	{"ID == 26.0", "(eq:float ID 26)", 1, 0},
	{"ID =~ \"^2\"", "(reg:string ID \"^2\")", 1, 0},
	{"ID !~ \"^2\"", "(nreg:string ID \"^2\")", 0, 1},
	{"ID == true", "(eq:boolean ID true)", 1, 1},
	/* an empty number cell: false in numbers, the zero elsewhere */
	{"FREQ == 0", "(eq:u64 FREQ 0)", 0, 0},
	{"FREQ != 0", "(ne:u64 FREQ 0)", 0, 0},
	{"FREQ == \"0\"", "(eq:string FREQ \"0\")", 1, 1},
	{"FREQ < 1.5", "(lt:float FREQ 1.5)", 1, 1},
	{"FREQ == false", "(eq:boolean FREQ false)", 1, 1},
	{"FREQ", "FREQ", 0, 0},
	{"!FREQ", "(not FREQ)", 1, 1},
	/* literals among themselves: the left one's type, floats first */
	{"5 > 4.5", "(gt:float 5 4.5)", 1, 1},
	{"5 == 5.0", "(eq:float 5 5)", 1, 1},
	{"\"5\" == 5", "(eq:string \"5\" 5)", 1, 1},
	{"\"5.0\" == 5", "(eq:string \"5.0\" 5)", 0, 0},
	{"\"5.0\" == 5.0", "(eq:string \"5.0\" 5)", 0, 0},
	{"\" 5 \" == 5", "(eq:string \"5\" 5)", 1, 1},
	{"1.5 == \"1.5\"", "(eq:float 1.5 \"1.5\")", 1, 1},
	{"2.50 == \"2.5\"", "(eq:float 2.5 \"2.5\")", 1, 1},
	{"true == 1", "(eq:boolean true 1)", 1, 1},
	{"true > false", "(gt:boolean true false)", 1, 1},
	{"\"yes\" == true", "(eq:string \"yes\" true)", 0, 0},
	{"\"true\" == true", "(eq:string \"true\" true)", 1, 1},
	{"\"1\" == true", "(eq:string \"1\" true)", 0, 0},
	{"1K == 1024", "(eq:u64 1024 1024)", 1, 1},
	{"010K == 8K", "(eq:u64 8192 8192)", 1, 1},
	{"010 == 10", "(eq:u64 10 10)", 1, 1},
	{"18446744073709551615 == 99999999999999999999",
	 "(eq:u64 18446744073709551615 18446744073709551615)", 1, 1},
	/* a string column against a number: the number's type */
	{"TARGET == true", "(eq:boolean TARGET true)", 0, 0},
	{"FLAG == true", "(eq:boolean FLAG true)", 1, 0},
	{"FLAG", "FLAG", 1, 0},
	{"RATIO < 1", "(lt:float RATIO 1)", 1, 0},
	{"RATIO == \"2\"", "(eq:string RATIO \"2\")", 0, 1},
	{"RATIO", "RATIO", 1, 1},
	/* two holders */
	{"TARGET == SOURCE", "(eq:string TARGET SOURCE)", 0, 0},
	{"TARGET != SOURCE", "(ne:string TARGET SOURCE)", 1, 1},
	{"SOURCE > TARGET", "(gt:string SOURCE TARGET)", 1, 1},
	{"SOURCE < TARGET", "(lt:string SOURCE TARGET)", 0, 0},
	{"ID > FREQ", "(gt:u64 ID FREQ)", 0, 0},
	/* regular expressions: POSIX extended, GNU's \< \> */
	{"TARGET =~ \"^/$\"", "(reg:string TARGET \"^/$\")", 1, 0},
	{"TARGET =~ \"fx/(a|b)$\"", "(reg:string TARGET \"fx/(a|b)$\")", 0,
	 1},
	{"TARGET =~ \"fx/\\(a\\)\"", "(reg:string TARGET \"fx/\\(a\\)\")", 0,
	 0},
	{"OPTIONS =~ \"\\<ro\\>\"", "(reg:string OPTIONS \"\\<ro\\>\")", 0,
	 1},
	{"OPTIONS =~ \"RO\"", "(reg:string OPTIONS \"RO\")", 0, 0},
	{"SOURCE =~ \"^sp\"", "(reg:string SOURCE \"^sp\")", 0, 1},
	{"SOURCE =~ \"^ sp\"", "(reg:string SOURCE \"^ sp\")", 0, 0},
	{"SOURCE =~ \"ace$\"", "(reg:string SOURCE \"ace$\")", 0, 1},
	{"LABEL =~ \"\"", "(reg:string LABEL \"\")", 1, 1},
	{"LABEL !~ \"x\"", "(nreg:string LABEL \"x\")", 1, 1},
	{"\"abc\" =~ \"B\"", "(reg:string \"abc\" \"B\")", 0, 0},
	{"TARGET =~ \" \"", "(reg:string TARGET \"\")", 1, 1},
	/* bare values */
	{"1", "1", 1, 1},
	{"0", "0", 0, 0},
	{"0.5", "0.5", 1, 1},
	{"0.0", "0", 0, 0},
	{"\"\"", "\"\"", 0, 0},
	{"\" \"", "\"\"", 0, 0},
	{"\"a\"", "\"a\"", 1, 1},
	{"true", "true", 1, 1},
	{"false", "false", 0, 0},
	{"LABEL", "LABEL", 0, 1},
	{"not LABEL", "(not LABEL)", 1, 0},
	{"", "", 1, 1},
	/* logic */
	{"ID == 26 || ID == 316", "(or (eq:u64 ID 26) (eq:u64 ID 316))", 1,
	 1},
	{"ID == 26 || ID == 1 && FSTYPE == \"tmpfs\"",
	 "(and (or (eq:u64 ID 26) (eq:u64 ID 1)) (eq:string FSTYPE "
	 "\"tmpfs\"))",
	 0, 0},
	{"ID == 26 || (ID == 1 && FSTYPE == \"tmpfs\")",
	 "(or (eq:u64 ID 26) (and (eq:u64 ID 1) (eq:string FSTYPE "
	 "\"tmpfs\")))",
	 1, 0},
	{"! FSTYPE == \"ext4\"", "(eq:boolean (not FSTYPE) \"ext4\")", 1,
	 1},
	{"! FSTYPE == false", "(eq:boolean (not FSTYPE) false)", 1, 1},
	{"ID == 26 == true", "(eq:boolean (eq:u64 ID 26) true)", 1, 0},
	{"ID > 5 == ID > 6",
	 "(gt:boolean (eq:boolean (gt:u64 ID 5) ID) 6)", 0, 0},
	{"(ID =~ \"2\") == (ID =~ \"1\")",
	 "(eq:boolean (reg:string ID \"2\") (reg:string ID \"1\"))", 0, 0},
};

/* regular expressions within the bounds compile */
static const char *const regexes_ok[] = {
	"^/(proc|sys)", "\\<ro\\>", "(^|,)ro(,|$)", "[[:digit:]]{1,3}%",
	"x{1,1000}", "(x{1,30}){1,30}", "^8:+++++++", "q*+++++++", "[]a]+[^]]*",
	"[[:alpha:][.-.]]*", "((a|b)*c?)+", "a\\{1000000}",
};

T_CASE(regex_bounds)
{
	for (size_t i = 0; i < sizeof(regexes_ok) / sizeof(regexes_ok[0]);
	     i++) {
		char *t = t_path("TARGET =~ \"%s\"", regexes_ok[i]);
		struct expr *e = parse_ok(t);

		expr_free(e);
		free(t);
	}
}

T_CASE(eval)
{
	for (size_t i = 0; i < sizeof(evals) / sizeof(evals[0]); i++) {
		struct expr *e = prepared(evals[i].text);
		char *d = expr_dump(e);
		int a, b;

		T_ASSERTF(d && !strcmp(d, evals[i].dump), "%s: %s, expected %s",
			  evals[i].text, d ? d : "NULL", evals[i].dump);
		free(d);
		a = eval_row(e, &row_ext4);
		b = eval_row(e, &row_tmpfs);
		T_ASSERTF(a == evals[i].ext4 && b == evals[i].tmpfs,
			  "%s: %d %d, expected %d %d", evals[i].text, a, b,
			  evals[i].ext4, evals[i].tmpfs);
		expr_free(e);
	}
}

/* ---- errors of the evaluation ---- */

static const struct {
	const char *text;
	const char *ext4; /* NULL: no error on row_ext4 */
	const char *tmpfs;
} eval_errors[] = {
	/* a string cell that is no number */
	{"SIZE > 0", "Invalid argument", "Invalid argument"},
	{"TARGET > 5.5", "Invalid argument", "Invalid argument"},
	{"FSTYPE > 5", "Invalid argument", "Invalid argument"},
	/* a literal that is no number */
	{"5 =~ \"x\"", "Invalid argument", "Invalid argument"},
	{"1.5 =~ \"x\"", "Invalid argument", "Invalid argument"},
	{"ID == 1 && 5 =~ \"x\"", NULL, NULL},
	/*
	 * an operator that does not apply: errno as findmnt left it, 0
	 * after a number was converted, else ENOTTY (stdout no tty)
	 */
	{"5 =~ \"5\"", "Success", "Success"},
	{"1.5 =~ \"1\"", "Success", "Success"},
	{"(ID == 1) =~ \"x\"", "Success", "Success"},
	{"ID =~ \"x\" =~ \"y\"", "Success", "Success"},
	{"true =~ \"x\"", "Inappropriate ioctl for device",
	 "Inappropriate ioctl for device"},
	{"(TARGET == \"/\") =~ \"1\"", "Inappropriate ioctl for device",
	 "Inappropriate ioctl for device"},
	/* a comparison on the right of =~: parsed, and fails when run */
	{"TARGET =~ (ID == 1)", "Success", "Success"},
	{"\"x\" =~ (TARGET && 1)", "Inappropriate ioctl for device",
	 "Inappropriate ioctl for device"},
	/* an empty cell is false before the operator matters */
	{"LABEL =~ (ID == 1)", NULL, "Success"},
	/* a string cell that is no number, where there is one */
	{"LABEL == 0", NULL, "Invalid argument"},
	/* a number column whose text is no number */
	{"FSTYPE == \"x\" || ID", NULL, NULL},
};

static struct row row_badid = {.v = {
	[C_ID] = "12abc",
	[C_FREQ] = "-1",
}};

T_CASE(eval_errors)
{
	for (size_t i = 0; i < sizeof(eval_errors) / sizeof(eval_errors[0]);
	     i++) {
		struct expr *e = prepared(eval_errors[i].text);
		const char *want[2] = {eval_errors[i].ext4,
				       eval_errors[i].tmpfs};
		struct row *rows[2] = {&row_ext4, &row_tmpfs};

		for (int r = 0; r < 2; r++) {
			int rc = eval_row(e, rows[r]);

			if (!want[r]) {
				T_ASSERTF(rc >= 0, "%s [%d]: error %s",
					  eval_errors[i].text, r,
					  expr_strerror(e, rc, false));
				continue;
			}
			T_ASSERTF(rc < 0, "%s [%d]: %d, expected an error",
				  eval_errors[i].text, r, rc);
			T_ASSERTF(!strcmp(expr_strerror(e, rc, false), want[r]),
				  "%s [%d]: '%s', expected '%s'",
				  eval_errors[i].text, r,
				  expr_strerror(e, rc, false), want[r]);
		}
		expr_free(e);
	}
	/* a number column with no number: the conversion's errno */
	struct expr *e = prepared("ID");
	int rc = eval_row(e, &row_badid);

	T_ASSERT(rc < 0);
	T_EQ_STR(expr_strerror(e, rc, false), "Invalid argument");
	expr_free(e);
	e = prepared("FREQ == 1");
	rc = eval_row(e, &row_badid);
	T_ASSERT(rc < 0);
	T_EQ_STR(expr_strerror(e, rc, false), "Numerical result out of range");
	expr_free(e);
	/* on a terminal findmnt's leftover errno is 0 */
	e = prepared("true =~ \"x\"");
	rc = eval_row(e, &row_ext4);
	T_EQ_STR(expr_strerror(e, rc, true), "Success");
	expr_free(e);
}

/* ---- the value callback ---- */

T_CASE(value_calls)
{
	/* && and || stop early; each holder asked once */
	struct expr *e = prepared("ID == 1 && FSTYPE == \"x\"");

	T_EQ_I(eval_row(e, &row_ext4), 0);
	T_EQ_U(row_ext4.calls[C_ID], 1);
	T_EQ_U(row_ext4.calls[C_FSTYPE], 0);
	expr_free(e);
	e = prepared("ID == 26 || FSTYPE == \"x\"");
	T_EQ_I(eval_row(e, &row_ext4), 1);
	T_EQ_U(row_ext4.calls[C_FSTYPE], 0);
	expr_free(e);
	e = prepared("ID == 1 || FSTYPE == \"ext4\" && TARGET");
	T_EQ_I(eval_row(e, &row_ext4), 1);
	T_EQ_U(row_ext4.calls[C_ID], 1);
	T_EQ_U(row_ext4.calls[C_FSTYPE], 1);
	T_EQ_U(row_ext4.calls[C_TARGET], 1);
	for (int c = 0; c < NCOLS; c++)
		T_ASSERT(row_ext4.calls[c] <= 1);
	expr_free(e);
	/* the literal column index comes back */
	e = parse_ok("X == \"y\"");
	expr_bind(e, 0, 7, EXPR_STRING);
	T_ASSERT(!expr_prepare(e));
	T_EQ_I(eval_row(e, &row_ext4), 0);
	T_EQ_U(row_ext4.calls[7], 1);
	expr_free(e);
}

/* a callback whose text lives only until its next call */
struct oneshot {
	char buf[64];
	const char *v[NCOLS];
};

static const char *value_oneshot(void *ctx, int col)
{
	struct oneshot *o = ctx;

	if (!o->v[col])
		return NULL;
	snprintf(o->buf, sizeof(o->buf), "%s", o->v[col]);
	return o->buf;
}

T_CASE(value_reused)
{
	struct oneshot o = {.v = {[C_TARGET] = "/a  ", [C_SOURCE] = "/b"}};
	struct expr *e = prepared("TARGET != SOURCE && TARGET < SOURCE");

	T_EQ_I(expr_eval(e, value_oneshot, &o), 1);
	o.v[C_SOURCE] = " /a";
	T_EQ_I(expr_eval(e, value_oneshot, &o), 0);
	expr_free(e);
	/* trailing blanks, then a regular expression anchored at the end */
	e = prepared("TARGET =~ \"a$\" && SOURCE =~ \"^/a$\"");
	T_EQ_I(expr_eval(e, value_oneshot, &o), 1);
	expr_free(e);
}

/* ---- limits ---- */

static char *repeat(const char *head, const char *unit, size_t n,
		    const char *mid, const char *tail_unit, size_t m)
{
	size_t hl = strlen(head), ul = strlen(unit), ml = strlen(mid),
	       tl = strlen(tail_unit);
	char *s = t_xmalloc(hl + ul * n + ml + tl * m + 1), *p = s;

	memcpy(p, head, hl), p += hl;
	for (size_t i = 0; i < n; i++)
		memcpy(p, unit, ul), p += ul;
	memcpy(p, mid, ml), p += ml;
	for (size_t i = 0; i < m; i++)
		memcpy(p, tail_unit, tl), p += tl;
	*p = '\0';
	return s;
}

/* @text parses (NULL) or fails with @msg */
static void expect_parse(char *text, const char *msg, const char *what)
{
	struct expr *e = expr_parse(text);

	T_ASSERTF(e, "%s: out of memory", what);
	if (!msg)
		T_ASSERTF(!expr_error(e), "%s: %s", what, expr_error(e));
	else
		T_ASSERTF(expr_error(e) && !strcmp(expr_error(e), msg),
			  "%s: '%s', expected '%s'", what,
			  expr_error(e) ? expr_error(e) : "parsed", msg);
	expr_free(e);
	free(text);
}

T_CASE(bison_stack)
{
	/* the counts where findmnt 2.42 starts to say "memory exhausted" */
	expect_parse(repeat("", "(", 9996, "ID", ")", 9996), NULL, "9996 (");
	expect_parse(repeat("", "(", 9997, "ID", ")", 9997),
		     "memory exhausted", "9997 (");
	expect_parse(repeat("", "(", 10000, "ID", ")", 10000),
		     "memory exhausted", "10000 (");
	expect_parse(repeat("", "!", 9997, "ID", "", 0), NULL, "9997 !");
	expect_parse(repeat("", "!", 9998, "ID", "", 0), "memory exhausted",
		     "9998 !");
	expect_parse(repeat("", "ID && (", 3332, "ID", ")", 3332), NULL,
		     "3332 && (");
	expect_parse(repeat("", "ID && (", 3333, "ID", ")", 3333),
		     "memory exhausted", "3333 && (");
	/* the stack only counts what is open: long flat chains are fine */
	expect_parse(repeat("ID", " && ID", 100000, "", "", 0), NULL,
		     "100000 &&");
	expect_parse(repeat("ID", " == 1", 100000, "", "", 0), NULL,
		     "100000 ==");
	/* unclosed: exhausted before the end */
	expect_parse(repeat("", "(", 1 << 20, "", "", 0), "memory exhausted",
		     "1 MiB (");
}

T_CASE(one_mib)
{
	struct expr *e;
	char *s;
	size_t len;

	/* 1 MiB of && and ||: parsed, evaluated without recursion */
	s = repeat("ID", " && ID || !ID", (1 << 20) / 14, "", "", 0);
	e = prepared(s);
	T_EQ_I(eval_row(e, &row_ext4), 1);
	expr_free(e);
	free(s);
	s = repeat("ID", " == ID", (1 << 20) / 6, "", "", 0);
	e = prepared(s);
	T_ASSERT(eval_row(e, &row_ext4) >= 0);
	expr_free(e);
	free(s);
	/* a 1 MiB string, holder name and garbage */
	s = repeat("TARGET == \"", "x", 1 << 20, "\"", "", 0);
	e = prepared(s);
	T_EQ_I(eval_row(e, &row_ext4), 0);
	expr_free(e);
	free(s);
	s = repeat("X", "x", 1 << 20, "", "", 0);
	e = parse_ok(s);
	T_EQ_U(expr_nholders(e), 1);
	T_EQ_U(strlen(expr_holder(e, 0)), (1 << 20) + 1);
	expr_free(e);
	free(s);
	s = repeat("", "@", 1 << 20, "", "", 0);
	e = expr_parse(s);
	T_EQ_STR(expr_error(e), "syntax error, unexpected end of file");
	expr_echo(e, &len);
	T_EQ_U(len, 1 << 20);
	expr_free(e);
	free(s);
	/* a nest as deep as bison allows, inside 1 MiB of && */
	s = repeat("", "(", 9990, "ID", ")", 9990);
	{
		char *t = repeat(s, " && 1", (1 << 20) / 5, "", "", 0);

		e = prepared(t);
		T_EQ_I(eval_row(e, &row_ext4), 1);
		expr_free(e);
		free(t);
	}
	free(s);
}

int main(int argc, char **argv)
{
	return t_run(argc, argv);
}
