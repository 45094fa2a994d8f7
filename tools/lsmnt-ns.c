// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * lsmnt's mount namespaces: -N, --all-namespaces and their order
 * (lsmnt-parts.h).
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <linux/nsfs.h>
#include <locale.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <dirent.h>
#include <unistd.h>

#include "cli.h"
#include "lsmnt.h"
#include "lsmnt-parts.h"

/* nsfs ioctls of Linux 6.12+: walk the mount namespaces by ID */
struct lsmnt_mnt_ns_info {
	uint32_t size;
	uint32_t nr_mounts;
	uint64_t mnt_ns_id;
};

#define LSMNT_NS_MNT_GET_INFO _IOR(0xb7, 10, struct lsmnt_mnt_ns_info)
#define LSMNT_NS_MNT_GET_NEXT _IOR(0xb7, 11, struct lsmnt_mnt_ns_info)
#define LSMNT_NS_MNT_GET_PREV _IOR(0xb7, 12, struct lsmnt_mnt_ns_info)

/* ---- mount namespaces ---- */

/*
 * findmnt's TID of the kernel's table: the process whose
 * /proc/PID/mountinfo it read - its own, /proc/self as /proc names it.
 */
int self_tid(void)
{
	char buf[32];
	ssize_t len = readlink("/proc/self", buf, sizeof(buf) - 1);
	uint64_t v;

	if (len > 0) {
		buf[len] = '\0';
		if (cli_parse_number_lax(buf, &v) == 1 && v <= INT_MAX)
			return (int)v;
	}
	return (int)getpid();
}

struct nsent {
	uint64_t id;
	pid_t pid;  /* the lowest process in it, 0 for none */
	pid_t ppid; /* that process's parent */
	ssize_t parent, first_child, last_child, next; /* --order tree */
};

struct nslist {
	struct nsent *v;
	size_t n, cap;
};

static struct nsent *ns_find(struct nslist *nl, uint64_t id)
{
	for (size_t i = 0; i < nl->n; i++)
		if (nl->v[i].id == id)
			return &nl->v[i];
	return NULL;
}

static int ns_add(struct nslist *nl, uint64_t id, pid_t pid)
{
	struct nsent *e = ns_find(nl, id);

	if (e) {
		if (pid && (!e->pid || pid < e->pid))
			e->pid = pid;
		return 0;
	}
	if (nl->n == nl->cap) {
		size_t ncap = nl->cap ? nl->cap * 2 : 16;
		struct nsent *nv = realloc(nl->v, ncap * sizeof(*nv));

		if (!nv)
			return -ENOMEM;
		nl->v = nv;
		nl->cap = ncap;
	}
	memset(&nl->v[nl->n], 0, sizeof(nl->v[nl->n]));
	nl->v[nl->n].id = id;
	nl->v[nl->n].pid = pid;
	nl->n++;
	return 0;
}

/* every namespace NS_MNT_GET_NEXT/PREV walk to from our own (6.12+) */
static int ns_walk(struct nslist *nl, int self_fd, unsigned long req)
{
	int fd = self_fd, r = 0;

	for (;;) {
		struct lsmnt_mnt_ns_info info = {.size = sizeof(info)};
		int nfd = ioctl(fd, req, &info);

		if (fd != self_fd)
			close(fd);
		if (nfd < 0)
			break;
		r = ns_add(nl, info.mnt_ns_id, 0);
		if (r < 0) {
			close(nfd);
			break;
		}
		fd = nfd;
	}
	return r;
}

static pid_t parent_pid(pid_t pid)
{
	char path[64], buf[512], *p;
	ssize_t n;
	int fd, ppid = 0;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	p = strrchr(buf, ')');
	if (!p || sscanf(p + 1, " %*c %d", &ppid) != 1)
		return 0;
	return ppid;
}

/* the namespaces processes sit in (/proc/PID/ns/mnt), by ID */
static int ns_from_procs(struct nslist *nl)
{
	DIR *d = opendir("/proc");
	struct dirent *de;
	int r = 0;

	if (!d)
		return 0;
	while (!r && (de = readdir(d))) {
		uint64_t pid, id;

		if (cli_parse_number_lax(de->d_name, &pid) != 1 || pid > INT_MAX ||
		    !isdigit((unsigned char)de->d_name[0]))
			continue;
		if (mntkit_ns_id_from_pid((pid_t)pid, &id) < 0)
			continue; /* gone, or not ours to see */
		r = ns_add(nl, id, (pid_t)pid);
	}
	closedir(d);
	return r;
}

static int cmp_ns_id(const void *a, const void *b)
{
	const struct nsent *x = a, *y = b;

	return x->id < y->id ? -1 : x->id > y->id;
}

/* the namespace a process is in, by the lowest process of each */
static ssize_t ns_of_pid(const struct nslist *nl, pid_t pid)
{
	uint64_t id;

	if (pid <= 0 || mntkit_ns_id_from_pid(pid, &id) < 0)
		return -1;
	for (size_t i = 0; i < nl->n; i++)
		if (nl->v[i].id == id)
			return (ssize_t)i;
	return -1;
}

/*
 * --order tree: a namespace hangs under the namespace of the nearest
 * ancestor process (of its lowest process) that sits elsewhere; then the
 * order is the pre-order of that tree, siblings by ID.
 */
static int ns_order_tree(struct nslist *nl, uint64_t **order)
{
	size_t k = 0;
	uint64_t *out = malloc((nl->n ? nl->n : 1) * sizeof(*out));
	ssize_t *up;

	up = malloc((nl->n + 1) * sizeof(*up));
	if (!out || !up) {
		free(out);
		free(up);
		return -ENOMEM;
	}
	for (size_t i = 0; i < nl->n; i++)
		nl->v[i].parent = nl->v[i].first_child = nl->v[i].last_child =
			nl->v[i].next = -1;
	for (size_t i = 0; i < nl->n; i++) {
		pid_t p = nl->v[i].pid;
		ssize_t pns = -1;

		for (int hops = 0; p > 1 && hops < 4096; hops++) {
			p = parent_pid(p);
			pns = ns_of_pid(nl, p);
			if (pns >= 0 && (size_t)pns != i)
				break;
			pns = -1;
		}
		nl->v[i].parent = pns;
	}
	/* link children in ID order (the list is sorted by ID) */
	for (size_t i = 0; i < nl->n; i++) {
		ssize_t p = nl->v[i].parent;

		if (p < 0)
			continue;
		if (nl->v[p].last_child >= 0)
			nl->v[nl->v[p].last_child].next = (ssize_t)i;
		else
			nl->v[p].first_child = (ssize_t)i;
		nl->v[p].last_child = (ssize_t)i;
	}
	for (size_t r = 0; r < nl->n; r++) {
		size_t depth = 0;
		ssize_t cur;

		if (nl->v[r].parent >= 0)
			continue;
		cur = (ssize_t)r;
		while (cur >= 0 && k < nl->n) {
			out[k++] = nl->v[cur].id;
			if (nl->v[cur].first_child >= 0 && depth < nl->n) {
				up[depth++] = cur;
				cur = nl->v[cur].first_child;
				continue;
			}
			while (cur >= 0 && nl->v[cur].next < 0 && depth)
				cur = up[--depth];
			cur = depth ? nl->v[cur].next : -1;
		}
	}
	/* a cycle (impossible for processes, but cheap to guard) */
	for (size_t i = 0; k < nl->n && i < nl->n; i++) {
		bool seen = false;

		for (size_t j = 0; j < k && !seen; j++)
			seen = out[j] == nl->v[i].id;
		if (!seen)
			out[k++] = nl->v[i].id;
	}
	free(up);
	*order = out;
	return (int)k;
}

/*
 * TID with --all-namespaces: a process in each namespace - lsmnt itself in
 * its own, else the lowest process found there, 0 if none.
 */
static int ns_pids(const struct nslist *nl, const uint64_t *ids, int n,
		   uint64_t self_id, int **pids)
{
	*pids = calloc(n > 0 ? (size_t)n : 1, sizeof(**pids));
	if (!*pids)
		return -ENOMEM;
	for (int i = 0; i < n; i++) {
		for (size_t j = 0; j < nl->n; j++)
			if (nl->v[j].id == ids[i])
				(*pids)[i] = nl->v[j].pid;
		if (ids[i] == self_id)
			(*pids)[i] = self_tid();
	}
	return 0;
}

int list_namespaces(const struct cmdline *cl, uint64_t **ids,
		    int **pids)
{
	struct nslist nl = {0};
	int self = mntkit_ns_open_pid(0), r = 0;
	uint64_t self_id = 0;

	*ids = NULL;
	if (pids)
		*pids = NULL;
	if (self < 0) {
		cli_errmsg("--all-namespaces", "/proc/self/ns/mnt: %s",
		       strerror(-self));
		return -1;
	}
	if (mntkit_ns_id_from_fd(self, &self_id) == 0)
		r = ns_add(&nl, self_id, getpid());
	if (!r)
		r = ns_walk(&nl, self, LSMNT_NS_MNT_GET_PREV);
	if (!r)
		r = ns_walk(&nl, self, LSMNT_NS_MNT_GET_NEXT);
	close(self);
	if (!r)
		r = ns_from_procs(&nl);
	if (r < 0) {
		cli_errmsg("--all-namespaces", "%s", strerror(-r));
		free(nl.v);
		return -1;
	}
	if (!nl.n) {
		cli_errmsg("--all-namespaces", "no mount namespace IDs (needs "
					   "Linux 6.10 or later)");
		free(nl.v);
		return -1;
	}
	qsort(nl.v, nl.n, sizeof(*nl.v), cmp_ns_id);
	if (cl->order == ORDER_TREE) {
		r = ns_order_tree(&nl, ids);
		if (r < 0)
			cli_errmsg("--all-namespaces", "%s", strerror(-r));
	} else {
		*ids = malloc(nl.n * sizeof(**ids));
		r = *ids ? (int)nl.n : -1;
		for (size_t i = 0; *ids && i < nl.n; i++)
			(*ids)[i] = nl.v[i].id;
		if (r < 0)
			cli_errmsg("--all-namespaces", "%s", strerror(ENOMEM));
	}
	if (r >= 0 && pids && ns_pids(&nl, *ids, r, self_id, pids) < 0) {
		cli_errmsg("--all-namespaces", "%s", strerror(ENOMEM));
		free(*ids);
		*ids = NULL;
		r = -1;
	}
	free(nl.v);
	return r;
}
