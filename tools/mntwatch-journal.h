/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * mntwatch-journal.h - mntwatch --journal: a mount event as a structured
 * journal entry (journal.h sends it).
 */
#ifndef MNTKIT_TOOLS_MNTWATCH_JOURNAL_H
#define MNTKIT_TOOLS_MNTWATCH_JOURNAL_H

#include <stdint.h>

#include "mntkit.h"
#include "journal.h"

/*
 * Send @ev with @message (its text line) as MESSAGE; @mnt_ns the watched
 * namespace's ID (0: unknown, no MOUNT_NS). 0 or a negative errno.
 */
int mntwatch_journal_event(struct journal *j, const struct mntkit_event *ev,
			   const char *message, uint64_t mnt_ns);

#endif
