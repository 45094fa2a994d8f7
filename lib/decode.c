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

static void words_add(struct words *w, const char *word)
{
	size_t n = strlen(word);

	if (w->pos) {
		if (w->pos + 1 < w->len)
			w->buf[w->pos] = ',';
		w->pos++;
	}
	if (w->pos < w->len) {
		size_t room = w->len - 1 - w->pos;

		memcpy(w->buf + w->pos, word, n < room ? n : room);
	}
	w->pos += n;
}

static int words_end(struct words *w)
{
	if (w->len)
		w->buf[w->pos < w->len ? w->pos : w->len - 1] = '\0';
	return (int)w->pos;
}

int mntkit_attr_str(uint64_t mnt_attr, unsigned int flags, char *buf,
		    size_t len)
{
	uint64_t atime = mnt_attr & MNTKIT_MOUNT_ATTR__ATIME;
	struct words w = { buf, buf ? len : 0, 0 };

	if (flags & ~MNTKIT_DECODE_PROC)
		return mntkit__fail(EINVAL);

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
	    !(flags & MNTKIT_DECODE_PROC))
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
	struct words w = { buf, buf ? len : 0, 0 };

	if (flags)
		return mntkit__fail(EINVAL);

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
	struct words w = { buf, buf ? len : 0, 0 };

	if (flags)
		return mntkit__fail(EINVAL);

	words_add(&w, mnt_propagation & MNTKIT_MS_SHARED ? "shared" :
							  "private");
	if (mnt_propagation & MNTKIT_MS_SLAVE)
		words_add(&w, "slave");
	if (mnt_propagation & MNTKIT_MS_UNBINDABLE)
		words_add(&w, "unbindable");
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
