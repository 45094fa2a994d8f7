// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * test-tools - a smoke run of statmnt, lsmnt and mntwatch in the qemu
 * guests of tests/qemu/run.sh (any kernel: native, hybrid or emulated).
 *
 * Each tool runs as a user would run it, and its output is checked against
 * what the kernel itself says, without libmntkit: /proc/self/mountinfo
 * (parsed by the harness) and the mounts the case made. The tools are
 * /bin/statmnt, /bin/lsmnt and /bin/mntwatch in the guest, or
 * MNTKIT_TOOLS=DIR (e.g. BUILD/tools on the host).
 */
#include <signal.h>
#include <sys/wait.h>

#include "harness.h"

struct tool_out {
	char *out, *err;
	int status;
};

static const char *tool_path(const char *name)
{
	const char *dir = getenv("MNTKIT_TOOLS");
	char *p = t_path("%s/%s", dir ? dir : "/bin", name);

	if (access(p, X_OK))
		t_skip("no %s at %s", name, p);
	return p;
}

/* start argv with its stdout to @fo, stderr to @fe (-1: ours); its PID */
static pid_t spawn(const char *const *argv, int fo, int fe)
{
	pid_t pid = fork();

	if (pid < 0)
		t_fail("fork: %s", strerror(errno));
	if (pid == 0) {
		dup2(fo, 1);
		if (fe >= 0)
			dup2(fe, 2);
		execv(argv[0], (char *const *)argv);
		_exit(127);
	}
	return pid;
}

/* run argv to completion; its stdout and stderr (malloc'd) */
static struct tool_out tool(const char *const *argv)
{
	char *o = t_path("%s/tool.out.XXXXXX", t_base);
	char *e = t_path("%s/tool.err.XXXXXX", t_base);
	int fo = mkstemp(o), fe = mkstemp(e), st;
	struct tool_out r;
	pid_t pid;

	if (fo < 0 || fe < 0)
		t_fail("mkstemp: %s", strerror(errno));
	pid = spawn(argv, fo, fe);
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			t_fail("waitpid: %s", strerror(errno));
	close(fo);
	close(fe);
	r.out = t_read_file(o, NULL);
	r.err = t_read_file(e, NULL);
	unlink(o);
	unlink(e);
	r.status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
	return r;
}

static void tool_ok(const struct tool_out *r, const char *what)
{
	if (r->status || r->err[0])
		t_fail("%s: exit %d, stderr: %.300s", what, r->status, r->err);
}

/* the lines of a text (modified in place) */
static size_t split_lines(char *s, char ***out)
{
	size_t n = 0, cap = 64;
	char **v = t_xcalloc(cap, sizeof(*v));

	for (char *l = s; l && *l;) {
		char *nl = strchr(l, '\n');

		if (nl)
			*nl = 0;
		if (n == cap) {
			cap *= 2;
			v = t_xrealloc(v, cap * sizeof(*v));
		}
		v[n++] = l;
		l = nl ? nl + 1 : NULL;
	}
	*out = v;
	return n;
}

/* the value of "key: value" in statmnt's text output (malloc'd) */
static char *kv(const char *text, const char *key)
{
	size_t kl = strlen(key);

	for (const char *l = text; l && *l;) {
		const char *nl = strchr(l, '\n');
		size_t len = nl ? (size_t)(nl - l) : strlen(l);

		if (len >= kl + 2 && !strncmp(l, key, kl) && l[kl] == ':' &&
		    l[kl + 1] == ' ') {
			char *v = t_xmalloc(len - kl - 1);

			memcpy(v, l + kl + 2, len - kl - 2);
			v[len - kl - 2] = 0;
			return v;
		}
		l = nl ? nl + 1 : NULL;
	}
	return NULL;
}

/* a tmpfs of the case's own, in the case's private namespace */
static char *own_tmpfs(void)
{
	char *d = t_path("%s/smoke", t_tmpdir());

	t_mkdir(d);
	t_mount("smoke", d, "tmpfs", 0, "size=1m");
	return d;
}

/* statmnt PATH names the mount mountinfo has there */
T_CASE(statmnt_shows_a_mount)
{
	const char *argv[3] = {tool_path("statmnt"), NULL, NULL};
	struct t_mitab tab;
	struct t_mi *m;
	struct tool_out r;
	char *d, *v;

	t_private_ns();
	d = own_tmpfs();
	argv[1] = d;
	r = tool(argv);
	tool_ok(&r, "statmnt DIR");
	t_mi_read(0, &tab);
	m = t_mi_by_point(&tab, d);
	T_ASSERT(m);
	v = kv(r.out, "mnt_point");
	T_ASSERTF(v, "statmnt: no mnt_point line in %.300s", r.out);
	T_EQ_STR(v, t_path("<%s>", d));
	v = kv(r.out, "fs_type");
	T_ASSERTF(v, "statmnt: no fs_type line in %.300s", r.out);
	T_EQ_STR(v, t_path("<%s>", m->fstype));
	v = kv(r.out, "mnt_id_old");
	T_ASSERTF(v, "statmnt: no mnt_id_old line in %.300s", r.out);
	T_EQ_U(strtoull(v, NULL, 0), m->id);
	t_mi_free(&tab);
}

/* statmnt -r lists as many mounts as mountinfo has */
T_CASE(statmnt_lists_every_mount)
{
	const char *argv[] = {tool_path("statmnt"), "-r", NULL};
	struct t_mitab tab;
	struct tool_out r;
	char **lines;
	size_t n;

	t_private_ns();
	own_tmpfs();
	r = tool(argv);
	tool_ok(&r, "statmnt -r");
	t_mi_read(0, &tab);
	n = split_lines(r.out, &lines);
	T_EQ_U(n, tab.n);
	for (size_t i = 0; i < n; i++)
		T_ASSERTF(strchr(lines[i], '\t'),
			  "statmnt -r: a line without a tab: %.80s", lines[i]);
	free(lines);
	t_mi_free(&tab);
}

/* lsmnt -rn -o TARGET: mountinfo's mount points, in any order */
T_CASE(lsmnt_lists_every_target)
{
	const char *argv[] = {tool_path("lsmnt"), "-rn", "-o", "TARGET",
			      NULL};
	struct t_mitab tab;
	struct tool_out r;
	char **lines;
	size_t n;

	t_private_ns();
	own_tmpfs();
	r = tool(argv);
	tool_ok(&r, "lsmnt -rn -o TARGET");
	t_mi_read(0, &tab);
	n = split_lines(r.out, &lines);
	T_EQ_U(n, tab.n);
	for (size_t i = 0; i < tab.n; i++) {
		size_t k;

		for (k = 0; k < n; k++)
			if (!strcmp(t_unescape(lines[k]), tab.v[i].point))
				break;
		T_ASSERTF(k < n, "lsmnt: no line for %s", tab.v[i].point);
	}
	free(lines);
	t_mi_free(&tab);
}

/* lsmnt -T PATH (findmnt's --target): the mount holding a file */
T_CASE(lsmnt_target_of_a_file)
{
	const char *argv[] = {tool_path("lsmnt"), "-n", "-o",
			      "TARGET,FSTYPE", "-T", NULL, NULL};
	struct tool_out r;
	char *d, *want;

	t_private_ns();
	d = own_tmpfs();
	t_mkdir(t_path("%s/sub", d));
	argv[5] = t_path("%s/sub", d);
	r = tool(argv);
	tool_ok(&r, "lsmnt -T");
	want = t_path("%s tmpfs\n", d);
	/* one line: the target, spaces, the type */
	{
		char *sp = strchr(r.out, ' ');
		size_t tl = sp ? (size_t)(sp - r.out) : 0;

		T_ASSERTF(sp && tl == strlen(d) && !strncmp(r.out, d, tl),
			  "lsmnt -T: %.200s, want %s", r.out, want);
		while (*sp == ' ')
			sp++;
		T_EQ_STR(sp, "tmpfs\n");
	}
}

/* mntwatch -c 1 -e attach reports a mount the case makes */
T_CASE(mntwatch_reports_an_attach)
{
	const char *argv[] = {tool_path("mntwatch"), "-c", "1", "-e",
			      "attach", "--timeout", "40", NULL};
	char *o = t_path("%s/watch.out", t_base);
	char *d, *out;
	int fo, st = 0, done = 0;
	pid_t pid;

	t_private_ns();
	d = t_path("%s/w", t_tmpdir());
	t_mkdir(d);
	fo = open(o, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fo < 0)
		t_fail("open %s: %s", o, strerror(errno));
	pid = spawn(argv, fo, -1);
	close(fo);
	/*
	 * The watch may start after the first mount: mount again until it
	 * has seen one (at most 40 s). Each mount on the other of two
	 * directories: without unique IDs (5.10, 6.1) a tmpfs mounted again
	 * where the last one was gets its old ID and its anonymous device
	 * back, a byte-identical record no diff can tell from the old mount
	 * (mntkit_watch(3)), and a watch that started while one was there
	 * would never see an attach.
	 */
	t_mkdir(t_path("%s/0", d));
	t_mkdir(t_path("%s/1", d));
	for (int i = 0; i < 200 && !done; i++) {
		char *at = t_path("%s/%d", d, i % 2);

		t_mount("w", at, "tmpfs", 0, "size=1m");
		usleep(200000);
		t_umount(at);
		if (waitpid(pid, &st, WNOHANG) == pid)
			done = 1;
	}
	if (!done) {
		kill(pid, SIGKILL);
		waitpid(pid, &st, 0);
		t_fail("mntwatch reported nothing in 40 s");
	}
	T_ASSERTF(WIFEXITED(st) && WEXITSTATUS(st) == 0,
		  "mntwatch: status %#x", st);
	out = t_read_file(o, NULL);
	T_ASSERTF(strstr(out, "attach") && strstr(out, d),
		  "mntwatch: %.300s, want an attach of %s", out, d);
}

/* NS_GET_MNTNS_ID of a process's mount namespace: 0, or the errno */
static int ns_id_try(pid_t pid, uint64_t *id)
{
	char *path = t_path("/proc/%d/ns/mnt", (int)pid);
	int fd = open(path, O_RDONLY | O_CLOEXEC), e = 0;

	if (fd < 0)
		t_fail("open %s: %s", path, strerror(errno));
	if (ioctl(fd, T_NS_GET_MNTNS_ID, id))
		e = errno;
	close(fd);
	return e;
}

/* wait up to @ms for @text in the file @path; 1 if it came */
static int wait_for_text(const char *path, const char *text, int ms)
{
	for (int t = 0; t <= ms; t += 50) {
		char *s = t_read_file(path, NULL);
		int found = s && strstr(s, text);

		free(s);
		if (found)
			return 1;
		usleep(50000);
	}
	return 0;
}

/*
 * The kid of lsmnt_poll_all_namespaces: a new mount namespace (made after
 * lsmnt started, so lsmnt finds it by its scan of /proc), which mounts a
 * new probe until lsmnt prints one (the probes mounted before lsmnt found
 * it are its first view: no row), then unmounts that one and waits for
 * its umount row. Exit 0, or 1 after a line on stderr.
 */
static int allns_kid(const char *dir, const char *out, int ready_fd)
{
	char c = 0;

	if (unshare(CLONE_NEWNS) || mount(NULL, "/", NULL, MS_REC | MS_PRIVATE,
					  NULL)) {
		fprintf(stderr, "kid: unshare: %s\n", strerror(errno));
		return 1;
	}
	if (write(ready_fd, &c, 1) != 1)
		return 1;
	close(ready_fd);
	for (int i = 0; i < 30; i++) {
		char *at = t_path("%s/p%d", dir, i);
		char *row = t_path(" mount qprobe%d\n", i);

		mkdir(at, 0755);
		if (mount(t_path("qprobe%d", i), at, "tmpfs", 0, "size=1m")) {
			fprintf(stderr, "kid: mount %s: %s\n", at, strerror(errno));
			return 1;
		}
		if (!wait_for_text(out, row, 3000))
			continue;
		if (umount2(at, MNT_DETACH)) {
			fprintf(stderr, "kid: umount %s: %s\n", at, strerror(errno));
			return 1;
		}
		if (wait_for_text(out, t_path(" umount qprobe%d\n", i), 10000))
			return 0;
		fprintf(stderr, "kid: no umount row of qprobe%d\n", i);
		return 1;
	}
	fprintf(stderr, "kid: no mount row in 90 s\n");
	return 1;
}

/*
 * lsmnt -p --all-namespaces: a mount in a namespace made during the run
 * is printed under the ID NS_GET_MNTNS_ID gives that namespace (and its
 * umount too); on a kernel without namespace IDs (before 6.10) it is
 * refused with the error of lsmnt --all-namespaces.
 */
T_CASE(lsmnt_poll_all_namespaces)
{
	const char *lsmnt = tool_path("lsmnt");
	const char *argv[] = {lsmnt, "-p", "--all-namespaces", "-r", "-n",
			      "-o", "NS,ACTION,SOURCE", "-w", "90000", NULL};
	char *dir, *o, *out, *umounts, **lines, *want;
	uint64_t self_id, kid_id;
	int fo, ready[2], st = 0, e;
	pid_t pid, kid;
	size_t n, k = 0;
	char c;

	t_private_ns();
	e = ns_id_try(getpid(), &self_id);
	if (e == ENOTTY) {
		const char *pargv[] = {lsmnt, "-p", "--all-namespaces", "-w",
				       "0", NULL};
		const char *largv[] = {lsmnt, "--all-namespaces", NULL};
		struct tool_out p = tool(pargv), l = tool(largv);

		T_ASSERTF(p.status == 1 && !p.out[0] && strstr(p.err, "6.10"),
			  "lsmnt -p --all-namespaces: exit %d, %.200s / %.200s",
			  p.status, p.out, p.err);
		T_ASSERTF(l.status == 1, "lsmnt --all-namespaces: exit %d",
			  l.status);
		T_EQ_STR(p.err, l.err);
		t_log("no namespace IDs: %s", p.err);
		return;
	}
	if (e)
		t_fail("NS_GET_MNTNS_ID: %s", strerror(e));
	dir = t_path("%s/allns", t_tmpdir());
	t_mkdir(dir);
	o = t_path("%s/poll.out", t_base);
	fo = open(o, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fo < 0 || pipe(ready))
		t_fail("open %s, pipe: %s", o, strerror(errno));
	pid = spawn(argv, fo, -1);
	close(fo);
	usleep(300000); /* lsmnt's first scan, without the kid */
	kid = fork();
	if (kid < 0)
		t_fail("fork: %s", strerror(errno));
	if (kid == 0) {
		close(ready[0]);
		_exit(allns_kid(dir, o, ready[1]));
	}
	close(ready[1]);
	if (read(ready[0], &c, 1) != 1)
		t_fail("the kid did not make its namespace");
	e = ns_id_try(kid, &kid_id);
	if (e)
		t_fail("NS_GET_MNTNS_ID of the kid: %s", strerror(e));
	while (waitpid(kid, &st, 0) < 0)
		if (errno != EINTR)
			t_fail("waitpid: %s", strerror(errno));
	kill(pid, SIGTERM);
	waitpid(pid, NULL, 0);
	T_ASSERTF(WIFEXITED(st) && WEXITSTATUS(st) == 0, "kid: status %#x",
		  st);
	/*
	 * The kid's rows, under its NS: the mount and the umount of its last
	 * probe; maybe the mounts of probes lsmnt printed after the kid gave
	 * up waiting for them (a slow guest), no other umount
	 */
	out = t_read_file(o, NULL);
	umounts = t_xstrdup(out);
	n = split_lines(out, &lines);
	want = t_path("%" PRIu64 " ", kid_id);
	for (size_t i = 0; i < n; i++) {
		char *u;

		if (!strstr(lines[i], " qprobe"))
			continue;
		T_ASSERTF(!strncmp(lines[i], want, strlen(want)),
			  "row %s: the kid's namespace is %" PRIu64
			  " (ours %" PRIu64 ")",
			  lines[i], kid_id, self_id);
		u = strstr(lines[i], " umount qprobe");
		if (!u)
			continue;
		k++;
		T_ASSERTF(strstr(umounts, t_path("%" PRIu64 " mount qprobe%s\n",
						 kid_id,
						 u + strlen(" umount qprobe"))),
			  "%s without its mount row in %.500s", lines[i],
			  umounts);
	}
	T_ASSERTF(k == 1, "%zu umount rows of the kid's probes in %.500s", k,
		  umounts);
	t_log("lsmnt -p --all-namespaces: the kid's rows under NS %" PRIu64
	      " (ours %" PRIu64 ")\n",
	      kid_id, self_id);
	free(lines);
}

int main(int argc, char **argv)
{
	return t_run(argc, argv);
}
