// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * test-diff - mntkit_diff() and the record comparison behind it.
 *
 * Two halves: hand-made records (built here field by field) through the
 * library's private comparison, for the identity rules that a live kernel
 * cannot show on demand (reused old IDs, a different superblock under the
 * same ID); and snapshots of a private mount namespace before and after
 * operations whose effect the test knows by itself (IDs from statx).
 */
#include "harness.h"
#include "mntkit.h"

/* private to libmntkit (lib/diff.h); the tests link the static library */
enum mntkit__same {
	MNTKIT__SAME_MOUNT = 0,
	MNTKIT__OTHER_MOUNT = 1,
};
enum mntkit__same mntkit__sm_compare(const struct mntkit_statmount *a,
				     const struct mntkit_statmount *b,
				     uint32_t *changed);
enum mntkit_event_kind mntkit__changed_kind(uint32_t changed);

#define UNIQ(n) ((1ULL << 31) + 1000 + (n))

/* ---- hand-made records ---- */

struct spec {
	uint64_t id, parent;
	uint32_t old, old_parent;
	uint32_t major, minor;
	uint64_t magic;
	uint32_t sb_flags;
	uint64_t attr, prop, peer, master, from;
	const char *root, *point, *type, *subtype, *source, *opts;
	const char *optv[3];
};

static const struct spec base_spec = {
	.id = UNIQ(1), .parent = UNIQ(0), .old = 31, .old_parent = 30,
	.major = 0, .minor = 42, .magic = 0x01021994, .sb_flags = 0,
	.attr = 0x2, .prop = 1ULL << 18, .root = "/", .point = "/mnt/a",
	.type = "tmpfs", .source = "tmpfs", .opts = "size=64k",
	.optv = { "size=64k", NULL },
};

struct builder {
	char *buf;
	size_t used, cap;
};

static uint32_t add_str(struct builder *b, const char *s)
{
	size_t n = strlen(s) + 1;
	uint32_t off = (uint32_t)b->used;

	if (b->used + n > b->cap)
		t_fail("builder too small");
	memcpy(b->buf + 512 + b->used, s, n);
	b->used += n;
	return off;
}

static struct mntkit_statmount *build(const struct spec *s)
{
	struct builder b = { .cap = 2048 };
	struct mntkit_statmount *sm;
	size_t k;

	b.buf = t_xcalloc(1, 512 + b.cap);
	sm = (struct mntkit_statmount *)b.buf;
	add_str(&b, ""); /* str[0] = '\0', as the kernel */
	sm->mask = MNTKIT_STATMOUNT_SB_BASIC | MNTKIT_STATMOUNT_MNT_BASIC |
		   MNTKIT_STATMOUNT_PROPAGATE_FROM | MNTKIT_STATMOUNT_MNT_ROOT |
		   MNTKIT_STATMOUNT_FS_TYPE | MNTKIT_STATMOUNT_SB_SOURCE;
	sm->sb_dev_major = s->major;
	sm->sb_dev_minor = s->minor;
	sm->sb_magic = s->magic;
	sm->sb_flags = s->sb_flags;
	sm->mnt_id = s->id;
	sm->mnt_parent_id = s->parent;
	sm->mnt_id_old = s->old;
	sm->mnt_parent_id_old = s->old_parent;
	sm->mnt_attr = s->attr;
	sm->mnt_propagation = s->prop;
	sm->mnt_peer_group = s->peer;
	sm->mnt_master = s->master;
	sm->propagate_from = s->from;
	sm->mnt_root = add_str(&b, s->root);
	sm->fs_type = add_str(&b, s->type);
	sm->sb_source = add_str(&b, s->source);
	if (s->point) {
		sm->mnt_point = add_str(&b, s->point);
		sm->mask |= MNTKIT_STATMOUNT_MNT_POINT;
	}
	if (s->subtype) {
		sm->fs_subtype = add_str(&b, s->subtype);
		sm->mask |= MNTKIT_STATMOUNT_FS_SUBTYPE;
	}
	if (s->opts) {
		sm->mnt_opts = add_str(&b, s->opts);
		sm->mask |= MNTKIT_STATMOUNT_MNT_OPTS;
	}
	for (k = 0; k < 3 && s->optv[k]; k++) {
		uint32_t off = add_str(&b, s->optv[k]);

		if (k == 0)
			sm->opt_array = off;
	}
	if (k) {
		sm->opt_num = (uint32_t)k;
		sm->mask |= MNTKIT_STATMOUNT_OPT_ARRAY;
	}
	sm->size = (uint32_t)(512 + b.used);
	return sm;
}

/* compare base_spec with @s: the result and the changed bits */
static void cmp_case(const struct spec *s, enum mntkit__same want,
		     uint32_t want_changed)
{
	struct mntkit_statmount *a = build(&base_spec), *b = build(s);
	uint32_t changed = 0xdead;
	enum mntkit__same got = mntkit__sm_compare(a, b, &changed);

	T_EQ_U(got, want);
	T_EQ_U(changed, want == MNTKIT__OTHER_MOUNT ? 0 : want_changed);
	/* symmetric */
	got = mntkit__sm_compare(b, a, &changed);
	T_EQ_U(got, want);
	T_EQ_U(changed, want == MNTKIT__OTHER_MOUNT ? 0 : want_changed);
	free(a);
	free(b);
}

T_CASE(cmp_identical)
{
	cmp_case(&base_spec, MNTKIT__SAME_MOUNT, 0);
}

T_CASE(cmp_each_change)
{
	struct spec s;

#define ONE(field, value, bit)                                                 \
	do {                                                                   \
		s = base_spec;                                                 \
		s.field = value;                                               \
		cmp_case(&s, MNTKIT__SAME_MOUNT, bit);                         \
	} while (0)
	ONE(attr, 0x3, MNTKIT_CHANGED_ATTR);
	ONE(prop, 1ULL << 20, MNTKIT_CHANGED_PROPAGATION);
	ONE(peer, 7, MNTKIT_CHANGED_PROPAGATION);
	ONE(master, 9, MNTKIT_CHANGED_PROPAGATION);
	ONE(from, 9, MNTKIT_CHANGED_PROPAGATION);
	ONE(sb_flags, 1, MNTKIT_CHANGED_SB_FLAGS);
	ONE(opts, "size=128k", MNTKIT_CHANGED_OPTIONS);
	ONE(optv[0], "size=128k", MNTKIT_CHANGED_OPTIONS);
	ONE(optv[1], "nr_inodes=5", MNTKIT_CHANGED_OPTIONS);
	ONE(opts, NULL, MNTKIT_CHANGED_OPTIONS); /* group gone */
	ONE(source, "other", MNTKIT_CHANGED_SOURCE);
	ONE(point, "/mnt/b", MNTKIT_CHANGED_MNT_POINT);
	ONE(point, NULL, MNTKIT_CHANGED_MNT_POINT); /* now unreachable */
	ONE(parent, UNIQ(5), MNTKIT_CHANGED_PARENT);
	ONE(old_parent, 77, MNTKIT_CHANGED_PARENT);
#undef ONE
	s = base_spec;
	s.parent = UNIQ(5);
	s.old_parent = 77;
	s.point = "/elsewhere";
	s.attr = 0x1;
	cmp_case(&s, MNTKIT__SAME_MOUNT,
		 MNTKIT_CHANGED_PARENT | MNTKIT_CHANGED_MNT_POINT |
			 MNTKIT_CHANGED_ATTR);
}

T_CASE(cmp_other_mount_unique_id)
{
	struct spec s;

#define OTHER(field, value)                                                    \
	do {                                                                   \
		s = base_spec;                                                 \
		s.field = value;                                               \
		cmp_case(&s, MNTKIT__OTHER_MOUNT, 0);                          \
	} while (0)
	OTHER(minor, 43);
	OTHER(major, 8);
	OTHER(magic, 0xef53);
	OTHER(root, "/sub");
	OTHER(type, "ramfs");
	OTHER(subtype, "x"); /* fuse vs fuse.x */
	OTHER(old, 32);
#undef OTHER
}

T_CASE(cmp_reused_old_id)
{
	struct spec s = base_spec;

	s.id = 31; /* an old ID: a move is another mount in its place */
	s.parent = 30;
	{
		struct spec t = s;
		struct mntkit_statmount *a = build(&s), *b;
		uint32_t changed;

		t.point = "/mnt/b";
		b = build(&t);
		T_EQ_U(mntkit__sm_compare(a, b, &changed), MNTKIT__OTHER_MOUNT);
		free(b);
		t = s;
		t.parent = 29;
		t.old_parent = 29;
		b = build(&t);
		T_EQ_U(mntkit__sm_compare(a, b, &changed), MNTKIT__OTHER_MOUNT);
		free(b);
		/* a remount is still the same mount */
		t = s;
		t.attr = 0x1;
		b = build(&t);
		T_EQ_U(mntkit__sm_compare(a, b, &changed), MNTKIT__SAME_MOUNT);
		T_EQ_U(changed, MNTKIT_CHANGED_ATTR);
		free(b);
		/* a new tmpfs in the old one's place: new device */
		t = s;
		t.minor = 99;
		b = build(&t);
		T_EQ_U(mntkit__sm_compare(a, b, &changed), MNTKIT__OTHER_MOUNT);
		free(b);
		free(a);
	}
}

T_CASE(cmp_unknown_bytes)
{
	struct mntkit_statmount *a = build(&base_spec), *b = build(&base_spec);
	uint32_t changed;

	b->__spare2[3] = 1; /* something this library does not know */
	T_EQ_U(mntkit__sm_compare(a, b, &changed), MNTKIT__SAME_MOUNT);
	T_EQ_U(changed, MNTKIT_CHANGED_OTHER);
	b->__spare2[3] = 0;
	b->mask |= MNTKIT_STATMOUNT_MNT_NS_ID;
	T_EQ_U(mntkit__sm_compare(a, b, &changed), MNTKIT__SAME_MOUNT);
	T_EQ_U(changed, MNTKIT_CHANGED_OTHER);
	free(a);
	free(b);
}

T_CASE(changed_kind_and_names)
{
	char buf[128], small[8];

	T_EQ_U(mntkit__changed_kind(0), 0);
	T_EQ_U(mntkit__changed_kind(MNTKIT_CHANGED_ATTR), MNTKIT_EVENT_CHANGE);
	T_EQ_U(mntkit__changed_kind(MNTKIT_CHANGED_PARENT |
				    MNTKIT_CHANGED_ATTR),
	       MNTKIT_EVENT_MOVE);
	T_EQ_U(mntkit__changed_kind(MNTKIT_CHANGED_MNT_POINT),
	       MNTKIT_EVENT_MOVE);
	T_EQ_STR(mntkit_event_kind_name(MNTKIT_EVENT_ATTACH), "attach");
	T_EQ_STR(mntkit_event_kind_name(MNTKIT_EVENT_DETACH), "detach");
	T_EQ_STR(mntkit_event_kind_name(MNTKIT_EVENT_MOVE), "move");
	T_EQ_STR(mntkit_event_kind_name(MNTKIT_EVENT_CHANGE), "change");
	T_EQ_STR(mntkit_event_kind_name(MNTKIT_EVENT_RESYNC), "resync");
	T_NULL(mntkit_event_kind_name((enum mntkit_event_kind)0));
	T_EQ_I(mntkit_changed_str(0, 0, buf, sizeof(buf)), 0);
	T_EQ_STR(buf, "");
	T_EQ_I(mntkit_changed_str(MNTKIT_CHANGED_OTHER | MNTKIT_CHANGED_PARENT |
					  MNTKIT_CHANGED_OPTIONS,
				  0, buf, sizeof(buf)),
	       strlen("parent,options,other"));
	T_EQ_STR(buf, "parent,options,other");
	T_EQ_I(mntkit_changed_str(0xffffffffU, 0, buf, sizeof(buf)),
	       strlen("parent,mnt_point,attr,propagation,sb_flags,options,"
		      "source,idmap,other"));
	T_EQ_I(mntkit_changed_str(MNTKIT_CHANGED_PROPAGATION, 0, small,
				  sizeof(small)),
	       11);
	T_EQ_STR(small, "propaga");
	T_EQ_I(mntkit_changed_str(MNTKIT_CHANGED_ATTR, 0, NULL, 0), 4);
	/* a decoder: flags other than 0 are refused */
	T_NEG(mntkit_changed_str(MNTKIT_CHANGED_ATTR, 1, buf, sizeof(buf)),
	      EINVAL);
}

/* ---- live snapshots ---- */

#define FULL (MNTKIT_STATMOUNT_ALL & ~MNTKIT_STATMOUNT_SUPPORTED_MASK)

static struct mntkit_table *snap(void)
{
	struct mntkit_table *t = NULL;
	int r = mntkit_table_new(FULL, 0, NULL, &t);

	T_ASSERTF(r == 0, "mntkit_table_new: %s", strerror(-r));
	return t;
}

T_CASE(diff_same_and_empty)
{
	struct mntkit_table *t;
	struct mntkit_event *ev = (void *)1;
	ssize_t n, k;

	t = snap();
	n = mntkit_diff(t, t, 0, sizeof(ev[0]), &ev);
	T_EQ_I(n, 0);
	T_NULL(ev);
	k = (ssize_t)mntkit_table_count(t);
	n = mntkit_diff(NULL, t, 0, sizeof(ev[0]), &ev);
	T_EQ_I(n, k);
	for (ssize_t i = 0; i < n; i++) {
		T_EQ_U(ev[i].kind, MNTKIT_EVENT_ATTACH);
		T_ASSERT(ev[i].after == mntkit_table_get(t, (size_t)i));
		T_NULL(ev[i].before);
	}
	free(ev);
	n = mntkit_diff(t, NULL, 0, sizeof(ev[0]), &ev);
	T_EQ_I(n, k);
	for (ssize_t i = 0; i < n; i++) {
		T_EQ_U(ev[i].kind, MNTKIT_EVENT_DETACH);
		T_ASSERT(ev[i].before == mntkit_table_get(t, (size_t)i));
		T_NULL(ev[i].after);
	}
	free(ev);
	T_NEG(mntkit_diff(t, t, 1, sizeof(ev[0]), &ev), EINVAL);
	T_NEG(mntkit_diff(t, t, 0, sizeof(struct mntkit_event), NULL), EINVAL);
	mntkit_table_free(t);
}

struct want {
	enum mntkit_event_kind kind;
	uint64_t id;
	uint32_t changed;
};

static int cmp_want(const void *a, const void *b)
{
	const struct want *x = a, *y = b;

	return x->id < y->id ? -1 : x->id > y->id;
}

T_CASE(diff_operations)
{
	struct mntkit_table *t0, *t1;
	struct mntkit_event *ev;
	struct want want[8];
	size_t nw = 0;
	char *d, *x, *y, *z, *zc, *z2, *w, *v, *u;
	uint64_t idz, idzc, idw, idv, idu;
	ssize_t n;
	t_private_ns();
	if (t_uid("/") <= (1ULL << 31))
		t_skip("no unique mount IDs");
	d = t_tmpdir();
	x = t_path("%s/x", d);
	y = t_path("%s/y", d);
	z = t_path("%s/z", d);
	zc = t_path("%s/z/c", d);
	z2 = t_path("%s/z2", d);
	w = t_path("%s/w", d);
	v = t_path("%s/v", d);
	u = t_path("%s/u", d);
	t_mkdir(z2);
	idz = t_tmpfs(z, 0, NULL);
	idzc = t_tmpfs(zc, 0, NULL);
	idw = t_tmpfs(w, 0, NULL);
	idv = t_tmpfs(v, 0, NULL);
	idu = t_tmpfs(u, 0, NULL);
	t0 = snap();

	want[nw++] = (struct want){ MNTKIT_EVENT_ATTACH, t_tmpfs(x, 0, NULL),
				    0 };
	want[nw++] = (struct want){ MNTKIT_EVENT_ATTACH, t_bind(x, y, 0), 0 };
	t_mount(z, z2, NULL, MS_MOVE, NULL);
	want[nw++] = (struct want){ MNTKIT_EVENT_MOVE, idz,
				    MNTKIT_CHANGED_MNT_POINT };
	want[nw++] = (struct want){ MNTKIT_EVENT_MOVE, idzc,
				    MNTKIT_CHANGED_MNT_POINT };
	t_mount(NULL, w, NULL, MS_REMOUNT | MS_BIND | MS_RDONLY, NULL);
	/* a superblock remount sets the per-mount flags too (ro kept) */
	t_mount(NULL, w, NULL, MS_REMOUNT | MS_RDONLY, "size=2m");
	want[nw++] = (struct want){ MNTKIT_EVENT_CHANGE, idw,
				    MNTKIT_CHANGED_ATTR |
					    MNTKIT_CHANGED_SB_FLAGS |
					    MNTKIT_CHANGED_OPTIONS };
	t_mount(NULL, v, NULL, MS_SHARED, NULL);
	want[nw++] = (struct want){ MNTKIT_EVENT_CHANGE, idv,
				    MNTKIT_CHANGED_PROPAGATION };
	t_umount(u);
	want[nw++] = (struct want){ MNTKIT_EVENT_DETACH, idu, 0 };
	t1 = snap();
	qsort(want, nw, sizeof(*want), cmp_want);

	n = mntkit_diff(t0, t1, 0, sizeof(ev[0]), &ev);
	for (ssize_t i = 0; i < n; i++)
		t_log("event %s %#" PRIx64 " changed %#x\n",
		      mntkit_event_kind_name(ev[i].kind), ev[i].mnt_id,
		      ev[i].changed);
	T_EQ_I(n, (ssize_t)nw);
	for (size_t i = 0; i < nw; i++) {
		const struct mntkit_event *e = &ev[i];

		T_EQ_U(e->mnt_id, want[i].id);
		T_EQ_U(e->kind, want[i].kind);
		T_EQ_U(e->changed, want[i].changed);
		T_EQ_U(e->flags, 0);
		if (e->before)
			T_ASSERT(e->before ==
				 mntkit_table_get(
					 t0, (size_t)mntkit_table_find(
						     t0, e->mnt_id)));
		if (e->after)
			T_ASSERT(e->after ==
				 mntkit_table_get(
					 t1, (size_t)mntkit_table_find(
						     t1, e->mnt_id)));
		T_ASSERT((e->before != NULL) ==
			 (e->kind != MNTKIT_EVENT_ATTACH));
		T_ASSERT((e->after != NULL) ==
			 (e->kind != MNTKIT_EVENT_DETACH));
	}
	/* the moved mount's new place, the child's too */
	for (size_t i = 0; i < nw; i++) {
		const char *p = NULL;

		if (ev[i].kind != MNTKIT_EVENT_MOVE)
			continue;
		T_ASSERT(mntkit_sm_str(ev[i].after, ev[i].after->size,
				       MNTKIT_FIELD_MNT_POINT, &p) == 0);
		T_EQ_STR(p, ev[i].mnt_id == idz ? z2 : t_path("%s/c", z2));
	}
	free(ev);
	/* and back: the reverse diff has the reverse kinds */
	n = mntkit_diff(t1, t0, 0, sizeof(ev[0]), &ev);
	T_EQ_I(n, (ssize_t)nw);
	for (size_t i = 0; i < nw; i++) {
		enum mntkit_event_kind k = want[i].kind;

		if (k == MNTKIT_EVENT_ATTACH)
			k = MNTKIT_EVENT_DETACH;
		else if (k == MNTKIT_EVENT_DETACH)
			k = MNTKIT_EVENT_ATTACH;
		T_EQ_U(ev[i].kind, k);
		T_EQ_U(ev[i].changed, want[i].changed);
	}
	free(ev);
	mntkit_table_free(t0);
	mntkit_table_free(t1);
}

int main(int argc, char **argv)
{
	return t_run(argc, argv);
}
