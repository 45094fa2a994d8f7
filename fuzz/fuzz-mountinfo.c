// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Fuzz target: the mountinfo parser, the kernel-style unescaping and the
 * ID index built over whatever parses. Built for libFuzzer when the
 * compiler is clang with -fsanitize=fuzzer, else with replay.c, a driver
 * that runs the committed corpus (fuzz/corpus/) through the same function.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "mountinfo.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void exercise_index(const struct mntkit_mi_table *t)
{
	struct mntkit_mindex ix;
	uint64_t *keys = malloc((t->n + 1) * sizeof(*keys));

	if (!keys)
		return;
	/* keys as the emulation makes them: unique-looking for half */
	for (size_t i = 0; i < t->n; i++)
		keys[i] = (i & 1) ? (1ULL << 31) + 1 + t->v[i].id : t->v[i].id;
	if (mntkit__mindex_build(&ix, t->v, t->n, keys) == 0) {
		for (size_t i = 0; i < t->n; i++) {
			ssize_t k = mntkit__mindex_find(&ix, keys[i]);

			if (k != (ssize_t)i)
				abort();
			if (mntkit__mindex_find_old(&ix, t->v[i].id) != (ssize_t)i)
				abort();
			(void)mntkit__mindex_after(&ix, keys[i]);
			(void)mntkit__mindex_before(&ix, keys[i]);
			if (ix.parent[i] >= 0 &&
			    !mntkit__mindex_below(&ix, i, (size_t)ix.parent[i]))
				abort();
		}
		mntkit__mindex_free(&ix);
	}
	free(keys);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct mntkit_mi_table t = { 0 };
	struct mntkit_mi_err err;
	char *buf = malloc(size + 1);
	char *copy = malloc(size + 1);

	if (!buf || !copy)
		goto out;
	memcpy(buf, data, size);
	memcpy(copy, data, size);
	/* the unescaper alone, over the raw bytes */
	if (mntkit__unescape(copy, copy, size) > size)
		abort();
	if (mntkit__mi_parse(&t, buf, size, &err) == 0) {
		for (size_t i = 0; i < t.n; i++) {
			const struct mntkit_mi *m = &t.v[i];
			struct mntkit_mi_span s[] = { m->root, m->point, m->type,
						      m->subtype, m->source,
						      m->opts };

			for (size_t k = 0; k < sizeof(s) / sizeof(s[0]); k++)
				if ((size_t)s[k].off + s[k].len > size)
					abort();
			if (m->sec_len > m->opts.len)
				abort();
		}
		exercise_index(&t);
	} else if (err.line == 0 && size) {
		abort(); /* a failure must say where */
	}
out:
	mntkit__mi_free(&t);
	free(buf);
	free(copy);
	return 0;
}
