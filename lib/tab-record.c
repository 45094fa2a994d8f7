// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The records of a table read from a file (tab.h): each entry made a
 * record of statmount's shape in a growing buffer, then kept, 8-aligned,
 * with its file data; the strings of that data in one pool.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "tab.h"

static int buf_room(struct tab_buf *b, size_t n)
{
	if (n > SIZE_MAX / 4 - b->len)
		return -ENOMEM;
	return mntkit__reserve(&b->p, &b->cap, b->len + n, 1, 256);
}

int mntkit__tab_put(struct tab_buf *b, const void *s, size_t n)
{
	int ret = buf_room(b, n);

	if (ret)
		return ret;
	if (n)
		memcpy(b->p + b->len, s, n);
	b->len += n;
	return 0;
}

/* ---- a record being made: the fixed part, then the strings ---- */

int mntkit__tab_rec_begin(struct tab_buf *r)
{
	int ret;

	r->len = 0;
	ret = buf_room(r, MNTKIT_STATMOUNT_FIXED_SIZE + 256);
	if (ret)
		return ret;
	memset(r->p, 0, MNTKIT_STATMOUNT_FIXED_SIZE);
	r->len = MNTKIT_STATMOUNT_FIXED_SIZE;
	return 0;
}

/* a string of @n bytes into the [str] field at offset @field_off */
int mntkit__tab_rec_str(struct tab_buf *r, uint64_t flag, size_t field_off,
			const char *s, size_t n)
{
	uint32_t off = (uint32_t)(r->len - MNTKIT_STATMOUNT_FIXED_SIZE);
	int ret = mntkit__tab_put(r, s, n);

	if (!ret)
		ret = mntkit__tab_put(r, "", 1);
	if (ret)
		return ret;
	memcpy(r->p + field_off, &off, sizeof(off));
	tab_rec_sm(r)->mask |= flag;
	return 0;
}


/* a comma-separated list as a [strv] field (empty words dropped) */
int mntkit__tab_rec_strv(struct tab_buf *r, uint64_t flag, size_t field_off,
			 size_t num_off, const char *s, size_t n, int unescape)
{
	uint32_t off = (uint32_t)(r->len - MNTKIT_STATMOUNT_FIXED_SIZE);
	uint32_t count = 0;
	size_t i = 0;
	int ret;

	while (i < n) {
		size_t b = i, l;

		while (i < n && s[i] != ',')
			i++;
		if (i > b) {
			ret = mntkit__tab_put(r, s + b, i - b);
			if (!ret)
				ret = mntkit__tab_put(r, "", 1);
			if (ret)
				return ret;
			if (unescape) {
				char *w = r->p + r->len - (i - b) - 1;

				l = mntkit__unescape(w, w, i - b);
				w[l] = '\0';
				r->len -= (i - b) - l;
			}
			count++;
		}
		i++;
	}
	memcpy(r->p + field_off, &off, sizeof(off));
	memcpy(r->p + num_off, &count, sizeof(count));
	tab_rec_sm(r)->mask |= flag;
	return 0;
}

static int rec_end(struct tab_buf *r)
{
	int ret = buf_room(r, 8);

	if (ret)
		return ret;
	tab_rec_sm(r)->size = (uint32_t)r->len;
	return 0;
}

/* ---- what a read collects ---- */

int mntkit__tab_bad(struct tab_reader *rd, size_t line, size_t col,
		    const char *msg)
{
	if (!rd->nr_bad++) {
		rd->err_line = line;
		rd->err_col = col;
		rd->err_msg = msg;
	}
	return -EBADMSG;
}

/* room for one more entry in each of the per-entry arrays */
static int grow_entries(struct tab_reader *rd)
{
	struct {
		void *arr;
		size_t size;
	} each[] = {
		{ &rd->rec_off, sizeof(*rd->rec_off) },
		{ &rd->x, sizeof(*rd->x) },
		{ &rd->old, sizeof(*rd->old) },
		{ &rd->parent_old, sizeof(*rd->parent_old) },
	};
	size_t cap = rd->cap;

	for (size_t i = 0; i < MNTKIT_ARRAY_SIZE(each); i++) {
		int ret;

		cap = rd->cap;
		ret = mntkit__grow(each[i].arr, &cap, rd->n + 1, each[i].size,
				   64);
		if (ret)
			return ret;
	}
	rd->cap = cap;
	return 0;
}

/* keep the record made in rd->rec as the next entry */
int mntkit__tab_keep(struct tab_reader *rd, const struct mntkit__tab_rec *x,
		     uint32_t old, uint32_t parent_old)
{
	size_t pad;
	int ret;

	if (rd->n == rd->cap) {
		ret = grow_entries(rd);
		if (ret)
			return ret;
	}
	tab_rec_sm(&rd->rec)->mnt_id = rd->n + 1;
	tab_rec_sm(&rd->rec)->mnt_parent_id = rd->n + 1;
	ret = rec_end(&rd->rec);
	if (ret)
		return ret;
	pad = (8 - rd->recs.len % 8) % 8;
	ret = mntkit__tab_put(&rd->recs, "\0\0\0\0\0\0\0", pad);
	if (ret)
		return ret;
	rd->rec_off[rd->n] = rd->recs.len;
	ret = mntkit__tab_put(&rd->recs, rd->rec.p, rd->rec.len);
	if (ret)
		return ret;
	rd->x[rd->n] = *x;
	rd->old[rd->n] = old;
	rd->parent_old[rd->n] = parent_old;
	rd->n++;
	return 0;
}

/* a string of the pool: its offset, TAB_NONE when empty */
int mntkit__tab_pool_str(struct tab_reader *rd, const char *s, size_t n,
			 uint32_t *off)
{
	int ret;

	*off = TAB_NONE;
	if (!n)
		return 0;
	if (rd->pool.len > UINT32_MAX - n - 1)
		return -EFBIG;
	*off = (uint32_t)rd->pool.len;
	ret = mntkit__tab_put(&rd->pool, s, n);
	return ret ? ret : mntkit__tab_put(&rd->pool, "", 1);
}
