// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * mntwatch-journal.c - mntwatch --journal: one mount event as one
 * structured journal entry (the fields are in mntwatch(1), JOURNAL).
 */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "mntwatch-journal.h"

/*
 * MESSAGE_ID of every mntwatch entry: one ID for "a mount event seen by
 * mntkit" (journalctl MESSAGE_ID=... finds them all; EVENT tells which).
 */
#define MNTWATCH_MESSAGE_ID "7d5e998938e3438caaf2b433cb16734d"

/* syslog priorities: a mount event is news, a resync a warning */
#define PRIO_WARNING 4
#define PRIO_INFO    6

static const char *field_str(const struct mntkit_statmount *sm,
			     enum mntkit_field f)
{
	const char *s;

	if (!sm || mntkit_sm_str(sm, sm->size, f, &s) < 0)
		return NULL;
	return s;
}

static void put_str(struct journal *j, const char *key,
		    const struct mntkit_statmount *sm, enum mntkit_field f)
{
	const char *s = field_str(sm, f);

	if (s)
		journal_field(j, key, s);
}

static void put_words(struct journal *j, const char *key, mntkit_decoder fn,
		      uint64_t v)
{
	char buf[256];

	if (fn(v, 0, buf, sizeof(buf)) >= 0)
		journal_field(j, key, buf);
}

/* FSTYPE: type, or type.subtype as mntwatch's text */
static void put_fstype(struct journal *j, const char *key,
		       const struct mntkit_statmount *sm)
{
	const char *type = field_str(sm, MNTKIT_FIELD_FS_TYPE);
	const char *sub = field_str(sm, MNTKIT_FIELD_FS_SUBTYPE);
	char buf[512];

	if (!type)
		return;
	if (sub && *sub) {
		snprintf(buf, sizeof(buf), "%s.%s", type, sub);
		journal_field(j, key, buf);
	} else {
		journal_field(j, key, type);
	}
}

/* the record's fields; @old: the OLD_ names, only those in @changed */
static void put_record(struct journal *j, const struct mntkit_statmount *sm,
		       bool old, uint32_t changed)
{
#define WANT(bit) (!old || (changed & (bit)))
	bool basic = sm->mask & MNTKIT_STATMOUNT_MNT_BASIC;

	if (basic && WANT(MNTKIT_CHANGED_PARENT))
		journal_field_u64(
			j, old ? "OLD_MOUNT_PARENT_ID" : "MOUNT_PARENT_ID",
			sm->mnt_parent_id);
	if (WANT(MNTKIT_CHANGED_MNT_POINT))
		put_str(j, old ? "OLD_MOUNT_POINT" : "MOUNT_POINT", sm,
			MNTKIT_FIELD_MNT_POINT);
	if (!old) {
		put_str(j, "MOUNT_ROOT", sm, MNTKIT_FIELD_MNT_ROOT);
		put_fstype(j, "FSTYPE", sm);
	}
	if (WANT(MNTKIT_CHANGED_SOURCE))
		put_str(j, old ? "OLD_MOUNT_SOURCE" : "MOUNT_SOURCE", sm,
			MNTKIT_FIELD_SB_SOURCE);
	if (basic && WANT(MNTKIT_CHANGED_ATTR))
		put_words(j, old ? "OLD_MOUNT_ATTR" : "MOUNT_ATTR",
			  mntkit_attr_str, sm->mnt_attr);
	if (basic && WANT(MNTKIT_CHANGED_PROPAGATION))
		put_words(j,
			  old ? "OLD_MOUNT_PROPAGATION" : "MOUNT_PROPAGATION",
			  mntkit_propagation_str, sm->mnt_propagation);
	if (WANT(MNTKIT_CHANGED_OPTIONS))
		put_str(j, old ? "OLD_MOUNT_OPTIONS" : "MOUNT_OPTIONS", sm,
			MNTKIT_FIELD_MNT_OPTS);
#undef WANT
}

int mntwatch_journal_event(struct journal *j, const struct mntkit_event *ev,
			   const char *message, uint64_t mnt_ns)
{
	const struct mntkit_statmount *sm = ev->after ? ev->after : ev->before;
	bool resync = ev->kind == MNTKIT_EVENT_RESYNC;
	char buf[128];

	journal_field(j, "MESSAGE", message);
	journal_field(j, "MESSAGE_ID", MNTWATCH_MESSAGE_ID);
	journal_field_u64(j, "PRIORITY", resync ? PRIO_WARNING : PRIO_INFO);
	journal_field(j, "SYSLOG_IDENTIFIER", "mntwatch");
	journal_field(j, "EVENT", mntkit_event_kind_name(ev->kind));
	journal_field_u64(j, "SEQ", ev->seq);
	journal_field_u64(j, "EVENT_REALTIME_NS", ev->realtime_ns);
	journal_field_u64(j, "EVENT_MONOTONIC_NS", ev->monotonic_ns);
	if (mnt_ns)
		journal_field_u64(j, "MOUNT_NS", mnt_ns);
	if (resync) {
		journal_field_u64(j, "RESYNC_END", ev->resync_end);
		return journal_send(j);
	}
	journal_field_u64(j, "MOUNT_ID", ev->mnt_id);
	if (ev->flags & MNTKIT_EVENT_F_GONE)
		journal_field(j, "GONE", "1");
	if (sm)
		put_record(j, sm, false, 0);
	if ((ev->kind == MNTKIT_EVENT_MOVE ||
	     ev->kind == MNTKIT_EVENT_CHANGE) &&
	    ev->before) {
		mntkit_changed_str(ev->changed, 0, buf, sizeof(buf));
		journal_field(j, "CHANGED", buf);
		put_record(j, ev->before, true, ev->changed);
	}
	return journal_send(j);
}
