/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * util.h - the mechanisms the library and the tools share: growable
 * arrays, a map keyed by 64-bit IDs, big allocations (huge pages, pages
 * made present at once) and the copy of a caller's sized struct.
 *
 * Built once as a static library (lib/meson.build: mntkit-util) that
 * libmntkit and the tools link; none of it is exported. Nothing here
 * includes mntkit.h: every function works on plain memory.
 */
#ifndef MNTKIT_UTIL_H
#define MNTKIT_UTIL_H

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* ---- growable arrays ---- */

/*
 * mntkit__grow - room for @need elements of @size bytes in the array
 * *@arr (a T ** passed as void *; NULL when empty) of *@cap elements:
 * its capacity becomes @first (or *@cap when larger) doubled until @need
 * fit, by realloc(3). 0 with *@arr and *@cap updated, or -ENOMEM with
 * both left as they were.
 */
int mntkit__grow(void *arr, size_t *cap, size_t need, size_t size,
		 size_t first);

/*
 * mntkit__resize - *@arr (a T ** passed as void *) reallocated to room for
 * @n elements of @size bytes: 0, or -ENOMEM with *@arr as it was (for
 * arrays that grow side by side, sized by one of them).
 */
int mntkit__resize(void *arr, size_t n, size_t size);

/* mntkit__grow() only when @need elements do not fit already */
static inline int mntkit__reserve(void *arr, size_t *cap, size_t need,
				  size_t size, size_t first)
{
	return need <= *cap ? 0 : mntkit__grow(arr, cap, need, size, first);
}

/*
 * A vector is any struct with the fields "T *v; size_t n, cap;" (@v holds
 * @n elements in room for @cap); MNTKIT__VEC(T) is an anonymous one.
 */
#define MNTKIT__VEC(type)                                                      \
	struct {                                                               \
		type *v;                                                       \
		size_t n, cap;                                                 \
	}

/* room for @more elements after the @n of vector *@vec (first: @first) */
#define mntkit__vec_room(vec, more, first)                                     \
	mntkit__reserve(&(vec)->v, &(vec)->cap, (vec)->n + (more),             \
			sizeof(*(vec)->v), (first))

/* reverse the order of @n IDs in place */
static inline void mntkit__reverse_u64(uint64_t *v, size_t n)
{
	for (size_t i = 0; i < n / 2; i++) {
		uint64_t x = v[i];

		v[i] = v[n - 1 - i];
		v[n - 1 - i] = x;
	}
}

/* ---- a map keyed by 64-bit IDs ---- */

/*
 * struct mntkit__map - open addressing with linear probing, keyed by a
 * u64 that is never 0 (0 marks an empty slot), each key with a value of
 * a fixed size (none: a set). A slot is the key then the value, @stride
 * bytes in all. The table is kept at most half full: insertions need
 * room reserved first (mntkit__map_reserve()), so that an insertion
 * itself never fails; lookups and removals never allocate. Removal
 * shifts the slots after it back (no tombstones).
 */
struct mntkit__map {
	unsigned char *slots;
	size_t cap;    /* 0 or a power of two */
	size_t n;      /* keys held */
	size_t stride; /* bytes a slot: the key, then the value */
};

/* an empty map of values of type @type (MNTKIT__SET_INIT: no values) */
#define MNTKIT__MAP_INIT(type)                                                 \
	{ .stride = sizeof(uint64_t) + ((sizeof(type) + 7) & ~(size_t)7) }
#define MNTKIT__SET_INIT { .stride = sizeof(uint64_t) }

static inline size_t mntkit__map_home(uint64_t key, size_t cap)
{
	return (size_t)((key * 0x9e3779b97f4a7c15ULL) >> 29) & (cap - 1);
}

static inline uint64_t mntkit__map_key(const struct mntkit__map *m, size_t i)
{
	uint64_t key;

	__builtin_memcpy(&key, m->slots + i * m->stride, sizeof(key));
	return key;
}

/* the slot of @key, or the empty slot where it would go (cap > 0) */
static inline size_t mntkit__map_slot(const struct mntkit__map *m,
				      uint64_t key)
{
	size_t i = mntkit__map_home(key, m->cap);
	uint64_t k;

	while ((k = mntkit__map_key(m, i)) && k != key)
		i = (i + 1) & (m->cap - 1);
	return i;
}

/* the value of @key (a pointer into the map), or NULL when absent */
static inline void *mntkit__map_get(const struct mntkit__map *m,
				    uint64_t key)
{
	size_t i;

	if (!m->cap || !key)
		return NULL;
	i = mntkit__map_slot(m, key);
	if (!mntkit__map_key(m, i))
		return NULL;
	return m->slots + i * m->stride + sizeof(uint64_t);
}

static inline bool mntkit__map_has(const struct mntkit__map *m, uint64_t key)
{
	return mntkit__map_get(m, key) != NULL;
}

/* room for @more insertions: 0 or -ENOMEM (the map is unchanged) */
int mntkit__map_reserve(struct mntkit__map *m, size_t more);

/*
 * mntkit__map_put - the value of @key (not 0), inserted zeroed when
 * absent (*@found, if not NULL, says which). Room must be reserved.
 */
void *mntkit__map_put(struct mntkit__map *m, uint64_t key, bool *found);

/* remove @key if present; 1 when it was, else 0 */
int mntkit__map_del(struct mntkit__map *m, uint64_t key);

/*
 * mntkit__map_next - walk the keys: from *@pos 0, each call gives the
 * value of the next key (its key in *@key) and advances *@pos; NULL at
 * the end. The map must not change during the walk.
 */
void *mntkit__map_next(const struct mntkit__map *m, size_t *pos,
		       uint64_t *key);

/* empty the map, keeping its memory */
void mntkit__map_clear(struct mntkit__map *m);

/* free the map's memory (not what its values point to); it stays usable */
void mntkit__map_free(struct mntkit__map *m);

/* ---- big allocations ---- */

/*
 * Memory that a program fills whole, quickly (a snapshot's records, a
 * listing's rows and cells), is cheaper in 2 MiB huge pages and with its
 * pages made present in one call: a page fault costs about 8 us in a
 * virtual machine (one whose hypervisor shadows the page tables), against
 * about 0.3 us per 4 KiB of a huge page. A kernel before 5.14 refuses
 * MADV_POPULATE_WRITE: the pages then come one fault at a time.
 */
#define MNTKIT__HUGE (2U << 20)

/* mntkit__big_alloc() flags */
#define MNTKIT__BIG_PRESENT 0x1U /* every page present at once */
#define MNTKIT__BIG_WHOLE   0x2U /* from @huge_from on: whole huge runs,
				    the last one too (else the tail beyond
				    the last whole run has small pages) */

/*
 * mntkit__big_alloc - @len bytes that free(3) and realloc(3) take. From
 * @huge_from bytes on, aligned to MNTKIT__HUGE; the whole huge runs
 * inside are advised MADV_HUGEPAGE (where the kernel has huge pages to
 * give). Below 16 KiB it is plain malloc(3): a few faults cost less than
 * the advice. NULL on failure.
 */
void *mntkit__big_alloc(size_t len, size_t huge_from, unsigned int flags);

/* madvise(@advice) the whole units of @unit bytes in @p .. @p + @len */
void mntkit__advise_within(void *p, size_t len, uintptr_t unit, int advice);

/* the page size (sysconf, read once) */
uintptr_t mntkit__page_size(void);

/*
 * struct mntkit__arena - a growing run of records a program appends to
 * (a snapshot's replies). Reserved for the records expected, by a guess
 * of their size: from two huge runs on, a mapping aligned to
 * MNTKIT__HUGE, whose runs are advised huge as the records reach them,
 * as far as the records so far (their mean size, times the records
 * expected) say the arena will fill them (at most half a run is held
 * beyond the data), and whose pages are made present a little ahead of
 * the records. Smaller arenas grow by realloc(3) from 64 KiB. Only the
 * pages written are ever present.
 *
 * Appending: mntkit__arena_room() for the record's bytes, write them at
 * base + used, then mntkit__arena_add() them.
 */
struct mntkit__arena {
	char *base;
	size_t used;    /* bytes appended */
	size_t cap;     /* bytes reserved */
	size_t faulted; /* present up to here */
	size_t huge;    /* advised huge up to here; SIZE_MAX: no more */
	size_t n;       /* records appended */
	size_t expect;  /* records expected in all (0: unknown) */
	bool mapped;    /* base is a mapping (else malloc'd) */
};

/* the bytes made present ahead of the records */
#define MNTKIT__PREFAULT (256U << 10)

/*
 * reserve @arena (empty) for about @n records of about @each bytes;
 * nothing happens on failure (the arena then grows as it goes)
 */
void mntkit__arena_reserve(struct mntkit__arena *arena, size_t n,
			   size_t each);

/* mntkit__arena_room()'s work when the room, or the pages, are not there */
int mntkit__arena_grow_room(struct mntkit__arena *arena, size_t need);

/*
 * mntkit__arena_room - room for a record of @need bytes after
 * arena->used: 0 or -ENOMEM. Inline while the room is there and its
 * pages are present (and advised) already: most records.
 */
static inline int mntkit__arena_room(struct mntkit__arena *a, size_t need)
{
	size_t end = a->used + need;

	if (a->cap - a->used >= need &&
	    (a->cap < 4 * MNTKIT__PREFAULT || end <= a->faulted) &&
	    (!a->mapped || a->huge == SIZE_MAX ||
	     end + MNTKIT__PREFAULT <= a->huge))
		return 0;
	return mntkit__arena_grow_room(a, need);
}

/* the record of @need bytes at base + used is in */
static inline void mntkit__arena_add(struct mntkit__arena *a, size_t need)
{
	a->used += need;
	a->n++;
}

/* release the arena's memory; it is left empty */
void mntkit__arena_free(struct mntkit__arena *arena);

/* ---- sized structs ---- */

/*
 * A struct that may grow starts with its size, set by the caller to the
 * sizeof it was compiled with. The library reads and writes only the
 * bytes both know; a caller's struct shorter than the first version
 * (@ver0) is refused (-EINVAL: a forgotten initializer, size 0, is
 * one), and so is a larger one whose tail beyond ours is not zero
 * (-E2BIG: it asks for something this library cannot do).
 */

/*
 * mntkit__sized_in - copy the caller's @in of @in_size bytes into our
 * @out (@out_size bytes, zeroed beyond what @in holds). A NULL @in gives
 * a zeroed @out and 0. 0, -EINVAL or -E2BIG (@out then zeroed).
 */
int mntkit__sized_in(void *out, size_t out_size, const void *in,
		     size_t in_size, size_t ver0);

/*
 * mntkit__sized_out - write our @src (@src_size bytes) into the caller's
 * @out of @out_size bytes: the bytes both know, but the first @skip (the
 * caller's size field, which the library never writes); the caller's
 * tail beyond ours is zeroed.
 */
void mntkit__sized_out(void *out, size_t out_size, const void *src,
		       size_t src_size, size_t skip);

#endif /* MNTKIT_UTIL_H */
