// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Mount namespaces: by ID, by an fd of /proc/PID/ns/mnt, or by PID, and the
 * translation of struct mntkit_opts into the namespace part of a request.
 */
#include <dirent.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "internal.h"
#include "syscall.h"

int mntkit_ns_open_pid(pid_t pid)
{
	char path[64];
	int fd;

	if (pid < 0)
		return mntkit__fail(EINVAL);
	if (pid == 0)
		snprintf(path, sizeof(path), "/proc/self/ns/mnt");
	else
		snprintf(path, sizeof(path), "/proc/%d/ns/mnt", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return mntkit__fail(errno);
	return fd;
}

int mntkit_ns_id_from_fd(int ns_fd, uint64_t *mnt_ns_id)
{
	uint64_t id;

	if (!mnt_ns_id)
		return mntkit__fail(EINVAL);
	if (ioctl(ns_fd, MNTKIT_NS_GET_MNTNS_ID, &id) != 0) {
		if (errno != ENOTTY)
			return mntkit__fail(errno);
		/* a kernel before 6.10 has no namespace IDs at all; else the
		 * fd is not an nsfs file, or not a mount namespace */
		if (!(mntkit__kernel_features() & MNTKIT_FEAT_NS_ID))
			return mntkit__fail(EOPNOTSUPP);
		return mntkit__fail(EINVAL);
	}
	*mnt_ns_id = id;
	return 0;
}

int mntkit_ns_id_from_pid(pid_t pid, uint64_t *mnt_ns_id)
{
	int fd = mntkit_ns_open_pid(pid);
	int ret;

	if (fd < 0)
		return fd;
	ret = mntkit_ns_id_from_fd(fd, mnt_ns_id);
	close(fd);
	if (ret < 0)
		errno = -ret;
	return ret;
}

/* ---- finding namespaces by ID ---- */

/* the calling thread's namespace: an fd and its ID; -errno */
static int own_ns(uint64_t *id)
{
	int fd = mntkit__own_ns_fd();
	int ret;

	*id = 0; /* gcc -O3 cannot see that a success sets it */
	if (fd < 0)
		return fd;
	ret = mntkit_ns_id_from_fd(fd, id);
	if (ret < 0) {
		close(fd);
		return ret;
	}
	return fd;
}

/*
 * Step from namespace @fd with NS_MNT_GET_NEXT (@req; ascending IDs) or
 * NS_MNT_GET_PREV (6.12+: the namespaces whose owning user namespace the
 * caller has CAP_SYS_ADMIN over), calling @each with an fd and the ID of
 * every one (and a PID of 0), until @each returns non-zero (which is
 * returned) or the end (0). @each returns 1 to keep the fd it got; any
 * other fd is closed here. @fd stays the caller's.
 */
static int ns_step(int fd, unsigned long req,
		   int (*each)(void *ctx, int fd, uint64_t id, pid_t pid),
		   void *ctx)
{
	int cur = fd;

	for (;;) {
		struct mntkit_mnt_ns_info info = { .size = sizeof(info) };
		int next = ioctl(cur, req, &info), ret;

		if (cur != fd)
			close(cur);
		if (next < 0)
			return 0;
		ret = each(ctx, next, info.mnt_ns_id, 0);
		if (ret) {
			if (ret != 1)
				close(next);
			return ret;
		}
		cur = next;
	}
}

struct procs_ctx {
	int (*each)(void *ctx, int fd, uint64_t id, pid_t pid);
	void *ctx;
};

static int procs_each(void *ctx, pid_t pid)
{
	struct procs_ctx *c = ctx;
	uint64_t id;
	int fd, ret;

	fd = mntkit__proc_open(pid, "ns/mnt", O_RDONLY);
	if (fd < 0)
		return 0;
	if (ioctl(fd, MNTKIT_NS_GET_MNTNS_ID, &id) != 0) {
		close(fd);
		return 0;
	}
	ret = c->each(c->ctx, fd, id, pid);
	if (ret != 1)
		close(fd);
	return ret;
}

/*
 * Every process's namespace, from /proc (mntkit__proc_each_pid()): @each
 * gets an fd, its ID and the process, and returns as for ns_step().
 * Processes that vanish or cannot be looked at are passed over.
 */
static int ns_procs(int (*each)(void *ctx, int fd, uint64_t id, pid_t pid),
		    void *ctx)
{
	struct procs_ctx c = { each, ctx };

	return mntkit__proc_each_pid(procs_each, &c);
}

struct ns_find {
	uint64_t id;
	int fd;
};

static int find_each(void *ctx, int fd, uint64_t id, pid_t pid)
{
	struct ns_find *f = ctx;

	(void)pid;
	if (id == f->id) {
		f->fd = fd;
		return 1;
	}
	return 0;
}

int mntkit_ns_open_id(uint64_t ns_id)
{
	struct ns_find f = { .id = ns_id, .fd = -1 };
	int fd, ret;

	if (!ns_id)
		return mntkit__fail(EINVAL);
	/* the kernel's walk (by ID: one direction is enough) */
	fd = mntkit__nsfs_open_id(ns_id);
	if (fd >= 0)
		return fd;
	if (fd != -ENOENT)
		return mntkit__fail(-fd);
	/* older kernels, and namespaces of other owners: a process in it */
	ret = ns_procs(find_each, &f);
	if (ret == 1)
		return f.fd;
	return mntkit__fail(ret < 0 ? -ret : ENOENT);
}

/* a namespace found, and a process in it (0: found without one) */
struct ns_ent {
	uint64_t id;
	pid_t pid;
};

struct ns_ents {
	struct ns_ent *v;
	size_t n, cap;
	int err;
};

static int ents_add(struct ns_ents *l, uint64_t id, pid_t pid)
{
	if (mntkit__vec_room(l, 1, 64)) {
		l->err = -ENOMEM;
		return 2; /* stop the walk */
	}
	l->v[l->n].id = id;
	l->v[l->n].pid = pid;
	l->n++;
	return 0;
}

static int list_each(void *ctx, int fd, uint64_t id, pid_t pid)
{
	(void)fd;
	return ents_add(ctx, id, pid);
}

/*
 * Every active mount namespace listns(2) shows the caller (those whose
 * owner it has CAP_SYS_ADMIN over, and its own), by pages. 0, 1 when
 * there is no listns, or -errno.
 */
static int ns_listns(struct ns_ents *l)
{
	struct mntkit_ns_id_req req = {
		.size = MNTKIT_NS_ID_REQ_SIZE_VER0,
		.ns_type = MNTKIT_CLONE_NEWNS,
	};
	uint64_t page[256];
	ssize_t n;

	if (!mntkit__kernel_listns())
		return 1;
	do {
		n = sys_listns(&req, page, MNTKIT_ARRAY_SIZE(page), 0);
		if (n < 0)
			return -errno;
		for (ssize_t i = 0; i < n; i++)
			if (ents_add(l, page[i], 0))
				return l->err;
		if (n > 0)
			req.ns_id = page[n - 1];
	} while (n == (ssize_t)MNTKIT_ARRAY_SIZE(page));
	return 0;
}

/* by ID, then by PID with "none" (0) last */
static int cmp_ent(const void *a, const void *b)
{
	const struct ns_ent *x = a, *y = b;
	uint32_t px = (uint32_t)x->pid - 1, py = (uint32_t)y->pid - 1;

	if (x->id != y->id)
		return x->id < y->id ? -1 : 1;
	return px < py ? -1 : px > py;
}

/*
 * Every namespace the caller can find (see mntkit_ns_list()) with the
 * lowest process found in it: sorted by ID, each once, in *@out (NULL
 * when none); their number or -errno.
 */
static ssize_t ns_collect(struct ns_ent **out)
{
	struct ns_ents l = { 0 };
	uint64_t own;
	size_t k = 0;
	int fd, ret;

	*out = NULL;
	fd = own_ns(&own);
	if (fd < 0)
		return fd;
	ret = ents_add(&l, own, 0) ? l.err : ns_listns(&l);
	if (ret < 0 && !l.err)
		l.err = ret;
	/* no listns: the walk (which stops at the first namespace the
	 * caller has no CAP_SYS_ADMIN over) */
	if (ret == 1) {
		ns_step(fd, MNTKIT_NS_MNT_GET_NEXT, list_each, &l);
		if (!l.err)
			ns_step(fd, MNTKIT_NS_MNT_GET_PREV, list_each, &l);
	}
	close(fd);
	if (!l.err) {
		ret = ns_procs(list_each, &l);
		if (ret < 0 && !l.err)
			l.err = ret;
	}
	if (l.err) {
		free(l.v);
		return l.err;
	}
	/* the first of each ID has its lowest process, if any */
	qsort(l.v, l.n, sizeof(*l.v), cmp_ent);
	for (size_t i = 0; i < l.n; i++)
		if (!k || l.v[i].id != l.v[k - 1].id)
			l.v[k++] = l.v[i];
	*out = l.v;
	return (ssize_t)k;
}

/* mntkit_ns_list() and mntkit_ns_list_pids(); @pids NULL for the first */
static ssize_t ns_list(uint64_t **ids, pid_t **pids)
{
	struct ns_ent *v;
	uint64_t *iv;
	pid_t *pv = NULL;
	ssize_t n;

	*ids = NULL;
	if (pids)
		*pids = NULL;
	n = ns_collect(&v);
	if (n < 0)
		return mntkit__fail((int)-n);
	if (!n) {
		free(v);
		return 0;
	}
	iv = malloc((size_t)n * sizeof(*iv));
	if (pids)
		pv = malloc((size_t)n * sizeof(*pv));
	if (!iv || (pids && !pv)) {
		free(iv);
		free(pv);
		free(v);
		return mntkit__fail(ENOMEM);
	}
	for (ssize_t i = 0; i < n; i++) {
		iv[i] = v[i].id;
		if (pv)
			pv[i] = v[i].pid;
	}
	free(v);
	*ids = iv;
	if (pids)
		*pids = pv;
	return n;
}

ssize_t mntkit_ns_list(uint64_t **ids)
{
	if (!ids)
		return mntkit__fail(EINVAL);
	return ns_list(ids, NULL);
}

ssize_t mntkit_ns_list_pids(uint64_t **ids, pid_t **pids)
{
	if (!ids || !pids)
		return mntkit__fail(EINVAL);
	return ns_list(ids, pids);
}

/*
 * Copy the fields of @opts the caller knows (its @size) into @out; a larger
 * struct than ours must have a zero tail (a newer caller asking for
 * something this library cannot do).
 */
static int opts_copy(const struct mntkit_opts *opts, struct mntkit_opts *out)
{
	int ret = mntkit__sized_arg(out, sizeof(*out), opts,
				    opts ? opts->size : 0, MNTKIT_OPTS_SIZE_VER0,
				    "struct mntkit_opts", "MNTKIT_OPTS");

	out->size = sizeof(*out);
	return ret;
}

/*
 * Point @req at the namespace of @fd: by ID where we can, else by fd
 * (returns 1: the fd stays in use). The emulation takes an fd on every
 * kernel; the kernel takes IDs from 6.11 and fds from 6.18.
 */
static int req_set_ns_fd(struct mntkit_mnt_id_req *req, int fd)
{
	uint32_t feat = mntkit__kernel_features();
	int native = mntkit_get_backend() == MNTKIT_BACKEND_NATIVE;
	uint64_t id = 0;

	if (fd < 0)
		return -EBADF;
	if ((native && !(feat & MNTKIT_FEAT_REQ_NS_ID)) ||
	    (!native && !(feat & MNTKIT_FEAT_NS_ID))) {
		if (native && !(feat & MNTKIT_FEAT_REQ_NS_FD))
			return -EOPNOTSUPP;
		req->mnt_ns_fd = (uint32_t)fd;
		return 1;
	}
	if (mntkit_ns_id_from_fd(fd, &id) < 0)
		return -errno;
	req->size = MNTKIT_MNT_ID_REQ_SIZE_VER1;
	req->mnt_ns_id = id;
	return 0;
}

/*
 * The namespace file of process @pid is refused (@err): when its
 * mountinfo is not, the call reads that alone (on the emulation, whatever
 * the backend: no other way knows the namespace); else @err.
 */
static int mountinfo_of(pid_t pid, int err)
{
	int fd = mntkit__proc_open(pid, "mountinfo", O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return err;
	close(fd);
	if (mntkit__pin_mountinfo_of(pid))
		return err;
	mntkit__debug(MNTKIT_PRINT_INFO,
		      "the namespace of PID %d: /proc/%d/ns/mnt is refused "
		      "(%s), /proc/%d/mountinfo is read instead (the "
		      "emulation; mounts named by their old IDs)",
		      (int)pid, (int)pid, strerror(-err), (int)pid);
	return 0;
}

int mntkit__req_foreign(const struct mntkit_mnt_id_req *req)
{
	return req->mnt_ns_id || req->mnt_ns_fd || mntkit__pinned_pid() > 0;
}

int mntkit__req_init(struct mntkit_mnt_id_req *req,
		     const struct mntkit_opts *opts, int *fd_to_close)
{
	struct mntkit_opts o;
	int ret, fd;

	memset(req, 0, sizeof(*req));
	req->size = MNTKIT_MNT_ID_REQ_SIZE_VER0;
	*fd_to_close = -1;
	ret = opts_copy(opts, &o);
	if (ret)
		return ret;
	if (!!o.mnt_ns_id + !!o.mnt_ns_fd + !!o.pid > 1 || o.pid < 0)
		return mntkit__misuse("struct mntkit_opts", EINVAL,
			o.pid < 0 ? "a negative pid" :
			"more than one of mnt_ns_id, mnt_ns_fd and pid set");
	if (o.flags & ~MNTKIT_OPTS_F_CHEAP_IDS)
		return mntkit__misuse("struct mntkit_opts", EINVAL,
				      "an unknown bit in flags");
	if ((o.flags & MNTKIT_OPTS_F_CHEAP_IDS) && mntkit__pin_cheap_ids())
		return -EINVAL; /* cannot be: every caller is pinned */
	if (o.mnt_ns_id) {
		req->size = MNTKIT_MNT_ID_REQ_SIZE_VER1;
		req->mnt_ns_id = o.mnt_ns_id;
		return 0;
	}
	if (o.mnt_ns_fd) {
		ret = req_set_ns_fd(req, o.mnt_ns_fd);
		return ret < 0 ? ret : 0;
	}
	if (!o.pid)
		return 0;
	fd = mntkit_ns_open_pid(o.pid);
	if (fd == -EACCES || fd == -EPERM)
		return mountinfo_of(o.pid, fd);
	if (fd < 0)
		return fd;
	ret = req_set_ns_fd(req, fd);
	if (ret == 1)
		*fd_to_close = fd;
	else
		close(fd);
	return ret < 0 ? ret : 0;
}
