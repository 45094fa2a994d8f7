// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Diffs of two snapshots: the two ID-sorted tables are merged in O(n); a
 * pair of records with the same ID is compared group by group (only the
 * groups in the records' masks, a group present in one record only counts
 * as changed).
 *
 * Identity. A unique ID (> 2^31) never names two mounts, so the same ID is
 * the same mount. An old ID (<= 2^31) is reused by the kernel as soon as
 * its mount is gone: a pair is the same mount only when nothing that a
 * mount cannot change about itself differs. A mount keeps its superblock
 * (device, magic, fs type and subtype), its mnt_root and its old ID for
 * life; under an old ID a move (parent or mount point) cannot be told
 * from a new mount in the old one's place, so it counts as another mount
 * too. A reused old ID whose record is byte-identical goes unnoticed: the
 * table is then the same, which is all a diff promises.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diff.h"
#include "internal.h"

/* a string group of a record: NULL when absent or unreadable */
static const char *field(const struct mntkit_statmount *sm,
			 enum mntkit_field f)
{
	const char *s;

	if (mntkit_sm_str(sm, sm->size, f, &s) < 0)
		return NULL;
	return s;
}

/* 1 when the string fields differ (an absent one differs from any) */
static int str_differs(const struct mntkit_statmount *a,
		       const struct mntkit_statmount *b, enum mntkit_field f)
{
	const char *x = field(a, f), *y = field(b, f);

	if (!x || !y)
		return x != y;
	return strcmp(x, y) != 0;
}

/* the bytes of a string array field, as a (pointer, length) pair */
static int strv_span(const struct mntkit_statmount *sm, enum mntkit_field f,
		     const char **p, size_t *len)
{
	const char *first = NULL;
	ssize_t n = mntkit_sm_strv(sm, sm->size, f, &first, 1);
	const char *end;

	*p = NULL;
	*len = 0;
	if (n < 0)
		return -1;
	if (n == 0)
		return 0;
	end = first;
	for (ssize_t i = 0; i < n; i++) /* checked by mntkit_sm_strv() */
		end += strlen(end) + 1;
	*p = first;
	*len = (size_t)(end - first);
	return 0;
}

static int strv_differs(const struct mntkit_statmount *a,
			const struct mntkit_statmount *b, enum mntkit_field f)
{
	const char *x, *y;
	size_t xl, yl;
	int ra = strv_span(a, f, &x, &xl), rb = strv_span(b, f, &y, &yl);

	if (ra || rb)
		return ra != rb;
	return xl != yl || (xl && memcmp(x, y, xl));
}

static int has(const struct mntkit_statmount *sm, uint64_t bit)
{
	return (sm->mask & bit) != 0;
}

/* present in exactly one of the two */
static int one_sided(const struct mntkit_statmount *a,
		     const struct mntkit_statmount *b, uint64_t bit)
{
	return has(a, bit) != has(b, bit);
}

/* present in both */
static int both(const struct mntkit_statmount *a,
		const struct mntkit_statmount *b, uint64_t bit)
{
	return has(a, bit) && has(b, bit);
}

/* what a mount cannot change about itself */
static int other_mount(const struct mntkit_statmount *a,
		       const struct mntkit_statmount *b)
{
	if (both(a, b, MNTKIT_STATMOUNT_SB_BASIC) &&
	    (a->sb_dev_major != b->sb_dev_major ||
	     a->sb_dev_minor != b->sb_dev_minor || a->sb_magic != b->sb_magic))
		return 1;
	if (both(a, b, MNTKIT_STATMOUNT_MNT_BASIC) &&
	    a->mnt_id_old != b->mnt_id_old)
		return 1;
	if (both(a, b, MNTKIT_STATMOUNT_MNT_ROOT) &&
	    str_differs(a, b, MNTKIT_FIELD_MNT_ROOT))
		return 1;
	if (both(a, b, MNTKIT_STATMOUNT_FS_TYPE) &&
	    (str_differs(a, b, MNTKIT_FIELD_FS_TYPE) ||
	     str_differs(a, b, MNTKIT_FIELD_FS_SUBTYPE)))
		return 1;
	return 0;
}

static uint32_t basic_changes(const struct mntkit_statmount *a,
			      const struct mntkit_statmount *b)
{
	uint32_t c = 0;

	if (one_sided(a, b, MNTKIT_STATMOUNT_MNT_BASIC))
		return MNTKIT_CHANGED_PARENT | MNTKIT_CHANGED_ATTR |
		       MNTKIT_CHANGED_PROPAGATION;
	if (!has(a, MNTKIT_STATMOUNT_MNT_BASIC))
		return 0;
	if (a->mnt_parent_id != b->mnt_parent_id ||
	    a->mnt_parent_id_old != b->mnt_parent_id_old)
		c |= MNTKIT_CHANGED_PARENT;
	if (a->mnt_attr != b->mnt_attr)
		c |= MNTKIT_CHANGED_ATTR;
	if (a->mnt_propagation != b->mnt_propagation ||
	    a->mnt_peer_group != b->mnt_peer_group ||
	    a->mnt_master != b->mnt_master)
		c |= MNTKIT_CHANGED_PROPAGATION;
	return c;
}

/* a group -> the change bit it belongs to, and how to compare it */
static const struct {
	uint64_t bit;
	uint32_t changed;
	enum mntkit_field f1;
	int strv;
} str_groups[] = {
	{ MNTKIT_STATMOUNT_MNT_POINT, MNTKIT_CHANGED_MNT_POINT,
	  MNTKIT_FIELD_MNT_POINT, 0 },
	{ MNTKIT_STATMOUNT_MNT_OPTS, MNTKIT_CHANGED_OPTIONS,
	  MNTKIT_FIELD_MNT_OPTS, 0 },
	{ MNTKIT_STATMOUNT_SB_SOURCE, MNTKIT_CHANGED_SOURCE,
	  MNTKIT_FIELD_SB_SOURCE, 0 },
	{ MNTKIT_STATMOUNT_OPT_ARRAY, MNTKIT_CHANGED_OPTIONS,
	  MNTKIT_FIELD_OPT_ARRAY, 1 },
	{ MNTKIT_STATMOUNT_OPT_SEC_ARRAY, MNTKIT_CHANGED_OPTIONS,
	  MNTKIT_FIELD_OPT_SEC_ARRAY, 1 },
	{ MNTKIT_STATMOUNT_MNT_UIDMAP, MNTKIT_CHANGED_IDMAP,
	  MNTKIT_FIELD_MNT_UIDMAP, 1 },
	{ MNTKIT_STATMOUNT_MNT_GIDMAP, MNTKIT_CHANGED_IDMAP,
	  MNTKIT_FIELD_MNT_GIDMAP, 1 },
};

static uint32_t string_changes(const struct mntkit_statmount *a,
			       const struct mntkit_statmount *b)
{
	uint32_t c = 0;

	for (size_t i = 0; i < MNTKIT_ARRAY_SIZE(str_groups); i++) {
		uint64_t bit = str_groups[i].bit;
		enum mntkit_field f = str_groups[i].f1;

		if (!has(a, bit) && !has(b, bit))
			continue;
		if (one_sided(a, b, bit) ||
		    (str_groups[i].strv ? strv_differs(a, b, f) :
					  str_differs(a, b, f)))
			c |= str_groups[i].changed;
	}
	return c;
}

enum mntkit__same mntkit__sm_compare(const struct mntkit_statmount *a,
				     const struct mntkit_statmount *b,
				     uint32_t *changed)
{
	uint32_t c;

	*changed = 0;
	if (other_mount(a, b))
		return MNTKIT__OTHER_MOUNT;
	c = basic_changes(a, b) | string_changes(a, b);
	if (one_sided(a, b, MNTKIT_STATMOUNT_SB_BASIC) ||
	    (both(a, b, MNTKIT_STATMOUNT_SB_BASIC) &&
	     a->sb_flags != b->sb_flags))
		c |= MNTKIT_CHANGED_SB_FLAGS;
	if (one_sided(a, b, MNTKIT_STATMOUNT_PROPAGATE_FROM) ||
	    (both(a, b, MNTKIT_STATMOUNT_PROPAGATE_FROM) &&
	     a->propagate_from != b->propagate_from))
		c |= MNTKIT_CHANGED_PROPAGATION;
	/* an old ID that moved is another mount in the old one's place */
	if (a->mnt_id <= MNTKIT_MNT_UNIQUE_ID_OFFSET &&
	    (c & (MNTKIT_CHANGED_PARENT | MNTKIT_CHANGED_MNT_POINT)))
		return MNTKIT__OTHER_MOUNT;
	/* whatever else differs (mask, mnt_ns_id, a group we do not know) */
	if (!c && (a->size != b->size || memcmp(a, b, a->size)))
		c = MNTKIT_CHANGED_OTHER;
	*changed = c;
	return MNTKIT__SAME_MOUNT;
}

enum mntkit_event_kind mntkit__changed_kind(uint32_t changed)
{
	if (changed & (MNTKIT_CHANGED_PARENT | MNTKIT_CHANGED_MNT_POINT))
		return MNTKIT_EVENT_MOVE;
	return changed ? MNTKIT_EVENT_CHANGE : 0;
}

/* ---- the public diff ---- */

struct evvec {
	struct mntkit_event *v;
	size_t n, cap;
};

static int push(struct evvec *ev, enum mntkit_event_kind kind,
		uint32_t changed, uint64_t id, const struct mntkit_statmount *a,
		const struct mntkit_statmount *b)
{
	if (mntkit__vec_room(ev, 1, 64))
		return -ENOMEM;
	ev->v[ev->n++] = (struct mntkit_event){
		.size = sizeof(struct mntkit_event),
		.kind = kind,
		.changed = changed,
		.mnt_id = id,
		.before = a,
		.after = b,
	};
	return 0;
}

/* the events of one ID present in both tables */
static int pair(struct evvec *ev, const struct mntkit_statmount *a,
		const struct mntkit_statmount *b)
{
	uint32_t changed;
	enum mntkit_event_kind kind;
	int ret;

	if (mntkit__sm_compare(a, b, &changed) == MNTKIT__OTHER_MOUNT) {
		ret = push(ev, MNTKIT_EVENT_DETACH, 0, a->mnt_id, a, NULL);
		return ret ? ret :
			     push(ev, MNTKIT_EVENT_ATTACH, 0, b->mnt_id, NULL,
				  b);
	}
	kind = mntkit__changed_kind(changed);
	return kind ? push(ev, kind, changed, a->mnt_id, a, b) : 0;
}

/*
 * The caller's array: @n events of @size bytes each (its sizeof), each
 * with the fields that fit and its @size; the tail past ours zeroed.
 */
static struct mntkit_event *caller_array(const struct evvec *ev, size_t size)
{
	char *out;

	if (!ev->n)
		return NULL;
	out = calloc(ev->n, size);
	if (!out)
		return NULL;
	for (size_t i = 0; i < ev->n; i++) {
		struct mntkit_event *e = (struct mntkit_event *)(out + i * size);

		mntkit__sized_out(e, size, &ev->v[i], sizeof(*ev->v), 0);
		e->size = size;
	}
	return (struct mntkit_event *)out;
}

ssize_t mntkit_diff(const struct mntkit_table *before,
		    const struct mntkit_table *after, unsigned int flags,
		    size_t event_size, struct mntkit_event **events)
{
	size_t na = mntkit_table_count(before), nb = mntkit_table_count(after);
	struct evvec ev = { 0 };
	size_t i = 0, j = 0;
	int ret = 0;

	if (!events)
		return MNTKIT__MISUSE(EINVAL, "a NULL events pointer");
	*events = NULL;
	if (flags)
		return MNTKIT__MISUSE(EINVAL, "unknown flags %#x", flags);
	if (event_size < MNTKIT_EVENT_SIZE_VER0 || event_size > SIZE_MAX / 2)
		return MNTKIT__MISUSE(EINVAL, "event_size %zu: pass sizeof(struct "
				      "mntkit_event)", event_size);
	while (!ret && (i < na || j < nb)) {
		const struct mntkit_statmount *a = mntkit_table_get(before, i);
		const struct mntkit_statmount *b = mntkit_table_get(after, j);

		if (b && (!a || b->mnt_id < a->mnt_id)) {
			ret = push(&ev, MNTKIT_EVENT_ATTACH, 0, b->mnt_id, NULL,
				   b);
			j++;
		} else if (a && (!b || a->mnt_id < b->mnt_id)) {
			ret = push(&ev, MNTKIT_EVENT_DETACH, 0, a->mnt_id, a,
				   NULL);
			i++;
		} else {
			ret = pair(&ev, a, b);
			i++;
			j++;
		}
	}
	if (!ret && event_size != sizeof(*ev.v) && ev.n) {
		struct mntkit_event *v = caller_array(&ev, event_size);

		free(ev.v);
		ev.v = v;
		ret = v ? 0 : -ENOMEM;
	}
	if (ret) {
		free(ev.v);
		return mntkit__fail(-ret);
	}
	*events = ev.v;
	return (ssize_t)ev.n;
}

const char *mntkit_event_kind_name(enum mntkit_event_kind kind)
{
	switch (kind) {
	case MNTKIT_EVENT_ATTACH:
		return "attach";
	case MNTKIT_EVENT_DETACH:
		return "detach";
	case MNTKIT_EVENT_MOVE:
		return "move";
	case MNTKIT_EVENT_CHANGE:
		return "change";
	case MNTKIT_EVENT_RESYNC:
		return "resync";
	case MNTKIT_EVENT_NS_ADD:
		return "ns-add";
	case MNTKIT_EVENT_NS_GONE:
		return "ns-gone";
	}
	return NULL;
}
