/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * test-api - the API rules of mntkit.h applied to the extensible event
 * (struct mntkit_event: the caller's size, MNTKIT_EVENT(), the fields a
 * watch adds: seq, timestamps, a RESYNC's range) and mntkit_diff()'s
 * caller-sized array.
 */
#include <poll.h>
#include <stddef.h>

#include <mntkit.h>

#include "harness.h"

static int64_t now_ns(clockid_t clk)
{
	struct timespec ts;

	clock_gettime(clk, &ts);
	return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static struct mntkit_watch *poll_watch(void)
{
	MNTKIT_WATCH_OPTS(wo, .source = MNTKIT_WATCH_POLL,
			  .rescan_ms = MNTKIT_WATCH_NO_RESCAN,
			  .mask = MNTKIT_STATMOUNT_MNT_BASIC |
				  MNTKIT_STATMOUNT_MNT_POINT);
	struct mntkit_watch *w = NULL;
	int r = mntkit_watch_new(&wo, NULL, &w);

	T_ASSERTF(r == 0, "mntkit_watch_new: %s", strerror(-r));
	return w;
}

/* the next event into @ev (its size as the caller set it), within 5 s */
static void next_event(struct mntkit_watch *w, struct mntkit_event *ev)
{
	struct pollfd p = { .fd = mntkit_watch_fd(w), .events = POLLIN };
	int64_t end = now_ns(CLOCK_MONOTONIC) + 5000000000LL;
	int r;

	while ((r = mntkit_watch_read(w, ev)) == 0 &&
	       now_ns(CLOCK_MONOTONIC) < end)
		poll(&p, 1, 50);
	T_ASSERTF(r == 1, "no event (%d)", r);
}

T_CASE(event_initializer)
{
	MNTKIT_EVENT(ev);

	T_EQ_U(ev.size, sizeof(struct mntkit_event));
	T_EQ_U(ev.kind, 0);
	T_EQ_U(ev.seq, 0);
	T_NULL(ev.before);
	/* the first layout ends where the watch's fields begin */
	T_EQ_U(MNTKIT_EVENT_SIZE_VER0, offsetof(struct mntkit_event, seq));
	T_EQ_U(offsetof(struct mntkit_event, size), 0);
}

/*
 * A watch's events carry seq 1, 2, ... and the two clocks of the moment
 * the watch learned of the change.
 */
T_CASE(watch_event_seq_and_time)
{
	struct mntkit_watch *w;
	int64_t rt0, mono0;
	char *d;
	MNTKIT_EVENT(a);
	MNTKIT_EVENT(b);

	t_private_ns();
	d = t_tmpdir();
	w = poll_watch();
	rt0 = now_ns(CLOCK_REALTIME);
	mono0 = now_ns(CLOCK_MONOTONIC);
	t_tmpfs(t_path("%s/x", d), 0, NULL);
	next_event(w, &a);
	t_umount(t_path("%s/x", d));
	next_event(w, &b);
	T_EQ_I(a.kind, MNTKIT_EVENT_ATTACH);
	T_EQ_I(b.kind, MNTKIT_EVENT_DETACH);
	T_EQ_U(a.mnt_id, b.mnt_id);
	T_EQ_U(a.seq, 1);
	T_EQ_U(b.seq, 2);
	T_ASSERT((int64_t)a.monotonic_ns >= mono0);
	T_ASSERT(b.monotonic_ns >= a.monotonic_ns);
	T_ASSERT((int64_t)b.monotonic_ns <= now_ns(CLOCK_MONOTONIC));
	/* realtime: the same moment on the other clock (1 s of slack for a
	 * clock step) */
	T_ASSERT((int64_t)a.realtime_ns >= rt0 - 1000000000LL);
	T_ASSERT((int64_t)b.realtime_ns <= now_ns(CLOCK_REALTIME) + 1000000000LL);
	T_EQ_U(a.resync_end, 0);
	T_EQ_U(a.size, sizeof(a));
	mntkit_watch_free(w);
}

/*
 * A caller built against the first layout (size VER0) gets those fields
 * and not one byte past them; a size below it is refused; a caller with a
 * larger struct (a newer header) finds its tail beyond them zeroed.
 */
T_CASE(watch_read_writes_what_fits)
{
	struct {
		struct mntkit_event ev;
		unsigned char tail[64];
	} big;
	union {
		struct mntkit_event ev;
		unsigned char raw[sizeof(struct mntkit_event) + 16];
	} small;
	struct mntkit_watch *w;
	char *d;

	t_private_ns();
	d = t_tmpdir();
	w = poll_watch();
	memset(&small, 0xa5, sizeof(small));
	small.ev.size = MNTKIT_EVENT_SIZE_VER0 - 1;
	T_NEG(mntkit_watch_read(w, &small.ev), EINVAL);
	T_NEG(mntkit_watch_read(w, NULL), EINVAL);

	t_tmpfs(t_path("%s/x", d), 0, NULL);
	small.ev.size = MNTKIT_EVENT_SIZE_VER0;
	next_event(w, &small.ev);
	T_EQ_U(small.ev.size, MNTKIT_EVENT_SIZE_VER0);
	T_EQ_I(small.ev.kind, MNTKIT_EVENT_ATTACH);
	T_ASSERT(small.ev.after != NULL);
	for (size_t i = MNTKIT_EVENT_SIZE_VER0; i < sizeof(small.raw); i++)
		T_ASSERTF(small.raw[i] == 0xa5, "byte %zu past the size written",
			  i);

	memset(&big, 0x5a, sizeof(big));
	big.ev.size = sizeof(big);
	t_umount(t_path("%s/x", d));
	next_event(w, &big.ev);
	T_EQ_U(big.ev.size, sizeof(big));
	T_EQ_I(big.ev.kind, MNTKIT_EVENT_DETACH);
	T_EQ_U(big.ev.seq, 2);
	/* a newer caller's fields the library does not know read as 0 */
	for (size_t i = 0; i < sizeof(big.tail); i++)
		T_ASSERTF(big.tail[i] == 0, "tail byte %zu not zeroed", i);
	mntkit_watch_free(w);
}

/*
 * mntkit_diff() lays out its array with the caller's element size: a
 * caller that knows the first layout only walks it with its own stride.
 */
T_CASE(diff_array_of_callers_size)
{
	struct mntkit_table *t0, *t1;
	struct mntkit_event *full = NULL, *old = NULL;
	size_t vs = MNTKIT_EVENT_SIZE_VER0;
	ssize_t n, n2;
	char *d;

	t_private_ns();
	d = t_tmpdir();
	T_OK(mntkit_table_new(MNTKIT_STATMOUNT_MNT_POINT, 0, NULL, &t0));
	t_tmpfs(t_path("%s/x", d), 0, NULL);
	t_tmpfs(t_path("%s/y", d), 0, NULL);
	T_OK(mntkit_table_new(MNTKIT_STATMOUNT_MNT_POINT, 0, NULL, &t1));
	n = mntkit_diff(t0, t1, 0, sizeof(*full), &full);
	T_EQ_I(n, 2);
	n2 = mntkit_diff(t0, t1, 0, vs, &old);
	T_EQ_I(n2, n);
	for (ssize_t i = 0; i < n; i++) {
		const struct mntkit_event *e =
			(const void *)((const char *)old + (size_t)i * vs);

		T_EQ_U(full[i].size, sizeof(*full));
		T_EQ_U(e->size, vs);
		T_EQ_I(e->kind, full[i].kind);
		T_EQ_U(e->mnt_id, full[i].mnt_id);
		T_ASSERT(e->after == full[i].after);
		/* a diff is no stream: no seq, no time */
		T_EQ_U(full[i].seq, 0);
		T_EQ_U(full[i].monotonic_ns, 0);
	}
	free(old);
	T_NEG(mntkit_diff(t0, t1, 0, vs - 1, &old), EINVAL);
	T_NULL(old);
	free(full);
	mntkit_table_free(t0);
	mntkit_table_free(t1);
}

int main(int argc, char **argv)
{
	return t_run(argc, argv);
}
