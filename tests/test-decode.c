/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * test-decode - the flag decoders (mntkit_attr_str, mntkit_sb_flags_str,
 * mntkit_propagation_str) against the words of /proc/PID/mountinfo and
 * findmnt, for constants and for real mounts; the statmount group names
 * (mntkit_mask_name, mntkit_mask_parse).
 */
#include <mntkit.h>

#include "harness.h"

#define A_RO	      MNTKIT_MOUNT_ATTR_RDONLY
#define A_NOSUID      MNTKIT_MOUNT_ATTR_NOSUID
#define A_NODEV	      MNTKIT_MOUNT_ATTR_NODEV
#define A_NOEXEC      MNTKIT_MOUNT_ATTR_NOEXEC
#define A_NOATIME     MNTKIT_MOUNT_ATTR_NOATIME
#define A_STRICT      MNTKIT_MOUNT_ATTR_STRICTATIME
#define A_NODIRATIME  MNTKIT_MOUNT_ATTR_NODIRATIME
#define A_IDMAP	      MNTKIT_MOUNT_ATTR_IDMAP
#define A_NOSYMFOLLOW MNTKIT_MOUNT_ATTR_NOSYMFOLLOW

/* decode into a roomy buffer and check the text and the return value */
#define CHECK_ATTR(attr, flags, want)                                          \
	do {                                                                   \
		char b_[256];                                                  \
		int r_;                                                        \
		memset(b_, 'X', sizeof(b_));                                   \
		r_ = mntkit_attr_str((attr), (flags), b_, sizeof(b_));         \
		T_EQ_STR(b_, (want));                                          \
		T_EQ_I(r_, strlen(want));                                      \
	} while (0)

T_CASE(attr_single_flags)
{
	CHECK_ATTR(0, 0, "rw,relatime");
	CHECK_ATTR(A_RO, 0, "ro,relatime");
	CHECK_ATTR(A_NOSUID, 0, "rw,nosuid,relatime");
	CHECK_ATTR(A_NODEV, 0, "rw,nodev,relatime");
	CHECK_ATTR(A_NOEXEC, 0, "rw,noexec,relatime");
	CHECK_ATTR(A_NOATIME, 0, "rw,noatime");
	CHECK_ATTR(A_STRICT, 0, "rw,strictatime");
	CHECK_ATTR(A_NODIRATIME, 0, "rw,nodiratime,relatime");
	CHECK_ATTR(A_NOSYMFOLLOW, 0, "rw,relatime,nosymfollow");
	CHECK_ATTR(A_IDMAP, 0, "rw,relatime,idmapped");
}

T_CASE(attr_combinations)
{
	CHECK_ATTR(A_RO | A_NOSUID | A_NODEV | A_NOEXEC, 0,
		   "ro,nosuid,nodev,noexec,relatime");
	CHECK_ATTR(A_NOATIME | A_NODIRATIME, 0, "rw,noatime,nodiratime");
	CHECK_ATTR(A_NOSUID | A_NOATIME, 0, "rw,nosuid,noatime");
	CHECK_ATTR(A_RO | A_NOSUID | A_NODEV | A_NOEXEC | A_NODIRATIME |
			   A_NOSYMFOLLOW | A_IDMAP,
		   0,
		   "ro,nosuid,nodev,noexec,nodiratime,relatime,nosymfollow,"
		   "idmapped");
	CHECK_ATTR(A_RO | A_NOSUID | A_NODEV | A_NOEXEC | A_NOATIME |
			   A_NODIRATIME | A_NOSYMFOLLOW | A_IDMAP,
		   0,
		   "ro,nosuid,nodev,noexec,noatime,nodiratime,nosymfollow,"
		   "idmapped");
	CHECK_ATTR(A_RO | A_STRICT | A_NOSYMFOLLOW, 0,
		   "ro,strictatime,nosymfollow");
	CHECK_ATTR(A_NODEV | A_IDMAP | A_NOSYMFOLLOW, 0,
		   "rw,nodev,relatime,nosymfollow,idmapped");
}

T_CASE(attr_strictatime_nodiratime)
{
	char b[128];

	/*
	 * The header's template puts the atime word before nodiratime, its
	 * prose puts relatime after it; strictatime has no /proc place.
	 * Either order is accepted, the words are not.
	 */
	T_EQ_I(mntkit_attr_str(A_STRICT | A_NODIRATIME, 0, b, sizeof(b)),
	       strlen("rw,strictatime,nodiratime"));
	T_ASSERTF(!strcmp(b, "rw,strictatime,nodiratime") ||
			  !strcmp(b, "rw,nodiratime,strictatime"),
		  "got '%s'", b);
	CHECK_ATTR(A_STRICT | A_NODIRATIME, MNTKIT_DECODE_F_PROC,
		   "rw,nodiratime");
}

T_CASE(attr_proc_flavour)
{
	/* as /proc: strictatime has no word, everything else is the same */
	CHECK_ATTR(A_STRICT, MNTKIT_DECODE_F_PROC, "rw");
	CHECK_ATTR(A_RO | A_STRICT, MNTKIT_DECODE_F_PROC, "ro");
	CHECK_ATTR(A_NOSUID | A_STRICT | A_NOSYMFOLLOW, MNTKIT_DECODE_F_PROC,
		   "rw,nosuid,nosymfollow");
	CHECK_ATTR(0, MNTKIT_DECODE_F_PROC, "rw,relatime");
	CHECK_ATTR(A_NOATIME, MNTKIT_DECODE_F_PROC, "rw,noatime");
	CHECK_ATTR(A_NOATIME | A_NODIRATIME, MNTKIT_DECODE_F_PROC,
		   "rw,noatime,nodiratime");
	CHECK_ATTR(A_NODIRATIME, MNTKIT_DECODE_F_PROC, "rw,nodiratime,relatime");
	CHECK_ATTR(A_RO | A_NOSUID | A_NODEV | A_NOEXEC | A_NODIRATIME |
			   A_NOSYMFOLLOW | A_IDMAP,
		   MNTKIT_DECODE_F_PROC,
		   "ro,nosuid,nodev,noexec,nodiratime,relatime,nosymfollow,"
		   "idmapped");
}

#define CHECK_SB(flags, want)                                                  \
	do {                                                                   \
		char b_[128];                                                  \
		int r_;                                                        \
		memset(b_, 'X', sizeof(b_));                                   \
		r_ = mntkit_sb_flags_str((flags), 0, b_, sizeof(b_));          \
		T_EQ_STR(b_, (want));                                          \
		T_EQ_I(r_, strlen(want));                                      \
	} while (0)

T_CASE(sb_flags_words)
{
	CHECK_SB(0, "rw");
	CHECK_SB(MNTKIT_SB_RDONLY, "ro");
	CHECK_SB(MNTKIT_SB_SYNCHRONOUS, "rw,sync");
	CHECK_SB(MNTKIT_SB_DIRSYNC, "rw,dirsync");
	CHECK_SB(MNTKIT_SB_LAZYTIME, "rw,lazytime");
	CHECK_SB(MNTKIT_SB_RDONLY | MNTKIT_SB_LAZYTIME, "ro,lazytime");
	CHECK_SB(MNTKIT_SB_SYNCHRONOUS | MNTKIT_SB_DIRSYNC, "rw,sync,dirsync");
	CHECK_SB(MNTKIT_SB_RDONLY | MNTKIT_SB_SYNCHRONOUS | MNTKIT_SB_DIRSYNC |
			 MNTKIT_SB_LAZYTIME,
		 "ro,sync,dirsync,lazytime");
}

#define CHECK_PROP(prop, want)                                                 \
	do {                                                                   \
		char b_[128];                                                  \
		int r_;                                                        \
		memset(b_, 'X', sizeof(b_));                                   \
		r_ = mntkit_propagation_str((prop), 0, b_, sizeof(b_));        \
		T_EQ_STR(b_, (want));                                          \
		T_EQ_I(r_, strlen(want));                                      \
	} while (0)

T_CASE(propagation_words)
{
	CHECK_PROP(MNTKIT_MS_SHARED, "shared");
	/* findmnt (util-linux 2.38) says "private" whenever not shared */
	CHECK_PROP(MNTKIT_MS_SLAVE, "private,slave");
	CHECK_PROP(MNTKIT_MS_SHARED | MNTKIT_MS_SLAVE, "shared,slave");
	CHECK_PROP(MNTKIT_MS_UNBINDABLE, "private,unbindable");
	CHECK_PROP(MNTKIT_MS_PRIVATE, "private");
	CHECK_PROP(MNTKIT_MS_SLAVE | MNTKIT_MS_UNBINDABLE,
		   "private,slave,unbindable");
}

/* snprintf(3) semantics for one decoder call: each is a mntkit_decoder */
static void check_snprintf(mntkit_decoder dec, uint64_t v, const char *full)
{
	size_t n = strlen(full);
	char b[256];

	for (size_t len = 1; len <= n + 2; len++) {
		memset(b, 'X', sizeof(b));
		T_EQ_I(dec(v, 0, b, len), n);
		if (len > n) {
			T_EQ_STR(b, full);
		} else {
			T_ASSERTF(!strncmp(b, full, len - 1) && b[len - 1] == 0,
				  "len %zu: '%.*s'", len, (int)len, b);
		}
		T_ASSERTF(b[len] == 'X', "len %zu: byte %zu written", len, len);
	}
	/* len 0: nothing written, the length still returned */
	memset(b, 'X', sizeof(b));
	T_EQ_I(dec(v, 0, b, 0), n);
	T_ASSERT(b[0] == 'X');
	T_EQ_I(dec(v, 0, NULL, 0), n);
}

T_CASE(snprintf_semantics)
{
	check_snprintf(mntkit_attr_str, A_NOSUID | A_NODEV,
		       "rw,nosuid,nodev,relatime");
	check_snprintf(mntkit_attr_str, 0, "rw,relatime");
	check_snprintf(mntkit_sb_flags_str,
		       MNTKIT_SB_RDONLY | MNTKIT_SB_LAZYTIME, "ro,lazytime");
	check_snprintf(mntkit_sb_flags_str, 0, "rw");
	check_snprintf(mntkit_propagation_str,
		       MNTKIT_MS_SHARED | MNTKIT_MS_SLAVE, "shared,slave");
	check_snprintf(mntkit_propagation_str, MNTKIT_MS_PRIVATE, "private");
	check_snprintf(mntkit_changed_str, MNTKIT_CHANGED_ATTR |
			       MNTKIT_CHANGED_SOURCE, "attr,source");
}

/* one signature: the flags are checked, unknown ones refused */
T_CASE(decoder_flags)
{
	char b[64];

	T_NEG(mntkit_attr_str(0, MNTKIT_DECODE_F_PROC << 1, b, sizeof(b)),
	      EINVAL);
	T_NEG(mntkit_sb_flags_str(0, MNTKIT_DECODE_F_PROC, b, sizeof(b)), EINVAL);
	T_NEG(mntkit_propagation_str(0, MNTKIT_DECODE_F_PROC, b, sizeof(b)),
	      EINVAL);
	T_NEG(mntkit_changed_str(0, MNTKIT_DECODE_F_PROC, b, sizeof(b)), EINVAL);
	/* sb_flags is 32 bits in the reply: higher bits are no flag */
	T_EQ_I(mntkit_sb_flags_str(1ULL << 32, 0, b, sizeof(b)), 2);
	T_EQ_STR(b, "rw");
}

/* ---- real mounts ---- */

static void mount_variety(void)
{
	char *d = t_tmpdir(), *p, *src;
	int ufd;

	t_tmpfs(t_path("%s/nosuid", d), MS_NOSUID | MS_NODEV, NULL);
	t_tmpfs(t_path("%s/noexec", d), MS_NOEXEC | MS_RDONLY, NULL);
	t_tmpfs(t_path("%s/noatime", d), MS_NOATIME | MS_NODIRATIME, NULL);
	t_tmpfs(t_path("%s/strict", d), MS_STRICTATIME, NULL);
	t_tmpfs(t_path("%s/strictnodir", d), MS_STRICTATIME | MS_NODIRATIME,
		NULL);
	t_tmpfs(t_path("%s/nodir", d), MS_NODIRATIME, NULL);
	t_tmpfs(t_path("%s/sbflags", d),
		MS_SYNCHRONOUS | MS_DIRSYNC | MS_LAZYTIME, "size=2m");
	t_tmpfs(t_path("%s/sbro", d), MS_RDONLY | MS_LAZYTIME, NULL);
	p = t_path("%s/nosymfollow", d);
	t_tmpfs(p, 0, NULL);
	t_setattr(p, 0, A_NOSYMFOLLOW | A_NOEXEC, 0, 0);
	/* a read-only bind of a writable mount: per-mount ro only */
	t_bind(t_path("%s/nodir", d), t_path("%s/robind", d), 0);
	t_setattr(t_path("%s/robind", d), 0, A_RO, 0, 0);
	/* propagation: shared, a slave of it, shared+slave, unbindable */
	p = t_path("%s/shared", d);
	t_tmpfs(p, 0, NULL);
	t_mount(NULL, p, NULL, MS_SHARED, NULL);
	t_bind(p, t_path("%s/slave", d), 0);
	t_mount(NULL, t_path("%s/slave", d), NULL, MS_SLAVE, NULL);
	t_bind(p, t_path("%s/shslave", d), 0);
	t_mount(NULL, t_path("%s/shslave", d), NULL, MS_SLAVE, NULL);
	t_mount(NULL, t_path("%s/shslave", d), NULL, MS_SHARED, NULL);
	t_tmpfs(t_path("%s/unbind", d), 0, NULL);
	t_mount(NULL, t_path("%s/unbind", d), NULL, MS_UNBINDABLE, NULL);
	/* an idmapped mount, when the kernel allows one */
	src = t_path("%s/idsrc", d);
	t_tmpfs(src, 0, NULL);
	ufd = t_userns_fd_try("0 100000 65536");
	if (ufd < 0 || t_idmap_mount_try(src, t_path("%s/idmapped", d), ufd))
		t_log("no idmapped mount: %s\n", strerror(errno));
	if (ufd >= 0)
		close(ufd);
}

/* expected sb words: the ro/rw and sync/dirsync/lazytime words of field 11 */
static void sb_words(const char *superopts, char *out, size_t len)
{
	static const char *const w[] = {"sync", "dirsync", "lazytime"};

	snprintf(out, len, "%s", t_has_word(superopts, "ro") ? "ro" : "rw");
	for (size_t i = 0; i < 3; i++)
		if (t_has_word(superopts, w[i])) {
			strncat(out, ",", len - strlen(out) - 1);
			strncat(out, w[i], len - strlen(out) - 1);
		}
}

/*
 * expected propagation words from mountinfo's optional fields, as findmnt's
 * PROPAGATION column forms them: shared or private, then slave, unbindable
 */
static void prop_words(const struct t_mi *m, char *out, size_t len)
{
	snprintf(out, len, "%s", m->shared ? "shared" : "private");
	if (m->master)
		snprintf(out + strlen(out), len - strlen(out), ",slave");
	if (m->unbindable)
		snprintf(out + strlen(out), len - strlen(out), ",unbindable");
}

enum which { ATTR, SB, PROP };

/*
 * Every mount of the namespace: a decoder applied to the raw statmount
 * value gives the words mountinfo shows.
 */
static void real_mounts(enum which which)
{
	struct t_mitab tab;
	uint64_t *ids;
	size_t n, checked = 0;

	t_require_statmount();
	t_private_ns();
	mount_variety();
	t_mi_read(0, &tab);
	n = t_lm(MNTKIT_LSMT_ROOT, 0, &ids);
	T_ASSERT(n == tab.n);
	for (size_t i = 0; i < n; i++) {
		struct mntkit_statmount *sm =
			t_sm(ids[i], MNTKIT_STATMOUNT_SB_BASIC |
					     MNTKIT_STATMOUNT_MNT_BASIC);
		struct t_mi *m = t_mi_by_id(&tab, sm->mnt_id_old);
		char got[256], want[256];

		T_ASSERTF(m, "mount %u not in mountinfo", sm->mnt_id_old);
		switch (which) {
		case ATTR:
			mntkit_attr_str(sm->mnt_attr, MNTKIT_DECODE_F_PROC, got,
					sizeof(got));
			T_ASSERTF(!strcmp(got, m->opts),
				  "%s: attr %#" PRIx64 " decodes to '%s', "
				  "mountinfo says '%s'",
				  m->point, sm->mnt_attr, got, m->opts);
			break;
		case SB:
			mntkit_sb_flags_str(sm->sb_flags, 0, got, sizeof(got));
			sb_words(m->superopts, want, sizeof(want));
			T_ASSERTF(!strcmp(got, want),
				  "%s: sb_flags %#x decode to '%s', mountinfo "
				  "says '%s' ('%s')",
				  m->point, sm->sb_flags, got, want,
				  m->superopts);
			break;
		case PROP:
			mntkit_propagation_str(sm->mnt_propagation, 0, got,
					       sizeof(got));
			prop_words(m, want, sizeof(want));
			T_ASSERTF(!strcmp(got, want),
				  "%s: propagation %#" PRIx64 " decodes to "
				  "'%s', mountinfo says '%s' ('%s')",
				  m->point, sm->mnt_propagation, got, want,
				  m->optional);
			break;
		}
		checked++;
		free(sm);
	}
	T_ASSERT(checked >= 15);
	free(ids);
	t_mi_free(&tab);
}

T_CASE(real_mounts_attr_match_mountinfo)
{
	real_mounts(ATTR);
}

T_CASE(real_mounts_sb_flags_match_mountinfo)
{
	real_mounts(SB);
}

T_CASE(real_mounts_propagation_matches_mountinfo)
{
	real_mounts(PROP);
}

/* the non-/proc flavour differs only by strictatime */
T_CASE(real_mounts_strictatime_word)
{
	struct mntkit_statmount *sm;
	char *d, b[128];

	t_require_statmount();
	t_private_ns();
	d = t_tmpdir();
	sm = t_sm(t_tmpfs(t_path("%s/s", d), MS_STRICTATIME | MS_NOSUID, NULL),
		  MNTKIT_STATMOUNT_MNT_BASIC);
	T_EQ_U(sm->mnt_attr & MNTKIT_MOUNT_ATTR__ATIME, A_STRICT);
	mntkit_attr_str(sm->mnt_attr, 0, b, sizeof(b));
	T_EQ_STR(b, "rw,nosuid,strictatime");
	mntkit_attr_str(sm->mnt_attr, MNTKIT_DECODE_F_PROC, b, sizeof(b));
	T_EQ_STR(b, "rw,nosuid");
	free(sm);
}

/* ---- group names ---- */

static const struct {
	const char *name;
	uint64_t bit;
} groups[] = {
	{"sb_basic", 0x1},	    {"mnt_basic", 0x2},
	{"propagate_from", 0x4},    {"mnt_root", 0x8},
	{"mnt_point", 0x10},	    {"fs_type", 0x20},
	{"mnt_ns_id", 0x40},	    {"mnt_opts", 0x80},
	{"fs_subtype", 0x100},	    {"sb_source", 0x200},
	{"opt_array", 0x400},	    {"opt_sec_array", 0x800},
	{"supported_mask", 0x1000}, {"mnt_uidmap", 0x2000},
	{"mnt_gidmap", 0x4000},
};

#define NGROUPS (sizeof(groups) / sizeof(groups[0]))

T_CASE(mask_name_each_bit)
{
	for (size_t i = 0; i < NGROUPS; i++)
		T_EQ_STR(mntkit_mask_name(groups[i].bit), groups[i].name);
}

T_CASE(mask_name_not_one_bit)
{
	T_NULL(mntkit_mask_name(0));
	T_NULL(mntkit_mask_name(0x3));
	T_NULL(mntkit_mask_name(MNTKIT_STATMOUNT_ALL));
	T_NULL(mntkit_mask_name(0x8000));
	T_NULL(mntkit_mask_name(1ULL << 32));
	T_NULL(mntkit_mask_name(1ULL << 63));
}

T_CASE(mask_parse_each_name)
{
	for (size_t i = 0; i < NGROUPS; i++) {
		uint64_t m = 0;
		size_t bad = 12345;

		T_EQ_I(mntkit_mask_parse(groups[i].name, &m, &bad), 0);
		T_EQ_U(m, groups[i].bit);
	}
}

T_CASE(mask_parse_lists)
{
	uint64_t m = 0;
	size_t bad = 0;
	char list[512] = "";

	T_EQ_I(mntkit_mask_parse("sb_basic,mnt_point", &m, &bad), 0);
	T_EQ_U(m, 0x11);
	T_EQ_I(mntkit_mask_parse("mnt_gidmap,fs_type,mnt_gidmap", &m, &bad), 0);
	T_EQ_U(m, 0x4020);
	T_EQ_I(mntkit_mask_parse("all", &m, &bad), 0);
	T_EQ_U(m, MNTKIT_STATMOUNT_ALL);
	for (size_t i = 0; i < NGROUPS; i++) {
		if (i)
			strcat(list, ",");
		strcat(list, groups[NGROUPS - 1 - i].name);
	}
	T_EQ_I(mntkit_mask_parse(list, &m, &bad), 0);
	T_EQ_U(m, MNTKIT_STATMOUNT_ALL);
}

T_CASE(mask_parse_numbers)
{
	uint64_t m = 0;
	size_t bad = 0;

	T_EQ_I(mntkit_mask_parse("0x7fff", &m, &bad), 0);
	T_EQ_U(m, 0x7fff);
	T_EQ_I(mntkit_mask_parse("0x3", &m, &bad), 0);
	T_EQ_U(m, 3);
	T_EQ_I(mntkit_mask_parse("255", &m, &bad), 0);
	T_EQ_U(m, 255);
	T_EQ_I(mntkit_mask_parse("0", &m, &bad), 0);
	T_EQ_U(m, 0);
	T_EQ_I(mntkit_mask_parse("16", &m, &bad), 0);
	T_EQ_U(m, 16);
}

#define CHECK_BAD(text, off)                                                   \
	do {                                                                   \
		uint64_t m_ = 0x1234;                                          \
		size_t bad_ = 9999;                                            \
		T_NEG(mntkit_mask_parse((text), &m_, &bad_), EINVAL);          \
		T_EQ_U(bad_, (off));                                           \
	} while (0)

T_CASE(mask_parse_bad_input)
{
	CHECK_BAD("bogus", 0);
	CHECK_BAD("sb_basic,bogus", 9);
	CHECK_BAD("mnt_root,fs_type,nope,mnt_point", 17);
	CHECK_BAD("sb_basicx", 0);
	CHECK_BAD("sb_basic,mnt_basi", 9);
	CHECK_BAD("fs_type,al", 8);
	CHECK_BAD("0xzz", 0);
	CHECK_BAD("12abc", 0);
	CHECK_BAD("mnt_point,-1", 10);
}

int main(int argc, char **argv)
{
	return t_run(argc, argv);
}
