/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * output.h - output helpers shared by the mntkit tools.
 *
 * struct outbuf is a growable byte buffer. A tool builds its whole output
 * in one and writes it only when everything succeeded, so that a failure
 * never leaves half a record on stdout. Appending never fails loudly: the
 * first allocation failure is remembered in ->err, later appends do nothing
 * and outbuf_flush() reports it.
 *
 * Two escapers append text that came from the kernel (mount points, sources,
 * options may hold any byte but NUL):
 *
 *  - outbuf_text_str(): C style, for line-oriented text output. Backslash,
 *    control characters, DEL and bytes that are not valid UTF-8 are escaped
 *    (\\ \t \n \r, else \ooo with three octal digits), so that one value
 *    always stays on one line and can be decoded back to the exact bytes.
 *    Valid UTF-8 passes through.
 *
 *  - outbuf_json_str(): a JSON string (RFC 8259) with its quotes. '"' and
 *    '\' are escaped, control characters as \b \f \n \r \t or \u00XX, DEL
 *    as \u007f and the C1 controls U+0080..U+009F as \u0080..\u009f (a
 *    raw CSI would reach a terminal that shows the JSON). Other valid
 *    UTF-8 passes through. A byte that is not part of valid
 *    UTF-8 is written as the lone surrogate \udcXX (XX = the byte, 80..ff),
 *    Python's "surrogateescape" convention: json.loads() followed by
 *    .encode("utf-8", "surrogateescape") gives back the exact bytes; other
 *    parsers see U+FFFD or reject it. The output itself stays pure ASCII
 *    plus valid UTF-8.
 *
 * struct json_writer writes JSON values into an outbuf and places the
 * commas, colons and (optionally) newlines and indentation itself.
 */
#ifndef MNTKIT_TOOLS_OUTPUT_H
#define MNTKIT_TOOLS_OUTPUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

struct outbuf {
	char *data;
	size_t len;
	size_t cap;
	int err; /* first error (positive errno), 0 if none */
	/*
	 * @data is memory of the caller's (set by it with @cap): never
	 * freed, and growing copies the content out into memory of its own
	 */
	bool lent;
};

#define OUTBUF_INIT                                                            \
	{                                                                      \
		.data = NULL, .len = 0, .cap = 0, .err = 0, .lent = false      \
	}

void outbuf_init(struct outbuf *ob);
void outbuf_free(struct outbuf *ob);
/* forget the content (and the error), keep the memory */
void outbuf_reset(struct outbuf *ob);

/* outbuf_write() where the buffer must grow first (or has failed) */
void outbuf_write_grow(struct outbuf *ob, const void *data, size_t len);

/*
 * Append @len bytes, NUL-terminated after them. Inline where they fit:
 * lsmnt appends several pieces to each cell of each of 50,000 rows.
 */
static inline void outbuf_write(struct outbuf *ob, const void *data,
				size_t len)
{
	if (ob->err || len >= ob->cap - ob->len) {
		outbuf_write_grow(ob, data, len);
		return;
	}
	memcpy(ob->data + ob->len, data, len);
	ob->len += len;
	ob->data[ob->len] = '\0';
}

/*
 * Room for @len more bytes (and a NUL) at the end of @ob, to be filled in
 * place and then counted by adding to ob->len; NULL after an error (no
 * memory: ob->err).
 */
char *outbuf_room(struct outbuf *ob, size_t len);

static inline void outbuf_puts(struct outbuf *ob, const char *s)
{
	outbuf_write(ob, s, strlen(s));
}

static inline void outbuf_putc(struct outbuf *ob, char c)
{
	outbuf_write(ob, &c, 1);
}
void outbuf_printf(struct outbuf *ob, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* @s escaped for text output (see above), without delimiters */
void outbuf_text_str(struct outbuf *ob, const char *s);
/* @s as a JSON string, quotes included */
void outbuf_json_str(struct outbuf *ob, const char *s);

/*
 * outbuf_flush - write the content to @fp (fflush() it, then write(2) to
 * its fd; a stream without one is written by fwrite()), reset @ob.
 * Returns 0, or a negative errno: ob->err when an append failed (nothing is
 * written then), or the error of the write.
 */
int outbuf_flush(struct outbuf *ob, FILE *fp);

/* NUL-terminated view of the content; NULL after an error */
const char *outbuf_cstr(struct outbuf *ob);

/* ---- JSON writer ---- */

#define JSON_MAX_DEPTH 32

struct json_writer {
	struct outbuf *ob;
	unsigned int indent; /* spaces per level; 0: all on one line */
	unsigned int depth;  /* open containers */
	bool after_key;	     /* a key was written, its value is next */
	bool has_items[JSON_MAX_DEPTH + 1];
};

/* @indent 0 writes compact JSON on one line, else pretty-printed */
void json_init(struct json_writer *jw, struct outbuf *ob, unsigned int indent);

void json_object_begin(struct json_writer *jw);
void json_object_end(struct json_writer *jw);
void json_array_begin(struct json_writer *jw);
void json_array_end(struct json_writer *jw);

/* a member name; the next call writes its value */
void json_key(struct json_writer *jw, const char *key);

void json_string(struct json_writer *jw, const char *s); /* NULL -> null */
void json_u64(struct json_writer *jw, uint64_t v);
void json_i64(struct json_writer *jw, int64_t v);
void json_bool(struct json_writer *jw, bool v);
void json_null(struct json_writer *jw);

/* key and value in one call */
void json_kv_string(struct json_writer *jw, const char *key, const char *s);
void json_kv_u64(struct json_writer *jw, const char *key, uint64_t v);
void json_kv_bool(struct json_writer *jw, const char *key, bool v);

#endif
