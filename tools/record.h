/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * record.h - one statmount reply as a record: its fields in mask-bit
 * order, with their names and how to show them. statmnt prints the record
 * as text or JSON; mntwatch --json writes the same JSON.
 */
#ifndef MNTKIT_TOOLS_RECORD_H
#define MNTKIT_TOOLS_RECORD_H

#include <stddef.h>
#include <stdint.h>

#include "mntkit.h"
#include "output.h"

/* how text shows a number */
enum rec_numfmt {
	REC_DEC,   /* 123 */
	REC_HEX,   /* 0x7b (masks, magics; IDs are REC_DEC) */
	REC_HEX32, /* 0x0000007b (words) */
	REC_WORDS, /* words only */
};

/* the words of a flags field, also written as "KEY_str" in JSON */
enum rec_decoder {
	REC_DECODE_NONE,
	REC_DECODE_ATTR,
	REC_DECODE_SB_FLAGS,
	REC_DECODE_PROPAGATION,
};

/* what a printer does with each kind of field */
struct record_ops {
	void (*num)(void *ctx, const char *key, uint64_t v,
		    enum rec_numfmt fmt, enum rec_decoder d);
	void (*str)(void *ctx, const char *key, const char *s);
	void (*strv)(void *ctx, const char *key, const char **vec, size_t n);
};

/* the words for @v, malloc'd; NULL when there is no decoder or no memory */
char *record_words(enum rec_decoder d, uint64_t v);

/*
 * Every field of @sm present in its mask, in mask-bit order, after "size"
 * and "mask". @len is the bytes known valid at @sm (strings are read only
 * through the library's checked accessors). @listed_id, when not 0, comes
 * first as mnt_id if the reply has no MNT_BASIC (so that every record
 * names its mount). A field that cannot be read is left out; the result
 * is 0 or the first such error.
 */
int record_walk(const struct record_ops *ops, void *ctx,
		const struct mntkit_statmount *sm, size_t len,
		uint64_t listed_id);

/*
 * The fields of record_walk() as JSON members of the object open in @jw
 * (the keys of statmnt --json). Returns as record_walk(); no memory also
 * marks @jw's buffer failed.
 */
int record_json(struct json_writer *jw, const struct mntkit_statmount *sm,
		size_t len, uint64_t listed_id);

#endif
