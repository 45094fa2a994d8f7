/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * journal.h - structured entries to systemd-journald over its native
 * protocol (no libsystemd): one AF_UNIX datagram per entry to
 * /run/systemd/journal/socket, fields as "KEY=value\n", a value holding
 * a newline as "KEY\n" + its length (64-bit little endian) + the bytes +
 * "\n"; an entry too big for a datagram goes as a sealed memfd passed
 * with SCM_RIGHTS in an empty datagram.
 */
#ifndef MNTKIT_TOOLS_JOURNAL_H
#define MNTKIT_TOOLS_JOURNAL_H

#include <stddef.h>
#include <stdint.h>

#include "output.h"

#define JOURNAL_SOCKET "/run/systemd/journal/socket"

struct journal {
	int fd;
	const char *path;
	struct outbuf entry; /* the entry being built */
};

/*
 * journal_open - a socket for entries to the journal at @path (NULL: the
 * system's). Fails when nothing listens there: 0, or a negative errno
 * (-ENOENT: no such socket, -ECONNREFUSED: no journald behind it).
 */
int journal_open(struct journal *j, const char *path);
void journal_close(struct journal *j);

/*
 * Fields of the entry being built. @key: A-Z, 0-9 and '_', not starting
 * with '_' or a digit (the caller's names are constants). A value may
 * hold any byte but NUL (journal_field_bytes: any byte).
 */
void journal_field(struct journal *j, const char *key, const char *value);
void journal_field_bytes(struct journal *j, const char *key, const void *value,
			 size_t len);
void journal_field_u64(struct journal *j, const char *key, uint64_t v);

/* journal_send - send the entry built and start a new one; 0 or -errno */
int journal_send(struct journal *j);

#endif
