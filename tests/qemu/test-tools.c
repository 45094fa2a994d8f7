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
	pid = fork();
	if (pid < 0)
		t_fail("fork: %s", strerror(errno));
	if (pid == 0) {
		dup2(fo, 1);
		dup2(fe, 2);
		execv(argv[0], (char *const *)argv);
		_exit(127);
	}
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
	pid = fork();
	if (pid < 0)
		t_fail("fork: %s", strerror(errno));
	if (pid == 0) {
		dup2(fo, 1);
		execv(argv[0], (char *const *)argv);
		_exit(127);
	}
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

int main(int argc, char **argv)
{
	return t_run(argc, argv);
}
