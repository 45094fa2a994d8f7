// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * table-record.c - a table's records in its arena: whole replies, or
 * compact ones (struct crec: the words of the fixed part that are not
 * zero, and the strings); appended, read and made whole again.
 */
#include <stddef.h>
#include <string.h>

#include "table.h"

#define FIXED_WORDS (MNTKIT_STATMOUNT_FIXED_SIZE / 8)
#define WORD_OF(field) (offsetof(struct mntkit_statmount, field) / 8)

/* the bytes a record takes at first guess, to reserve the arena by */
#define GUESS_COMPACT 512
#define GUESS_FULL (MNTKIT_STATMOUNT_FIXED_SIZE + 512)

/* the bits set in @v (without a call to libgcc where there is no popcnt) */
static unsigned int popcount64(uint64_t v)
{
	v -= (v >> 1) & UINT64_C(0x5555555555555555);
	v = (v & UINT64_C(0x3333333333333333)) +
	    ((v >> 2) & UINT64_C(0x3333333333333333));
	v = (v + (v >> 4)) & UINT64_C(0x0f0f0f0f0f0f0f0f);
	return (unsigned int)((v * UINT64_C(0x0101010101010101)) >> 56);
}

/* ---- reading ---- */

/* @len bytes of the fixed part at @pos (within one word) of @c */
static void crec_read(const struct crec *c, size_t pos, void *dst,
		      size_t len)
{
	const uint64_t *w = (const uint64_t *)(c + 1);
	size_t k = pos / 8;

	if (!(c->words & (UINT64_C(1) << k))) {
		memset(dst, 0, len);
		return;
	}
	w += popcount64(c->words & ((UINT64_C(1) << k) - 1));
	memcpy(dst, (const char *)w + pos % 8, len);
}

static struct fixed fixed_at(const struct mntkit_table *t, size_t off)
{
	const struct mntkit_statmount *sm = (const void *)(t->arena.base + off);
	const struct crec *c = crec_at(t, off);
	struct fixed f;

	if (!t->compact)
		return (struct fixed){ sm->mask, sm->mnt_id, sm->mnt_parent_id,
				       sm->mnt_id_old };
	f.mnt_id = c->mnt_id;
	f.mnt_parent_id = c->mnt_parent_id;
	crec_read(c, offsetof(struct mntkit_statmount, mask), &f.mask,
		  sizeof(f.mask));
	crec_read(c, offsetof(struct mntkit_statmount, mnt_id_old),
		  &f.mnt_id_old, sizeof(f.mnt_id_old));
	return f;
}

struct fixed mntkit__table_fixed(const struct mntkit_table *t, size_t idx)
{
	const struct mntkit_statmount *sm;

	if (t->shared) {
		sm = t->shared[idx];
		return (struct fixed){ sm->mask, sm->mnt_id, sm->mnt_parent_id,
				       sm->mnt_id_old };
	}
	return fixed_at(t, t->off[idx]);
}

void mntkit__table_crec_expand(const struct mntkit_table *t, size_t idx,
			       void *dst)
{
	const struct crec *c = crec_at(t, t->off[idx]);
	const uint64_t *w = (const uint64_t *)(c + 1);
	char *d = dst;

	memset(d, 0, MNTKIT_STATMOUNT_FIXED_SIZE);
	for (uint64_t m = c->words; m; m &= m - 1)
		memcpy(d + 8 * __builtin_ctzll(m), w++, 8);
	memcpy(d + offsetof(struct mntkit_statmount, mnt_id), &c->mnt_id, 8);
	memcpy(d + offsetof(struct mntkit_statmount, mnt_parent_id),
	       &c->mnt_parent_id, 8);
	memcpy(d + MNTKIT_STATMOUNT_FIXED_SIZE, w, c->slen);
}

/* ---- appending ---- */

/* word @k of the fixed part at @fx */
static uint64_t word_at(const void *fx, size_t k)
{
	uint64_t w;

	memcpy(&w, (const char *)fx + 8 * k, sizeof(w));
	return w;
}

/* the words of the fixed part @fx a compact record keeps (see crec) */
static uint64_t crec_words(const void *fx)
{
	uint64_t words = 0;

	/* by eights: most are zero throughout (the reserved words) */
	for (size_t b = 0; b < FIXED_WORDS; b += 8) {
		uint64_t any = 0;

		for (size_t k = b; k < b + 8; k++)
			any |= word_at(fx, k);
		for (size_t k = b; any && k < b + 8; k++)
			words |= (uint64_t)(word_at(fx, k) != 0) << k;
	}
	return words & ~(UINT64_C(1) << WORD_OF(mnt_id) |
			 UINT64_C(1) << WORD_OF(mnt_parent_id));
}

/*
 * A compact record of the fixed part @fx, its words @words kept, and the
 * strings @str (@slen bytes) at @dst
 */
static void crec_put(char *dst, const void *fx, uint64_t words,
		     const char *str, size_t slen)
{
	struct crec *c = (struct crec *)dst;
	uint64_t *w = (uint64_t *)(c + 1);

	c->mnt_id = word_at(fx, WORD_OF(mnt_id));
	c->mnt_parent_id = word_at(fx, WORD_OF(mnt_parent_id));
	c->words = words;
	c->slen = (uint32_t)slen;
	c->nwords = popcount64(words);
	for (; words; words &= words - 1)
		*w++ = word_at(fx, (size_t)__builtin_ctzll(words));
	memcpy(w, str, slen);
}

/*
 * A snapshot of many mounts reserves its arena in huge pages
 * (struct mntkit__arena), by a guess of the bytes a record takes. Only
 * the pages written are ever present.
 */
void mntkit__table_reserve(struct mntkit_table *t, size_t n)
{
	mntkit__arena_reserve(&t->arena, n,
			      t->compact ? GUESS_COMPACT : GUESS_FULL);
}

/*
 * A backend may leave MNT_BASIC out (the emulation does for a mountinfo
 * line it cannot read fully): the mount is then kept under the ID it was
 * asked by, as a root of its own; its mask keeps saying that the group's
 * fields are not the backend's.
 */
int mntkit__table_put(struct mntkit_table *t, uint64_t id,
		      const struct mntkit_statmount *sm, size_t *off)
{
	union {
		struct mntkit_statmount sm;
		uint64_t w[FIXED_WORDS];
	} fx;
	const void *src = sm; /* the fixed part to keep */
	size_t need, slen = 0;
	uint64_t words = 0;
	struct mntkit_statmount *r;
	char *at;

	if (t->compact && (sm->size < MNTKIT_STATMOUNT_FIXED_SIZE ||
			   !(sm->mask & MNTKIT_STATMOUNT_MNT_BASIC))) {
		/* the fixed part as a whole reply's: a short one zero-padded */
		size_t have = sm->size < MNTKIT_STATMOUNT_FIXED_SIZE ?
				      sm->size :
				      MNTKIT_STATMOUNT_FIXED_SIZE;

		memcpy(&fx, sm, have);
		memset((char *)&fx + have, 0,
		       MNTKIT_STATMOUNT_FIXED_SIZE - have);
		if (!(fx.sm.mask & MNTKIT_STATMOUNT_MNT_BASIC)) {
			fx.sm.mnt_id = id;
			fx.sm.mnt_parent_id = id;
		}
		src = &fx;
	}
	if (t->compact) {
		words = crec_words(src);
		slen = sm->size > MNTKIT_STATMOUNT_FIXED_SIZE ?
			       sm->size - MNTKIT_STATMOUNT_FIXED_SIZE :
			       0;
		need = sizeof(struct crec) +
		       8 * (size_t)popcount64(words) + slen;
	} else {
		need = mntkit__sm_size(sm);
	}
	need = (need + 7) & ~(size_t)7;

	if (mntkit__arena_room(&t->arena, need))
		return -ENOMEM;
	at = t->arena.base + t->arena.used;
	if (t->compact) {
		crec_put(at, src, words,
			 (const char *)sm + MNTKIT_STATMOUNT_FIXED_SIZE, slen);
	} else {
		mntkit__sm_copy(at, sm);
		r = (struct mntkit_statmount *)at;
		if (!(r->mask & MNTKIT_STATMOUNT_MNT_BASIC)) {
			r->mnt_id = id;
			r->mnt_parent_id = id;
		}
	}
	*off = t->arena.used;
	mntkit__arena_add(&t->arena, need);
	return 0;
}
