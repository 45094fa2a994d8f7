// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Snapshots: every mount of a (sub)tree as a statmount reply, ordered by ID,
 * with an index by ID and the tree as parent / first-child / next-sibling
 * links. One listing and one statmount per mount; the tree is linked in
 * O(n log n) (the ID lookups) and walked in O(n) without recursion.
 *
 * The listing and the statmounts are not one atomic read: a mount moved
 * meanwhile is told where it was at its own statmount, so the parent
 * links can form a cycle (A's parent B, B's parent A: two mounts that
 * swapped places) or name a mount that is not in the listing (made after
 * it, or gone since). Either would leave live mounts out of the tree. So
 * every build checks, in O(n), that each mount hangs from a root that
 * belongs there (see root_ok()); only when one does not, it reads again:
 * the mounts involved, then the listing too, a few rounds (settle()).
 * What still does not fit is placed as roots, and the table says so
 * (MNTKIT_TABLE_STATE_PLACED). On the emulation a mount may also change
 * its name between two reads (its old ID while hidden, its unique ID
 * otherwise): renamed(), by_id() and parent_outside() see to that.
 */
#include <fcntl.h>
#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/mman.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "internal.h"
#include "tab.h"

/*
 * A compact table (MNTKIT_TABLE_COMPACT) keeps each reply as a struct
 * crec: its mount ID and parent, the 8-byte words of its fixed part that
 * are not zero (most are: the reserved ones, the groups not asked for,
 * the peer groups of a private mount, ...) and its string area. The reply
 * mntkit_table_get() returns is made from it on first use and kept
 * (full[]); mntkit_table_get_buf() makes one into the caller's buffer and
 * keeps nothing.
 */
#define FIXED_WORDS (MNTKIT_STATMOUNT_FIXED_SIZE / 8)
#define WORD_OF(field) (offsetof(struct mntkit_statmount, field) / 8)

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

struct mntkit_table {
	size_t n;
	int compact;	 /* records are struct crec (see above) */
	/* compact: the replies made by get() (the array: by the first) */
	struct mntkit_statmount **full;
	char *arena;     /* the replies, 8-byte aligned, back to back */
	size_t cap, used; /* of the arena */
	size_t faulted;	  /* the arena's bytes made present ahead (below) */
	int mapped;	  /* the arena is a mapping (arena_reserve()) */
	size_t expect;	  /* the records the arena was reserved for */
	size_t nput;	  /* the records put in it so far */
	size_t huge;	  /* its first bytes advised MADV_HUGEPAGE */
	size_t *off;     /* offset of reply i in the arena */
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

void mntkit_table_free(struct mntkit_table *t)
{
	if (!t)
		return;
	for (size_t i = 0; t->full && i < t->n; i++)
		free(t->full[i]);
	free(t->full);
	if (t->mapped)
		munmap(t->arena, t->cap);
	else
		free(t->arena);
	free(t->off);
	free(t->parent); /* the block of the links and depths */
	free(t->placed);
	mntkit__tab_free(t->tab);
	free(t);
}

size_t mntkit_table_count(const struct mntkit_table *t)
{
	return t ? t->n : 0;
}

/* a whole reply of a table without MNTKIT_TABLE_COMPACT */
static const struct mntkit_statmount *rec_of(const struct mntkit_table *t,
					     size_t idx)
{
	return (const struct mntkit_statmount *)(t->arena + t->off[idx]);
}

static const struct crec *crec_at(const struct mntkit_table *t, size_t off)
{
	return (const struct crec *)(t->arena + off);
}

/* the bits set in @v (without a call to libgcc where there is no popcnt) */
static unsigned int popcount64(uint64_t v)
{
	v -= (v >> 1) & UINT64_C(0x5555555555555555);
	v = (v & UINT64_C(0x3333333333333333)) +
	    ((v >> 2) & UINT64_C(0x3333333333333333));
	v = (v + (v >> 4)) & UINT64_C(0x0f0f0f0f0f0f0f0f);
	return (unsigned int)((v * UINT64_C(0x0101010101010101)) >> 56);
}

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

/* the mount ID of the record at arena offset @off */
static uint64_t id_at_off(const struct mntkit_table *t, size_t off)
{
	if (t->compact)
		return crec_at(t, off)->mnt_id;
	return ((const struct mntkit_statmount *)(t->arena + off))->mnt_id;
}

/* the parent's mount ID of mount @idx */
static uint64_t parent_at(const struct mntkit_table *t, size_t idx)
{
	size_t off = t->off[idx];

	if (t->compact)
		return crec_at(t, off)->mnt_parent_id;
	return ((const struct mntkit_statmount *)(t->arena + off))
		->mnt_parent_id;
}

static struct fixed fixed_at(const struct mntkit_table *t, size_t off)
{
	const struct mntkit_statmount *sm = (const void *)(t->arena + off);
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

static struct fixed fix_of(const struct mntkit_table *t, size_t idx)
{
	return fixed_at(t, t->off[idx]);
}

static size_t crec_reply_size(const struct crec *c)
{
	return MNTKIT_STATMOUNT_FIXED_SIZE + c->slen;
}

/* the reply of compact record @idx into @dst (crec_reply_size() bytes) */
static void crec_expand(const struct mntkit_table *t, size_t idx, void *dst)
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

const struct mntkit_statmount *mntkit_table_get(const struct mntkit_table *t,
						size_t idx)
{
	const struct crec *c;
	struct mntkit_statmount *sm, *none = NULL, **full;

	if (!t || idx >= t->n) {
		errno = EINVAL;
		return NULL;
	}
	if (!t->compact)
		return rec_of(t, idx);
	full = __atomic_load_n(&t->full, __ATOMIC_ACQUIRE);
	if (!full) {
		/* the first mntkit_table_get() of the table: the slots */
		struct mntkit_statmount **nf = calloc(t->n, sizeof(*nf)), **no =
									  NULL;

		if (!nf) {
			errno = ENOMEM;
			return NULL;
		}
		full = nf;
		if (!__atomic_compare_exchange_n(&((struct mntkit_table *)t)->full,
						 &no, nf, 0, __ATOMIC_ACQ_REL,
						 __ATOMIC_ACQUIRE)) {
			free(nf);
			full = no;
		}
	}
	sm = __atomic_load_n(&full[idx], __ATOMIC_ACQUIRE);
	if (sm)
		return sm;
	c = crec_at(t, t->off[idx]);
	sm = malloc(crec_reply_size(c));
	if (!sm) {
		errno = ENOMEM;
		return NULL;
	}
	crec_expand(t, idx, sm);
	/* another thread may have made it meanwhile: keep the first */
	if (__atomic_compare_exchange_n(&full[idx], &none, sm, 0,
					__ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
		return sm;
	free(sm);
	return none;
}

int mntkit_table_get_buf(const struct mntkit_table *t, size_t idx,
			 struct mntkit_statmount **buf, size_t *bufsize)
{
	const struct crec *c = NULL;
	size_t need;

	if (!t || idx >= t->n || !buf || !bufsize)
		return mntkit__fail(EINVAL);
	if (t->compact) {
		c = crec_at(t, t->off[idx]);
		need = crec_reply_size(c);
	} else {
		need = mntkit__sm_size(rec_of(t, idx));
	}
	if (!*buf || *bufsize < need) {
		void *nb = realloc(*buf, need);

		if (!nb)
			return mntkit__fail(ENOMEM);
		*buf = nb;
		*bufsize = need;
	}
	if (c)
		crec_expand(t, idx, *buf);
	else
		mntkit__sm_copy(*buf, rec_of(t, idx));
	return 0;
}

static uint64_t id_at(const struct mntkit_table *t, size_t idx)
{
	return id_at_off(t, t->off[idx]);
}

ssize_t mntkit_table_find(const struct mntkit_table *t, uint64_t mnt_id)
{
	size_t lo = 0, hi = t ? t->n : 0;

	if (!t)
		return mntkit__fail(EINVAL);
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		uint64_t id = id_at(t, mid);

		if (id == mnt_id)
			return (ssize_t)mid;
		if (id < mnt_id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return mntkit__fail(ENOENT);
}

/* a link of the tree (-1 inside: none): the index, -ENOENT or -EINVAL */
static ssize_t link_at(const struct mntkit_table *t, const int32_t *links,
		       size_t idx)
{
	if (idx >= t->n)
		return mntkit__fail(EINVAL);
	return links[idx] >= 0 ? links[idx] : mntkit__fail(ENOENT);
}

ssize_t mntkit_table_parent(const struct mntkit_table *t, size_t idx)
{
	return t ? link_at(t, t->parent, idx) : mntkit__fail(EINVAL);
}

ssize_t mntkit_table_first_child(const struct mntkit_table *t, size_t idx)
{
	return t ? link_at(t, t->first_child, idx) : mntkit__fail(EINVAL);
}

ssize_t mntkit_table_next_sibling(const struct mntkit_table *t, size_t idx)
{
	return t ? link_at(t, t->next, idx) : mntkit__fail(EINVAL);
}

ssize_t mntkit_table_first_root(const struct mntkit_table *t)
{
	if (!t)
		return mntkit__fail(EINVAL);
	return t->first_root >= 0 ? t->first_root : mntkit__fail(ENOENT);
}

ssize_t mntkit__table_last_root(const struct mntkit_table *t)
{
	return t->last_root;
}

ssize_t mntkit__table_sibling(const struct mntkit_table *t, size_t idx,
			      int reverse)
{
	return link_at(t, reverse ? t->prev : t->next, idx);
}

ssize_t mntkit_table_depth(const struct mntkit_table *t, size_t idx)
{
	if (!t || idx >= t->n)
		return mntkit__fail(EINVAL);
	return (ssize_t)t->depth[idx];
}

unsigned int mntkit_table_state(const struct mntkit_table *t)
{
	return t ? t->state : 0;
}

int mntkit_table_placed(const struct mntkit_table *t, size_t idx)
{
	if (!t || idx >= t->n)
		return mntkit__fail(EINVAL);
	return t->placed ? t->placed[idx] : 0;
}

/* ---- building ---- */

static int cmp_id(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

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
 * The pages of a big arena are made present a run at a time, ahead of
 * the records (MADV_POPULATE_WRITE, 5.14+): one call instead of a page
 * fault per page, which a virtual machine makes dear. At most PREFAULT
 * bytes more than the records take; nothing where the kernel refuses it.
 */
#define PREFAULT (256 * 1024)

/*
 * A snapshot of many mounts reserves its arena as a mapping aligned to
 * HUGE (arena_reserve()), and the 2 MiB runs of it that the records
 * will fill are advised MADV_HUGEPAGE ahead (more_huge()): one fault and
 * one page where 4 KiB pages take 512, each dear in a virtual machine
 * (about 8 us there, against about 0.3 us per 4 KiB of a huge page; the
 * statmount(2) of a mount takes 3 us). Only the runs the records will
 * fill, as far as the records so far tell: the last run has small pages,
 * so the memory held stays what the records take. prefault() goes on as
 * for small pages: its first MADV_POPULATE_WRITE in a run makes the huge
 * page present, and where there are none (disabled, none free) it makes
 * the small ones the kernel gives instead present at once.
 */
#define HUGE (2 * 1024 * 1024)

/* the bytes a record takes at first guess, to reserve the arena by */
#define GUESS_COMPACT 512
#define GUESS_FULL (MNTKIT_STATMOUNT_FIXED_SIZE + 512)

static uintptr_t page_size(void)
{
	static uintptr_t page;

	if (!page)
		page = (uintptr_t)sysconf(_SC_PAGESIZE);
	return page;
}

/*
 * Reserve the arena of a table that will hold about @n records: a
 * mapping aligned to HUGE, for a table of at least two HUGE runs; a
 * smaller one grows by realloc() from arena_put() as before. Only the
 * pages written are ever present.
 */
static void arena_reserve(struct mntkit_table *t, size_t n)
{
	size_t guess = t->compact ? GUESS_COMPACT : GUESS_FULL;
	size_t cap, len;
	char *map, *a;

	if (t->arena || n > SIZE_MAX / 2 / guess)
		return;
	cap = (n * guess + HUGE - 1) & ~(size_t)(HUGE - 1);
	if (cap < 2 * HUGE)
		return;
	len = cap + HUGE;
	map = mmap(NULL, len, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (map == MAP_FAILED)
		return; /* arena_put() allocates it as it goes */
	a = (char *)(((uintptr_t)map + HUGE - 1) & ~(uintptr_t)(HUGE - 1));
	if (a > map)
		munmap(map, (size_t)(a - map));
	if (map + len > a + cap)
		munmap(a + cap, (size_t)(map + len - (a + cap)));
	t->arena = a;
	t->cap = cap;
	t->mapped = 1;
	t->expect = n;
}

/*
 * Before the records (and the PREFAULT ahead of them) reach past t->huge:
 * advise the next HUGE run of a reserved arena MADV_HUGEPAGE when the
 * records so far, as many more as expected, fill half of it at least: at
 * most 1 MiB is held beyond the records, and where 256 small pages take
 * 1.5 to 2.5 ms to be made present and written (bench/'s machine), a
 * huge page takes 0.2 ms. Once a run is left small, so are the later
 * ones.
 */
static void more_huge(struct mntkit_table *t, size_t need)
{
#ifdef MADV_HUGEPAGE
	size_t n = t->nput + 1, end;
	int saved;

	if (!t->mapped || t->huge == SIZE_MAX ||
	    t->used + need + PREFAULT <= t->huge)
		return;
	saved = errno;
	/* the records' bytes when all are in, at the mean size so far */
	end = n < t->expect ? (t->used + need) / n * t->expect : 0;
	if (t->huge + HUGE / 2 > end || t->huge + HUGE > t->cap ||
	    madvise(t->arena + t->huge, HUGE, MADV_HUGEPAGE) < 0) {
		t->huge = SIZE_MAX;
		errno = saved;
		return;
	}
	t->huge += HUGE;
#else
	(void)t;
	(void)need;
#endif
}

static void prefault(struct mntkit_table *t, size_t need)
{
#ifdef MADV_POPULATE_WRITE
	static int refused;
	uintptr_t page, a, b;

	if (t->used + need <= t->faulted ||
	    __atomic_load_n(&refused, __ATOMIC_RELAXED) ||
	    t->cap < 4 * PREFAULT)
		return;
	page = page_size();
	a = ((uintptr_t)t->arena + t->used + page - 1) & ~(page - 1);
	b = ((uintptr_t)t->arena + t->used + need + PREFAULT) & ~(page - 1);
	if (b > (uintptr_t)t->arena + t->cap)
		b = ((uintptr_t)t->arena + t->cap) & ~(page - 1);
	if (b > a) {
		int saved = errno;

		if (madvise((void *)a, b - a, MADV_POPULATE_WRITE) < 0 &&
		    errno == EINVAL)
			__atomic_store_n(&refused, 1, __ATOMIC_RELAXED);
		errno = saved;
	}
	t->faulted = b - (uintptr_t)t->arena;
#else
	(void)t;
	(void)need;
#endif
}

/* room for @need more bytes in the arena: 0 or -ENOMEM */
static int arena_grow(struct mntkit_table *t, size_t need)
{
	size_t ncap = t->cap ? t->cap : 64 * 1024;
	char *na;

	while (ncap - t->used < need) {
		if (ncap > SIZE_MAX / 2)
			return -ENOMEM;
		ncap *= 2;
	}
	if (t->mapped) {
		na = mremap(t->arena, t->cap, ncap, MREMAP_MAYMOVE);
		if (na == MAP_FAILED)
			return -ENOMEM;
		t->huge = SIZE_MAX; /* no longer aligned: small pages on */
	} else {
		na = realloc(t->arena, ncap);
		if (!na)
			return -ENOMEM;
	}
	t->arena = na;
	t->cap = ncap;
	return 0;
}

/*
 * Append one reply, stat'ed as @id, to the arena (growing it by doubling);
 * its offset in *@off. A backend may leave MNT_BASIC out (the emulation
 * does for a mountinfo line it cannot read fully): the mount is then kept
 * under the ID it was asked by, as a root of its own; its mask keeps
 * saying that the group's fields are not the backend's.
 */
static int arena_put(struct mntkit_table *t, uint64_t id,
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

	if (t->cap - t->used < need && arena_grow(t, need))
		return -ENOMEM;
	more_huge(t, need);
	prefault(t, need);
	if (t->compact) {
		crec_put(t->arena + t->used, src, words,
			 (const char *)sm + MNTKIT_STATMOUNT_FIXED_SIZE, slen);
	} else {
		mntkit__sm_copy(t->arena + t->used, sm);
		r = (struct mntkit_statmount *)(t->arena + t->used);
		if (!(r->mask & MNTKIT_STATMOUNT_MNT_BASIC)) {
			r->mnt_id = id;
			r->mnt_parent_id = id;
		}
	}
	*off = t->used;
	t->used += need;
	t->nput++;
	return 0;
}

/* statmount'ing a sorted run of IDs into a list of arena offsets */
struct fill_ctx {
	struct mntkit_table *t;
	size_t *off; /* room for every ID asked */
	size_t n;
	uint64_t last; /* the last ID added (IDs come sorted, maybe twice) */
	int unsorted;  /* a record's mnt_id not above the one before it */
};

static int fill_one(void *ctx, uint64_t id, const struct mntkit_statmount *sm)
{
	struct fill_ctx *c = ctx;
	int ret;

	if (c->n && id == c->last)
		return 0;
	ret = arena_put(c->t, id, sm, &c->off[c->n]);
	if (ret)
		return ret;
	if (c->n && id_at_off(c->t, c->off[c->n]) <=
			    id_at_off(c->t, c->off[c->n - 1]))
		c->unsorted = 1;
	c->n++;
	c->last = id;
	return 0;
}

/* the replies are read FILL_BATCH bytes at a time (mntkit__stat_fill()) */
#define FILL_BATCH (64U << 10)

/*
 * statmount every ID of @ids (sorted) into @c; the ones gone since the
 * listing are skipped. A backend that can answer for all of them at once
 * does; else they are read a batch at a time, one system call a mount
 * with nothing between them on the native backend.
 */
static int fill(struct fill_ctx *c, const struct mntkit_mnt_id_req *req,
		const uint64_t *ids, size_t n, uint64_t mask)
{
	const struct mntkit_backend_ops *ops = mntkit__ops();
	struct mntkit_statmount *one = NULL; /* a reply larger than a batch */
	size_t onesize = 0;
	char *batch;
	int ret = 0;

	if (ops->stat_many) {
		struct mntkit_mnt_id_req r = *req;

		r.param = mask;
		return ops->stat_many(&r, ids, n, mask, fill_one, c);
	}
	batch = malloc(FILL_BATCH);
	if (!batch)
		return -ENOMEM;
	for (size_t i = 0; i < n && !ret;) {
		ssize_t got = mntkit__stat_fill(req, ids + i, n - i, mask,
						batch, FILL_BATCH);
		size_t at = 0;

		if (got == -EOVERFLOW) { /* larger than a batch: alone */
			got = mntkit__stat_into(req, ids[i], mask, &one,
						&onesize);
			if (!got)
				ret = fill_one(c, ids[i++], one);
		}
		if (got == -ENOENT) { /* gone since the listing */
			i++;
			continue;
		}
		if (got < 0)
			ret = (int)got;
		for (ssize_t k = 0; k < got && !ret; k++) {
			const struct mntkit_statmount *sm =
				(const void *)(batch + at);

			ret = fill_one(c, ids[i + (size_t)k], sm);
			at += mntkit_stat_span(sm);
		}
		if (got > 0)
			i += (size_t)got;
	}
	free(batch);
	free(one);
	return ret;
}

/*
 * The five links and the depths of @n mounts, in one block (t->parent
 * holds it): the links -1, the depths UNREACHED. From half a HUGE run
 * (about 44,000 mounts) it is whole HUGE runs advised huge, for the
 * reasons of more_huge(); at most 1 MiB held beyond it.
 */
static int alloc_links(struct mntkit_table *t, size_t n)
{
	int32_t **links[] = { &t->parent, &t->first_child, &t->last_child,
			      &t->next, &t->prev };
	size_t each = n + 1, len, nlinks = MNTKIT_ARRAY_SIZE(links);
	void *block = NULL;

	if (n >= INT32_MAX)
		return -ENOMEM; /* more than the links can name */
	len = (nlinks + 1) * each * sizeof(int32_t);
	free(t->parent);
	t->parent = NULL;
#ifdef MADV_HUGEPAGE
	if (len >= HUGE / 2) {
		size_t whole = (len + HUGE - 1) & ~(size_t)(HUGE - 1);

		if (posix_memalign(&block, HUGE, whole) == 0) {
			int saved = errno;

			madvise(block, whole, MADV_HUGEPAGE);
			errno = saved;
		} else {
			block = NULL;
		}
	}
#endif
	if (!block)
		block = malloc(len);
	if (!block)
		return -ENOMEM;
	for (size_t i = 0; i < nlinks; i++)
		*links[i] = (int32_t *)block + i * each;
	memset(block, 0xff, nlinks * each * sizeof(int32_t)); /* -1 */
	t->depth = (uint32_t *)block + nlinks * each;
	for (size_t k = 0; k < each; k++)
		t->depth[k] = UNREACHED;
	return 0;
}

/* append @i to a sibling list whose ends are *@first, *@last */
static void append(struct mntkit_table *t, int32_t *first, int32_t *last,
		   size_t i)
{
	t->prev[i] = *last;
	if (*last >= 0)
		t->next[*last] = (int32_t)i;
	else
		*first = (int32_t)i;
	*last = (int32_t)i;
}

/*
 * The depth of every mount, walking each root's subtree in pre-order.
 * A mount no root leads to (on a cycle of parent links, or below one)
 * keeps UNREACHED.
 */
static void set_depths(struct mntkit_table *t)
{
	t->reached = 0;
	for (ssize_t r = t->first_root; r >= 0; r = t->next[r]) {
		size_t i = (size_t)r;
		uint32_t d = 0;

		for (;;) {
			t->depth[i] = d;
			t->reached++;
			if (t->first_child[i] >= 0) {
				i = (size_t)t->first_child[i];
				d++;
				continue;
			}
			while (i != (size_t)r && t->next[i] < 0) {
				i = (size_t)t->parent[i];
				d--;
			}
			if (i == (size_t)r)
				break;
			i = (size_t)t->next[i];
		}
	}
}

/*
 * Link every mount under its parent, by ascending ID so that every
 * sibling list comes out sorted. The roots: first those whose parent is
 * not in the table (or themselves), then those placed as roots.
 */
static int link_tree(struct mntkit_table *t)
{
	int ret = alloc_links(t, t->n);
	uint64_t last_parent = 0;
	ssize_t last_p = -1;
	int have_last = 0;

	if (ret)
		return ret;
	t->first_root = t->last_root = -1;
	for (size_t i = 0; i < t->n; i++) {
		uint64_t id = id_at(t, i), parent = parent_at(t, i);
		ssize_t p = -1;

		if (t->placed && t->placed[i])
			continue;
		if (parent != id && have_last && parent == last_parent) {
			p = last_p; /* a sibling of the mount before */
		} else if (parent != id) {
			int saved = errno;

			p = mntkit_table_find(t, parent);
			errno = saved;
			last_parent = parent;
			last_p = p;
			have_last = 1;
		}
		t->parent[i] = p < 0 ? -1 : (int32_t)p;
		if (p < 0)
			append(t, &t->first_root, &t->last_root, i);
		else
			append(t, &t->first_child[p], &t->last_child[p], i);
	}
	for (size_t i = 0; t->placed && i < t->n; i++)
		if (t->placed[i])
			append(t, &t->first_root, &t->last_root, i);
	set_depths(t);
	return 0;
}

/* a sibling's place with MNTKIT_TABLE_OLD_ORDER */
struct old_key {
	uint32_t old;
	int32_t idx;
	uint64_t id;
};

static int cmp_old_key(const void *a, const void *b)
{
	const struct old_key *x = a, *y = b;

	if (x->old != y->old)
		return x->old < y->old ? -1 : 1;
	return x->id < y->id ? -1 : x->id > y->id;
}

static struct old_key old_key_of(const struct mntkit_table *t, int32_t i)
{
	return (struct old_key){ fix_of(t, (size_t)i).mnt_id_old, i,
				 id_at(t, (size_t)i) };
}

static bool placed_root(const struct mntkit_table *t, int32_t i)
{
	return t->placed && t->placed[i];
}

/*
 * Sort the sibling list from *@first by old ID (then ID), but for the
 * placed roots at its end, which stay there. Read first, and sorted only
 * when it is not in order, in *@key (room for every mount, made by the
 * first list out of order). 0 or -ENOMEM.
 */
static int sort_siblings(struct mntkit_table *t, int32_t *first,
			 int32_t *last, struct old_key **key)
{
	int32_t i, tail = -1, prev = -1;
	struct old_key k, before = { 0, -1, 0 };
	size_t m = 0;

	for (i = *first; i >= 0 && !placed_root(t, i); i = t->next[i]) {
		k = old_key_of(t, i);
		if (before.idx >= 0 && cmp_old_key(&before, &k) > 0)
			break;
		before = k;
	}
	if (i < 0 || placed_root(t, i))
		return 0; /* in order */
	if (!*key && !(*key = malloc(t->n * sizeof(**key))))
		return -ENOMEM;
	for (i = *first; i >= 0 && !placed_root(t, i); i = t->next[i])
		(*key)[m++] = old_key_of(t, i);
	tail = i;
	qsort(*key, m, sizeof(**key), cmp_old_key);
	for (size_t j = 0; j < m; j++) {
		i = (*key)[j].idx;
		t->prev[i] = prev;
		if (prev >= 0)
			t->next[prev] = i;
		else
			*first = i;
		prev = i;
	}
	t->next[prev] = tail;
	if (tail >= 0)
		t->prev[tail] = prev;
	else
		*last = prev;
	return 0;
}

/*
 * MNTKIT_TABLE_OLD_ORDER: every sibling list, the roots' too, by
 * ascending old ID. The lists come by ID, which is also the old IDs'
 * order but where the kernel gave a mount an old ID freed before (old IDs
 * are reused, the unique ones never): only such a list is sorted. O(n),
 * and no memory unless a list is out of order.
 */
static int order_by_old(struct mntkit_table *t)
{
	struct old_key *key = NULL;
	int ret = sort_siblings(t, &t->first_root, &t->last_root, &key);

	for (size_t p = 0; !ret && p < t->n; p++)
		if (t->first_child[p] != t->last_child[p])
			ret = sort_siblings(t, &t->first_child[p],
					    &t->last_child[p], &key);
	free(key);
	return ret;
}

/* ---- settling a table read while mounts moved ---- */

/* read again at most this often: once the mounts involved, then also the
 * listing (each round costs a listing and a statmount per change seen) */
#define SETTLE_ROUNDS 4

static pthread_once_t rounds_once = PTHREAD_ONCE_INIT;
static int rounds = SETTLE_ROUNDS;

/*
 * MNTKIT_TEST_SETTLE_ROUNDS=N (a testing knob, 0 .. SETTLE_ROUNDS): read
 * the mounts that do not fit again at most N times (0: place them at
 * once), so that a test meets tables with placed roots without a churn
 * that outruns every re-read. The emulation's new listing after a mount
 * it did not find (ids_may_change()) is not limited by it.
 */
static void rounds_init(void)
{
	const char *s = mntkit__env(MNTKIT__ENV_TEST_SETTLE_ROUNDS);

	if (s && s[0] >= '0' && s[0] <= '0' + SETTLE_ROUNDS && !s[1])
		rounds = s[0] - '0';
}

static int settle_rounds(void)
{
	pthread_once(&rounds_once, rounds_init);
	return rounds;
}

struct build {
	struct mntkit_table *t;
	const struct mntkit_mnt_id_req *req;
	uint64_t start; /* MNTKIT_LSMT_ROOT or the subtree's top */
	uint64_t mask;
	int relist;	/* a listed mount was not found (see fill_all()) */
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

/*
 * The emulation may name a mount differently from one read of mountinfo
 * to the next (by its old ID while its mount point does not lead to it):
 * a listed ID it does not find may be a live mount under another name,
 * which only a new listing tells. The kernel's IDs never change: an ID
 * it does not find is a mount gone.
 */
static int ids_may_change(void)
{
	return mntkit__ops() == &mntkit_mountinfo_ops;
}

/* the listing of the table's mounts, sorted (the start of a subtree,
 * which the kernel does not list, joins it) */
static bool ascending(const uint64_t *v, size_t n)
{
	for (size_t i = 1; i < n; i++)
		if (v[i - 1] > v[i])
			return false;
	return true;
}

/*
 * The listing, sorted. The kernel's comes sorted (listmount(2) walks the
 * namespace's mounts by ID), so it is checked before it is sorted: a
 * merge sort of 50,000 sorted IDs took 3 % of lsmnt's own time.
 */
static int list_all(const struct build *b, struct mntkit_idvec *iv)
{
	int ret = mntkit__list_flat(b->req, b->start, 0, iv);

	if (!ret && b->start != MNTKIT_LSMT_ROOT) {
		ret = mntkit__idvec_reserve(iv, 1);
		if (!ret)
			iv->v[iv->n++] = b->start;
	}
	if (!ret && !ascending(iv->v, iv->n))
		qsort(iv->v, iv->n, sizeof(*iv->v), cmp_id);
	return ret;
}

struct id_off {
	uint64_t id;
	size_t off;
};

static int cmp_id_off(const void *a, const void *b)
{
	return cmp_id(&((const struct id_off *)a)->id,
		      &((const struct id_off *)b)->id);
}

/*
 * The records at @off (*@n of them) by ascending mnt_id, each ID once.
 * They come in the order of the IDs asked, and so sorted, but for the
 * emulation's snapshot batch, which answers a mount listed under its other
 * name with its reply under the name it has now (see emul-ids.c,
 * mntkit__emul_renamed_entry()): such a record may be out of order, or there twice.
 */
static int by_id(struct mntkit_table *t, size_t *off, size_t *n)
{
	struct id_off *v;
	size_t k = 0;

	for (size_t i = 1; i < *n; i++)
		if (id_at_off(t, off[i - 1]) >= id_at_off(t, off[i]))
			goto sort;
	return 0;
sort:
	v = malloc((*n + 1) * sizeof(*v));
	if (!v)
		return -ENOMEM;
	for (size_t i = 0; i < *n; i++)
		v[i] = (struct id_off){ id_at_off(t, off[i]), off[i] };
	qsort(v, *n, sizeof(*v), cmp_id_off);
	for (size_t i = 0; i < *n; i++)
		if (!k || v[i].id != v[k - 1].id)
			v[k++] = v[i];
	for (size_t i = 0; i < k; i++)
		off[i] = v[i].off;
	*n = k;
	free(v);
	return 0;
}

/*
 * statmount @ids (sorted) into new records at @off, sorted by ID, each
 * once; their count in *@got
 */
static int fill_all(struct build *b, const uint64_t *ids, size_t n,
		    size_t *off, size_t *got)
{
	struct fill_ctx c = { .t = b->t, .off = off };
	size_t distinct = 0;
	int ret;

	ret = fill(&c, b->req, ids, n, b->mask);
	for (size_t i = 0; i < n; i++)
		distinct += !i || ids[i] != ids[i - 1];
	if (c.n < distinct && ids_may_change())
		b->relist = 1;
	if (!ret && c.unsorted)
		ret = by_id(b->t, off, &c.n);
	*got = c.n;
	return ret;
}

static int is_outside(const struct build *b, uint64_t id)
{
	for (size_t i = 0; i < b->outside.n; i++)
		if (b->outside.v[i] == id)
			return 1;
	return 0;
}

static int was_listed(const struct build *b, uint64_t id)
{
	return bsearch(&id, b->listed.v, b->listed.n, sizeof(id), cmp_id) !=
	       NULL;
}

/*
 * Is @p (<= 2^31) the old ID of a record of the table that has another
 * ID? The emulation names a mount by its old ID while its mount point
 * does not lead to it (a mount moved or overmounted at that moment), by
 * its unique ID otherwise: a child read in a view where its parent was
 * hidden names the parent by an ID that the table, which has the parent
 * from another view, does not hold, and that the emulation answers with
 * ENOENT now. Such a parent is a live mount of the table, not one above
 * our root (the root is read again). The kernel's mnt_id is never an old
 * ID: none of its records is named by another ID. 1, 0 or -errno.
 */
static int renamed(struct build *b, uint64_t p)
{
	const struct mntkit_table *t = b->t;

	if (p > MNTKIT_MNT_UNIQUE_ID_OFFSET)
		return 0;
	if (!b->olds_valid) {
		int ret = mntkit__idvec_reserve(&b->olds, t->n + 1);

		if (ret)
			return ret;
		b->olds.n = 0;
		for (size_t i = 0; i < t->n; i++) {
			struct fixed sm = fix_of(t, i);

			if ((sm.mask & MNTKIT_STATMOUNT_MNT_BASIC) &&
			    sm.mnt_id_old != sm.mnt_id)
				b->olds.v[b->olds.n++] = sm.mnt_id_old;
		}
		qsort(b->olds.v, b->olds.n, sizeof(*b->olds.v), cmp_id);
		b->olds_valid = 1;
	}
	return bsearch(&p, b->olds.v, b->olds.n, sizeof(p), cmp_id) != NULL;
}

/*
 * Is the parent @p of a root, not in the table, above the caller's root
 * (so it is not listed: the root's place is right), or was the root read
 * while the table changed? A parent that was listed is below our root (it
 * vanished since). A mount the caller's root does not reach has no
 * MNT_POINT (EPERM without CAP_SYS_ADMIN). The emulation names a parent
 * outside mountinfo by an old ID it does not find, and so it names a
 * hidden mount once gone (a mount made and gone since the listing, with
 * a child moved under it and back), or a hidden mount it names by its
 * unique ID now (renamed()): it tells which (mntkit__emul_parent_outside(),
 * of its table now: the parent of a mount there, without a line). Before,
 * every such ID passed for one outside, and its child, read in between,
 * stayed a root of its own with the table not flagged (test-churn-tree).
 * 1 above, 0 not, or -errno.
 */
static int parent_outside(struct build *b, uint64_t p)
{
	int ret;

	ret = renamed(b, p);
	if (ret)
		return ret < 0 ? ret : 0; /* a live mount of the table */
	if (is_outside(b, p))
		return 1;
	if (was_listed(b, p))
		return 0; /* listed, so below our root, but gone since */
	ret = mntkit__stat_into(b->req, p,
				MNTKIT_STATMOUNT_MNT_BASIC |
					MNTKIT_STATMOUNT_MNT_POINT,
				&b->buf, &b->bufsize);
	if (ret == -ENOMEM)
		return ret;
	if (!ret) {
		/*
		 * no mount point: above our root. 6.12 (and likely 6.9 to
		 * 6.11) answer such a mount with an empty MNT_POINT where
		 * 6.18 leaves the group out; a reachable one is never ""
		 */
		const char *pt = "";

		ret = !(b->buf->mask & MNTKIT_STATMOUNT_MNT_POINT) ||
		      (mntkit_sm_str(b->buf, b->buf->size,
				     MNTKIT_FIELD_MNT_POINT, &pt) == 0 &&
		       !pt[0]);
	}
	else if ((ret == -ENOENT || ret == -EINVAL) &&
		 p <= MNTKIT_MNT_UNIQUE_ID_OFFSET && ids_may_change()) {
		ret = mntkit__emul_parent_outside(b->req, p);
		if (ret < 0 && ret != -ENOMEM)
			ret = 1; /* nothing to learn: as before */
	}
	else if (ret == -ENOENT || ret == -EINVAL)
		ret = p <= MNTKIT_MNT_UNIQUE_ID_OFFSET; /* else: gone */
	else
		ret = 1; /* EPERM: above our root; else: nothing to learn */
	if (ret == 1) {
		int err = mntkit__idvec_reserve(&b->outside, 1);

		if (err)
			return err;
		b->outside.v[b->outside.n++] = p;
	}
	return ret;
}

/*
 * Does root @r belong there? The start of a subtree; the mount that is its
 * own parent (the namespace's root) or that the backend could not read
 * (no MNT_BASIC); and in a listing from the caller's root, a mount whose
 * parent is above that root (the root mount itself, whose parent is the
 * namespace's rootfs, or a mount of a chroot). 1 yes, 0 no, or -errno.
 */
static int root_ok(struct build *b, size_t r)
{
	struct fixed sm = fix_of(b->t, r);

	if (!(sm.mask & MNTKIT_STATMOUNT_MNT_BASIC))
		return 1;
	if (b->start != MNTKIT_LSMT_ROOT)
		return sm.mnt_id == b->start;
	if (sm.mnt_parent_id == sm.mnt_id)
		return 1;
	return parent_outside(b, sm.mnt_parent_id);
}

static int add_sus(struct build *b, size_t i)
{
	int ret = mntkit__idvec_reserve(&b->sus, 1);

	if (!ret)
		b->sus.v[b->sus.n++] = id_at(b->t, i);
	return ret;
}

/*
 * The mounts on cycles of parent links: a mount no root reaches hangs from
 * a cycle (its parents are unreached too, up to one that repeats). Each
 * mount is walked once: O(n). With @cut, the lowest of each cycle is
 * placed as a root; else every member goes to b->sus.
 */
static int cycle_members(struct build *b, int cut)
{
	struct mntkit_table *t = b->t;
	size_t walks = 0;

	for (size_t i = 0; i < t->n; i++)
		b->walk[i] = 0;
	for (size_t i = 0; i < t->n; i++) {
		size_t j = i, k, low;
		int ret;

		if (t->depth[i] != UNREACHED || b->walk[i])
			continue;
		walks++;
		while (t->depth[j] == UNREACHED && !b->walk[j]) {
			b->walk[j] = walks;
			j = (size_t)t->parent[j];
		}
		if (b->walk[j] != walks)
			continue; /* led to a cycle found before */
		/* j is on a new cycle */
		low = j;
		k = j;
		do {
			if (!cut && (ret = add_sus(b, k)))
				return ret;
			low = k < low ? k : low;
			k = (size_t)t->parent[k];
		} while (k != j);
		if (cut)
			t->placed[low] = 1;
	}
	return 0;
}

/*
 * Link the table and collect in b->sus the mounts that do not fit: those
 * on cycles and the roots that do not belong there. O(n), plus one
 * statmount per parent of a root that is not in the table (one: the
 * namespace's rootfs, or none when the table has the namespace's root).
 */
static int check(struct build *b)
{
	struct mntkit_table *t = b->t;
	int ret = link_tree(t);

	b->sus.n = 0;
	b->olds_valid = 0;
	for (ssize_t r = t->first_root; !ret && r >= 0; r = t->next[r]) {
		ret = root_ok(b, (size_t)r);
		if (ret >= 0)
			ret = ret ? 0 : add_sus(b, (size_t)r);
	}
	if (!ret && t->reached < t->n) /* some on cycles */
		ret = cycle_members(b, 0);
	return ret;
}

static int cmp_off_id(struct mntkit_table *t, size_t a, size_t b)
{
	uint64_t x = id_at_off(t, a), y = id_at_off(t, b);

	return x < y ? -1 : x > y;
}

/*
 * The table becomes the records of @keep (offsets, in the old order) and
 * of @add (offsets of new records, sorted by ID): merged by ID in O(n).
 * A mount of @add that @keep has already (the emulation's snapshot batch
 * may answer a new name with one the table holds: see by_id()) stays
 * as kept.
 */
static int merge(struct mntkit_table *t, const size_t *keep, size_t nkeep,
		 const size_t *add, size_t nadd)
{
	size_t *off = malloc((nkeep + nadd + 1) * sizeof(*off));
	size_t i = 0, j = 0, n = 0;

	if (!off)
		return -ENOMEM;
	while (i < nkeep || j < nadd) {
		int c = j == nadd ? -1 :
			i == nkeep ? 1 : cmp_off_id(t, keep[i], add[j]);

		if (c <= 0)
			off[n++] = keep[i++];
		else
			off[n++] = add[j++];
		if (!c)
			j++;
	}
	free(t->off);
	t->off = off;
	t->n = n;
	return 0;
}

/*
 * Read the suspects again: each gets its new reply, or leaves the table
 * when it is gone.
 */
static int restat(struct build *b)
{
	struct mntkit_table *t = b->t;
	size_t *keep = NULL, nkeep = 0;
	int ret = 0;

	qsort(b->sus.v, b->sus.n, sizeof(*b->sus.v), cmp_id);
	keep = malloc((t->n + 1) * sizeof(*keep));
	if (!keep)
		return -ENOMEM;
	for (size_t i = 0, k = 0; i < t->n && !ret; i++) {
		uint64_t id = id_at(t, i);

		while (k < b->sus.n && b->sus.v[k] < id)
			k++;
		keep[nkeep] = t->off[i];
		if (k == b->sus.n || b->sus.v[k] != id) {
			nkeep++;
			continue;
		}
		ret = mntkit__stat_into(b->req, id, b->mask, &b->buf,
					&b->bufsize);
		if (ret == -ENOENT) {
			ret = 0;
			b->relist |= ids_may_change();
			continue;
		}
		if (!ret)
			ret = arena_put(t, id, b->buf, &keep[nkeep++]);
	}
	if (!ret) /* a reply may name the mount otherwise now */
		ret = by_id(t, keep, &nkeep);
	if (!ret)
		ret = merge(t, keep, nkeep, NULL, 0);
	free(keep);
	return ret;
}

/*
 * List again: the mounts no longer listed leave the table (gone, or moved
 * out of the subtree), those listed now for the first time join it.
 */
static int relist(struct build *b)
{
	struct mntkit_table *t = b->t;
	struct mntkit_idvec iv = { 0 }, fresh = { 0 };
	size_t *keep = NULL, *add = NULL, nkeep = 0, nadd = 0;
	int ret;

	b->relist = 0;
	ret = list_all(b, &iv);
	if (!ret)
		ret = mntkit__idvec_reserve(&fresh, iv.n + 1);
	keep = malloc((t->n + 1) * sizeof(*keep));
	add = malloc((iv.n + 1) * sizeof(*add));
	if (!ret && (!keep || !add))
		ret = -ENOMEM;
	for (size_t i = 0, k = 0; !ret && k < iv.n; k++) {
		uint64_t id = iv.v[k];

		if (k && id == iv.v[k - 1])
			continue;
		while (i < t->n && id_at(t, i) < id)
			i++;
		if (i < t->n && id_at(t, i) == id)
			keep[nkeep++] = t->off[i];
		else
			fresh.v[fresh.n++] = id;
	}
	if (!ret && fresh.n)
		ret = fill_all(b, fresh.v, fresh.n, add, &nadd);
	if (!ret)
		ret = merge(t, keep, nkeep, add, nadd);
	free(keep);
	free(add);
	free(b->listed.v);
	b->listed = iv;
	free(fresh.v);
	return ret;
}

/* what still does not fit after the last round: placed as roots */
static int place(struct build *b)
{
	struct mntkit_table *t = b->t;
	int ret;

	t->placed = calloc(t->n + 1, 1);
	if (!t->placed)
		return -ENOMEM;
	for (ssize_t r = t->first_root; r >= 0; r = t->next[r]) {
		ret = root_ok(b, (size_t)r);
		if (ret < 0)
			return ret;
		if (!ret)
			t->placed[r] = 1;
	}
	ret = cycle_members(b, 1);
	if (!ret)
		ret = link_tree(t);
	t->state |= MNTKIT_TABLE_STATE_PLACED;
	return ret;
}

/*
 * Make the table a tree whose roots all belong there: check it (O(n));
 * while mounts do not fit, read them again (round 0: the mounts involved;
 * then the listing too, which brings the parents made after it and drops
 * the mounts gone), at most SETTLE_ROUNDS times; then place the rest.
 * A listed mount the emulation did not find is listed again as well
 * (ids_may_change()), also when everything fits.
 */
static int settle(struct build *b)
{
	int ret = 0, last = settle_rounds();

	b->walk = malloc((b->t->n + 1) * sizeof(*b->walk));
	if (!b->walk)
		return -ENOMEM;
	for (int round = 0; !ret; round++) {
		int final = round == SETTLE_ROUNDS;

		ret = check(b);
		if (ret || (!b->sus.n && (!b->relist || final)))
			break;
		if (b->sus.n && round >= last && (!b->relist || final)) {
			mntkit__debug(MNTKIT_PRINT_DEBUG,
				      "snapshot: %zu mounts still do not fit "
				      "after %d re-reads: placed as roots",
				      b->sus.n, round);
			ret = place(b);
			break;
		}
		mntkit__debug(MNTKIT_PRINT_DEBUG,
			      "snapshot: round %d: %zu mounts moved while read%s",
			      round, b->sus.n,
			      round || b->relist ? ", listing again" : "");
		if (b->sus.n && round < last)
			ret = restat(b);
		if (!ret && (round || b->relist))
			ret = relist(b);
		if (!ret) {
			size_t *w = realloc(b->walk,
					    (b->t->n + 1) * sizeof(*w));

			if (!w)
				ret = -ENOMEM;
			else
				b->walk = w;
		}
	}
	free(b->walk);
	free(b->sus.v);
	free(b->outside.v);
	free(b->olds.v);
	free(b->buf);
	return ret;
}

static int table_build(const struct mntkit_mnt_id_req *req, uint64_t start,
		       uint64_t mask, unsigned int flags,
		       struct mntkit_table **out)
{
	struct build b = {
		.req = req,
		.start = start,
		.mask = mask | MNTKIT_STATMOUNT_MNT_BASIC,
	};
	struct mntkit_table *t;
	int ret;

	*out = NULL;
	t = calloc(1, sizeof(*t));
	if (!t)
		return -ENOMEM;
	b.t = t;
	t->compact = !!(flags & MNTKIT_TABLE_COMPACT);
	ret = list_all(&b, &b.listed);
	if (ret)
		goto fail;
	ret = -ENOMEM;
	t->off = malloc((b.listed.n + 1) * sizeof(*t->off));
	if (!t->off)
		goto fail;
	arena_reserve(t, b.listed.n);
	ret = fill_all(&b, b.listed.v, b.listed.n, t->off, &t->n);
	if (!ret)
		ret = settle(&b);
	if (!ret && (flags & MNTKIT_TABLE_OLD_ORDER))
		ret = order_by_old(t);
	if (ret)
		goto fail;
	free(b.listed.v);
	*out = t;
	return 0;
fail:
	free(b.listed.v);
	mntkit_table_free(t);
	return ret;
}

int mntkit__table_build(const struct mntkit_mnt_id_req *req, uint64_t start,
			uint64_t mask, struct mntkit_table **out)
{
	return table_build(req, start, mask, 0, out);
}

/* the caller's root, in its own namespace or in the one of @req */
int mntkit__reachable_root(const struct mntkit_mnt_id_req *req, uint64_t *id)
{
	struct mntkit_table *t;
	ssize_t root;
	int ret;

	if (!req->mnt_ns_id && !req->mnt_ns_fd)
		return mntkit__ops()->path_id(AT_FDCWD, "/", 0, id);
	/* another namespace: the top of its LSMT_ROOT listing */
	ret = mntkit__table_build(req, MNTKIT_LSMT_ROOT,
				  MNTKIT_STATMOUNT_MNT_BASIC, &t);
	if (ret)
		return ret;
	root = mntkit_table_first_root(t);
	if (root >= 0)
		*id = id_at(t, (size_t)root);
	mntkit_table_free(t);
	return root >= 0 ? 0 : -ENOENT;
}

int mntkit_table_new(uint64_t mask, unsigned int flags,
		     const struct mntkit_opts *opts, struct mntkit_table **out)
{
	MNTKIT__PIN();
	struct mntkit_mnt_id_req req;
	uint64_t start = MNTKIT_LSMT_ROOT;
	int fd, ret;

	if (!out)
		return mntkit__fail(EINVAL);
	*out = NULL;
	if (flags & ~(MNTKIT_TABLE_UNREACHABLE | MNTKIT_TABLE_COMPACT |
		      MNTKIT_TABLE_OLD_ORDER))
		return mntkit__fail(EINVAL);
	ret = mntkit__req_init(&req, opts, &fd);
	if (ret)
		return mntkit__fail(-ret);
	if (flags & MNTKIT_TABLE_UNREACHABLE) {
		ret = mntkit__reachable_root(&req, &start);
		if (!ret)
			ret = mntkit__true_root(&req, &start);
	}
	if (!ret)
		ret = table_build(&req, start, mask,
				  flags & ~MNTKIT_TABLE_UNREACHABLE, out);
	if (fd >= 0)
		close(fd);
	return ret ? mntkit__fail(-ret) : 0;
}

/* ---- walks for mntkit_list() ---- */

size_t mntkit__table_children(const struct mntkit_table *t, size_t idx,
			      int reverse, uint64_t *out)
{
	ssize_t c = reverse ? t->last_child[idx] : t->first_child[idx];
	size_t n = 0;

	for (; c >= 0; c = reverse ? t->prev[c] : t->next[c])
		out[n++] = id_at(t, (size_t)c);
	return n;
}

size_t mntkit__table_walk(const struct mntkit_table *t, size_t idx,
			  int reverse, int self, uint64_t *out)
{
	const int32_t *down = reverse ? t->last_child : t->first_child;
	const int32_t *side = reverse ? t->prev : t->next;
	size_t i = idx, n = 0;

	for (;;) {
		if (i != idx || self)
			out[n++] = id_at(t, i);
		if (down[i] >= 0) {
			i = (size_t)down[i];
			continue;
		}
		while (i != idx && side[i] < 0)
			i = (size_t)t->parent[i];
		if (i == idx)
			return n;
		i = (size_t)side[i];
	}
}

/* ---- tables read from a file (tab.c) ---- */

const struct mntkit__tab *mntkit__table_tab(const struct mntkit_table *t)
{
	return t ? t->tab : NULL;
}

int mntkit__table_from_records(struct mntkit_statmount *const *recs, size_t n,
			       ssize_t first_root, struct mntkit__tab *x,
			       struct mntkit_table **out)
{
	struct mntkit_table *t = calloc(1, sizeof(*t));
	int ret = -ENOMEM;

	*out = NULL;
	if (!t) {
		mntkit__tab_free(x);
		return ret;
	}
	t->tab = x;
	t->off = malloc((n + 1) * sizeof(*t->off));
	if (!t->off)
		goto fail;
	for (size_t i = 0; i < n; i++) {
		ret = arena_put(t, recs[i]->mnt_id, recs[i], &t->off[i]);
		if (ret)
			goto fail;
		t->n++;
	}
	ret = link_tree(t);
	if (ret)
		goto fail;
	/* the root of the tree first, the other roots after it */
	if (first_root >= 0 && (size_t)first_root < n &&
	    t->parent[first_root] < 0 && t->first_root != first_root) {
		ssize_t r = first_root;

		t->next[t->prev[r]] = t->next[r];
		if (t->next[r] >= 0)
			t->prev[t->next[r]] = t->prev[r];
		else
			t->last_root = t->prev[r];
		t->prev[r] = -1;
		t->next[r] = t->first_root;
		t->prev[t->first_root] = r;
		t->first_root = r;
	}
	*out = t;
	return 0;
fail:
	mntkit_table_free(t);
	return ret;
}
