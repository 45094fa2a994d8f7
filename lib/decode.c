// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Flags to the words users know from findmnt and /proc/PID/mountinfo, and
 * the names of the statmount groups.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "groups.h"
#include "internal.h"

/* an snprintf-like writer of comma-separated words */
struct words {
	char *buf;
	size_t len;
	size_t pos; /* length of the whole text, also past @len */
};

/* @n bytes of @s, as far as they fit (a byte is kept for the NUL) */
static void words_put(struct words *w, const char *s, size_t n)
{
	if (w->pos < w->len) {
		size_t room = w->len - 1 - w->pos;

		memcpy(w->buf + w->pos, s, n < room ? n : room);
	}
	w->pos += n;
}

static void words_add(struct words *w, const char *word)
{
	if (w->pos)
		words_put(w, ",", 1);
	words_put(w, word, strlen(word));
}

/* @s with the \ooo escapes of mountinfo and statmount undone */
static void words_put_unmangled(struct words *w, const char *s)
{
	while (*s) {
		const char *bs = strchr(s, '\\');
		char c;

		if (!bs) {
			words_put(w, s, strlen(s));
			return;
		}
		words_put(w, s, (size_t)(bs - s));
		if (bs[1] >= '0' && bs[1] <= '3' && bs[2] >= '0' &&
		    bs[2] <= '7' && bs[3] >= '0' && bs[3] <= '7') {
			c = (char)(((bs[1] - '0') << 6) | ((bs[2] - '0') << 3) |
				   (bs[3] - '0'));
			s = bs + 4;
		} else {
			c = '\\';
			s = bs + 1;
		}
		words_put(w, &c, 1);
	}
}

static int words_end(struct words *w)
{
	if (w->len)
		w->buf[w->pos < w->len ? w->pos : w->len - 1] = '\0';
	return (int)w->pos;
}

/* a decoder's buffer: NULL only with @len 0 */
#define WORDS_INIT(w, buf, len)                                                \
	do {                                                                   \
		if (!(buf) && (len))                                           \
			return MNTKIT__MISUSE(EINVAL,                          \
				"a NULL buffer with a length of %zu (NULL "    \
				"only with 0, to measure)", (size_t)(len));    \
		(w) = (struct words){ (buf), (len), 0 };                       \
	} while (0)

/* unknown flags of a decoder */
static int bad_flags(const char *func, unsigned int flags, unsigned int known)
{
	return mntkit__misuse(func, EINVAL, "unknown flags %#x", flags & ~known);
}

int mntkit_attr_str(uint64_t mnt_attr, unsigned int flags, char *buf,
		    size_t len)
{
	uint64_t atime = mnt_attr & MNTKIT_MOUNT_ATTR__ATIME;
	struct words w;

	if (flags & ~MNTKIT_DECODE_F_PROC)
		return bad_flags(__func__, flags, MNTKIT_DECODE_F_PROC);
	WORDS_INIT(w, buf, len);

	words_add(&w, mnt_attr & MNTKIT_MOUNT_ATTR_RDONLY ? "ro" : "rw");
	if (mnt_attr & MNTKIT_MOUNT_ATTR_NOSUID)
		words_add(&w, "nosuid");
	if (mnt_attr & MNTKIT_MOUNT_ATTR_NODEV)
		words_add(&w, "nodev");
	if (mnt_attr & MNTKIT_MOUNT_ATTR_NOEXEC)
		words_add(&w, "noexec");
	if (atime == MNTKIT_MOUNT_ATTR_NOATIME)
		words_add(&w, "noatime");
	if (atime == MNTKIT_MOUNT_ATTR_STRICTATIME &&
	    !(flags & MNTKIT_DECODE_F_PROC))
		words_add(&w, "strictatime");
	if (mnt_attr & MNTKIT_MOUNT_ATTR_NODIRATIME)
		words_add(&w, "nodiratime");
	if (atime == MNTKIT_MOUNT_ATTR_RELATIME)
		words_add(&w, "relatime");
	if (mnt_attr & MNTKIT_MOUNT_ATTR_NOSYMFOLLOW)
		words_add(&w, "nosymfollow");
	if (mnt_attr & MNTKIT_MOUNT_ATTR_IDMAP)
		words_add(&w, "idmapped");
	return words_end(&w);
}

int mntkit_sb_flags_str(uint64_t sb_flags, unsigned int flags, char *buf,
			size_t len)
{
	struct words w;

	if (flags)
		return bad_flags(__func__, flags, 0);
	WORDS_INIT(w, buf, len);

	words_add(&w, sb_flags & MNTKIT_SB_RDONLY ? "ro" : "rw");
	if (sb_flags & MNTKIT_SB_SYNCHRONOUS)
		words_add(&w, "sync");
	if (sb_flags & MNTKIT_SB_DIRSYNC)
		words_add(&w, "dirsync");
	if (sb_flags & MNTKIT_SB_LAZYTIME)
		words_add(&w, "lazytime");
	return words_end(&w);
}

int mntkit_propagation_str(uint64_t mnt_propagation, unsigned int flags,
			   char *buf, size_t len)
{
	struct words w;

	if (flags)
		return bad_flags(__func__, flags, 0);
	WORDS_INIT(w, buf, len);

	words_add(&w, mnt_propagation & MNTKIT_MS_SHARED ? "shared" :
							  "private");
	if (mnt_propagation & MNTKIT_MS_SLAVE)
		words_add(&w, "slave");
	if (mnt_propagation & MNTKIT_MS_UNBINDABLE)
		words_add(&w, "unbindable");
	return words_end(&w);
}

/*
 * The three option strings of findmnt. VFS-OPTIONS: the mount's flags
 * (mntkit_attr_str(), as mountinfo). FS-OPTIONS: the superblock's flags
 * (mntkit_sb_flags_str()), then the filesystem's own options. OPTIONS:
 * libmount's merge of the two: "ro" when either says ro (else "rw"), the
 * rest of the VFS words, the rest of the superblock's, the fs's options.
 */
int mntkit_sm_options(const struct mntkit_statmount *sm,
		      enum mntkit_options which, char *buf, size_t len)
{
	uint64_t need = 0;
	const char *fs = NULL;
	char vfs[128], sb[64];
	struct words w;
	int r;

	if (!sm)
		return MNTKIT__MISUSE(EINVAL, "a NULL reply");
	if (which == MNTKIT_OPTIONS_ALL || which == MNTKIT_OPTIONS_VFS)
		need |= MNTKIT_STATMOUNT_MNT_BASIC;
	if (which == MNTKIT_OPTIONS_ALL || which == MNTKIT_OPTIONS_FS)
		need |= MNTKIT_STATMOUNT_SB_BASIC;
	if (!need)
		return MNTKIT__MISUSE(EINVAL, "unknown option string %d",
				      (int)which);
	WORDS_INIT(w, buf, len);
	if (sm->size < MNTKIT_STATMOUNT_FIXED_SIZE)
		return mntkit__fail(EBADMSG);
	if ((sm->mask & need) != need)
		return mntkit__fail(ENODATA);
	if (need & MNTKIT_STATMOUNT_SB_BASIC) {
		r = mntkit_sm_str(sm, sm->size, MNTKIT_FIELD_MNT_OPTS, &fs);
		if (r == -EBADMSG)
			return r;
	}
	mntkit_attr_str(sm->mnt_attr, MNTKIT_DECODE_F_PROC, vfs, sizeof(vfs));
	mntkit_sb_flags_str(sm->sb_flags, 0, sb, sizeof(sb));
	switch (which) {
	case MNTKIT_OPTIONS_VFS:
		words_add(&w, vfs);
		return words_end(&w);
	case MNTKIT_OPTIONS_FS:
		words_add(&w, sb);
		break;
	default:
		words_add(&w, (sm->mnt_attr & MNTKIT_MOUNT_ATTR_RDONLY) ||
				      (sm->sb_flags & MNTKIT_SB_RDONLY) ?
				      "ro" : "rw");
		/* each without its first word, ro or rw */
		if (strchr(vfs, ','))
			words_put(&w, strchr(vfs, ','), strlen(strchr(vfs, ',')));
		if (strchr(sb, ','))
			words_put(&w, strchr(sb, ','), strlen(strchr(sb, ',')));
		break;
	}
	if (fs && *fs) {
		words_put(&w, ",", 1);
		words_put_unmangled(&w, fs);
	}
	return words_end(&w);
}

static const struct {
	uint32_t bit;
	const char *name;
} changed_names[] = {
	{ MNTKIT_CHANGED_PARENT, "parent" },
	{ MNTKIT_CHANGED_MNT_POINT, "mnt_point" },
	{ MNTKIT_CHANGED_ATTR, "attr" },
	{ MNTKIT_CHANGED_PROPAGATION, "propagation" },
	{ MNTKIT_CHANGED_SB_FLAGS, "sb_flags" },
	{ MNTKIT_CHANGED_OPTIONS, "options" },
	{ MNTKIT_CHANGED_SOURCE, "source" },
	{ MNTKIT_CHANGED_IDMAP, "idmap" },
	{ MNTKIT_CHANGED_OTHER, "other" },
};

int mntkit_changed_str(uint64_t changed, unsigned int flags, char *buf,
		       size_t len)
{
	struct words w;

	if (flags)
		return bad_flags(__func__, flags, 0);
	WORDS_INIT(w, buf, len);
	for (size_t i = 0; i < MNTKIT_ARRAY_SIZE(changed_names); i++)
		if (changed & changed_names[i].bit)
			words_add(&w, changed_names[i].name);
	return words_end(&w);
}

const char *mntkit_mask_name(uint64_t bit)
{
	const struct mntkit__group *g = mntkit__group(bit);

	return g ? g->name : NULL;
}

/* one name of a list: a group, "all", or a number */
static int mask_word(const char *s, size_t n, uint64_t *bits)
{
	char num[32];
	char *end;

	if (n == 3 && !strncmp(s, "all", 3)) {
		*bits = MNTKIT_STATMOUNT_ALL;
		return 0;
	}
	for (size_t i = 0; i < MNTKIT__NGROUPS; i++) {
		const struct mntkit__group *g = &mntkit__groups[i];

		if (strlen(g->name) == n && !strncmp(s, g->name, n)) {
			*bits = g->flag;
			return 0;
		}
	}
	if (!n || n >= sizeof(num) || s[0] < '0' || s[0] > '9')
		return -EINVAL;
	memcpy(num, s, n);
	num[n] = '\0';
	errno = 0;
	*bits = strtoull(num, &end, num[0] == '0' && (num[1] | 0x20) == 'x' ?
				       16 : 10);
	return errno || *end ? -EINVAL : 0;
}

int mntkit_mask_parse(const char *text, uint64_t *mask, size_t *bad)
{
	const char *s = text;
	uint64_t m = 0, bits;

	if (!text || !mask)
		return mntkit__fail(EINVAL);
	for (;;) {
		size_t n = strcspn(s, ",");

		if (mask_word(s, n, &bits)) {
			if (bad)
				*bad = (size_t)(s - text);
			return mntkit__fail(EINVAL);
		}
		m |= bits;
		if (!s[n])
			break;
		s += n + 1;
	}
	*mask = m;
	return 0;
}
