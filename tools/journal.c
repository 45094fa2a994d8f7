// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * journal.c - the client side of journald's native protocol (see
 * journal.h and systemd's JOURNAL_NATIVE_PROTOCOL document).
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "journal.h"

#ifndef MFD_ALLOW_SEALING
#define MFD_ALLOW_SEALING 0x0002U
#endif
#ifndef F_ADD_SEALS
#define F_ADD_SEALS   (1024 + 9)
#define F_SEAL_SEAL   0x0001
#define F_SEAL_SHRINK 0x0002
#define F_SEAL_GROW   0x0004
#define F_SEAL_WRITE  0x0008
#endif

static int journal_addr(const char *path, struct sockaddr_un *sa,
			socklen_t *len)
{
	size_t n = strlen(path);

	if (n >= sizeof(sa->sun_path))
		return -ENAMETOOLONG;
	memset(sa, 0, sizeof(*sa));
	sa->sun_family = AF_UNIX;
	memcpy(sa->sun_path, path, n);
	*len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + n + 1);
	return 0;
}

/*
 * A test's knob: MNTWATCH_TEST_JOURNAL_SNDBUF=N sets SO_SNDBUF, so that
 * an entry of a few KiB is already too big for a datagram (the memfd
 * path). Ignored in a setuid or file-capability program.
 */
static void test_sndbuf(int fd)
{
	const char *s = secure_getenv("MNTWATCH_TEST_JOURNAL_SNDBUF");
	int n;

	if (s && (n = atoi(s)) > 0)
		setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &n, sizeof(n));
}

int journal_open(struct journal *j, const char *path)
{
	struct sockaddr_un sa;
	socklen_t len;
	int r;

	j->fd = -1;
	j->path = path ? path : JOURNAL_SOCKET;
	outbuf_init(&j->entry);
	r = journal_addr(j->path, &sa, &len);
	if (r < 0)
		return r;
	j->fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (j->fd < 0)
		return -errno;
	/*
	 * Connected: the answer "nobody there" comes now, not at the first
	 * event. A journald restarted later has a new socket; journal_send
	 * connects again then.
	 */
	if (connect(j->fd, (struct sockaddr *)&sa, len) < 0) {
		r = -errno;
		close(j->fd);
		j->fd = -1;
		return r;
	}
	test_sndbuf(j->fd);
	return 0;
}

void journal_close(struct journal *j)
{
	if (j->fd >= 0)
		close(j->fd);
	j->fd = -1;
	outbuf_free(&j->entry);
}

void journal_field_bytes(struct journal *j, const char *key, const void *value,
			 size_t len)
{
	struct outbuf *ob = &j->entry;
	unsigned char le[8];
	uint64_t n = len;

	outbuf_puts(ob, key);
	if (!memchr(value, '\n', len)) {
		outbuf_putc(ob, '=');
		outbuf_write(ob, value, len);
		outbuf_putc(ob, '\n');
		return;
	}
	/* the binary form: KEY\n, the size as 64-bit little endian, bytes */
	outbuf_putc(ob, '\n');
	for (int i = 0; i < 8; i++)
		le[i] = (unsigned char)(n >> (8 * i));
	outbuf_write(ob, le, sizeof(le));
	outbuf_write(ob, value, len);
	outbuf_putc(ob, '\n');
}

void journal_field(struct journal *j, const char *key, const char *value)
{
	journal_field_bytes(j, key, value, strlen(value));
}

void journal_field_u64(struct journal *j, const char *key, uint64_t v)
{
	char buf[24];

	snprintf(buf, sizeof(buf), "%" PRIu64, v);
	journal_field(j, key, buf);
}

/* too big for a datagram: the entry in a sealed memfd, the fd passed */
static int send_memfd(struct journal *j)
{
	union {
		struct cmsghdr h;
		char buf[CMSG_SPACE(sizeof(int))];
	} ctl;
	struct msghdr mh = {
		.msg_control = ctl.buf,
		.msg_controllen = sizeof(ctl.buf),
	};
	struct cmsghdr *c;
	size_t off = 0;
	int fd, r = 0;

	fd = memfd_create("mntwatch-journal", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	if (fd < 0)
		return -errno;
	while (off < j->entry.len) {
		ssize_t n = write(fd, j->entry.data + off, j->entry.len - off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			r = n < 0 ? -errno : -EIO;
			goto out;
		}
		off += (size_t)n;
	}
	/* journald takes a memfd only sealed: nobody can change it later */
	if (fcntl(fd, F_ADD_SEALS,
		  F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE | F_SEAL_SEAL) <
	    0) {
		r = -errno;
		goto out;
	}
	memset(&ctl, 0, sizeof(ctl));
	c = CMSG_FIRSTHDR(&mh);
	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_RIGHTS;
	c->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(c), &fd, sizeof(int));
	if (sendmsg(j->fd, &mh, MSG_NOSIGNAL) < 0)
		r = -errno;
out:
	close(fd);
	return r;
}

static int send_entry(struct journal *j)
{
	if (send(j->fd, j->entry.data, j->entry.len, MSG_NOSIGNAL) >= 0)
		return 0;
	if (errno == EMSGSIZE || errno == ENOBUFS)
		return send_memfd(j);
	return -errno;
}

/* journald restarted: its socket is a new one */
static int reconnect(struct journal *j)
{
	struct sockaddr_un sa;
	socklen_t len;

	if (journal_addr(j->path, &sa, &len) < 0)
		return -ENAMETOOLONG;
	if (connect(j->fd, (struct sockaddr *)&sa, len) < 0)
		return -errno;
	return 0;
}

/*
 * The journald we were connected to is gone: wait for the one that
 * replaces it (a restart: the socket is absent or not bound yet for a
 * moment), at most RESTART_WAIT_MS, then send to it.
 */
#define RESTART_WAIT_MS 2000
#define RESTART_STEP_MS 50

static int send_again(struct journal *j)
{
	const struct timespec step = {0, RESTART_STEP_MS * 1000000L};
	int r = -ECONNREFUSED;

	for (int ms = 0; ms <= RESTART_WAIT_MS; ms += RESTART_STEP_MS) {
		r = reconnect(j);
		if (!r)
			return send_entry(j);
		if (r != -ECONNREFUSED && r != -ENOENT)
			return r;
		nanosleep(&step, NULL);
	}
	return r;
}

int journal_send(struct journal *j)
{
	int r;

	if (j->entry.err) {
		r = -j->entry.err;
		outbuf_reset(&j->entry);
		return r;
	}
	do
		r = send_entry(j);
	while (r == -EINTR);
	if (r == -ECONNREFUSED || r == -ENOTCONN)
		r = send_again(j);
	outbuf_reset(&j->entry);
	return r;
}
