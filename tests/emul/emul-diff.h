/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * emul-diff.h - compare the mountinfo emulation with the kernel's own
 * statmount(2)/listmount(2), mount by mount, byte by byte.
 *
 * The only differences allowed are the documented ones, each applied to
 * the native reply before the comparison (and counted):
 *  - IDs: a mount whose mount point does not resolve to it is named by its
 *    old ID (mnt_id, and mnt_parent_id of its children); a parent outside
 *    the table is named by its old ID;
 *  - supported_mask: the emulation's own mask;
 *  - mnt_uidmap/mnt_gidmap: absent (not in mountinfo);
 *  - sb_magic: 0 for a hidden mount whose type the magic table lacks and
 *    whose superblock no other mount point of the table leads to (the
 *    rest of SB_BASIC is there and equal).
 * Everything else - every fixed field, every string offset, every byte of
 * the string area, the size, the mask - must be identical.
 */
#ifndef MNTKIT_EMUL_DIFF_H
#define MNTKIT_EMUL_DIFF_H

#include "harness.h"

#include "internal.h"
#include "mntkit.h"
#include "mountinfo.h"

#define ED_ALL 0x7fffULL

struct ed_map {
	size_t n;
	uint64_t *nat;  /* native unique IDs, ascending */
	uint64_t *emu;  /* the emulation's ID of the same mount */
	uint32_t *old;
};

struct ed_stats {
	size_t mounts, replies, hidden, unknown_magic, idmapped;
};

static struct ed_stats ed_stats;

static inline int ed_emul_sm(uint64_t id, uint64_t mask, uint64_t ns_id,
			     void *buf, size_t size)
{
	struct mntkit_mnt_id_req req = {
		.size = ns_id ? 32 : 24, .mnt_id = id, .param = mask,
		.mnt_ns_id = ns_id,
	};

	return mntkit_mountinfo_ops.statmount(&req, buf, size, 0);
}

/* a reply grown to fit; NULL and errno on failure */
static inline void *ed_emul_sm_alloc(uint64_t id, uint64_t mask,
				     uint64_t ns_id)
{
	size_t size = 4096;

	for (;;) {
		char *buf = t_xcalloc(1, size);

		if (ed_emul_sm(id, mask, ns_id, buf, size) == 0)
			return buf;
		free(buf);
		if (errno != EOVERFLOW)
			return NULL;
		size *= 2;
		if (size > (64u << 20))
			t_fail("emulated reply does not fit 64M");
	}
}

static inline ssize_t ed_emul_lm_page(uint64_t start, uint64_t cursor,
				      uint64_t ns_id, uint64_t *ids, size_t nr,
				      unsigned int flags)
{
	struct mntkit_mnt_id_req req = {
		.size = ns_id ? 32 : 24, .mnt_id = start, .param = cursor,
		.mnt_ns_id = ns_id,
	};

	return mntkit_mountinfo_ops.listmount(&req, ids, nr, flags);
}

/* all pages of an emulated listing */
static inline size_t ed_emul_lm(uint64_t start, unsigned int flags,
				uint64_t ns_id, uint64_t **out)
{
	size_t n = 0, cap = 256;
	uint64_t *v = t_xmalloc(cap * sizeof(*v)), cursor = 0;

	for (;;) {
		ssize_t r;

		if (cap - n < 100) {
			cap *= 2;
			v = t_xrealloc(v, cap * sizeof(*v));
		}
		r = ed_emul_lm_page(start, cursor, ns_id, v + n, 100, flags);
		if (r < 0)
			t_fail("emulated listmount(%#" PRIx64 "): %s", start,
			       strerror(errno));
		if (r == 0)
			break;
		n += (size_t)r;
		cursor = v[n - 1];
	}
	*out = v;
	return n;
}

static inline const char *ed_field_at(size_t off)
{
	static const struct {
		size_t off;
		const char *name;
	} f[] = {
		{ 0, "size" }, { 4, "mnt_opts" }, { 8, "mask" },
		{ 16, "sb_dev_major" }, { 20, "sb_dev_minor" },
		{ 24, "sb_magic" }, { 32, "sb_flags" }, { 36, "fs_type" },
		{ 40, "mnt_id" }, { 48, "mnt_parent_id" },
		{ 56, "mnt_id_old" }, { 60, "mnt_parent_id_old" },
		{ 64, "mnt_attr" }, { 72, "mnt_propagation" },
		{ 80, "mnt_peer_group" }, { 88, "mnt_master" },
		{ 96, "propagate_from" }, { 104, "mnt_root" },
		{ 108, "mnt_point" }, { 112, "mnt_ns_id" },
		{ 120, "fs_subtype" }, { 124, "sb_source" },
		{ 128, "opt_num" }, { 132, "opt_array" },
		{ 136, "opt_sec_num" }, { 140, "opt_sec_array" },
		{ 144, "supported_mask" }, { 152, "mnt_uidmap_num" },
		{ 156, "mnt_uidmap" }, { 160, "mnt_gidmap_num" },
		{ 164, "mnt_gidmap" }, { 168, "spare" }, { 512, "str" },
	};
	const char *name = "?";

	for (size_t i = 0; i < sizeof(f) / sizeof(f[0]); i++)
		if (f[i].off <= off)
			name = f[i].name;
	return name;
}

/* the printable form of a string-area byte run (for failure messages) */
static inline void ed_show(char *out, size_t len, const char *p, size_t n)
{
	size_t o = 0;

	for (size_t i = 0; i < n && o + 5 < len; i++) {
		unsigned char c = (unsigned char)p[i];

		if (c >= 0x20 && c < 0x7f && c != '\\')
			out[o++] = (char)c;
		else
			o += (size_t)snprintf(out + o, len - o, "\\%03o", c);
	}
	out[o] = 0;
}

static inline uint64_t ed_map_id(const struct ed_map *m, uint64_t nat,
				 uint32_t old)
{
	for (size_t lo = 0, hi = m->n; lo < hi;) {
		size_t mid = lo + (hi - lo) / 2;

		if (m->nat[mid] == nat)
			return m->emu[mid];
		if (m->nat[mid] < nat)
			lo = mid + 1;
		else
			hi = mid;
	}
	return old; /* not in the table: named by its old ID */
}

/*
 * Compare one mount for one mask. @nat_id is the kernel's ID, @emu_id the
 * emulation's ID of the same mount.
 */
static inline void ed_compare_one(const struct ed_map *map, uint64_t nat_id,
				  uint64_t emu_id, uint64_t mask,
				  uint64_t ns_id, const char *what)
{
	struct mntkit_statmount *n, *e;
	char a[256], b[256];
	uint32_t nsize, esize;
	uint64_t sup = mntkit__emul_supported_mask();

	n = t_sm_raw_ns(nat_id, mask, ns_id, 0);
	if (!n)
		t_fail("%s: native statmount(%#" PRIx64 ", %#" PRIx64 "): %s",
		       what, nat_id, mask, strerror(errno));
	/* the kernel answers only the groups it has (6.8 - 6.17 lack some):
	 * the emulation is compared on those */
	mask = t_kmask(mask);
	e = ed_emul_sm_alloc(emu_id, mask, ns_id);
	if (!e)
		t_fail("%s: emulated statmount(%#" PRIx64 ", %#" PRIx64
		       "): %s",
		       what, emu_id, mask, strerror(errno));
	ed_stats.replies++;

	/* the documented differences, applied to the native reply */
	if (n->mask & MNTKIT_STATMOUNT_MNT_BASIC) {
		n->mnt_id = ed_map_id(map, n->mnt_id, n->mnt_id_old);
		n->mnt_parent_id = ed_map_id(map, n->mnt_parent_id,
					     n->mnt_parent_id_old);
	}
	if (n->mask & MNTKIT_STATMOUNT_SUPPORTED_MASK)
		n->supported_mask = sup;
	if (n->mask & (MNTKIT_STATMOUNT_MNT_UIDMAP | MNTKIT_STATMOUNT_MNT_GIDMAP)) {
		/* the last strings of a reply: cut them off */
		uint32_t cut = n->size - 512;

		if (n->mask & MNTKIT_STATMOUNT_MNT_UIDMAP && n->mnt_uidmap < cut)
			cut = n->mnt_uidmap;
		if (n->mask & MNTKIT_STATMOUNT_MNT_GIDMAP && n->mnt_gidmap < cut)
			cut = n->mnt_gidmap;
		n->size = 512 + cut;
		n->mask &= ~(MNTKIT_STATMOUNT_MNT_UIDMAP |
			     MNTKIT_STATMOUNT_MNT_GIDMAP);
		n->mnt_uidmap = n->mnt_gidmap = 0;
		n->mnt_uidmap_num = n->mnt_gidmap_num = 0;
		ed_stats.idmapped++;
	}
	if ((n->mask & MNTKIT_STATMOUNT_SB_BASIC) &&
	    (e->mask & MNTKIT_STATMOUNT_SB_BASIC) && !e->sb_magic &&
	    emu_id <= MNTKIT_MNT_UNIQUE_ID_OFFSET) {
		/* hidden, and the table lacks the type: magic unknown */
		n->sb_magic = 0;
		ed_stats.unknown_magic++;
	}

	nsize = n->size;
	esize = e->size;
	if (nsize != esize || e->mask != n->mask) {
		ed_show(a, sizeof(a), (char *)n + 512, nsize > 512 ? nsize - 512 : 0);
		ed_show(b, sizeof(b), (char *)e + 512, esize > 512 ? esize - 512 : 0);
		t_fail("%s: mount %#" PRIx64 " mask %#" PRIx64
		       ": native size %u mask %#" PRIx64 " [%s], emulated size %u mask %#" PRIx64 " [%s]",
		       what, nat_id, mask, nsize, n->mask, a, esize, e->mask, b);
	}
	for (size_t i = 0; i < nsize; i++) {
		if (((char *)n)[i] == ((char *)e)[i])
			continue;
		ed_show(a, sizeof(a), (char *)n + 512, nsize - 512);
		ed_show(b, sizeof(b), (char *)e + 512, esize - 512);
		t_fail("%s: mount %#" PRIx64 " (emul %#" PRIx64 ") mask %#" PRIx64
		       ": byte %zu (%s) differs: native %02x emulated %02x; strings native [%s] emulated [%s]",
		       what, nat_id, emu_id, mask, i, ed_field_at(i),
		       (unsigned char)((char *)n)[i],
		       (unsigned char)((char *)e)[i], a, b);
	}

	/* the size rule: one byte less than the reply fails when strings
	 * were asked for */
	if ((mask & 0x6fb8ULL) && esize > 512) {
		char *small = t_xmalloc(esize);

		errno = 0;
		if (ed_emul_sm(emu_id, mask, ns_id, small, esize - 1) != -1 ||
		    errno != EOVERFLOW)
			t_fail("%s: emulated statmount with bufsize %u: not EOVERFLOW",
			       what, esize - 1);
		free(small);
	}
	free(n);
	free(e);
}

/*
 * The ID map: every mount the kernel lists from LSMT_ROOT, and the ID the
 * emulation names it by (through the old ID). The emulation must list the
 * same mounts.
 */
static inline void ed_build_map(struct ed_map *m, uint64_t ns_id,
				const char *what)
{
	uint64_t *nat, *emu;
	size_t nn, ne;

	nn = (size_t)t_lm_raw_ns(T_LSMT_ROOT, 0, ns_id, 0, &nat);
	if ((ssize_t)nn < 0)
		t_fail("%s: native listmount: %s", what, strerror(errno));
	ne = ed_emul_lm(T_LSMT_ROOT, 0, ns_id, &emu);
	if (nn != ne)
		t_fail("%s: native lists %zu mounts, emulated %zu", what, nn,
		       ne);
	m->n = nn;
	m->nat = nat;
	m->emu = t_xcalloc(nn, sizeof(uint64_t));
	m->old = t_xcalloc(nn, sizeof(uint32_t));
	for (size_t i = 0; i < nn; i++) {
		struct mntkit_statmount *sm = t_sm_raw_ns(nat[i], 2, ns_id, 0);

		if (!sm)
			t_fail("%s: native statmount %#" PRIx64 ": %s", what,
			       nat[i], strerror(errno));
		m->old[i] = sm->mnt_id_old;
		free(sm);
	}
	/* each emulated ID: its old ID must be one of the kernel's */
	for (size_t k = 0; k < ne; k++) {
		struct mntkit_statmount sm;
		size_t i;

		if (ed_emul_sm(emu[k], 2, ns_id, &sm, sizeof(sm)))
			t_fail("%s: emulated statmount %#" PRIx64 ": %s", what,
			       emu[k], strerror(errno));
		for (i = 0; i < nn; i++)
			if (m->old[i] == sm.mnt_id_old)
				break;
		if (i == nn)
			t_fail("%s: emulated mount old ID %u not listed natively",
			       what, sm.mnt_id_old);
		if (m->emu[i])
			t_fail("%s: old ID %u listed twice", what,
			       sm.mnt_id_old);
		m->emu[i] = emu[k];
		if (emu[k] != nat[i]) {
			if (emu[k] != m->old[i])
				t_fail("%s: mount %#" PRIx64 " emulated as %#" PRIx64
				       ", neither its unique nor its old ID",
				       what, nat[i], emu[k]);
			ed_stats.hidden++;
		}
	}
	/* order: the unique-ID mounts in the kernel's order */
	{
		size_t j = 0;

		for (size_t k = 0; k < ne; k++) {
			if (emu[k] <= MNTKIT_MNT_UNIQUE_ID_OFFSET)
				continue;
			while (j < nn && nat[j] != emu[k])
				j++;
			if (j == nn)
				t_fail("%s: emulated order differs at %zu", what,
				       k);
		}
	}
	free(emu);
	ed_stats.mounts += nn;
}

static inline void ed_free_map(struct ed_map *m)
{
	free(m->nat);
	free(m->emu);
	free(m->old);
}

/*
 * A snapshot on the emulation (mntkit_table_new(), which takes every reply
 * in one batch against one view of the table) holds, for each mount of
 * the map, the very reply a statmount of it gives: same bytes.
 */
static inline void ed_compare_snapshot(const struct ed_map *m, uint64_t ns_id,
				       const char *what)
{
	MNTKIT_OPTS(opts, .mnt_ns_id = ns_id);
	enum mntkit_backend was = mntkit_get_backend();
	struct mntkit_table *tab;

	if (mntkit_set_backend(MNTKIT_BACKEND_MOUNTINFO))
		t_fail("%s: mntkit_set_backend(mountinfo): %s", what,
		       strerror(errno));
	if (mntkit_table_new(ED_ALL, 0, &opts, &tab))
		t_fail("%s: mntkit_table_new on the emulation: %s", what,
		       strerror(errno));
	if (mntkit_set_backend(was))
		t_fail("%s: mntkit_set_backend(%d): %s", what, was,
		       strerror(errno));
	if (mntkit_table_count(tab) != m->n)
		t_fail("%s: the emulated snapshot holds %zu mounts, the "
		       "listing %zu", what, mntkit_table_count(tab), m->n);
	for (size_t i = 0; i < m->n; i++) {
		ssize_t k = mntkit_table_find(tab, m->emu[i]);
		const struct mntkit_statmount *s;
		struct mntkit_statmount *e;

		if (k < 0)
			t_fail("%s: mount %#" PRIx64 " missing from the "
			       "emulated snapshot", what, m->emu[i]);
		s = mntkit_table_get(tab, (size_t)k);
		e = ed_emul_sm_alloc(m->emu[i], ED_ALL, ns_id);
		if (!e)
			t_fail("%s: emulated statmount(%#" PRIx64 "): %s",
			       what, m->emu[i], strerror(errno));
		if (s->size != e->size || memcmp(s, e, e->size))
			t_fail("%s: mount %#" PRIx64 ": the snapshot's reply "
			       "(size %u) differs from statmount's (size %u)",
			       what, m->emu[i], s->size, e->size);
		free(e);
	}
	mntkit_table_free(tab);
}

/* every mount, every group alone and all together; and a snapshot */
static inline void ed_compare_ns(uint64_t ns_id, int all_masks,
				 const char *what)
{
	struct ed_map m;

	ed_build_map(&m, ns_id, what);
	ed_compare_snapshot(&m, ns_id, what);
	for (size_t i = 0; i < m.n; i++) {
		ed_compare_one(&m, m.nat[i], m.emu[i], ED_ALL, ns_id, what);
		if (!all_masks)
			continue;
		for (uint64_t bit = 1; bit <= ED_ALL; bit <<= 1)
			ed_compare_one(&m, m.nat[i], m.emu[i], bit, ns_id,
				       what);
		ed_compare_one(&m, m.nat[i], m.emu[i], 0, ns_id, what);
		ed_compare_one(&m, m.nat[i], m.emu[i], 0xffffffffffff0000ULL | 3,
			       ns_id, what);
	}
	ed_free_map(&m);
}

static inline void ed_compare(const char *what)
{
	ed_compare_ns(0, 1, what);
}

/* skip unless both the kernel calls and unique IDs are there */
static inline void ed_require(void)
{
	t_require_statmount();
}

#endif
