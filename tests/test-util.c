// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * test-util.c - the shared mechanisms of lib/util.h: growable arrays, the
 * u64 map (against a plain array as the model, under random insertions
 * and removals), big allocations, the arena and sized structs.
 */
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "util.h"

T_CASE(grow_doubles_from_first)
{
	MNTKIT__VEC(uint32_t) v = { 0 };

	T_EQ_I(mntkit__vec_room(&v, 1, 16), 0);
	T_EQ_U(v.cap, 16);
	for (uint32_t i = 0; i < 1000; i++) {
		T_EQ_I(mntkit__vec_room(&v, 1, 16), 0);
		v.v[v.n++] = i;
	}
	T_EQ_U(v.cap, 1024);
	for (uint32_t i = 0; i < 1000; i++)
		T_EQ_U(v.v[i], i);
	/* room already there: nothing moves */
	uint32_t *before = v.v;
	T_EQ_I(mntkit__vec_room(&v, 24, 16), 0);
	T_ASSERT(v.v == before);
	T_EQ_I(mntkit__vec_room(&v, 25, 16), 0);
	T_EQ_U(v.cap, 2048);
	free(v.v);
}

T_CASE(grow_overflow_leaves_array)
{
	uint64_t *a = NULL;
	size_t cap = 0;

	T_EQ_I(mntkit__grow(&a, &cap, 4, sizeof(*a), 0), 0);
	T_EQ_U(cap, 4);
	uint64_t *was = a;
	T_EQ_I(mntkit__grow(&a, &cap, SIZE_MAX / 4, sizeof(*a), 0), -ENOMEM);
	T_ASSERT(a == was);
	T_EQ_U(cap, 4);
	T_EQ_I(mntkit__grow(&a, &cap, SIZE_MAX, sizeof(*a), 0), -ENOMEM);
	T_EQ_U(cap, 4);
	free(a);
}

struct val {
	uint64_t twice;
	uint32_t tag;
};

/* the model: keys and their values in a plain array */
struct model {
	uint64_t key[4096];
	struct val val[4096];
	size_t n;
};

static ssize_t model_find(const struct model *md, uint64_t key)
{
	for (size_t i = 0; i < md->n; i++)
		if (md->key[i] == key)
			return (ssize_t)i;
	return -1;
}

static void map_matches(const struct mntkit__map *m, const struct model *md)
{
	size_t pos = 0, seen = 0;
	uint64_t key;
	struct val *v;

	T_EQ_U(m->n, md->n);
	for (size_t i = 0; i < md->n; i++) {
		v = mntkit__map_get(m, md->key[i]);
		T_ASSERTF(v, "key %" PRIu64 " lost", md->key[i]);
		T_EQ_U(v->twice, md->val[i].twice);
		T_EQ_U(v->tag, md->val[i].tag);
	}
	while ((v = mntkit__map_next(m, &pos, &key))) {
		ssize_t i = model_find(md, key);

		T_ASSERTF(i >= 0, "key %" PRIu64 " not in the model", key);
		T_EQ_U(v->twice, md->val[i].twice);
		seen++;
	}
	T_EQ_U(seen, md->n);
}

T_CASE(map_against_model)
{
	struct mntkit__map m = MNTKIT__MAP_INIT(struct val);
	static struct model md;
	uint64_t seed = 42;

	/* keys from a small range, so that runs collide and wrap */
	for (int step = 0; step < 200000; step++) {
		uint64_t r = t_rand(&seed);
		uint64_t key = 1 + (r >> 8) % 3000;
		ssize_t i = model_find(&md, key);

		if (r & 1) {
			bool found;
			struct val *v;

			T_EQ_I(mntkit__map_reserve(&m, 1), 0);
			v = mntkit__map_put(&m, key, &found);
			T_EQ_I(found, i >= 0);
			if (!found) {
				T_EQ_U(v->twice, 0);
				T_EQ_U(v->tag, 0);
				i = (ssize_t)md.n++;
				md.key[i] = key;
			}
			v->twice = md.val[i].twice = 2 * key;
			v->tag = md.val[i].tag = (uint32_t)step;
		} else {
			T_EQ_I(mntkit__map_del(&m, key), i >= 0);
			if (i >= 0) {
				md.n--;
				md.key[i] = md.key[md.n];
				md.val[i] = md.val[md.n];
			}
			T_ASSERT(!mntkit__map_has(&m, key));
		}
		T_ASSERT(m.n * 2 <= m.cap);
		if (step % 20000 == 0)
			map_matches(&m, &md);
	}
	map_matches(&m, &md);
	T_NULL(mntkit__map_get(&m, 0));
	mntkit__map_clear(&m);
	T_EQ_U(m.n, 0);
	T_NULL(mntkit__map_get(&m, md.key[0]));
	mntkit__map_free(&m);
	T_NULL(mntkit__map_get(&m, 1));
	T_EQ_I(mntkit__map_del(&m, 1), 0);
}

T_CASE(set_of_big_ids)
{
	struct mntkit__map s = MNTKIT__SET_INIT;
	uint64_t base = (1ULL << 31) + 1;

	T_EQ_U(s.stride, sizeof(uint64_t));
	T_EQ_I(mntkit__map_reserve(&s, 100000), 0);
	size_t cap = s.cap;
	for (uint64_t i = 0; i < 100000; i++)
		mntkit__map_put(&s, base + i, NULL);
	T_EQ_U(s.cap, cap); /* the room reserved held them all */
	T_EQ_U(s.n, 100000);
	for (uint64_t i = 0; i < 100000; i += 2)
		T_EQ_I(mntkit__map_del(&s, base + i), 1);
	for (uint64_t i = 0; i < 100000; i++)
		T_EQ_I(mntkit__map_has(&s, base + i), (int)(i & 1));
	mntkit__map_free(&s);
}

T_CASE(big_alloc_sizes)
{
	size_t sizes[] = { 0, 100, 16 << 10, 1 << 20, 3 << 20, 5 << 20 };

	for (size_t k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
		for (unsigned int fl = 0; fl < 4; fl++) {
			char *p = mntkit__big_alloc(sizes[k], 2 << 20, fl);

			T_ASSERT(p || !sizes[k]);
			if (sizes[k] >= (2U << 20))
				T_EQ_U((uintptr_t)p & (MNTKIT__HUGE - 1), 0);
			memset(p, 0x5a, sizes[k]);
			p = realloc(p, sizes[k] + 4096);
			T_ASSERT(p);
			T_ASSERT(!sizes[k] || p[sizes[k] - 1] == 0x5a);
			free(p);
		}
	}
}

static void arena_fill(size_t expect, size_t records, size_t each)
{
	struct mntkit__arena a = { 0 };

	mntkit__arena_reserve(&a, expect, each);
	if (expect * each >= 4 * MNTKIT__HUGE)
		T_ASSERT(a.mapped &&
			 ((uintptr_t)a.base & (MNTKIT__HUGE - 1)) == 0);
	for (size_t i = 0; i < records; i++) {
		T_EQ_I(mntkit__arena_room(&a, each), 0);
		memset(a.base + a.used, (int)(i & 0xff), each);
		mntkit__arena_add(&a, each);
	}
	T_EQ_U(a.n, records);
	for (size_t i = 0; i < records; i++)
		T_ASSERT((unsigned char)a.base[i * each + each - 1] ==
			 (i & 0xff));
	mntkit__arena_free(&a);
	T_NULL(a.base);
	T_EQ_U(a.cap, 0);
}

T_CASE(arena_grows_and_keeps)
{
	arena_fill(0, 1000, 520);	  /* realloc'd from 64 KiB */
	arena_fill(16000, 16000, 520); /* a mapping, as expected */
	arena_fill(16000, 40000, 520); /* outgrows it: mremap */
}

struct sized {
	size_t size;
	uint32_t a;
	uint64_t b;
};

T_CASE(sized_in_rules)
{
	struct sized out;
	unsigned char big[64] = { 0 };
	struct sized *in = (struct sized *)big;
	size_t ver0 = offsetof(struct sized, b);

	T_EQ_I(mntkit__sized_in(&out, sizeof(out), NULL, 0, ver0), 0);
	T_EQ_U(out.a, 0);
	in->size = sizeof(*in);
	in->a = 7;
	in->b = 9;
	T_EQ_I(mntkit__sized_in(&out, sizeof(out), in, in->size, ver0), 0);
	T_EQ_U(out.a, 7);
	T_EQ_U(out.b, 9);
	/* the first version: what it does not hold reads 0 */
	T_EQ_I(mntkit__sized_in(&out, sizeof(out), in, ver0, ver0), 0);
	T_EQ_U(out.a, 7);
	T_EQ_U(out.b, 0);
	/* shorter than the first version, size 0 among them */
	T_EQ_I(mntkit__sized_in(&out, sizeof(out), in, ver0 - 1, ver0),
	       -EINVAL);
	T_EQ_I(mntkit__sized_in(&out, sizeof(out), in, 0, ver0), -EINVAL);
	/* a newer caller's struct: a zero tail is fine, any other is not */
	T_EQ_I(mntkit__sized_in(&out, sizeof(out), in, sizeof(big), ver0),
	       0);
	big[sizeof(big) - 1] = 1;
	T_EQ_I(mntkit__sized_in(&out, sizeof(out), in, sizeof(big), ver0),
	       -E2BIG);
}

T_CASE(sized_out_rules)
{
	struct sized src = { .size = sizeof(src), .a = 1, .b = 2 };
	unsigned char big[64];
	struct sized *out = (struct sized *)big;
	size_t ver0 = offsetof(struct sized, b);

	memset(big, 0xff, sizeof(big));
	out->size = sizeof(big);
	mntkit__sized_out(out, sizeof(big), &src, sizeof(src),
			  sizeof(src.size));
	T_EQ_U(out->size, sizeof(big)); /* never written */
	T_EQ_U(out->a, 1);
	T_EQ_U(out->b, 2);
	for (size_t i = sizeof(src); i < sizeof(big); i++)
		T_EQ_U(big[i], 0);
	/* an older caller: only what it knows */
	memset(big, 0xff, sizeof(big));
	out->size = ver0;
	mntkit__sized_out(out, ver0, &src, sizeof(src), sizeof(src.size));
	T_EQ_U(out->a, 1);
	T_EQ_U(big[ver0], 0xff);
}

int main(int argc, char **argv)
{
	return t_run(argc, argv);
}
