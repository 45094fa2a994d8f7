// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * fanotify mount events (6.15+): the one parser of a read buffer, for the
 * watch of one namespace (lib/watch.c, its own group) and the watch of
 * all (lib/watch-all.c, one group for every namespace).
 *
 * An event is a struct fanotify_event_metadata (fd -1: a mount event has
 * no object to open) followed by info records; a mount event's record is
 * FAN_EVENT_INFO_TYPE_MNT (type 7, 16 bytes: a header, then the unique
 * mount ID as a u64 at offset 8). It names the mount only, not its
 * namespace.
 */
#include <errno.h>
#include <string.h>
#include <sys/fanotify.h>
#include <unistd.h>

#include "internal.h"
#include "syscall.h"

/* the unique mount ID of one event's info records, 0 if none */
static uint64_t mnt_id_of(const char *ev, size_t len, size_t meta_len)
{
	for (size_t off = meta_len; off + 4 <= len;) {
		const unsigned char *rec = (const unsigned char *)ev + off;
		uint16_t rlen;
		uint64_t id;

		memcpy(&rlen, rec + 2, sizeof(rlen));
		if (rlen < 4 || off + rlen > len)
			return 0;
		if (rec[0] == MNTKIT_FAN_EVENT_INFO_TYPE_MNT && rlen >= 16) {
			memcpy(&id, rec + 8, sizeof(id));
			return id;
		}
		off += rlen;
	}
	return 0;
}

int mntkit__fan_next(const char *buf, size_t len, size_t *off,
		     struct mntkit__fan_event *ev)
{
	struct fanotify_event_metadata m;

	if (*off + sizeof(m) > len)
		return 0;
	memcpy(&m, buf + *off, sizeof(m));
	if (m.event_len < sizeof(m) || m.event_len > len - *off ||
	    m.metadata_len < sizeof(m) || m.metadata_len > m.event_len ||
	    m.vers != FANOTIFY_METADATA_VERSION)
		return -EBADMSG;
	if (m.fd >= 0) /* not of a mount event; never leak it */
		close(m.fd);
	ev->mask = m.mask;
	ev->pid = m.pid;
	ev->mnt_id = mnt_id_of(buf + *off, m.event_len, m.metadata_len);
	*off += m.event_len;
	return 1;
}
