// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * util.c - growable arrays, the u64 map, big allocations and sized
 * structs, shared by the library and the tools (util.h).
 */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "util.h"

/* ---- growable arrays ---- */

int mntkit__resize(void *arr, size_t n, size_t size)
{
	void *old, *nv;

	if (size && n > SIZE_MAX / size)
		return -ENOMEM;
	memcpy(&old, arr, sizeof(old));
	nv = realloc(old, n * size);
	if (!nv)
		return -ENOMEM;
	memcpy(arr, &nv, sizeof(nv));
	return 0;
}

/* a grown array this big is in pages of its own (malloc(3)'s mmap) */
#define GROWN_PRESENT_FROM (256U << 10)

/*
 * The pages of a grown array that its caller asked room for (bytes @from
 * to @to of *@arr) made present at once where the array is big: one call
 * where a page fault each would come as they are written (a fault costs
 * several times more than the page it fills, a virtual machine's most).
 * Only up to what was asked: the rest of the doubled capacity may never
 * be written, and a long-lived table (a live table's, a watch's) would
 * hold its pages resident for nothing.
 */
static void grown_present(void *arr, size_t from, size_t to)
{
#ifdef MADV_POPULATE_WRITE
	char *p;

	if (to < GROWN_PRESENT_FROM || to <= from)
		return;
	memcpy(&p, arr, sizeof(p));
	mntkit__advise_within(p + from, to - from, mntkit__page_size(),
			      MADV_POPULATE_WRITE);
#else
	(void)arr;
	(void)from;
	(void)to;
#endif
}

int mntkit__grow(void *arr, size_t *cap, size_t need, size_t size,
		 size_t first)
{
	size_t ncap = *cap > first ? *cap : first;

	if (!ncap)
		ncap = 1;
	while (ncap < need) {
		if (ncap > SIZE_MAX / 2)
			return -ENOMEM;
		ncap *= 2;
	}
	if (mntkit__resize(arr, ncap, size))
		return -ENOMEM;
	grown_present(arr, *cap * size, need * size);
	*cap = ncap;
	return 0;
}

/* ---- the u64 map ---- */

static void set_key(struct mntkit__map *m, size_t i, uint64_t key)
{
	memcpy(m->slots + i * m->stride, &key, sizeof(key));
}

int mntkit__map_reserve(struct mntkit__map *m, size_t more)
{
	struct mntkit__map nm = { .stride = m->stride };
	size_t cap = m->cap ? m->cap : 64;

	if (more > SIZE_MAX / 4 - m->n)
		return -ENOMEM;
	while ((m->n + more) * 2 > cap)
		cap *= 2;
	if (cap == m->cap)
		return 0;
	if (cap > SIZE_MAX / m->stride)
		return -ENOMEM;
	nm.slots = calloc(cap, m->stride);
	if (!nm.slots)
		return -ENOMEM;
	nm.cap = cap;
	for (size_t i = 0; i < m->cap; i++) {
		uint64_t key = mntkit__map_key(m, i);

		if (key)
			memcpy(nm.slots + mntkit__map_slot(&nm, key) * m->stride,
			       m->slots + i * m->stride, m->stride);
	}
	nm.n = m->n;
	free(m->slots);
	*m = nm;
	return 0;
}

void *mntkit__map_put(struct mntkit__map *m, uint64_t key, bool *found)
{
	size_t i = mntkit__map_slot(m, key);
	unsigned char *slot = m->slots + i * m->stride;
	bool had = mntkit__map_key(m, i) != 0;

	if (!had) {
		set_key(m, i, key);
		memset(slot + sizeof(key), 0, m->stride - sizeof(key));
		m->n++;
	}
	if (found)
		*found = had;
	return slot + sizeof(key);
}

int mntkit__map_del(struct mntkit__map *m, uint64_t key)
{
	size_t mask, i, j;

	if (!m->cap || !key)
		return 0;
	mask = m->cap - 1;
	i = mntkit__map_slot(m, key);
	if (!mntkit__map_key(m, i))
		return 0;
	/* shift back each later slot of the run that may move into the hole */
	for (j = i;;) {
		uint64_t k;
		size_t home;

		j = (j + 1) & mask;
		k = mntkit__map_key(m, j);
		if (!k)
			break;
		home = mntkit__map_home(k, m->cap);
		if (i <= j ? (i < home && home <= j) : (i < home || home <= j))
			continue;
		memcpy(m->slots + i * m->stride, m->slots + j * m->stride,
		       m->stride);
		i = j;
	}
	memset(m->slots + i * m->stride, 0, m->stride);
	m->n--;
	return 1;
}

void *mntkit__map_next(const struct mntkit__map *m, size_t *pos,
		       uint64_t *key)
{
	for (; *pos < m->cap; (*pos)++) {
		uint64_t k = mntkit__map_key(m, *pos);

		if (k) {
			*key = k;
			return m->slots + (*pos)++ * m->stride + sizeof(k);
		}
	}
	return NULL;
}

void mntkit__map_clear(struct mntkit__map *m)
{
	if (m->cap)
		memset(m->slots, 0, m->cap * m->stride);
	m->n = 0;
}

void mntkit__map_free(struct mntkit__map *m)
{
	free(m->slots);
	m->slots = NULL;
	m->cap = m->n = 0;
}

/* ---- big allocations ---- */

/*
 * The pages of an arena are made present MNTKIT__PREFAULT ahead of its
 * data, a run at a time: one call where a page fault each would come.
 */
#define PREFAULT MNTKIT__PREFAULT
/* below this, a few page faults cost less than the advice */
#define BIG_MIN (16U << 10)
/* an arena's first allocation, when it was not reserved */
#define ARENA_FIRST (64U << 10)

uintptr_t mntkit__page_size(void)
{
	static uintptr_t page;
	uintptr_t p = __atomic_load_n(&page, __ATOMIC_RELAXED);

	if (!p) {
		p = (uintptr_t)sysconf(_SC_PAGESIZE);
		__atomic_store_n(&page, p, __ATOMIC_RELAXED);
	}
	return p;
}

void mntkit__advise_within(void *p, size_t len, uintptr_t unit, int advice)
{
	uintptr_t a = ((uintptr_t)p + unit - 1) & ~(unit - 1);
	uintptr_t e = ((uintptr_t)p + len) & ~(unit - 1);
	int saved = errno;

	if (e > a)
		madvise((void *)a, e - a, advice);
	errno = saved;
}

void *mntkit__big_alloc(size_t len, size_t huge_from, unsigned int flags)
{
	size_t whole = len;
	void *p = NULL;

	if (len < BIG_MIN)
		return malloc(len);
	if (len >= huge_from) {
		if (flags & MNTKIT__BIG_WHOLE)
			whole = (len + MNTKIT__HUGE - 1) &
				~(size_t)(MNTKIT__HUGE - 1);
		if (whole < len || posix_memalign(&p, MNTKIT__HUGE, whole))
			p = NULL;
	}
	if (!p) {
		whole = len;
		p = malloc(len);
	}
	if (!p)
		return NULL;
#ifdef MADV_HUGEPAGE
	/* the whole runs inside, also of a block malloc(3) placed */
	mntkit__advise_within(p, whole, MNTKIT__HUGE, MADV_HUGEPAGE);
#endif
#ifdef MADV_POPULATE_WRITE
	if (flags & MNTKIT__BIG_PRESENT)
		mntkit__advise_within(p, len, mntkit__page_size(),
				      MADV_POPULATE_WRITE);
#endif
	return p;
}

void mntkit__arena_reserve(struct mntkit__arena *a, size_t n, size_t each)
{
	size_t cap, len;
	char *map, *base;

	if (a->base || !each || n > SIZE_MAX / 2 / each)
		return;
	a->expect = n;
	cap = (n * each + MNTKIT__HUGE - 1) & ~(size_t)(MNTKIT__HUGE - 1);
	if (cap < 2 * MNTKIT__HUGE)
		return; /* mntkit__arena_room() allocates it as it goes */
	len = cap + MNTKIT__HUGE;
	map = mmap(NULL, len, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (map == MAP_FAILED)
		return;
	base = (char *)(((uintptr_t)map + MNTKIT__HUGE - 1) &
			~(uintptr_t)(MNTKIT__HUGE - 1));
	if (base > map)
		munmap(map, (size_t)(base - map));
	if (map + len > base + cap)
		munmap(base + cap, (size_t)(map + len - (base + cap)));
	a->base = base;
	a->cap = cap;
	a->mapped = true;
}

/*
 * Before the data (and the PREFAULT ahead of it) reach past a->huge:
 * advise the next huge run of a reserved arena MADV_HUGEPAGE when the
 * records so far, as many more as expected, fill half of it at least: at
 * most half a run is held beyond the data, and where 256 small pages take
 * 1.5 to 2.5 ms to be made present and written (bench/'s machine), a huge
 * page takes 0.2 ms. Once a run is left small, so are the later ones.
 */
static void more_huge(struct mntkit__arena *a, size_t need)
{
#ifdef MADV_HUGEPAGE
	size_t n = a->n + 1, expect;
	int saved;

	if (!a->mapped || a->huge == SIZE_MAX ||
	    a->used + need + PREFAULT <= a->huge)
		return;
	saved = errno;
	/* the bytes when all are in, at the mean size so far */
	expect = n < a->expect ? (a->used + need) / n * a->expect : 0;
	if (a->huge + MNTKIT__HUGE / 2 > expect ||
	    a->huge + MNTKIT__HUGE > a->cap ||
	    madvise(a->base + a->huge, MNTKIT__HUGE, MADV_HUGEPAGE) < 0) {
		a->huge = SIZE_MAX;
		errno = saved;
		return;
	}
	a->huge += MNTKIT__HUGE;
#else
	(void)a;
	(void)need;
#endif
}

static void prefault(struct mntkit__arena *a, size_t need)
{
#ifdef MADV_POPULATE_WRITE
	static int refused;
	uintptr_t page, lo, hi, base = (uintptr_t)a->base;

	if (a->used + need <= a->faulted ||
	    __atomic_load_n(&refused, __ATOMIC_RELAXED) ||
	    a->cap < 4 * PREFAULT)
		return;
	page = mntkit__page_size();
	lo = (base + a->used + page - 1) & ~(page - 1);
	hi = (base + a->used + need + PREFAULT) & ~(page - 1);
	if (hi > base + a->cap)
		hi = (base + a->cap) & ~(page - 1);
	if (hi > lo) {
		int saved = errno;

		if (madvise((void *)lo, hi - lo, MADV_POPULATE_WRITE) < 0 &&
		    errno == EINVAL)
			__atomic_store_n(&refused, 1, __ATOMIC_RELAXED);
		errno = saved;
	}
	a->faulted = hi - base;
#else
	(void)a;
	(void)need;
#endif
}

static int arena_grow(struct mntkit__arena *a, size_t need)
{
	size_t ncap = a->cap ? a->cap : ARENA_FIRST;
	char *nb;

	while (ncap - a->used < need) {
		if (ncap > SIZE_MAX / 2)
			return -ENOMEM;
		ncap *= 2;
	}
	if (a->mapped) {
		nb = mremap(a->base, a->cap, ncap, MREMAP_MAYMOVE);
		if (nb == MAP_FAILED)
			return -ENOMEM;
		a->huge = SIZE_MAX; /* no longer aligned: small pages on */
	} else {
		nb = realloc(a->base, ncap);
		if (!nb)
			return -ENOMEM;
	}
	a->base = nb;
	a->cap = ncap;
	return 0;
}

int mntkit__arena_grow_room(struct mntkit__arena *a, size_t need)
{
	if (a->cap - a->used < need && arena_grow(a, need))
		return -ENOMEM;
	more_huge(a, need);
	prefault(a, need);
	return 0;
}

void mntkit__arena_free(struct mntkit__arena *a)
{
	if (a->mapped)
		munmap(a->base, a->cap);
	else
		free(a->base);
	memset(a, 0, sizeof(*a));
}

/* ---- sized structs ---- */

int mntkit__sized_in(void *out, size_t out_size, const void *in,
		     size_t in_size, size_t ver0)
{
	const unsigned char *tail = in;

	memset(out, 0, out_size);
	if (!in)
		return 0;
	if (in_size < ver0)
		return -EINVAL;
	for (size_t i = out_size; i < in_size; i++)
		if (tail[i])
			return -E2BIG;
	memcpy(out, in, in_size < out_size ? in_size : out_size);
	return 0;
}

void mntkit__sized_out(void *out, size_t out_size, const void *src,
		       size_t src_size, size_t skip)
{
	size_t fit = out_size < src_size ? out_size : src_size;

	if (fit > skip)
		memcpy((char *)out + skip, (const char *)src + skip,
		       fit - skip);
	if (out_size > fit)
		memset((char *)out + fit, 0, out_size - fit);
}
