/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * table.h - private to the table module (lib/README): struct mntkit_table
 * and what its files share. doc/tables-internals.md tells how it works.
 *
 * A snapshot is built from the top down (mntkit_table_new(),
 * table-build.c); fetch.c, below, knows nothing of tables:
 *   1. the listing, sorted            mntkit__list_flat()      fetch.c
 *   2. a statmount per mount, each reply handed to the build's sink,
 *      which appends it as a record   mntkit__stat_each()      fetch.c
 *                                     mntkit__table_put()      table-record.c
 *   3. the tree linked                mntkit__table_link()     table-build.c
 *   4. the mounts that do not fit read again, or placed as roots
 *                                     mntkit__table_settle()   table-settle.c
 *      (steps 1 and 2 again, and mntkit__stat_into() of fetch.c)
 *   5. MNTKIT_TABLE_F_OLD_ORDER: the siblings sorted by old ID
 *                                     mntkit__table_order_old() table-walk.c
 * A table read from a file (tab.c) is records put and linked (3).
 */
#ifndef MNTKIT_TABLE_H
#define MNTKIT_TABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "internal.h"

/*
 * A compact record (MNTKIT_TABLE_F_COMPACT): the mount ID and parent, the
 * 8-byte words of the fixed part that are not zero, the string area
 * (doc/tables-internals.md).
 */
struct crec {
	uint64_t mnt_id, mnt_parent_id; /* not among the words */
	uint64_t words;	 /* bit k: word k of the fixed part is below */
	uint32_t slen;	 /* bytes of the string area */
	uint32_t nwords; /* words kept */
	/* the words kept, ascending, then the strings */
};

/* the fields the table itself reads */
struct fixed {
	uint64_t mask, mnt_id, mnt_parent_id;
	uint32_t mnt_id_old;
};

/* what a table read from a file keeps beside its records (tab.c) */
struct mntkit__tab_rec {
	size_t line;
	int freq, passno;
	/* offsets into the pool, (uint32_t)-1: none */
	uint32_t options, vfs_options, fs_options, user_options, attrs;
};

struct mntkit__tab {
	enum mntkit_tab_format format;
	size_t n;
	struct mntkit__tab_rec *rec; /* by table index (= file order) */
	char *pool;
	size_t pool_len;
};

struct mntkit_table {
	size_t n;
	int compact;	 /* records are struct crec (see above) */
	/* shared records (table-shared.c), by index, instead of the arena */
	const struct mntkit_statmount **shared;
	uint32_t owners; /* of a table of shared records (atomic) */
	/* compact: the replies made by get() (the array: by the first) */
	struct mntkit_statmount **full;
	struct mntkit__arena arena; /* the records, 8-byte aligned */
	size_t *off;     /* offset of record i in the arena */
	/* the tree: indexes, 32 bits (a table holds at most INT32_MAX) */
	int32_t *parent; /* -1 for a root */
	int32_t *first_child, *last_child;
	int32_t *next, *prev; /* siblings; the roots are siblings too */
	uint32_t *depth;
	size_t reached; /* the mounts a root leads to (the others: cycles) */
	unsigned char *placed; /* per mount: made a root (NULL: none) */
	int32_t first_root, last_root;
	unsigned int state;    /* MNTKIT_TABLE_STATE_* */
	struct mntkit__tab *tab; /* a table read from a file (tab.c) */
};

/* the depth of a mount no root leads to (only while the table is built) */
#define UNREACHED UINT32_MAX

/* ---- records (table-record.c) ---- */

/* a whole reply of a table without MNTKIT_TABLE_F_COMPACT */
static inline const struct mntkit_statmount *
rec_of(const struct mntkit_table *t, size_t idx)
{
	if (t->shared)
		return t->shared[idx];
	return (const struct mntkit_statmount *)(t->arena.base + t->off[idx]);
}

static inline const struct crec *crec_at(const struct mntkit_table *t,
					 size_t off)
{
	return (const struct crec *)(t->arena.base + off);
}

/* the mount ID of the record at arena offset @off */
static inline uint64_t id_at_off(const struct mntkit_table *t, size_t off)
{
	if (t->compact)
		return crec_at(t, off)->mnt_id;
	return ((const struct mntkit_statmount *)(t->arena.base + off))->mnt_id;
}

static inline uint64_t id_at(const struct mntkit_table *t, size_t idx)
{
	if (t->shared)
		return t->shared[idx]->mnt_id;
	return id_at_off(t, t->off[idx]);
}

/* the parent's mount ID of mount @idx */
static inline uint64_t parent_at(const struct mntkit_table *t, size_t idx)
{
	size_t off;

	if (t->shared)
		return t->shared[idx]->mnt_parent_id;
	off = t->off[idx];
	if (t->compact)
		return crec_at(t, off)->mnt_parent_id;
	return ((const struct mntkit_statmount *)(t->arena.base + off))
		->mnt_parent_id;
}

/* the fields the table reads of mount @idx */
struct fixed mntkit__table_fixed(const struct mntkit_table *t, size_t idx);

/* the bytes of the reply of compact record @idx */
static inline size_t crec_size(const struct mntkit_table *t, size_t idx)
{
	return MNTKIT_STATMOUNT_FIXED_SIZE + crec_at(t, t->off[idx])->slen;
}

/* the reply of compact record @idx into @dst (crec_size() bytes) */
void mntkit__table_crec_expand(const struct mntkit_table *t, size_t idx,
			       void *dst);

/* reserve the arena of a table that will hold about @n records */
void mntkit__table_reserve(struct mntkit_table *t, size_t n);

/*
 * Append one reply, stat'ed as @id, to the arena; its offset in *@off.
 * 0 or -ENOMEM.
 */
int mntkit__table_put(struct mntkit_table *t, uint64_t id,
		      const struct mntkit_statmount *sm, size_t *off);

/* ---- the build (table-build.c) ---- */

/* a snapshot being built, and the state of its settling (table-settle.c) */
struct build {
	struct mntkit_table *t;
	const struct mntkit_mnt_id_req *req;
	uint64_t start; /* MNTKIT_LSMT_ROOT or the subtree's top */
	uint64_t mask;
	int relist; /* a listed mount was not found (mntkit__table_fill()) */
	struct mntkit_idvec listed;  /* the last listing, sorted */
	struct mntkit_idvec sus;     /* the IDs to read again */
	struct mntkit_idvec outside; /* parents found above our root */
	struct mntkit_idvec olds;    /* old IDs of the records named by
					another ID (see renamed()) */
	int olds_valid;		     /* olds is of the table as it is now */
	size_t *walk;		     /* scratch of cycle_members() */
	struct mntkit_statmount *buf;
	size_t bufsize;
};

static inline int cmp_id(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/*
 * The emulation may name a mount differently from one read of mountinfo
 * to the next; the kernel's IDs never change (doc/tables-internals.md).
 */
static inline int ids_may_change(void)
{
	return mntkit__ops() == &mntkit_mountinfo_ops;
}

/* the listing of the table's mounts into @iv, sorted; 0 or -errno */
int mntkit__table_list(const struct build *b, struct mntkit_idvec *iv);

/*
 * statmount @ids (sorted) into new records at @off, sorted by ID, each
 * once; their count in *@got. 0 or -errno.
 */
int mntkit__table_fill(struct build *b, const uint64_t *ids, size_t n,
		       size_t *off, size_t *got);

/* the records at @off (*@n of them) by ascending mnt_id, each ID once */
int mntkit__table_by_id(struct mntkit_table *t, size_t *off, size_t *n);

/*
 * Link every mount under its parent (sibling lists by ID); the roots:
 * those whose parent is not in the table, then those placed as roots.
 * The depths; t->reached. 0 or -ENOMEM.
 */
int mntkit__table_link(struct mntkit_table *t);

/* ---- settling a table read while mounts moved (table-settle.c) ---- */

/*
 * Make the table a tree whose roots all belong there: read the mounts
 * that do not fit again, then place the rest as roots. 0 or -errno.
 */
int mntkit__table_settle(struct build *b);

/* ---- shared records (table-shared.c; internal.h has the rest) ---- */

/*
 * One owner of a table of shared records lets go: true when it was the
 * last (the records are let go then, and the caller frees the rest).
 */
bool mntkit__table_let_go(struct mntkit_table *t);

/* ---- walks and orders (table-walk.c) ---- */

/* MNTKIT_TABLE_F_OLD_ORDER: every sibling list by old ID; 0 or -ENOMEM */
int mntkit__table_order_old(struct mntkit_table *t);

/* ---- tables read from a file (tab.c) ---- */

void mntkit__tab_free(struct mntkit__tab *x);

/*
 * Make a table of @n records (their mnt_id ascending: 1, 2, ... in file
 * order), linked by mnt_parent_id; @first_root (or -1) goes first among
 * the roots. The table takes @x over (also on failure). 0 or -errno.
 * (table-build.c)
 */
int mntkit__table_from_records(struct mntkit_statmount *const *recs, size_t n,
			       ssize_t first_root, struct mntkit__tab *x,
			       struct mntkit_table **out);

#endif /* MNTKIT_TABLE_H */
