/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * escape.h - lsmnt's escaping: a value's bytes as each output format
 * writes them (inline, for the printers' loops over every cell), and its
 * width on a terminal (escape.c).
 */
#ifndef MNTKIT_TOOLS_LSMNT_ESCAPE_H
#define MNTKIT_TOOLS_LSMNT_ESCAPE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "output.h"

/*
 * The escaping rules are those of libsmartcols 2.38:
 *  - list/tree: a character that is not printable in the locale as \xHH
 *    (each byte), a backslash before an 'x' as \x5c; width by wcwidth();
 *  - raw: blanks, backslash and anything but printable ASCII as \xHH;
 *  - pairs: '"', '\', '`', '$' and anything but printable ASCII as \xHH;
 *  - JSON: '"' and '\' escaped, bytes 0x01-0x1f as \b \f \n \r \t or
 *    \u00XX; every other byte as it is (findmnt passes invalid UTF-8
 *    through, and so does lsmnt, to stay byte-identical).
 */

/* ---- escape.c ---- */

/* the locale's codeset is UTF-8 (the locale is set at this first need) */
bool locale_utf8(void);
/*
 * list/tree text: write @s escaped into @ob (NULL: only measure) and return
 * its width in terminal columns.
 */
size_t put_safe(struct outbuf *ob, const char *s);

/* ---- raw, pairs and JSON: what they write as it is, a word at a time ---- */

static inline void put_hex(struct outbuf *ob, unsigned char c)
{
	static const char hexdig[] = "0123456789abcdef";
	char esc[4] = {'\\', 'x', hexdig[c >> 4], hexdig[c & 15]};

	if (ob)
		outbuf_write(ob, esc, 4);
}

/*
 * What each printer writes as it is, found a word at a time: the bytes
 * from 0x20 on, below 0x7f too when @high (raw, pairs, list/tree; JSON
 * passes the others through), and none of @stop (4 bytes; a 0 there
 * stops nothing, as no NUL is inside a string). The tests are exact for
 * "some byte of the word is one" (the hacks of Sean Anderson's bit
 * twiddling page: haszero, hasless, hasmore).
 */
#define ONES UINT64_C(0x0101010101010101)
#define HIGHS (ONES * 0x80)

static inline bool byte_plain(unsigned char c, bool high,
			      const unsigned char *stop)
{
	return c >= 0x20 && (!high || c < 0x7f) && c != stop[0] &&
	       c != stop[1] && c != stop[2] && c != stop[3];
}

static inline bool word_plain(uint64_t x, bool high, const unsigned char *stop)
{
	uint64_t t = (x - ONES * 0x20) & ~x; /* a byte below 0x20 */

	if (high)
		t |= (x + ONES) | x; /* a byte above 0x7e */
	for (int k = 0; k < 4; k++) {
		uint64_t y = x ^ (ONES * stop[k]);

		t |= (y - ONES) & ~y; /* a byte equal to stop[k] */
	}
	return !(t & HIGHS);
}

/* the length of the plain prefix of the @len bytes at @s */
static inline size_t plain_run(const unsigned char *s, size_t len, bool high,
			       const unsigned char *stop)
{
	size_t i = 0;

	for (; len - i >= 8; i += 8) {
		uint64_t x;

		memcpy(&x, s + i, 8);
		if (!word_plain(x, high, stop))
			break;
	}
	while (i < len && byte_plain(s[i], high, stop))
		i++;
	return i;
}

/*
 * @s with its plain runs (plain_run() by @high and @stop) as they are and
 * every other byte as @esc writes it
 */
static inline void put_escaped(struct outbuf *ob, const char *s, bool high,
			       const unsigned char *stop,
			       void (*esc)(struct outbuf *, unsigned char))
{
	const unsigned char *p = (const unsigned char *)s;
	size_t len = strlen(s);

	while (len) {
		size_t run = plain_run(p, len, high, stop);

		outbuf_write(ob, p, run);
		p += run;
		len -= run;
		if (!len)
			break;
		esc(ob, *p++);
		len--;
	}
}

/* raw: blanks, backslash and anything but printable ASCII as \xHH */
static inline void put_raw(struct outbuf *ob, const char *s)
{
	static const unsigned char stop[4] = {' ', '\\'};

	put_escaped(ob, s, true, stop, put_hex);
}

/* pairs: '"', '\', '`', '$' and anything but printable ASCII as \xHH */
static inline void put_pairs(struct outbuf *ob, const char *s)
{
	static const unsigned char stop[4] = {'"', '\\', '`', '$'};

	put_escaped(ob, s, true, stop, put_hex);
}

/* a JSON string's escape of @c: '"', '\' or a control character */
static inline void put_json_escape(struct outbuf *ob, unsigned char c)
{
	static const char from[] = "\"\\\b\f\n\r\t", to[] = "\"\\bfnrt";
	const char *k = c ? strchr(from, c) : NULL;

	if (k) {
		char e[2] = {'\\', to[k - from]};

		outbuf_write(ob, e, 2);
	} else {
		outbuf_printf(ob, "\\u%04x", c);
	}
}

static inline void put_json(struct outbuf *ob, const char *s)
{
	static const unsigned char stop[4] = {'"', '\\'};

	outbuf_putc(ob, '"');
	put_escaped(ob, s, false, stop, put_json_escape);
	outbuf_putc(ob, '"');
}

#endif
