// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The emulation's reply writer: a statmount reply laid out as the kernel
 * lays it (fixed part, string area in the kernel's order, EOVERFLOW),
 * from a table entry and/or a kernel reply, and its copy to the caller.
 * (lib/emul.h)
 */
#include <dirent.h>
#include <stddef.h>
#include <fcntl.h>
#include <poll.h>
#include <sys/epoll.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#include "emul.h"
#include "syscall.h"

/* @n more bytes, with room for a spare one */
static inline int put(struct reply *r, const void *p, size_t n)
{
	if (r->cap - r->len < n + 1 &&
	    mntkit__grow(&r->str, &r->cap, r->len + n + 1, 1, 1024))
		return -ENOMEM;
	memcpy(r->str + r->len, p, n);
	r->len += n;
	return 0;
}

static int str_end_always(struct reply *r, size_t start, uint64_t flag,
			  uint32_t *offp);

/* start a string: the area begins with an empty string (offset 0 = "") */
static int str_begin(struct reply *r, size_t *start)
{
	int ret = 0;

	if (!r->len)
		ret = put(r, "", 1);
	*start = r->len;
	return ret;
}

/* end a string: nothing emitted leaves the group out */
static int str_end(struct reply *r, size_t start, uint64_t flag,
		   uint32_t *offp)
{
	if (r->len == start)
		return 0;
	return str_end_always(r, start, flag, offp);
}

/* end a string, also an empty one (the kernel's words, copied) */
static int str_end_always(struct reply *r, size_t start, uint64_t flag,
			  uint32_t *offp)
{
	if (MNTKIT_STATMOUNT_FIXED_SIZE + r->len >= r->bufsize)
		return -EOVERFLOW;
	if (put(r, "", 1))
		return -ENOMEM;
	r->sm->mask |= flag;
	*offp = (uint32_t)start;
	return 0;
}

static int str_span(struct reply *r, const struct table *t,
		    struct mntkit_mi_span s, uint64_t flag, uint32_t *offp)
{
	size_t start;
	int ret = str_begin(r, &start);

	if (!ret)
		ret = put(r, mntkit__mi_str(&t->mi, s), s.len);
	return ret ? ret : str_end(r, start, flag, offp);
}

/* the kernel's statmount_opt_process(): split at ',' (and NUL), unescape */
static int str_opt_array(struct reply *r, const char *p, size_t n,
			 uint64_t flag, uint32_t *offp, uint32_t *nump)
{
	size_t start, i = 1;
	uint32_t count = 0;
	int ret = str_begin(r, &start);

	if (ret)
		return ret;
	while (n > 1 && i < n) {
		size_t b = i, l;
		char *dst;

		while (i < n && p[i] != ',' && p[i])
			i++;
		ret = put(r, p + b, i - b + 1);
		if (ret)
			return ret;
		dst = r->str + r->len - (i - b + 1);
		l = mntkit__unescape(dst, dst, i - b);
		dst[l] = '\0';
		r->len -= (i - b) - l;
		count++;
		i++;
	}
	if (count)
		r->len--; /* the last NUL is str_end's */
	ret = str_end(r, start, flag, offp);
	if (!ret && (r->sm->mask & flag))
		*nump = count;
	return ret;
}

static uint32_t *sm_u32(struct mntkit_statmount *sm, size_t off)
{
	return (uint32_t *)((char *)sm + off);
}

/* one string group of entry @i of the table */
static int emul_string(struct reply *r, const struct table *t, size_t i,
		       const struct mntkit__group *g)
{
	const struct mntkit_mi *m = &t->mi.v[i];
	const char *opts = mntkit__mi_str(&t->mi, m->opts);
	uint32_t *offp = sm_u32(r->sm, g->off);
	size_t start;
	int ret;

	switch (g->flag) {
	case MNTKIT_STATMOUNT_FS_TYPE:
		return str_span(r, t, m->type, g->flag, offp);
	case MNTKIT_STATMOUNT_MNT_ROOT:
		return str_span(r, t, m->root, g->flag, offp);
	case MNTKIT_STATMOUNT_MNT_POINT:
		return str_span(r, t, m->point, g->flag, offp);
	case MNTKIT_STATMOUNT_MNT_OPTS:
		/* LSM + fs options without the first ',' */
		ret = str_begin(r, &start);
		if (!ret && m->opts.len > 1)
			ret = put(r, opts + 1, m->opts.len - 1);
		return ret ? ret : str_end(r, start, g->flag, offp);
	case MNTKIT_STATMOUNT_OPT_ARRAY:
		return str_opt_array(r, opts + m->sec_len,
				     m->opts.len - m->sec_len, g->flag, offp,
				     sm_u32(r->sm, g->num_off));
	case MNTKIT_STATMOUNT_OPT_SEC_ARRAY:
		return str_opt_array(r, opts, m->sec_len, g->flag, offp,
				     sm_u32(r->sm, g->num_off));
	case MNTKIT_STATMOUNT_FS_SUBTYPE:
		return str_span(r, t, m->subtype, g->flag, offp);
	case MNTKIT_STATMOUNT_SB_SOURCE:
		return str_span(r, t, m->source, g->flag, offp);
	}
	/* idmappings are not in mountinfo: nothing is emitted, so the
	 * groups stay out of the mask (as for a mount without idmapping) */
	return str_begin(r, &start);
}

/*
 * One string group copied from a kernel reply @nat (of nat->size valid
 * bytes): what the kernel wrote, or nothing when it wrote nothing.
 */
static int native_string(struct reply *r, const struct mntkit_statmount *nat,
			 const struct mntkit__group *g)
{
	size_t area, off, n = 0, start;
	uint32_t num = 1;
	const char *p;
	int ret = str_begin(r, &start);

	if (ret || !(nat->mask & g->flag))
		return ret;
	area = nat->size > MNTKIT_STATMOUNT_FIXED_SIZE ?
		       nat->size - MNTKIT_STATMOUNT_FIXED_SIZE :
		       0;
	off = *sm_u32((struct mntkit_statmount *)nat, g->off);
	if (g->num_off)
		num = *sm_u32((struct mntkit_statmount *)nat, g->num_off);
	if (off >= area || !num)
		return -EIO; /* the kernel's reply does not hold together */
	p = nat->str + off;
	/* the strings, each with its NUL; the last NUL is str_end's */
	for (uint32_t k = 0; k < num; k++) {
		const char *nul = memchr(p + n, '\0', area - off - n);

		if (!nul)
			return -EIO;
		n = (size_t)(nul - p) + 1;
	}
	/* 6.8 - 6.12's empty MNT_OPTS / MNT_POINT: left out, as on 6.18 */
	if (n == 1 && (g->flag & (MNTKIT_STATMOUNT_MNT_OPTS |
				  MNTKIT_STATMOUNT_MNT_POINT)))
		return 0;
	ret = put(r, p, n - 1);
	if (!ret)
		ret = str_end_always(r, start, g->flag, sm_u32(r->sm, g->off));
	if (!ret && g->num_off)
		*sm_u32(r->sm, g->num_off) = num;
	return ret;
}

/*
 * The string groups of @want in the kernel's order. Those of @kmask come
 * from the kernel's reply @nat (when not NULL), the others from entry @i
 * of @t; with neither (@t NULL), a group emits nothing.
 */
static int fill_strings(struct reply *r, const struct table *t, size_t i,
			uint64_t want, const struct mntkit_statmount *nat,
			uint64_t kmask)
{
	size_t start;
	int ret = 0;

	for (size_t k = 0; !ret && k < MNTKIT__NSTR_GROUPS; k++) {
		const struct mntkit__group *g = mntkit__str_groups[k];

		if (!(want & g->flag))
			continue;
		if (nat && (kmask & g->flag))
			ret = native_string(r, nat, g);
		else if (t)
			ret = emul_string(r, t, i, g);
		else
			ret = str_begin(r, &start);
	}
	return ret;
}

/* statfs's f_type through the mount point of entry @i, if it resolves */
static int point_f_type(struct table *t, size_t i, uint64_t *magic)
{
	mntkit__emul_probe_point(t, i, 1);
	if (!t->probe[i].has_f_type)
		return 0;
	*magic = t->probe[i].f_type;
	return 1;
}

/*
 * The superblock magic of entry @i: its type's fixed one (fsmagic.c), else
 * statfs through its mount point, else (hidden: the point does not lead
 * to it) through the point of another mount of the same superblock (same
 * st_dev and type: a devtmpfs hidden here and also on /dev). 0 when none
 * can tell; the rest of SB_BASIC (device, flags) is mountinfo's and is
 * answered all the same.
 */
static uint64_t sb_magic(struct table *t, size_t i)
{
	const struct mntkit_mi *m = &t->mi.v[i];
	struct fstype ft = mntkit__emul_type_of(t, i);
	uint64_t magic;

	if (ft.known)
		return ft.magic;
	if (!ft.statfs_ok)
		return 0; /* a served type: its statfs asks the server */
	if (point_f_type(t, i, &magic))
		return magic;
	for (size_t j = 0; j < t->mi.n; j++) {
		const struct mntkit_mi *o = &t->mi.v[j];

		if (j == i || o->major != m->major || o->minor != m->minor ||
		    !mntkit__emul_same_type(t, o->type, m->type))
			continue;
		if (point_f_type(t, j, &magic))
			return magic;
	}
	return 0;
}

/* the ID of the parent: its key if listed, else its old ID */
static uint64_t parent_key(const struct table *t, size_t i)
{
	int32_t p = t->ix.parent[i];

	if (p >= 0)
		return t->ix.key[p];
	if (t->mi.v[i].parent == t->mi.v[i].id)
		return t->ix.key[i];
	return t->mi.v[i].parent;
}

/* a slave's propagate_from when mountinfo does not print it */
static uint64_t dominating(const struct table *t, size_t i)
{
	const struct mntkit_mi *m = &t->mi.v[i];

	if (m->propagate_from)
		return m->propagate_from;
	/*
	 * Not printed: the dominating group is the master's when a peer of
	 * the master is visible here (then mountinfo omits it as equal),
	 * else there is none (0).
	 */
	size_t lo = 0, hi = t->ngroups;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (t->groups[mid] == m->master)
			return m->master;
		if (t->groups[mid] < m->master)
			lo = mid + 1;
		else
			hi = mid;
	}
	return 0;
}

static void fill_fixed(struct reply *r, struct table *t, size_t i,
		       uint64_t want)
{
	const struct mntkit_mi *m = &t->mi.v[i];
	struct mntkit_statmount *sm = r->sm;

	if ((want & MNTKIT_STATMOUNT_MNT_BASIC) && !m->unknown_attr &&
	    !m->unknown_tag) {
		sm->mask |= MNTKIT_STATMOUNT_MNT_BASIC;
		sm->mnt_id = t->ix.key[i];
		sm->mnt_parent_id = parent_key(t, i);
		mntkit__mi_basic(sm, m);
	}
	if (want & MNTKIT_STATMOUNT_SB_BASIC) {
		sm->mask |= MNTKIT_STATMOUNT_SB_BASIC;
		sm->sb_dev_major = m->major;
		sm->sb_dev_minor = m->minor;
		sm->sb_magic = sb_magic(t, i);
		sm->sb_flags = m->sb_flags;
	}
	if ((want & MNTKIT_STATMOUNT_PROPAGATE_FROM) && !m->unknown_tag) {
		sm->mask |= MNTKIT_STATMOUNT_PROPAGATE_FROM;
		/* the kernel looks for the dominating peer under the
		 * caller's root: none is in a foreign namespace */
		if (m->master && !t->pid)
			sm->propagate_from = dominating(t, i);
	}
}

/*
 * A whole reply for @want: the groups of @kmask from the kernel's reply
 * @nat (when not NULL), the others from entry @i of @t (nothing when @t is
 * NULL). @supported is the supported_mask the emulation reports.
 */
int mntkit__emul_fill_reply(struct reply *r, struct table *t, size_t i,
			    uint64_t want, const struct mntkit_statmount *nat,
			    uint64_t kmask, uint64_t supported)
{
	uint64_t emul = nat ? want & ~kmask : want;

	memset(r->sm, 0, MNTKIT_STATMOUNT_FIXED_SIZE);
	/* the kernel's fixed groups */
	for (size_t k = 0; nat && k < MNTKIT__NGROUPS; k++) {
		const struct mntkit__group *g = &mntkit__groups[k];

		if (!g->len || !(want & kmask & g->flag) ||
		    !(nat->mask & g->flag))
			continue;
		memcpy((char *)r->sm + g->off, (const char *)nat + g->off,
		       g->len);
		r->sm->mask |= g->flag;
	}
	if (t) {
		fill_fixed(r, t, i, emul);
		if ((emul & MNTKIT_STATMOUNT_MNT_NS_ID) && t->has_ns_id) {
			r->sm->mask |= MNTKIT_STATMOUNT_MNT_NS_ID;
			r->sm->mnt_ns_id = t->ns_id;
		}
	}
	/* what this statmount supports: the kernel's and the emulation's
	 * groups in a hybrid reply */
	if ((emul & MNTKIT_STATMOUNT_SUPPORTED_MASK) ||
	    (r->sm->mask & MNTKIT_STATMOUNT_SUPPORTED_MASK)) {
		r->sm->mask |= MNTKIT_STATMOUNT_SUPPORTED_MASK;
		r->sm->supported_mask = supported;
	}
	return fill_strings(r, t, i, want, nat, kmask);
}

/* the string area of the replies (emul.h) */
struct mntkit__emul_scratch mntkit__emul_scratch;

/*
 * Give a reply to the caller (under @mntkit__emul_lock; @ret the outcome so far) and
 * return the scratch area. Syscall convention.
 */
int mntkit__emul_reply_out(struct reply *r, int ret, struct mntkit_statmount *buf,
			   size_t bufsize)
{
	size_t copysize;

	if (ret)
		goto out;
	/*
	 * As copy_statmount_to_user(): the fixed part up to bufsize, then
	 * the strings. The kernel also writes the string area's leading
	 * NUL when no string was emitted and bufsize <= 512, i.e. past the
	 * buffer; the emulation never writes past bufsize.
	 */
	copysize = bufsize < MNTKIT_STATMOUNT_FIXED_SIZE ?
			   bufsize : MNTKIT_STATMOUNT_FIXED_SIZE;
	r->sm->size = (uint32_t)(copysize + r->len);
	if (!buf && (copysize || r->len)) {
		ret = -EFAULT;
		goto out;
	}
	if (copysize)
		memcpy(buf, r->sm, copysize);
	if (r->len && bufsize > MNTKIT_STATMOUNT_FIXED_SIZE) {
		size_t room = bufsize - MNTKIT_STATMOUNT_FIXED_SIZE;

		memcpy(buf->str, r->str, r->len < room ? r->len : room);
	}
out:
	if (r->cap > SCRATCH_KEEP) {
		free(r->str);
		r->str = NULL;
		r->cap = 0;
	}
	mntkit__emul_scratch.str = r->str;
	mntkit__emul_scratch.cap = r->cap;
	if (ret) {
		errno = -ret;
		return -1;
	}
	return 0;
}
