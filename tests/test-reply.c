/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * test-reply - mntkit_sm_str() / mntkit_sm_strv() against hand-built,
 * corrupted and real statmount replies. Every reply lives in a malloc'd
 * block of exactly the valid length, so an out-of-bounds read is caught
 * by AddressSanitizer (make check-sanitize).
 */
#include <mntkit.h>

#include "harness.h"

#define SM_STR(sm) ((char *)(sm) + 512)

static const enum mntkit_field str_fields[] = {
	MNTKIT_FIELD_FS_TYPE,  MNTKIT_FIELD_MNT_ROOT,	MNTKIT_FIELD_MNT_POINT,
	MNTKIT_FIELD_MNT_OPTS, MNTKIT_FIELD_FS_SUBTYPE, MNTKIT_FIELD_SB_SOURCE,
};

static const enum mntkit_field strv_fields[] = {
	MNTKIT_FIELD_OPT_ARRAY,
	MNTKIT_FIELD_OPT_SEC_ARRAY,
	MNTKIT_FIELD_MNT_UIDMAP,
	MNTKIT_FIELD_MNT_GIDMAP,
};

#define NSTR  (sizeof(str_fields) / sizeof(str_fields[0]))
#define NSTRV (sizeof(strv_fields) / sizeof(strv_fields[0]))

/* the mask bit and the offset/count words of each field, from the ABI */
static uint64_t field_bit(enum mntkit_field f)
{
	switch (f) {
	case MNTKIT_FIELD_FS_TYPE:
		return MNTKIT_STATMOUNT_FS_TYPE;
	case MNTKIT_FIELD_MNT_ROOT:
		return MNTKIT_STATMOUNT_MNT_ROOT;
	case MNTKIT_FIELD_MNT_POINT:
		return MNTKIT_STATMOUNT_MNT_POINT;
	case MNTKIT_FIELD_MNT_OPTS:
		return MNTKIT_STATMOUNT_MNT_OPTS;
	case MNTKIT_FIELD_FS_SUBTYPE:
		return MNTKIT_STATMOUNT_FS_SUBTYPE;
	case MNTKIT_FIELD_SB_SOURCE:
		return MNTKIT_STATMOUNT_SB_SOURCE;
	case MNTKIT_FIELD_OPT_ARRAY:
		return MNTKIT_STATMOUNT_OPT_ARRAY;
	case MNTKIT_FIELD_OPT_SEC_ARRAY:
		return MNTKIT_STATMOUNT_OPT_SEC_ARRAY;
	case MNTKIT_FIELD_MNT_UIDMAP:
		return MNTKIT_STATMOUNT_MNT_UIDMAP;
	case MNTKIT_FIELD_MNT_GIDMAP:
		return MNTKIT_STATMOUNT_MNT_GIDMAP;
	}
	return 0;
}

static uint32_t *field_off(struct mntkit_statmount *sm, enum mntkit_field f)
{
	switch (f) {
	case MNTKIT_FIELD_FS_TYPE:
		return &sm->fs_type;
	case MNTKIT_FIELD_MNT_ROOT:
		return &sm->mnt_root;
	case MNTKIT_FIELD_MNT_POINT:
		return &sm->mnt_point;
	case MNTKIT_FIELD_MNT_OPTS:
		return &sm->mnt_opts;
	case MNTKIT_FIELD_FS_SUBTYPE:
		return &sm->fs_subtype;
	case MNTKIT_FIELD_SB_SOURCE:
		return &sm->sb_source;
	case MNTKIT_FIELD_OPT_ARRAY:
		return &sm->opt_array;
	case MNTKIT_FIELD_OPT_SEC_ARRAY:
		return &sm->opt_sec_array;
	case MNTKIT_FIELD_MNT_UIDMAP:
		return &sm->mnt_uidmap;
	case MNTKIT_FIELD_MNT_GIDMAP:
		return &sm->mnt_gidmap;
	}
	t_fail("bad field %d", (int)f);
}

static uint32_t *field_num(struct mntkit_statmount *sm, enum mntkit_field f)
{
	switch (f) {
	case MNTKIT_FIELD_OPT_ARRAY:
		return &sm->opt_num;
	case MNTKIT_FIELD_OPT_SEC_ARRAY:
		return &sm->opt_sec_num;
	case MNTKIT_FIELD_MNT_UIDMAP:
		return &sm->mnt_uidmap_num;
	case MNTKIT_FIELD_MNT_GIDMAP:
		return &sm->mnt_gidmap_num;
	default:
		break;
	}
	t_fail("not an array field %d", (int)f);
}

/*
 * A reply of exactly @alloc bytes: fixed part, then @area_len bytes of
 * @area (truncated to what fits); size = 512 + @area_len; mask @mask.
 */
static struct mntkit_statmount *mk(const void *area, size_t area_len,
				   size_t alloc, uint64_t mask)
{
	struct mntkit_statmount *sm = t_xmalloc(alloc);
	struct mntkit_statmount hdr;
	size_t n;

	memset(&hdr, 0, sizeof(hdr));
	hdr.size = (uint32_t)(512 + area_len);
	hdr.mask = mask;
	memset(sm, 0x5a, alloc);
	memcpy(sm, &hdr, alloc < 512 ? alloc : 512);
	if (alloc > 512) {
		n = alloc - 512 < area_len ? alloc - 512 : area_len;
		memcpy(SM_STR(sm), area, n);
	}
	return sm;
}

#define AREA(s) (s), sizeof(s) - 1

/* "\0tmpfs\0/\0/mnt x\0none\0size=1m,mode=700\0" */
static const char area1[] = "\0tmpfs\0/\0/mnt x\0none\0size=1m,mode=700\0";
#define A1_FSTYPE 1
#define A1_ROOT	  7
#define A1_POINT  9
#define A1_SOURCE 16
#define A1_OPTS	  21
#define A1_MASK                                                                \
	(MNTKIT_STATMOUNT_FS_TYPE | MNTKIT_STATMOUNT_MNT_ROOT |                \
	 MNTKIT_STATMOUNT_MNT_POINT | MNTKIT_STATMOUNT_SB_SOURCE |             \
	 MNTKIT_STATMOUNT_MNT_OPTS)

static struct mntkit_statmount *mk1(size_t alloc)
{
	struct mntkit_statmount *sm = mk(AREA(area1), alloc, A1_MASK);

	sm->fs_type = A1_FSTYPE;
	sm->mnt_root = A1_ROOT;
	sm->mnt_point = A1_POINT;
	sm->sb_source = A1_SOURCE;
	sm->mnt_opts = A1_OPTS;
	return sm;
}

#define A1_LEN (512 + sizeof(area1) - 1)

T_CASE(str_hand_built)
{
	struct mntkit_statmount *sm = mk1(A1_LEN);
	const char *s = NULL;

	T_OK(mntkit_sm_str(sm, A1_LEN, MNTKIT_FIELD_FS_TYPE, &s));
	T_EQ_STR(s, "tmpfs");
	T_ASSERT(s == SM_STR(sm) + A1_FSTYPE);
	T_EQ_I(mntkit_sm_str(sm, A1_LEN, MNTKIT_FIELD_MNT_ROOT, &s), 0);
	T_EQ_STR(s, "/");
	T_EQ_I(mntkit_sm_str(sm, A1_LEN, MNTKIT_FIELD_MNT_POINT, &s), 0);
	T_EQ_STR(s, "/mnt x");
	T_EQ_I(mntkit_sm_str(sm, A1_LEN, MNTKIT_FIELD_SB_SOURCE, &s), 0);
	T_EQ_STR(s, "none");
	T_EQ_I(mntkit_sm_str(sm, A1_LEN, MNTKIT_FIELD_MNT_OPTS, &s), 0);
	T_EQ_STR(s, "size=1m,mode=700");
	T_ASSERT(s == SM_STR(sm) + A1_OPTS);
	free(sm);
}

T_CASE(str_offset_zero_is_empty)
{
	struct mntkit_statmount *sm = mk1(A1_LEN);
	const char *s = NULL;

	sm->mnt_root = 0;
	T_EQ_I(mntkit_sm_str(sm, A1_LEN, MNTKIT_FIELD_MNT_ROOT, &s), 0);
	T_EQ_STR(s, "");
	T_ASSERT(s == SM_STR(sm));
	free(sm);
}

T_CASE(str_len_larger_than_size)
{
	/* a buffer larger than the reply (len = bufsize of statmount) */
	struct mntkit_statmount *sm = mk1(A1_LEN + 100);
	const char *s = NULL;

	T_EQ_I(mntkit_sm_str(sm, A1_LEN + 100, MNTKIT_FIELD_SB_SOURCE, &s), 0);
	T_EQ_STR(s, "none");
	free(sm);
}

T_CASE(str_last_string_ends_at_size)
{
	/* the last byte of the area is the NUL of the last string */
	struct mntkit_statmount *sm = mk1(A1_LEN);
	const char *s = NULL;

	T_EQ_U(A1_OPTS + strlen("size=1m,mode=700") + 1 + 512, A1_LEN);
	T_EQ_I(mntkit_sm_str(sm, A1_LEN, MNTKIT_FIELD_MNT_OPTS, &s), 0);
	T_ASSERT(s + strlen(s) == (char *)sm + A1_LEN - 1);
	free(sm);
}

T_CASE(size_below_fixed_part)
{
	struct mntkit_statmount *sm = mk1(A1_LEN);
	const char *s = NULL;

	for (uint32_t size = 0; size < 512; size += 73) {
		sm->size = size;
		T_NEG(mntkit_sm_str(sm, A1_LEN, MNTKIT_FIELD_FS_TYPE, &s),
		      EBADMSG);
	}
	sm->size = 511;
	T_NEG(mntkit_sm_str(sm, A1_LEN, MNTKIT_FIELD_FS_TYPE, &s), EBADMSG);
	sm->mask |= MNTKIT_STATMOUNT_OPT_ARRAY;
	T_NEG(mntkit_sm_strv(sm, A1_LEN, MNTKIT_FIELD_OPT_ARRAY, NULL, 0),
	      EBADMSG);
	free(sm);
}

T_CASE(size_above_len)
{
	struct mntkit_statmount *sm = mk1(A1_LEN);
	const char *s = NULL;

	sm->size = A1_LEN + 1;
	T_NEG(mntkit_sm_str(sm, A1_LEN, MNTKIT_FIELD_FS_TYPE, &s), EBADMSG);
	sm->size = UINT32_MAX;
	T_NEG(mntkit_sm_str(sm, A1_LEN, MNTKIT_FIELD_FS_TYPE, &s), EBADMSG);
	/* the same reply is fine when the caller vouches for enough bytes */
	sm->size = A1_LEN;
	T_EQ_I(mntkit_sm_str(sm, A1_LEN, MNTKIT_FIELD_FS_TYPE, &s), 0);
	free(sm);
}

T_CASE(len_below_fixed_part)
{
	/* the block is only @len bytes: nothing past it may be read */
	static const size_t lens[] = {1, 4, 8, 16, 100, 511};
	const char *s = NULL;

	for (size_t i = 0; i < sizeof(lens) / sizeof(lens[0]); i++) {
		struct mntkit_statmount *sm = mk(AREA(area1), lens[i], A1_MASK);

		T_NEG(mntkit_sm_str(sm, lens[i], MNTKIT_FIELD_FS_TYPE, &s),
		      EBADMSG);
		T_NEG(mntkit_sm_strv(sm, lens[i], MNTKIT_FIELD_OPT_ARRAY, NULL,
				     0),
		      EBADMSG);
		free(sm);
	}
}

T_CASE(offset_at_or_after_end)
{
	struct mntkit_statmount *sm = mk1(A1_LEN);
	const uint32_t area_len = sizeof(area1) - 1;
	const uint32_t offs[] = {area_len, area_len + 1, area_len + 4096,
				 UINT32_MAX - 511, UINT32_MAX};
	const char *s = NULL;

	for (size_t i = 0; i < sizeof(offs) / sizeof(offs[0]); i++) {
		for (size_t f = 0; f < NSTR; f++) {
			sm->mask |= field_bit(str_fields[f]);
			*field_off(sm, str_fields[f]) = offs[i];
			s = NULL;
			T_NEG(mntkit_sm_str(sm, A1_LEN, str_fields[f], &s),
			      EBADMSG);
		}
	}
	free(sm);
}

T_CASE(string_without_nul)
{
	/* "\0abc" - the area ends inside the string */
	struct mntkit_statmount *sm =
		mk(AREA("\0abc"), 512 + 4, MNTKIT_STATMOUNT_FS_TYPE);
	const char *s = NULL;

	sm->fs_type = 1;
	T_NEG(mntkit_sm_str(sm, 512 + 4, MNTKIT_FIELD_FS_TYPE, &s), EBADMSG);
	sm->fs_type = 3;
	T_NEG(mntkit_sm_str(sm, 512 + 4, MNTKIT_FIELD_FS_TYPE, &s), EBADMSG);
	free(sm);
}

T_CASE(string_nul_only_past_size)
{
	/* the NUL is inside the buffer but past the reply's size */
	struct mntkit_statmount *sm =
		mk(AREA("\0abc\0"), 512 + 5, MNTKIT_STATMOUNT_FS_TYPE);
	const char *s = NULL;

	sm->size = 512 + 4;
	sm->fs_type = 1;
	T_NEG(mntkit_sm_str(sm, 512 + 5, MNTKIT_FIELD_FS_TYPE, &s), EBADMSG);
	sm->size = 512 + 5;
	T_EQ_I(mntkit_sm_str(sm, 512 + 5, MNTKIT_FIELD_FS_TYPE, &s), 0);
	T_EQ_STR(s, "abc");
	free(sm);
}

static const char area2[] = "\0ro\0size=1m\0x=a b\0lsm=1\0";

static struct mntkit_statmount *mk2(size_t alloc)
{
	struct mntkit_statmount *sm =
		mk(AREA(area2), alloc,
		   MNTKIT_STATMOUNT_OPT_ARRAY | MNTKIT_STATMOUNT_OPT_SEC_ARRAY);

	sm->opt_array = 1;
	sm->opt_num = 3;
	sm->opt_sec_array = 18;
	sm->opt_sec_num = 1;
	return sm;
}

#define A2_LEN (512 + sizeof(area2) - 1)

T_CASE(strv_hand_built)
{
	struct mntkit_statmount *sm = mk2(A2_LEN);
	const char *v[8] = {0};

	T_EQ_I(mntkit_sm_strv(sm, A2_LEN, MNTKIT_FIELD_OPT_ARRAY, v, 8), 3);
	T_EQ_STR(v[0], "ro");
	T_EQ_STR(v[1], "size=1m");
	T_EQ_STR(v[2], "x=a b");
	T_ASSERT(v[0] == SM_STR(sm) + 1);
	T_NULL(v[3]);
	memset(v, 0, sizeof(v));
	T_EQ_I(mntkit_sm_strv(sm, A2_LEN, MNTKIT_FIELD_OPT_SEC_ARRAY, v, 8), 1);
	T_EQ_STR(v[0], "lsm=1");
	T_NULL(v[1]);
	free(sm);
}

T_CASE(strv_counts_with_small_vec)
{
	struct mntkit_statmount *sm = mk2(A2_LEN);
	const char *v[3] = {0};

	T_EQ_I(mntkit_sm_strv(sm, A2_LEN, MNTKIT_FIELD_OPT_ARRAY, NULL, 0), 3);
	T_EQ_I(mntkit_sm_strv(sm, A2_LEN, MNTKIT_FIELD_OPT_ARRAY, v, 1), 3);
	T_EQ_STR(v[0], "ro");
	T_NULL(v[1]);
	T_EQ_I(mntkit_sm_strv(sm, A2_LEN, MNTKIT_FIELD_OPT_ARRAY, v, 2), 3);
	T_EQ_STR(v[1], "size=1m");
	T_NULL(v[2]);
	free(sm);
}

T_CASE(strv_count_past_end)
{
	struct mntkit_statmount *sm = mk2(A2_LEN);
	const char *v[8];

	sm->opt_num = 4; /* three strings, then "lsm=1", then the end */
	T_EQ_I(mntkit_sm_strv(sm, A2_LEN, MNTKIT_FIELD_OPT_ARRAY, v, 8), 4);
	sm->opt_num = 5;
	T_NEG(mntkit_sm_strv(sm, A2_LEN, MNTKIT_FIELD_OPT_ARRAY, v, 8),
	      EBADMSG);
	T_NEG(mntkit_sm_strv(sm, A2_LEN, MNTKIT_FIELD_OPT_ARRAY, NULL, 0),
	      EBADMSG);
	sm->opt_num = UINT32_MAX;
	T_NEG(mntkit_sm_strv(sm, A2_LEN, MNTKIT_FIELD_OPT_ARRAY, v, 8),
	      EBADMSG);
	sm->opt_sec_num = 2;
	T_NEG(mntkit_sm_strv(sm, A2_LEN, MNTKIT_FIELD_OPT_SEC_ARRAY, v, 1),
	      EBADMSG);
	free(sm);
}

T_CASE(strv_unstored_string_checked)
{
	/* the third string has no NUL: wrong even when only one is stored */
	struct mntkit_statmount *sm =
		mk(AREA("\0a\0b\0cc"), 512 + 7, MNTKIT_STATMOUNT_MNT_UIDMAP);
	const char *v[1];

	sm->mnt_uidmap = 1;
	sm->mnt_uidmap_num = 3;
	T_NEG(mntkit_sm_strv(sm, 512 + 7, MNTKIT_FIELD_MNT_UIDMAP, v, 1),
	      EBADMSG);
	T_NEG(mntkit_sm_strv(sm, 512 + 7, MNTKIT_FIELD_MNT_UIDMAP, NULL, 0),
	      EBADMSG);
	sm->mnt_uidmap_num = 2;
	T_EQ_I(mntkit_sm_strv(sm, 512 + 7, MNTKIT_FIELD_MNT_UIDMAP, v, 1), 2);
	T_EQ_STR(v[0], "a");
	free(sm);
}

T_CASE(strv_count_zero)
{
	struct mntkit_statmount *sm = mk2(A2_LEN);
	const char *v[2] = {0};

	sm->opt_num = 0;
	sm->opt_array = 0;
	T_EQ_I(mntkit_sm_strv(sm, A2_LEN, MNTKIT_FIELD_OPT_ARRAY, v, 2), 0);
	T_NULL(v[0]);
	T_EQ_I(mntkit_sm_strv(sm, A2_LEN, MNTKIT_FIELD_OPT_ARRAY, NULL, 0), 0);
	free(sm);
}

T_CASE(strv_offset_out_of_area)
{
	struct mntkit_statmount *sm = mk2(A2_LEN);
	const char *v[8];

	sm->opt_array = sizeof(area2) - 1;
	T_NEG(mntkit_sm_strv(sm, A2_LEN, MNTKIT_FIELD_OPT_ARRAY, v, 8),
	      EBADMSG);
	sm->opt_array = UINT32_MAX;
	T_NEG(mntkit_sm_strv(sm, A2_LEN, MNTKIT_FIELD_OPT_ARRAY, v, 8),
	      EBADMSG);
	free(sm);
}

T_CASE(mask_bit_absent_enodata)
{
	struct mntkit_statmount *sm = mk1(A1_LEN);
	const char *s, *v[4];

	sm->mask = 0;
	for (size_t f = 0; f < NSTR; f++) {
		s = (const char *)1;
		T_NEG(mntkit_sm_str(sm, A1_LEN, str_fields[f], &s), ENODATA);
	}
	for (size_t f = 0; f < NSTRV; f++)
		T_NEG(mntkit_sm_strv(sm, A1_LEN, strv_fields[f], v, 4),
		      ENODATA);
	/* every other bit set: still absent */
	for (size_t f = 0; f < NSTR; f++) {
		sm->mask = MNTKIT_STATMOUNT_ALL & ~field_bit(str_fields[f]);
		T_NEG(mntkit_sm_str(sm, A1_LEN, str_fields[f], &s), ENODATA);
	}
	for (size_t f = 0; f < NSTRV; f++) {
		sm->mask = MNTKIT_STATMOUNT_ALL & ~field_bit(strv_fields[f]);
		T_NEG(mntkit_sm_strv(sm, A1_LEN, strv_fields[f], v, 4),
		      ENODATA);
	}
	free(sm);
}

T_CASE(unknown_field_einval)
{
	struct mntkit_statmount *sm = mk1(A1_LEN);
	const int bad[] = {0, 11, 12, 64, 1000, -1, INT32_MIN};
	const char *s, *v[4];

	sm->mask = MNTKIT_STATMOUNT_ALL;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		T_NEG(mntkit_sm_str(sm, A1_LEN, (enum mntkit_field)bad[i], &s),
		      EINVAL);
		T_NEG(mntkit_sm_strv(sm, A1_LEN, (enum mntkit_field)bad[i], v,
				     4),
		      EINVAL);
	}
	free(sm);
}

T_CASE(wrong_kind_einval)
{
	struct mntkit_statmount *sm = mk2(A2_LEN);
	const char *s, *v[4];

	sm->mask = MNTKIT_STATMOUNT_ALL;
	for (size_t f = 0; f < NSTRV; f++)
		T_NEG(mntkit_sm_str(sm, A2_LEN, strv_fields[f], &s), EINVAL);
	for (size_t f = 0; f < NSTR; f++)
		T_NEG(mntkit_sm_strv(sm, A2_LEN, str_fields[f], v, 4), EINVAL);
	free(sm);
}

T_CASE(field_names)
{
	static const char *const names[] = {
		NULL,	      "fs_type",    "mnt_root",
		"mnt_point",  "mnt_opts",   "fs_subtype",
		"sb_source",  "opt_array",  "opt_sec_array",
		"mnt_uidmap", "mnt_gidmap",
	};

	for (int f = 1; f <= 10; f++)
		T_EQ_STR(mntkit_field_name((enum mntkit_field)f), names[f]);
	T_NULL(mntkit_field_name((enum mntkit_field)0));
	T_NULL(mntkit_field_name((enum mntkit_field)11));
	T_NULL(mntkit_field_name((enum mntkit_field) - 1));
}

/* ---- real replies ---- */

/* a mount with a rich reply: options with escapes, a space in the path */
static uint64_t rich_mount(void)
{
	char *d, *p;

	t_private_ns();
	d = t_tmpdir();
	p = t_path("%s/with space", d);
	return t_tmpfs(p, MS_NOSUID, "size=1m,mode=0700,nr_inodes=99");
}

/*
 * The reply of @id for @mask in a block of 4096 bytes at least (as t_sm()
 * gives it): the kernel's, or, on a kernel without statmount(2) or without
 * some of the groups, the library's own (its mountinfo emulation, or the
 * hybrid) - a real reply all the same.
 */
static struct mntkit_statmount *real_sm(uint64_t id, uint64_t mask)
{
	struct mntkit_statmount *p = t_sm_raw(id, mask), *sm;
	int r;

	if (p && t_kmask(mask) == mask)
		return p;
	if (!p && errno != ENOSYS)
		t_fail("raw statmount(%#" PRIx64 ", %#" PRIx64 "): %s", id,
		       mask, strerror(errno));
	free(p);
	r = mntkit_stat(id, mask, NULL, &sm);
	if (r)
		t_fail("mntkit_stat(%#" PRIx64 ", %#" PRIx64 "): %s", id, mask,
		       strerror(-r));
	p = t_xcalloc(1, sm->size > 4096 ? sm->size : 4096);
	memcpy(p, sm, sm->size);
	free(sm);
	return p;
}

/* check every field of a reply against its raw offsets */
static void check_real(struct mntkit_statmount *sm, size_t len)
{
	for (size_t f = 0; f < NSTR; f++) {
		const char *s = NULL;
		int r, e;

		errno = 0;
		r = mntkit_sm_str(sm, len, str_fields[f], &s);
		e = errno;
		if (!(sm->mask & field_bit(str_fields[f]))) {
			T_EQ_I(r, -ENODATA);
			T_EQ_I(e, ENODATA);
			continue;
		}
		T_EQ_I(r, 0);
		T_ASSERT(s == SM_STR(sm) + *field_off(sm, str_fields[f]));
	}
	for (size_t f = 0; f < NSTRV; f++) {
		const char *v[64];
		uint32_t num;
		const char *p;
		ssize_t r;
		int e;

		errno = 0;
		r = mntkit_sm_strv(sm, len, strv_fields[f], v, 64);
		e = errno;
		if (!(sm->mask & field_bit(strv_fields[f]))) {
			T_EQ_I(r, -ENODATA);
			T_EQ_I(e, ENODATA);
			continue;
		}
		num = *field_num(sm, strv_fields[f]);
		T_EQ_I(r, num);
		p = SM_STR(sm) + *field_off(sm, strv_fields[f]);
		for (uint32_t i = 0; i < num && i < 64; i++) {
			T_ASSERT(v[i] == p);
			p += strlen(p) + 1;
		}
	}
}

T_CASE(real_reply)
{
	uint64_t id = rich_mount();
	struct mntkit_statmount *sm = real_sm(id, MNTKIT_STATMOUNT_ALL);
	struct mntkit_statmount *exact;
	const char *s, *v[16];

	/* as returned in a larger buffer, and copied to an exact block */
	check_real(sm, 4096);
	exact = t_xmalloc(sm->size);
	memcpy(exact, sm, sm->size);
	check_real(exact, sm->size);

	T_EQ_I(mntkit_sm_str(exact, exact->size, MNTKIT_FIELD_FS_TYPE, &s), 0);
	T_EQ_STR(s, "tmpfs");
	T_EQ_I(mntkit_sm_str(exact, exact->size, MNTKIT_FIELD_MNT_ROOT, &s), 0);
	T_EQ_STR(s, "/");
	T_EQ_I(mntkit_sm_str(exact, exact->size, MNTKIT_FIELD_MNT_POINT, &s),
	       0);
	T_ASSERTF(strstr(s, "/with space") != NULL, "mnt_point '%s'", s);
	T_EQ_I(mntkit_sm_str(exact, exact->size, MNTKIT_FIELD_SB_SOURCE, &s),
	       0);
	T_EQ_STR(s, "tmpfs");
	T_NEG(mntkit_sm_str(exact, exact->size, MNTKIT_FIELD_FS_SUBTYPE, &s),
	      ENODATA);
	T_EQ_I(mntkit_sm_strv(exact, exact->size, MNTKIT_FIELD_OPT_ARRAY, v,
			      16),
	       exact->opt_num);
	T_ASSERT(exact->opt_num >= 3);
	free(exact);
	free(sm);
}

/* ---- random corruptions of a real reply ---- */

/* a successful string must lie inside the valid part of the block */
static void check_in_bounds(const struct mntkit_statmount *sm, size_t len,
			    const char *s)
{
	size_t size = sm->size < len ? sm->size : len;
	const char *lo = SM_STR(sm), *hi = (const char *)sm + size;

	T_ASSERTF(s >= lo && s < hi, "pointer %p outside [%p, %p)",
		  (const void *)s, (const void *)lo, (const void *)hi);
	T_ASSERTF(memchr(s, 0, (size_t)(hi - s)) != NULL,
		  "string at +%td not terminated inside the reply", s - lo);
}

static unsigned long fuzz_ok, fuzz_bad;

static void fuzz_one(const struct mntkit_statmount *orig, uint64_t *rng)
{
	size_t len = orig->size, alloc;
	struct mntkit_statmount *sm;
	unsigned int nmut = 1 + t_rand(rng) % 4;
	uint32_t area_len = orig->size - 512;

	/* sometimes a shorter (or longer, zero-padded) valid length */
	switch (t_rand(rng) % 8) {
	case 0:
		len = t_rand(rng) % (orig->size + 1);
		break;
	case 1:
		len = orig->size + t_rand(rng) % 64;
		break;
	}
	alloc = len;
	sm = t_xcalloc(1, alloc);
	memcpy(sm, orig, len < orig->size ? len : orig->size);
	if (len < 512)
		goto check;

	for (unsigned int m = 0; m < nmut; m++) {
		uint64_t r = t_rand(rng);
		uint32_t val;

		switch (r % 4) {
		case 0: /* small values near the interesting edges */
			val = (uint32_t)(t_rand(rng) % (area_len + 8));
			break;
		case 1:
			val = area_len - (uint32_t)(t_rand(rng) % 4);
			break;
		case 2:
			val = (uint32_t)t_rand(rng);
			break;
		default:
			val = UINT32_MAX - (uint32_t)(t_rand(rng) % 4);
			break;
		}
		switch ((r >> 8) % 6) {
		case 0: /* size */
			sm->size = (t_rand(rng) & 1) ? 512 + val : val;
			break;
		case 1: /* a string offset */
			*field_off(sm, str_fields[(r >> 16) % NSTR]) = val;
			break;
		case 2: /* an array offset */
			*field_off(sm, strv_fields[(r >> 16) % NSTRV]) = val;
			break;
		case 3: /* an array count */
			*field_num(sm, strv_fields[(r >> 16) % NSTRV]) =
				(t_rand(rng) & 1) ? val % 16 : val;
			break;
		case 4: /* a byte of the area: drop or add a NUL */
			if (len > 512) {
				size_t at = 512 +
					    (size_t)(t_rand(rng) % (len - 512));

				((char *)sm)[at] = ((char *)sm)[at] ? 0 : 'x';
			}
			break;
		default: /* the last byte of the reply */
			if (len > 512 && sm->size > 512 && sm->size <= len)
				((char *)sm)[sm->size - 1] = 'z';
			break;
		}
	}

check:
	for (size_t f = 0; f < NSTR; f++) {
		const char *s = NULL;
		int r;

		errno = 0;
		r = mntkit_sm_str(sm, len, str_fields[f], &s);
		if (r == 0) {
			check_in_bounds(sm, len, s);
			fuzz_ok++;
			continue;
		}
		T_ASSERTF(errno == -r, "ret %d errno %d", r, errno);
		if (r == -ENODATA && len >= 512 &&
		    !(orig->mask & field_bit(str_fields[f])))
			continue;
		T_ASSERTF(r == -EBADMSG, "mntkit_sm_str(%s) = %d (%s)",
			  mntkit_field_name(str_fields[f]), r, strerror(-r));
		fuzz_bad++;
	}
	for (size_t f = 0; f < NSTRV; f++) {
		const char *v[8];
		ssize_t r;

		errno = 0;
		r = mntkit_sm_strv(sm, len, strv_fields[f], v, 8);
		if (r >= 0) {
			T_EQ_U(r, *field_num(sm, strv_fields[f]));
			for (ssize_t i = 0; i < r && i < 8; i++)
				check_in_bounds(sm, len, v[i]);
			fuzz_ok++;
			continue;
		}
		T_ASSERTF(errno == -r, "ret %zd errno %d", r, errno);
		if (r == -ENODATA && len >= 512 &&
		    !(orig->mask & field_bit(strv_fields[f])))
			continue;
		T_ASSERTF(r == -EBADMSG, "mntkit_sm_strv(%s) = %zd (%s)",
			  mntkit_field_name(strv_fields[f]), r, strerror(-r));
		fuzz_bad++;
	}
	free(sm);
}

T_CASE(random_corruptions)
{
	uint64_t id = rich_mount();
	struct mntkit_statmount *orig;
	uint64_t rng = 0x6d6e746b6974ULL; /* fixed seed: reproducible */

	orig = real_sm(id, MNTKIT_STATMOUNT_ALL);
	T_ASSERT(orig->mask & MNTKIT_STATMOUNT_OPT_ARRAY);
	for (int i = 0; i < 5000; i++)
		fuzz_one(orig, &rng);
	/* both outcomes were exercised, many times */
	t_log("random_corruptions: %lu accepted, %lu EBADMSG\n", fuzz_ok,
	      fuzz_bad);
	T_ASSERT(fuzz_ok > 1000 && fuzz_bad > 1000);
	free(orig);
}

int main(int argc, char **argv)
{
	return t_run(argc, argv);
}
