// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * output.c - growable output buffer, text and JSON escaping, JSON writer.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "output.h"
#include "util.h"

void outbuf_init(struct outbuf *ob)
{
	memset(ob, 0, sizeof(*ob));
}

void outbuf_free(struct outbuf *ob)
{
	if (!ob->lent)
		free(ob->data);
	outbuf_init(ob);
}

void outbuf_reset(struct outbuf *ob)
{
	ob->len = 0;
	ob->err = 0;
}

/* make room for @extra more bytes plus a NUL; false after an error */
static bool outbuf_reserve(struct outbuf *ob, size_t extra)
{
	size_t need, cap;
	char *data;

	if (ob->err)
		return false;
	if (extra >= SIZE_MAX - ob->len) {
		ob->err = ENOMEM;
		return false;
	}
	need = ob->len + extra + 1;
	if (need <= ob->cap)
		return true;
	if (!ob->lent) {
		if (mntkit__grow(&ob->data, &ob->cap, need, 1, 256)) {
			ob->err = ENOMEM;
			return false;
		}
		return true;
	}
	/* lent memory is the lender's: the text moves out into our own */
	cap = ob->cap;
	data = NULL;
	if (mntkit__grow(&data, &cap, need, 1, 256)) {
		ob->err = ENOMEM;
		return false;
	}
	if (ob->len)
		memcpy(data, ob->data, ob->len);
	ob->lent = false;
	ob->data = data;
	ob->cap = cap;
	return true;
}

char *outbuf_room(struct outbuf *ob, size_t len)
{
	return outbuf_reserve(ob, len) ? ob->data + ob->len : NULL;
}

void outbuf_write_grow(struct outbuf *ob, const void *data, size_t len)
{
	if (!outbuf_reserve(ob, len))
		return;
	memcpy(ob->data + ob->len, data, len);
	ob->len += len;
	ob->data[ob->len] = '\0';
}

void outbuf_printf(struct outbuf *ob, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0) {
		if (!ob->err)
			ob->err = EINVAL;
		return;
	}
	if (!outbuf_reserve(ob, (size_t)n))
		return;
	va_start(ap, fmt);
	vsnprintf(ob->data + ob->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	ob->len += (size_t)n;
}

const char *outbuf_cstr(struct outbuf *ob)
{
	if (ob->err)
		return NULL;
	if (!ob->data && !outbuf_reserve(ob, 0))
		return NULL;
	ob->data[ob->len] = '\0';
	return ob->data;
}

/*
 * The content goes out by write(2) after what @fp holds (fflush()): not
 * copied through stdio's buffer, whose block-sized writes would split
 * each chunk in two (lsmnt hands 64 KiB at a time to it).
 */
int outbuf_flush(struct outbuf *ob, FILE *fp)
{
	int err = ob->err, fd = fileno(fp);
	size_t off = 0;

	errno = 0;
	if (fflush(fp))
		err = err ? err : errno ? errno : EIO;
	while (!err && fd >= 0 && off < ob->len) {
		ssize_t n = write(fd, ob->data + off, ob->len - off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			err = n < 0 ? errno : EIO;
		else
			off += (size_t)n;
	}
	if (!err && fd < 0 && ob->len &&
	    (fwrite(ob->data, 1, ob->len, fp) != ob->len || fflush(fp)))
		err = errno ? errno : EIO;
	outbuf_reset(ob);
	return -err;
}

/*
 * The length of the well-formed UTF-8 sequence (RFC 3629: no overlong
 * forms, no surrogates, nothing above U+10FFFF) that starts at @s, 0 if
 * there is none. @s is NUL-terminated, which stops any sequence.
 */
static size_t utf8_seq_len(const unsigned char *s, uint32_t *cp_out)
{
	unsigned char c = s[0];
	uint32_t cp;
	size_t n, i;

	if (c < 0x80) {
		*cp_out = c;
		return 1;
	}
	if (c >= 0xc2 && c <= 0xdf) {
		n = 2;
		cp = c & 0x1f;
	} else if (c >= 0xe0 && c <= 0xef) {
		n = 3;
		cp = c & 0x0f;
	} else if (c >= 0xf0 && c <= 0xf4) {
		n = 4;
		cp = c & 0x07;
	} else {
		return 0;
	}
	for (i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = (cp << 6) | (s[i] & 0x3f);
	}
	if ((n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000) ||
	    cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	*cp_out = cp;
	return n;
}

static void put_octal(struct outbuf *ob, unsigned char c)
{
	char esc[5] = {'\\', (char)('0' + (c >> 6)),
		       (char)('0' + ((c >> 3) & 7)), (char)('0' + (c & 7)),
		       '\0'};

	outbuf_write(ob, esc, 4);
}

/* a character of text output that is written as an escape */
static const char *text_short_escape(unsigned char c)
{
	switch (c) {
	case '\\':
		return "\\\\";
	case '\t':
		return "\\t";
	case '\n':
		return "\\n";
	case '\r':
		return "\\r";
	default:
		return NULL;
	}
}

void outbuf_text_str(struct outbuf *ob, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	const char *esc;
	uint32_t cp;
	size_t n, i;

	while (*p) {
		esc = text_short_escape(*p);
		if (esc) {
			outbuf_puts(ob, esc);
			p++;
			continue;
		}
		n = utf8_seq_len(p, &cp);
		if (n == 0 || cp < 0x20 || (cp >= 0x7f && cp < 0xa0)) {
			/* control (C0, DEL, C1) or not UTF-8: every byte */
			n = n ? n : 1;
			for (i = 0; i < n; i++)
				put_octal(ob, p[i]);
		} else {
			outbuf_write(ob, p, n);
		}
		p += n;
	}
}

static const char *json_short_escape(unsigned char c)
{
	switch (c) {
	case '"':
		return "\\\"";
	case '\\':
		return "\\\\";
	case '\b':
		return "\\b";
	case '\f':
		return "\\f";
	case '\n':
		return "\\n";
	case '\r':
		return "\\r";
	case '\t':
		return "\\t";
	default:
		return NULL;
	}
}

void outbuf_json_str(struct outbuf *ob, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	const char *esc;
	uint32_t cp;
	size_t n;

	outbuf_putc(ob, '"');
	while (*p) {
		esc = json_short_escape(*p);
		if (esc) {
			outbuf_puts(ob, esc);
			p++;
			continue;
		}
		n = utf8_seq_len(p, &cp);
		if (n == 0) {
			/* not UTF-8: surrogateescape, lossless */
			outbuf_printf(ob, "\\udc%02x", *p);
			p++;
			continue;
		}
		/* every control: C0, DEL and the C1 range (CSI, NEL, ...) */
		if (cp < 0x20 || (cp >= 0x7f && cp < 0xa0))
			outbuf_printf(ob, "\\u%04x", (unsigned int)cp);
		else
			outbuf_write(ob, p, n);
		p += n;
	}
	outbuf_putc(ob, '"');
}

/* ---- JSON writer ---- */

void json_init(struct json_writer *jw, struct outbuf *ob, unsigned int indent)
{
	memset(jw, 0, sizeof(*jw));
	jw->ob = ob;
	jw->indent = indent;
}

static void json_newline(struct json_writer *jw, unsigned int depth)
{
	unsigned int i;

	if (!jw->indent)
		return;
	outbuf_putc(jw->ob, '\n');
	for (i = 0; i < depth * jw->indent; i++)
		outbuf_putc(jw->ob, ' ');
}

/* what comes before a value or a key: nothing, or a comma and a newline */
static void json_prelude(struct json_writer *jw)
{
	if (jw->after_key) {
		jw->after_key = false;
		return;
	}
	if (jw->depth == 0)
		return;
	if (jw->has_items[jw->depth])
		outbuf_putc(jw->ob, ',');
	jw->has_items[jw->depth] = true;
	json_newline(jw, jw->depth);
}

static void json_open(struct json_writer *jw, char c)
{
	json_prelude(jw);
	if (jw->depth >= JSON_MAX_DEPTH) {
		if (!jw->ob->err)
			jw->ob->err = EOVERFLOW;
		return;
	}
	outbuf_putc(jw->ob, c);
	jw->depth++;
	jw->has_items[jw->depth] = false;
}

static void json_close(struct json_writer *jw, char c)
{
	if (jw->depth == 0) {
		if (!jw->ob->err)
			jw->ob->err = EINVAL;
		return;
	}
	if (jw->has_items[jw->depth])
		json_newline(jw, jw->depth - 1);
	jw->depth--;
	outbuf_putc(jw->ob, c);
}

void json_object_begin(struct json_writer *jw)
{
	json_open(jw, '{');
}

void json_object_end(struct json_writer *jw)
{
	json_close(jw, '}');
}

void json_array_begin(struct json_writer *jw)
{
	json_open(jw, '[');
}

void json_array_end(struct json_writer *jw)
{
	json_close(jw, ']');
}

void json_key(struct json_writer *jw, const char *key)
{
	json_prelude(jw);
	outbuf_json_str(jw->ob, key);
	outbuf_puts(jw->ob, jw->indent ? ": " : ":");
	jw->after_key = true;
}

void json_string(struct json_writer *jw, const char *s)
{
	if (!s) {
		json_null(jw);
		return;
	}
	json_prelude(jw);
	outbuf_json_str(jw->ob, s);
}

void json_u64(struct json_writer *jw, uint64_t v)
{
	json_prelude(jw);
	outbuf_printf(jw->ob, "%" PRIu64, v);
}

void json_i64(struct json_writer *jw, int64_t v)
{
	json_prelude(jw);
	outbuf_printf(jw->ob, "%" PRId64, v);
}

void json_bool(struct json_writer *jw, bool v)
{
	json_prelude(jw);
	outbuf_puts(jw->ob, v ? "true" : "false");
}

void json_null(struct json_writer *jw)
{
	json_prelude(jw);
	outbuf_puts(jw->ob, "null");
}

void json_kv_string(struct json_writer *jw, const char *key, const char *s)
{
	json_key(jw, key);
	json_string(jw, s);
}

void json_kv_u64(struct json_writer *jw, const char *key, uint64_t v)
{
	json_key(jw, key);
	json_u64(jw, v);
}

void json_kv_bool(struct json_writer *jw, const char *key, bool v)
{
	json_key(jw, key);
	json_bool(jw, v);
}
