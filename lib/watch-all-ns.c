// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * watch-all-ns.c - the namespaces of an all-namespace watch: found by a
 * scan of /proc, each watched by a watch of its own (NS_ADD), its change
 * signals swept, and let go of once no process is in it (NS_GONE).
 */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/stat.h>
#include <unistd.h>

#include "watch.h"


struct mntkit__ns *mntkit__all_ns_find(const struct mntkit__watch_all *a,
				       dev_t dev, ino_t ino)
{
	for (size_t i = 0; i < a->ns.n; i++)
		if (a->ns.v[i]->ino == ino && a->ns.v[i]->dev == dev)
			return a->ns.v[i];
	return NULL;
}

static void ns_remove(struct mntkit__watch_all *a, size_t i)
{
	a->ns.v[i] = a->ns.v[--a->ns.n];
	if (a->tm.rr_next >= a->ns.n)
		a->tm.rr_next = 0;
}

/* the nsfs inode of process @pid's mount namespace */
int mntkit__all_ns_stat(pid_t pid, struct stat *st)
{
	char path[64];
	int at = mntkit__proc_path(path, sizeof(path), pid, "ns/mnt");

	return fstatat(at, path, st, 0) ? -errno : 0;
}

static int scan_each(void *ctx, pid_t pid)
{
	struct mntkit__watch_all *a = ctx;
	struct mntkit__ns *ns;
	struct stat st;

	if (mntkit__all_ns_stat(pid, &st))
		return 0; /* gone, or not ours to look at */
	ns = mntkit__all_ns_find(a, st.st_dev, st.st_ino);
	if (ns) {
		if (!ns->seen || pid < ns->pid)
			ns->pid = pid;
		ns->seen = true;
		return 0;
	}
	if (mntkit__vec_room(&a->ns, 1, 16))
		return -ENOMEM;
	ns = calloc(1, sizeof(*ns));
	if (!ns)
		return -ENOMEM;
	*ns = (struct mntkit__ns){ .dev = st.st_dev, .ino = st.st_ino,
				   .pid = pid, .seen = true, .pidfd = -1,
				   .ns_fd = -1 };
	a->ns.v[a->ns.n++] = ns;
	return 0;
}

/*
 * The namespace's ID: NS_GET_MNTNS_ID (6.10+), else its nsfs inode; and
 * an fd of it into *@fd (the caller closes it).
 */
static int ns_id(struct mntkit__ns *ns, int *fd)
{
	struct stat st;
	int ret;

	*fd = mntkit__proc_open(ns->pid, "ns/mnt", O_RDONLY);
	if (*fd < 0)
		return *fd;
	if (fstat(*fd, &st) || st.st_ino != ns->ino || st.st_dev != ns->dev)
		ret = -ESRCH; /* the process moved on */
	else
		ret = mntkit_ns_id_from_fd(*fd, &ns->id);
	if (ret == -EOPNOTSUPP || ret == -ENOTTY) {
		ns->id = (uint64_t)ns->ino;
		ret = 0;
	}
	if (ret) {
		close(*fd);
		*fd = -1;
	}
	return ret;
}

/*
 * ---- the change signals ----
 * Each namespace's watch is in the epoll set by its fd, an epoll set of
 * one of its mountinfo files (and its timer): the caller's poll of our fd
 * polls that file, nested, which consumes its POLLPRI, and our epoll_wait
 * then finds nothing there. So the private mountinfo file of every watch
 * (which only it polls) is also in @sig_ep: mntkit__all_sweep() takes
 * what it reports (an epoll_wait looks at the files that were woken only:
 * no cost per namespace) and tells each watch it was signalled (mi.noted,
 * which its next read takes as a signal), since that poll consumed its
 * signal too.
 */
static int sig_add(struct mntkit__watch_all *a, struct mntkit__ns *ns)
{
	struct epoll_event ev = { .events = EPOLLPRI, .data.ptr = ns };
	int fd = ns->w->mi.fd;

	return fd < 0 ? 0 : epoll_ctl(a->sig_ep, EPOLL_CTL_ADD, fd, &ev);
}

static void sig_del(struct mntkit__watch_all *a, struct mntkit__ns *ns)
{
	int fd = ns->w->mi.fd;

	if (fd >= 0)
		epoll_ctl(a->sig_ep, EPOLL_CTL_DEL, fd, NULL);
}

int mntkit__all_sweep(struct mntkit__watch_all *a)
{
	struct epoll_event evs[MNTKIT__EPOLL_BATCH];
	int n, ret = 0;

	do {
		n = epoll_wait(a->sig_ep, evs, MNTKIT__EPOLL_BATCH, 0);
		if (n < 0)
			return -errno;
		for (int i = 0; i < n && !ret; i++) {
			struct mntkit__ns *ns = evs[i].data.ptr;

			ns->w->mi.noted = true;
			ret = mntkit__all_push_drain(a, ns);
		}
	} while (!ret && n == MNTKIT__EPOLL_BATCH);
	return ret;
}

/* ---- a namespace watched ---- */

/* its watch in our epoll sets, its NS_ADD and first drain queued */
static int ns_follow(struct mntkit__watch_all *a, struct mntkit__ns *ns)
{
	struct epoll_event ev = { .events = EPOLLIN, .data.ptr = ns };
	int fd = mntkit_watch_fd(ns->w), ret = 0;

	if (epoll_ctl(a->epfd, EPOLL_CTL_ADD, fd, &ev))
		return -errno;
	if (sig_add(a, ns)) {
		ret = -errno;
		epoll_ctl(a->epfd, EPOLL_CTL_DEL, fd, NULL);
		return ret;
	}
	ret = mntkit__all_push(a, MNTKIT__ITEM_ADD, ns);
	if (!ret)
		ret = mntkit__all_push(a, MNTKIT__ITEM_DRAIN, ns);
	if (!ret && !a->source)
		a->source = mntkit_watch_get_source(ns->w);
	if (ret) {
		epoll_ctl(a->epfd, EPOLL_CTL_DEL, fd, NULL);
		sig_del(a, ns);
	}
	return ret;
}

/*
 * Watch a namespace found by the scan. 0: watched or skipped (ns->err);
 * -ESRCH: its process left it meanwhile (dropped; the next scan finds
 * it again if it is still there); -ENOMEM.
 */
static int ns_open(struct mntkit__watch_all *a, struct mntkit__ns *ns)
{
	struct mntkit_watch_opts wo = a->wo;
	MNTKIT_OPTS(o, .pid = ns->pid);
	struct stat st;
	int ret, fd;

	ns->found_rt = mntkit__clock_ns(CLOCK_REALTIME);
	ns->found_mono = mntkit__clock_ns(CLOCK_MONOTONIC);
	ret = ns_id(ns, &fd);
	if (ret == -ENOENT)
		ret = -ESRCH;
	if (!ret)
		ret = mntkit__all_mark(a, ns, &fd, &wo.source);
	if (fd >= 0)
		close(fd);
	if (!ret) {
		/* a namespace found later: the caller knows nothing of it */
		if (a->initial || a->scanned)
			wo.flags |= MNTKIT_WATCH_F_INITIAL;
		ret = (ns->ns_fd >= 0 ? mntkit__watch_new_fed :
					mntkit_watch_new)(&wo, &o, &ns->w);
		if (ret == -ENOENT)
			ret = -ESRCH;
	}
	/* the watch opened the namespace the process was in at the scan */
	if (!ret && (mntkit__all_ns_stat(ns->pid, &st) ||
		     st.st_ino != ns->ino || st.st_dev != ns->dev))
		ret = -ESRCH;
	if (!ret)
		ret = ns_follow(a, ns);
	if (ret && ns->w) {
		mntkit_watch_free(ns->w);
		ns->w = NULL;
	}
	if (ret)
		mntkit__all_unmark(a, ns);
	else if (ns->ns_fd >= 0)
		mntkit__all_mru_front(a, ns);
	if (ret == -ESRCH || ret == -ENOMEM)
		return ret;
	if (ret) {
		ns->err = -ret;
		a->skipped++;
		mntkit__debug(MNTKIT_PRINT_INFO,
			      "watch: mount namespace %llu (pid %d) skipped: %s",
			      (unsigned long long)ns->id, (int)ns->pid,
			      strerror(ns->err));
	}
	return 0;
}

/*
 * The exit of a namespace's lowest process brings the next scan forward
 * (mntkit__all_timers()): NS_GONE comes at once, not at the next timed
 * scan, and the namespace's mounts are let go of as soon. The pidfd is
 * dropped when it fires (an exited process's pidfd stays readable); the
 * next scan takes one of the namespace's lowest process again.
 */
void mntkit__all_pidfd_drop(struct mntkit__watch_all *a, struct mntkit__ns *ns)
{
	if (ns->pidfd < 0)
		return;
	epoll_ctl(a->epfd, EPOLL_CTL_DEL, ns->pidfd, NULL);
	close(ns->pidfd);
	ns->pidfd = -1;
}

static void pidfd_take(struct mntkit__watch_all *a, struct mntkit__ns *ns)
{
	struct epoll_event ev = {
		.events = EPOLLIN,
		.data.u64 = (uint64_t)(uintptr_t)ns | MNTKIT__TAG_EXIT,
	};

	if (!a->use_pidfd || (ns->pidfd >= 0 && ns->pidfd_pid == ns->pid))
		return;
	mntkit__all_pidfd_drop(a, ns);
	ns->pidfd = (int)syscall(SYS_pidfd_open, ns->pid, 0);
	if (ns->pidfd < 0)
		return; /* 5.3+; the timed scans find the end */
	ns->pidfd_pid = ns->pid;
	if (epoll_ctl(a->epfd, EPOLL_CTL_ADD, ns->pidfd, &ev))
		mntkit__all_pidfd_drop(a, ns);
}

/*
 * Let go of the watched namespace a->ns.v[@i]: its last events, then
 * NS_GONE; the item owns it. A change signalled but not yet diffed (a
 * diff that waits to serve several) would be lost with the watch: a
 * rescan now brings the view to the table as the last process left it
 * (nothing changes it since: no process is in it, and the watch keeps
 * it); where it cannot be read any more, a RESYNC before NS_GONE says so.
 */
static int ns_let_go(struct mntkit__watch_all *a, size_t i)
{
	struct mntkit__ns *ns = a->ns.v[i];
	int ret;

	mntkit__all_pidfd_drop(a, ns);
	/*
	 * No more of its events: those still in the group's queue are
	 * routed to no one (the rescan below sees all they tell).
	 */
	mntkit__all_unmark(a, ns);
	epoll_ctl(a->epfd, EPOLL_CTL_DEL, mntkit_watch_fd(ns->w), NULL);
	sig_del(a, ns);
	if (mntkit_watch_rescan(ns->w))
		mntkit__debug(MNTKIT_PRINT_INFO,
			      "watch: mount namespace %llu: "
			      "last rescan failed: %s",
			      (unsigned long long)ns->id, strerror(errno));
	ns->queued = false;
	ns->dying = true;
	ret = mntkit__all_push(a, MNTKIT__ITEM_DRAIN, ns);
	if (!ret)
		ret = mntkit__all_push(a, MNTKIT__ITEM_GONE, ns);
	if (!ret)
		ns_remove(a, i);
	return ret;
}

/* the namespaces found and lost by a scan, watched and let go of */
static int scan_apply(struct mntkit__watch_all *a)
{
	int ret;

	for (size_t i = 0; i < a->ns.n;) {
		struct mntkit__ns *ns = a->ns.v[i];

		if (ns->seen && !ns->w && !ns->err) {
			ret = ns_open(a, ns);
			if (ret == -ENOMEM)
				return ret;
			if (ret == -ESRCH) {
				ns_remove(a, i);
				free(ns);
				continue;
			}
		} else if (!ns->seen && ns->w) {
			ret = ns_let_go(a, i);
			if (ret)
				return ret;
			continue;
		} else if (!ns->seen) {
			a->skipped -= !!ns->err;
			ns_remove(a, i);
			free(ns);
			continue;
		}
		if (ns->w)
			pidfd_take(a, ns);
		i++;
	}
	return 0;
}

/*
 * mntkit__all_scan - one scan of /proc: watch the namespaces new to it,
 * let go of those no process is in any more. A namespace whose watch lost
 * the process it reads the table through (broken) is let go first: found
 * again in another process, it is a new one (NS_ADD, its mounts).
 */
int mntkit__all_scan(struct mntkit__watch_all *a)
{
	int64_t t0 = mntkit__watch_cpu();
	int ret;

	for (size_t i = 0; i < a->ns.n;) {
		if (a->ns.v[i]->broken && a->ns.v[i]->w) {
			ret = ns_let_go(a, i);
			if (ret)
				return ret;
			continue;
		}
		i++;
	}
	for (size_t i = 0; i < a->ns.n; i++)
		a->ns.v[i]->seen = false;
	/* a hint a second old at most: PIDs are reused, processes move */
	memset(a->group.hints, 0, sizeof(a->group.hints));
	ret = mntkit__proc_each_pid(scan_each, a);
	a->tm.scan_cost = mntkit__watch_cpu() - t0;
	if (ret)
		return ret; /* nothing is let go on a partial scan */
	ret = scan_apply(a);
	if (ret)
		return ret;
	a->scanned = true;
	a->tm.scan_end = mntkit__watch_now();
	mntkit__debug(MNTKIT_PRINT_DEBUG,
		      "watch: scan of /proc: %zu namespaces (%zu skipped), "
		      "%lld us CPU", a->ns.n, a->skipped,
		      (long long)(a->tm.scan_cost / 1000));
	return 0;
}

/* ---- a namespace's watch that fails ---- */

/*
 * A read of a namespace's watch that failed for want of a resource (file
 * descriptors, memory): the other namespaces go on, and this one's watch,
 * which still owes its diff (or resync), is read again later, until it
 * succeeds. True if @err is such a failure.
 */
bool mntkit__all_ns_retry(struct mntkit__watch_all *a, struct mntkit__ns *ns,
			  int err)
{
	int ms;

	if (err != -EMFILE && err != -ENFILE && err != -ENOMEM &&
	    err != -EAGAIN)
		return false;
	ns->retry = true;
	ms = mntkit__all_retry_later(a);
	mntkit__debug(MNTKIT_PRINT_INFO,
		      "watch: mount namespace %llu: %s: read again in %d ms",
		      (unsigned long long)ns->id, strerror(-err), ms);
	return true;
}

/*
 * A read or rescan of a namespace's watch failed with @err. ENOENT and
 * ESRCH: the process it reads the table through (the mountinfo
 * emulation) has left, most often because the namespace is ending; that
 * is no error of the all-namespace watch: the namespace is let go at a
 * scan made at once (mntkit__all_scan()). True if so.
 */
bool mntkit__all_ns_broken(struct mntkit__watch_all *a, struct mntkit__ns *ns,
			   int err)
{
	if ((err != -ENOENT && err != -ESRCH) || ns->dying)
		return false;
	mntkit__debug(MNTKIT_PRINT_INFO,
		      "watch: mount namespace %llu (pid %d): %s: let go",
		      (unsigned long long)ns->id, (int)ns->pid, strerror(-err));
	ns->broken = true;
	a->tm.scan_due = mntkit__watch_now();
	mntkit__all_arm(a);
	return true;
}

/* are the PIDs of the library's /proc those pidfd_open(2) takes? */
bool mntkit__all_proc_is_ours(void)
{
	char path[64], buf[32];
	int at = mntkit__proc_path(path, sizeof(path), 0, "");
	ssize_t n;

	n = readlinkat(at, at == AT_FDCWD ? "/proc/self" : "self", buf,
		       sizeof(buf) - 1);
	if (n <= 0)
		return false;
	buf[n] = '\0';
	return atol(buf) == (long)getpid();
}
