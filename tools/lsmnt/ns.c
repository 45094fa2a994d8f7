// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * lsmnt's mount namespaces: -N, --all-namespaces and their order.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "lsmnt.h"

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
	pid_t pid; /* the lowest process in it, 0 for none */
	ssize_t parent, first_child, last_child, next; /* --order tree */
};

struct nslist {
	struct nsent *v;
	size_t n;
};

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

/* why the namespaces could not be listed */
static void ns_list_error(int err)
{
	if (err == EOPNOTSUPP)
		cli_errmsg("--all-namespaces", "no mount namespace IDs (needs "
					   "Linux 6.10 or later)");
	else if (mntkit_refused(MNTKIT_REFUSED_NS_IOCTL, NULL) == err)
		cli_errmsg("--all-namespaces", "%s",
			   cli_ns_reason(CLI_NS_REFUSED, err));
	else
		cli_errmsg("--all-namespaces", "%s", cli_strerror(err));
}

/*
 * The ID of lsmnt's own namespace, or -1 after the message of a listing
 * of the namespaces without their IDs (-p --all-namespaces: a kernel
 * before 6.10 gives none, and neither follows nor lists them)
 */
int own_ns_id(uint64_t *id)
{
	int r = mntkit_ns_id_from_pid(0, id);

	if (r < 0) {
		ns_list_error(-r);
		return -1;
	}
	return 0;
}

/*
 * The namespaces, by ID (mntkit_ns_list_pids()), with the lowest process
 * of each; lsmnt itself counts in its own.
 */
static int ns_collect(struct nslist *nl, uint64_t *self_id)
{
	uint64_t *ids;
	pid_t *pids, me = getpid();
	ssize_t n;
	int self = mntkit_ns_open_pid(0);

	if (self < 0) {
		cli_errmsg("--all-namespaces", "/proc/self/ns/mnt: %s",
			   cli_strerror(-self));
		return -1;
	}
	if (mntkit_ns_id_from_fd(self, self_id) < 0)
		*self_id = 0;
	close(self);
	n = mntkit_ns_list_pids(&ids, &pids);
	if (n < 0) {
		ns_list_error((int)-n);
		return -1;
	}
	nl->v = calloc(n ? (size_t)n : 1, sizeof(*nl->v));
	if (!nl->v) {
		free(ids);
		free(pids);
		cli_errmsg("--all-namespaces", "%s", cli_strerror(ENOMEM));
		return -1;
	}
	for (ssize_t i = 0; i < n; i++) {
		nl->v[i].id = ids[i];
		nl->v[i].pid = pids[i];
		if (ids[i] == *self_id && (!pids[i] || me < pids[i]))
			nl->v[i].pid = me;
	}
	nl->n = (size_t)n;
	free(ids);
	free(pids);
	return 0;
}

int list_namespaces(const struct cmdline *cl, uint64_t **ids,
		    int **pids)
{
	struct nslist nl = {0};
	uint64_t self_id = 0;
	int r;

	*ids = NULL;
	if (pids)
		*pids = NULL;
	if (ns_collect(&nl, &self_id) < 0)
		return -1;
	if (!nl.n) {
		cli_errmsg("--all-namespaces", "no mount namespace IDs (needs "
					   "Linux 6.10 or later)");
		free(nl.v);
		return -1;
	}
	/* mntkit_ns_list_pids() gives them by ID */
	if (cl->order == ORDER_TREE) {
		r = ns_order_tree(&nl, ids);
		if (r < 0)
			cli_errmsg("--all-namespaces", "%s", cli_strerror(-r));
	} else {
		*ids = malloc(nl.n * sizeof(**ids));
		r = *ids ? (int)nl.n : -1;
		for (size_t i = 0; *ids && i < nl.n; i++)
			(*ids)[i] = nl.v[i].id;
		if (r < 0)
			cli_errmsg("--all-namespaces", "%s", cli_strerror(ENOMEM));
	}
	if (r >= 0 && pids && ns_pids(&nl, *ids, r, self_id, pids) < 0) {
		cli_errmsg("--all-namespaces", "%s", cli_strerror(ENOMEM));
		free(*ids);
		*ids = NULL;
		r = -1;
	}
	free(nl.v);
	return r;
}
