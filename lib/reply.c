// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Reading the strings of a statmount reply without trusting it: every
 * offset, count and terminator is checked against the reply's size and the
 * number of bytes the caller says are valid. And the one copy of a reply,
 * and of a request.
 */
#include <stdlib.h>
#include <string.h>

#include "groups.h"
#include "internal.h"

const char *mntkit_field_name(enum mntkit_field field)
{
	const struct mntkit__group *d = mntkit__field_group(field);

	return d ? d->name : NULL;
}

static uint32_t u32_at(const struct mntkit_statmount *sm, size_t off)
{
	uint32_t v;

	memcpy(&v, (const char *)sm + off, sizeof(v));
	return v;
}

/*
 * Check the reply's frame and find the field: on success *@area is the
 * string area, *@area_len its length and *@start the field's offset in it.
 */
static int locate(const struct mntkit_statmount *sm, size_t len,
		  const struct mntkit__group *d, const char **area,
		  size_t *area_len, uint32_t *start)
{
	if (!sm)
		return -EINVAL;
	if (len < MNTKIT_STATMOUNT_FIXED_SIZE)
		return -EBADMSG;
	if (!(sm->mask & d->flag))
		return -ENODATA;
	if (sm->size < MNTKIT_STATMOUNT_FIXED_SIZE || sm->size > len)
		return -EBADMSG;
	*area = sm->str;
	*area_len = sm->size - MNTKIT_STATMOUNT_FIXED_SIZE;
	*start = u32_at(sm, d->off);
	if (*start >= *area_len)
		return -EBADMSG;
	return 0;
}

/* length of the string at @off, or -1 when it runs past the area */
static ssize_t str_len(const char *area, size_t area_len, size_t off)
{
	const char *nul = memchr(area + off, '\0', area_len - off);

	return nul ? nul - (area + off) : -1;
}

/*
 * A reply whose size is more than the bytes said valid: malformed, or a
 * caller's mistake; the trace says which it most likely is.
 */
static int short_len(const char *func, const struct mntkit_statmount *sm,
		     size_t len)
{
	if (len == MNTKIT_STATMOUNT_FIXED_SIZE || len == sizeof(*sm))
		return mntkit__misuse(func, EBADMSG,
			"a length of %zu (sizeof the fixed part) where the "
			"reply is %" PRIu32 " bytes: pass sm->size, or the "
			"buffer's size", len, sm->size);
	return mntkit__misuse(func, EBADMSG,
		"the reply says it is %" PRIu32 " bytes, more than the %zu "
		"said valid (a truncated or malformed reply?)", sm->size, len);
}

/* the errno of locate(), with the reason of a caller's mistake */
static int locate_failed(const char *func, int ret,
			 const struct mntkit_statmount *sm, size_t len)
{
	if (!sm)
		return mntkit__misuse(func, EINVAL, "a NULL reply");
	if (ret == -EBADMSG && len >= MNTKIT_STATMOUNT_FIXED_SIZE &&
	    sm->size > len)
		return short_len(func, sm, len);
	if (ret == -EBADMSG && len < MNTKIT_STATMOUNT_FIXED_SIZE)
		return mntkit__misuse(func, EBADMSG,
			"a length of %zu, less than a reply's fixed part "
			"(512 bytes)", len);
	return mntkit__fail(-ret);
}

int mntkit_sm_str(const struct mntkit_statmount *sm, size_t len,
		  enum mntkit_field field, const char **out)
{
	const struct mntkit__group *d = mntkit__field_group(field);
	const char *area;
	size_t area_len;
	uint32_t start;
	int ret;

	if (!out)
		return MNTKIT__MISUSE(EINVAL, "a NULL out pointer");
	if (!d || d->num_off)
		return MNTKIT__MISUSE(EINVAL, "field %d is %s", (int)field,
				      d ? "a string array: mntkit_sm_strv()" :
					  "unknown");
	ret = locate(sm, len, d, &area, &area_len, &start);
	if (ret)
		return locate_failed(__func__, ret, sm, len);
	if (str_len(area, area_len, start) < 0)
		return mntkit__fail(EBADMSG);
	*out = area + start;
	return 0;
}

ssize_t mntkit_sm_strv(const struct mntkit_statmount *sm, size_t len,
		       enum mntkit_field field, const char **vec, size_t nvec)
{
	const struct mntkit__group *d = mntkit__field_group(field);
	const char *area;
	size_t area_len = 0, pos;
	uint32_t start = 0, num;
	int ret;

	if (!d || !d->num_off)
		return MNTKIT__MISUSE(EINVAL, "field %d is %s", (int)field,
				      d ? "a string: mntkit_sm_str()" :
					  "unknown");
	if (nvec && !vec)
		return MNTKIT__MISUSE(EINVAL, "a NULL array of %zu", nvec);
	ret = locate(sm, len, d, &area, &area_len, &start);
	if (ret == -EBADMSG && len >= MNTKIT_STATMOUNT_FIXED_SIZE &&
	    sm->size >= MNTKIT_STATMOUNT_FIXED_SIZE && sm->size <= len &&
	    start == area_len && u32_at(sm, d->num_off) == 0)
		return 0; /* an empty array may point at the end of the area */
	if (ret)
		return locate_failed(__func__, ret, sm, len);
	num = u32_at(sm, d->num_off);
	pos = start;
	for (uint32_t i = 0; i < num; i++) {
		ssize_t l;

		if (pos >= area_len)
			return mntkit__fail(EBADMSG);
		l = str_len(area, area_len, pos);
		if (l < 0)
			return mntkit__fail(EBADMSG);
		if (i < nvec)
			vec[i] = area + pos;
		pos += (size_t)l + 1;
	}
	return (ssize_t)num;
}

const char *mntkit_sm_get(const struct mntkit_statmount *sm,
			  enum mntkit_field field)
{
	const char *s = NULL;

	if (!sm) {
		MNTKIT__MISUSE(EINVAL, "a NULL reply");
		return NULL;
	}
	return mntkit_sm_str(sm, sm->size, field, &s) ? NULL : s;
}

/* ---- copies ---- */

size_t mntkit__sm_size(const struct mntkit_statmount *sm)
{
	return sm->size < MNTKIT_STATMOUNT_FIXED_SIZE ?
		       MNTKIT_STATMOUNT_FIXED_SIZE :
		       sm->size;
}

void mntkit__sm_copy(void *dst, const struct mntkit_statmount *sm)
{
	size_t size = mntkit__sm_size(sm);

	memcpy(dst, sm, sm->size < size ? sm->size : size);
	if (sm->size < size) /* a truncated fixed part reads as zeros */
		memset((char *)dst + sm->size, 0, size - sm->size);
}

struct mntkit_statmount *mntkit__sm_dup(const struct mntkit_statmount *sm)
{
	struct mntkit_statmount *c = malloc(mntkit__sm_size(sm));

	if (c)
		mntkit__sm_copy(c, sm);
	return c;
}

/* ---- replies one after another (mntkit_stat_many()) ---- */

ssize_t mntkit__fill_each(mntkit__statmount_fn *one,
			  struct mntkit_mnt_id_req *req, const uint64_t *ids,
			  size_t n, char *buf, size_t bufsize)
{
	size_t at = 0, k;

	for (k = 0; k < n; k++) {
		struct mntkit_statmount *sm = (void *)(buf + at);
		size_t room = at < bufsize ? bufsize - at : 0;

		req->mnt_id = ids[k];
		if (room >= MNTKIT_STATMOUNT_FIXED_SIZE &&
		    one(req, sm, room, 0) == 0) {
			at += mntkit_stat_span(sm);
			continue;
		}
		if (k)
			break; /* the next call tells why */
		return room < MNTKIT_STATMOUNT_FIXED_SIZE ? -EOVERFLOW : -errno;
	}
	return (ssize_t)k;
}

/* copy_mnt_id_req(): size rules, zero tail; mnt_id is checked later */
int mntkit__req_copy(const struct mntkit_mnt_id_req *ureq,
		     struct mntkit_mnt_id_req *req)
{
	if (!ureq)
		return -EFAULT;
	if (ureq->size > mntkit__page_size())
		return -E2BIG;
	return mntkit__sized_in(req, sizeof(*req), ureq, ureq->size,
				MNTKIT_MNT_ID_REQ_SIZE_VER0);
}

struct mntkit_statmount *mntkit__sm_fit(struct mntkit_statmount *sm)
{
	struct mntkit_statmount *n = realloc(sm, mntkit__sm_size(sm));

	return n ? n : sm;
}

/* ---- a reply grown to fit ---- */

#define GROWN_FIRST 4096
#define GROWN_MAX (64U << 20) /* no reply is larger: strings are pages */

int mntkit__stat_grown(mntkit__statmount_fn *fn,
		       const struct mntkit_mnt_id_req *req, unsigned int flags,
		       struct mntkit_statmount **buf, size_t *bufsize)
{
	size_t size = *bufsize;

	if (!*buf || size < MNTKIT_STATMOUNT_FIXED_SIZE)
		size = GROWN_FIRST;
	for (;;) {
		if (size != *bufsize || !*buf) {
			if (mntkit__resize(buf, size, 1))
				return -ENOMEM;
			*bufsize = size;
		}
		if (fn(req, *buf, size, flags) == 0)
			return 0;
		if (errno != EOVERFLOW || size >= GROWN_MAX)
			return -errno;
		size *= 2;
	}
}
