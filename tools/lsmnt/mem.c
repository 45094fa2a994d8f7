// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * lsmnt's big blocks of memory: made present at once, in huge pages where
 * they span several.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "lsmnt.h"

/* madvise() the whole units of @unit bytes within @v .. @v + @len */
static void advise_within(void *v, size_t len, uintptr_t unit, int advice)
{
	uintptr_t a = ((uintptr_t)v + unit - 1) & ~(unit - 1);
	uintptr_t e = ((uintptr_t)v + len) & ~(unit - 1);

	if (e > a)
		madvise((void *)a, e - a, advice);
}

/* big_alloc()'s present memory, aligned to huge runs from @huge bytes */
void *present_alloc(size_t len, size_t huge)
{
	void *v = NULL;

	if (len < (16U << 10)) /* a few faults cost less */
		return malloc(len);
	if (len < huge || posix_memalign(&v, HUGE_RUN, len))
		v = malloc(len);
	if (!v)
		return NULL;
#ifdef MADV_HUGEPAGE
	advise_within(v, len, HUGE_RUN, MADV_HUGEPAGE);
#endif
#ifdef MADV_POPULATE_WRITE
	advise_within(v, len, (uintptr_t)sysconf(_SC_PAGESIZE),
		      MADV_POPULATE_WRITE);
#endif
	return v;
}

/*
 * @len bytes of memory (malloc()ed: free(3) and realloc(3) take it).
 * When it will all be written (@all: every mount a row, the text of
 * every cell, a buffer used over and over), its pages are made present
 * at once, not a page fault each (dear in a virtual machine: about 8 us
 * a page; in the one of bench/, whose hypervisor shadows the page tables,
 * the first touch of a present page still costs 5 us), and a block of
 * several 2 MiB runs is aligned to them and has those it covers in huge
 * pages (about 0.3 us per 4 KiB), as the snapshot's records have
 * (lib/table.c). The memory held is the block's either way. A kernel
 * before 5.14 refuses MADV_POPULATE_WRITE: the pages come a fault at a
 * time.
 */
void *big_alloc(size_t len, bool all)
{
	return all ? present_alloc(len, 2 * HUGE_RUN) : malloc(len);
}
