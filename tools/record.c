// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * record.c - one statmount reply as a record (see record.h).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "record.h"

static const mntkit_decoder decoders[] = {
	[REC_DECODE_ATTR] = mntkit_attr_str,
	[REC_DECODE_SB_FLAGS] = mntkit_sb_flags_str,
	[REC_DECODE_PROPAGATION] = mntkit_propagation_str,
};

static int decode(enum rec_decoder d, uint64_t v, char *buf, size_t len)
{
	if ((size_t)d >= sizeof(decoders) / sizeof(decoders[0]) || !decoders[d])
		return -EINVAL;
	return decoders[d](v, 0, buf, len);
}

char *record_words(enum rec_decoder d, uint64_t v)
{
	char probe[1];
	char *buf;
	int n;

	n = decode(d, v, probe, sizeof(probe));
	if (n < 0)
		return NULL;
	buf = malloc((size_t)n + 1);
	if (buf && decode(d, v, buf, (size_t)n + 1) != n) {
		free(buf);
		buf = NULL;
	}
	return buf;
}

static int walk_str(const struct record_ops *ops, void *ctx,
		    const struct mntkit_statmount *sm, size_t len,
		    enum mntkit_field field)
{
	const char *s;
	int r;

	r = mntkit_sm_str(sm, len, field, &s);
	if (r < 0)
		return r;
	ops->str(ctx, mntkit_field_name(field), s);
	return 0;
}

static int walk_strv(const struct record_ops *ops, void *ctx,
		     const struct mntkit_statmount *sm, size_t len,
		     enum mntkit_field field)
{
	const char **vec;
	ssize_t n;

	n = mntkit_sm_strv(sm, len, field, NULL, 0);
	if (n < 0)
		return (int)n;
	vec = calloc(n ? (size_t)n : 1, sizeof(*vec));
	if (!vec)
		return -ENOMEM;
	if (n)
		n = mntkit_sm_strv(sm, len, field, vec, (size_t)n);
	if (n >= 0)
		ops->strv(ctx, mntkit_field_name(field), vec, (size_t)n);
	free(vec);
	return n < 0 ? (int)n : 0;
}

/* the string groups, with their mask bits, in mask-bit order */
static const struct {
	uint64_t bit;
	enum mntkit_field field;
} str_groups[] = {
	{MNTKIT_STATMOUNT_MNT_ROOT, MNTKIT_FIELD_MNT_ROOT},
	{MNTKIT_STATMOUNT_MNT_POINT, MNTKIT_FIELD_MNT_POINT},
	{MNTKIT_STATMOUNT_FS_TYPE, MNTKIT_FIELD_FS_TYPE},
	{MNTKIT_STATMOUNT_MNT_OPTS, MNTKIT_FIELD_MNT_OPTS},
	{MNTKIT_STATMOUNT_FS_SUBTYPE, MNTKIT_FIELD_FS_SUBTYPE},
	{MNTKIT_STATMOUNT_SB_SOURCE, MNTKIT_FIELD_SB_SOURCE},
	{MNTKIT_STATMOUNT_OPT_ARRAY, MNTKIT_FIELD_OPT_ARRAY},
	{MNTKIT_STATMOUNT_OPT_SEC_ARRAY, MNTKIT_FIELD_OPT_SEC_ARRAY},
	{MNTKIT_STATMOUNT_MNT_UIDMAP, MNTKIT_FIELD_MNT_UIDMAP},
	{MNTKIT_STATMOUNT_MNT_GIDMAP, MNTKIT_FIELD_MNT_GIDMAP},
};

static int walk_group(const struct record_ops *ops, void *ctx,
		      const struct mntkit_statmount *sm, size_t len,
		      uint64_t bit)
{
	size_t i;

	switch (bit) {
	case MNTKIT_STATMOUNT_SB_BASIC:
		ops->num(ctx, "sb_dev_major", sm->sb_dev_major, REC_DEC,
			 REC_DECODE_NONE);
		ops->num(ctx, "sb_dev_minor", sm->sb_dev_minor, REC_DEC,
			 REC_DECODE_NONE);
		ops->num(ctx, "sb_magic", sm->sb_magic, REC_HEX,
			 REC_DECODE_NONE);
		ops->num(ctx, "sb_flags", sm->sb_flags, REC_HEX32,
			 REC_DECODE_SB_FLAGS);
		return 0;
	case MNTKIT_STATMOUNT_MNT_BASIC:
		ops->num(ctx, "mnt_id", sm->mnt_id, REC_DEC, REC_DECODE_NONE);
		ops->num(ctx, "mnt_parent_id", sm->mnt_parent_id, REC_DEC,
			 REC_DECODE_NONE);
		ops->num(ctx, "mnt_id_old", sm->mnt_id_old, REC_DEC,
			 REC_DECODE_NONE);
		ops->num(ctx, "mnt_parent_id_old", sm->mnt_parent_id_old,
			 REC_DEC, REC_DECODE_NONE);
		ops->num(ctx, "mnt_attr", sm->mnt_attr, REC_HEX32,
			 REC_DECODE_ATTR);
		ops->num(ctx, "mnt_propagation", sm->mnt_propagation,
			 REC_WORDS, REC_DECODE_PROPAGATION);
		ops->num(ctx, "mnt_peer_group", sm->mnt_peer_group, REC_DEC,
			 REC_DECODE_NONE);
		ops->num(ctx, "mnt_master", sm->mnt_master, REC_DEC,
			 REC_DECODE_NONE);
		return 0;
	case MNTKIT_STATMOUNT_PROPAGATE_FROM:
		ops->num(ctx, "propagate_from", sm->propagate_from, REC_DEC,
			 REC_DECODE_NONE);
		return 0;
	case MNTKIT_STATMOUNT_MNT_NS_ID:
		ops->num(ctx, "mnt_ns_id", sm->mnt_ns_id, REC_DEC,
			 REC_DECODE_NONE);
		return 0;
	case MNTKIT_STATMOUNT_SUPPORTED_MASK:
		ops->num(ctx, "supported_mask", sm->supported_mask, REC_HEX,
			 REC_DECODE_NONE);
		return 0;
	}
	for (i = 0; i < sizeof(str_groups) / sizeof(str_groups[0]); i++) {
		if (str_groups[i].bit != bit)
			continue;
		if (str_groups[i].field >= MNTKIT_FIELD_OPT_ARRAY)
			return walk_strv(ops, ctx, sm, len,
					 str_groups[i].field);
		return walk_str(ops, ctx, sm, len, str_groups[i].field);
	}
	return 0; /* a group the tools do not know */
}

int record_walk(const struct record_ops *ops, void *ctx,
		const struct mntkit_statmount *sm, size_t len,
		uint64_t listed_id)
{
	uint64_t bit;
	int r, first = 0;

	if (listed_id && !(sm->mask & MNTKIT_STATMOUNT_MNT_BASIC))
		ops->num(ctx, "mnt_id", listed_id, REC_DEC, REC_DECODE_NONE);
	ops->num(ctx, "size", sm->size, REC_DEC, REC_DECODE_NONE);
	ops->num(ctx, "mask", sm->mask, REC_HEX, REC_DECODE_NONE);
	for (bit = 1; bit; bit <<= 1) {
		if (!(sm->mask & bit))
			continue;
		r = walk_group(ops, ctx, sm, len, bit);
		if (r < 0 && !first)
			first = r;
	}
	return first;
}

/* ---- JSON ---- */

/* "key": value, plus "key_str": "words" for decoded flags */
static void json_num(void *ctx, const char *key, uint64_t v,
		     enum rec_numfmt fmt, enum rec_decoder d)
{
	struct json_writer *jw = ctx;
	char *words = record_words(d, v);
	char skey[64];

	(void)fmt;
	json_kv_u64(jw, key, v);
	if (words) {
		snprintf(skey, sizeof(skey), "%s_str", key);
		json_kv_string(jw, skey, words);
	}
	free(words);
}

static void json_str(void *ctx, const char *key, const char *s)
{
	json_kv_string(ctx, key, s);
}

static void json_strv(void *ctx, const char *key, const char **vec, size_t n)
{
	struct json_writer *jw = ctx;
	size_t i;

	json_key(jw, key);
	json_array_begin(jw);
	for (i = 0; i < n; i++)
		json_string(jw, vec[i]);
	json_array_end(jw);
}

static const struct record_ops json_ops = {
	.num = json_num,
	.str = json_str,
	.strv = json_strv,
};

int record_json(struct json_writer *jw, const struct mntkit_statmount *sm,
		size_t len, uint64_t listed_id)
{
	int r = record_walk(&json_ops, jw, sm, len, listed_id);

	if (r == -ENOMEM)
		jw->ob->err = ENOMEM;
	return r;
}
