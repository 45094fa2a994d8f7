// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The differential proof: build mount situations in private mount
 * namespaces and compare every field of every mount, the kernel's
 * statmount/listmount against the mountinfo emulation (emul-diff.h).
 */
#include "emul-diff.h"

#include <sys/prctl.h>

/* a private namespace and a scratch directory in it */
static char *setup(void)
{
	ed_require();
	t_private_ns();
	return t_tmpdir();
}

static void done(const char *what)
{
	ed_compare(what);
	t_log("%s: %zu mounts, %zu replies, %zu hidden, %zu unknown magic, "
	      "%zu idmapped\n",
	      what, ed_stats.mounts, ed_stats.replies, ed_stats.hidden,
	      ed_stats.unknown_magic, ed_stats.idmapped);
}

/* the host's own table, read only */
T_CASE(host_table)
{
	ed_require();
	done("host");
}

T_CASE(tmpfs_options)
{
	char *d = setup();

	t_tmpfs(t_path("%s/a", d), 0, "size=1m,mode=1777,uid=1000,gid=100");
	t_tmpfs(t_path("%s/b", d), 0, "nr_inodes=77,mode=700");
	t_tmpfs(t_path("%s/c", d), 0, NULL);
	done("tmpfs");
}

T_CASE(bind_subdir)
{
	char *d = setup();

	t_tmpfs(t_path("%s/a", d), 0, NULL);
	t_mkdir(t_path("%s/a/sub", d));
	t_mkdir(t_path("%s/a/sub/deeper", d));
	t_bind(t_path("%s/a/sub", d), t_path("%s/b", d), 0);
	t_bind(t_path("%s/a/sub/deeper", d), t_path("%s/c", d), 0);
	done("bind_subdir");
}

T_CASE(ro_bind_over_rw)
{
	char *d = setup();
	char *b = t_path("%s/b", d);

	t_tmpfs(t_path("%s/a", d), 0, NULL);
	t_bind(t_path("%s/a", d), b, 0);
	t_mount(NULL, b, NULL, MS_REMOUNT | MS_BIND | MS_RDONLY, NULL);
	/* and a read-only superblock under a rw mount */
	t_tmpfs(t_path("%s/c", d), MS_RDONLY, NULL);
	done("ro_bind");
}

T_CASE(mount_flags)
{
	static const unsigned long fl[] = {
		MS_NOSUID, MS_NODEV, MS_NOEXEC, MS_NOATIME, MS_STRICTATIME,
		MS_NODIRATIME, MS_RELATIME, MS_NOSUID | MS_NODEV | MS_NOEXEC,
		MS_NODIRATIME | MS_STRICTATIME, MS_RDONLY | MS_NOATIME,
	};
	char *d = setup();

	for (size_t i = 0; i < sizeof(fl) / sizeof(fl[0]); i++)
		t_tmpfs(t_path("%s/m%zu", d, i), fl[i], NULL);
	/* nosymfollow through mount_setattr */
	t_tmpfs(t_path("%s/sym", d), 0, NULL);
	t_setattr(t_path("%s/sym", d), 0, MNTKIT_MOUNT_ATTR_NOSYMFOLLOW, 0, 0);
	done("mount_flags");
}

T_CASE(sb_flags)
{
	char *d = setup();

	t_tmpfs(t_path("%s/s", d), MS_SYNCHRONOUS, NULL);
	t_tmpfs(t_path("%s/d", d), MS_DIRSYNC, NULL);
	t_tmpfs(t_path("%s/l", d), MS_LAZYTIME, NULL);
	t_tmpfs(t_path("%s/all", d), MS_SYNCHRONOUS | MS_DIRSYNC | MS_LAZYTIME |
					    MS_MANDLOCK,
		NULL);
	done("sb_flags");
}

T_CASE(propagation)
{
	char *d = setup();

	t_tmpfs(t_path("%s/sh", d), 0, NULL);
	t_mount(NULL, t_path("%s/sh", d), NULL, MS_SHARED, NULL);
	t_bind(t_path("%s/sh", d), t_path("%s/peer", d), 0);
	t_bind(t_path("%s/sh", d), t_path("%s/slave", d), 0);
	t_mount(NULL, t_path("%s/slave", d), NULL, MS_SLAVE, NULL);
	t_bind(t_path("%s/sh", d), t_path("%s/shsl", d), 0);
	t_mount(NULL, t_path("%s/shsl", d), NULL, MS_SLAVE, NULL);
	t_mount(NULL, t_path("%s/shsl", d), NULL, MS_SHARED, NULL);
	t_bind(t_path("%s/shsl", d), t_path("%s/slsl", d), 0);
	t_mount(NULL, t_path("%s/slsl", d), NULL, MS_SLAVE, NULL);
	t_tmpfs(t_path("%s/unb", d), 0, NULL);
	t_mount(NULL, t_path("%s/unb", d), NULL, MS_UNBINDABLE, NULL);
	t_tmpfs(t_path("%s/priv", d), 0, NULL);
	t_mount(NULL, t_path("%s/priv", d), NULL, MS_PRIVATE, NULL);
	/* a slave that is also unbindable */
	t_bind(t_path("%s/sh", d), t_path("%s/slunb", d), 0);
	t_mount(NULL, t_path("%s/slunb", d), NULL, MS_SLAVE, NULL);
	t_mount(NULL, t_path("%s/slunb", d), NULL, MS_UNBINDABLE, NULL);
	done("propagation");
}

/*
 * propagate_from: a slave whose master's peers are out of sight, under a
 * chroot, in a slave namespace.
 */
/* the emulation reads /proc: a chroot needs its own */
static void jail_proc(const char *jail)
{
	t_mkdir(t_path("%s/proc", jail));
	t_mount("proc", t_path("%s/proc", jail), "proc", 0, NULL);
}

static void propagate_setup(const char *d)
{
	t_tmpfs(t_path("%s/a", d), 0, NULL);
	t_mount(NULL, t_path("%s/a", d), NULL, MS_SHARED, NULL);
	t_mkdir(t_path("%s/jail", d));
	t_bind(t_path("%s/a", d), t_path("%s/jail/p", d), 0);
	t_bind(t_path("%s/a", d), t_path("%s/m", d), 0);
	t_mount(NULL, t_path("%s/m", d), NULL, MS_SLAVE, NULL);
	t_mount(NULL, t_path("%s/m", d), NULL, MS_SHARED, NULL);
	t_bind(t_path("%s/m", d), t_path("%s/jail/s", d), 0);
	t_mount(NULL, t_path("%s/jail/s", d), NULL, MS_SLAVE, NULL);
	jail_proc(t_path("%s/jail", d));
}

T_CASE(propagate_from_chroot)
{
	char *d = setup();

	propagate_setup(d);
	done("propagate_outside");
	/* the emulation's cache must follow the chroot */
	if (chroot(t_path("%s/jail", d)) || chdir("/"))
		t_fail("chroot: %s", strerror(errno));
	done("propagate_chroot");
	{
		char *mi = t_read_file("/proc/self/mountinfo", NULL);

		if (!strstr(mi, " propagate_from:"))
			t_fail("the chroot shows no propagate_from: field");
		free(mi);
	}
}

T_CASE(propagate_from_slave_ns)
{
	char *d = setup();

	propagate_setup(d);
	if (unshare(CLONE_NEWNS))
		t_fail("unshare: %s", strerror(errno));
	done("slave_ns_copy");
	if (t_root_propagation(MS_REC | MS_SLAVE))
		t_fail("make / rslave: %s", strerror(errno));
	/* propagation changes are not signalled: the emulation's cache
	 * sees them by age (<= 250 ms) */
	usleep(300000);
	done("slave_ns");
	if (chroot(t_path("%s/jail", d)) || chdir("/"))
		t_fail("chroot: %s", strerror(errno));
	done("slave_ns_chroot");
}

T_CASE(stacked)
{
	char *d = setup();
	char *p = t_path("%s/st", d);

	t_tmpfs(p, 0, "size=1m");
	t_mount("second", p, "tmpfs", 0, "size=2m");
	t_mount("third", p, "tmpfs", MS_NOSUID, "size=3m");
	/* a mount hidden by one on an ancestor directory */
	t_tmpfs(t_path("%s/x", d), 0, NULL);
	t_tmpfs(t_path("%s/x/y", d), 0, NULL);
	t_mount("over", t_path("%s/x", d), "tmpfs", 0, NULL);
	done("stacked");
	if (ed_stats.hidden < 3)
		t_fail("expected at least 3 hidden mounts, saw %zu",
		       ed_stats.hidden);
}

/*
 * A reload after changes that hide, stack, move and replace mounts of a
 * table the emulation has loaded and named: the reload names most mounts
 * from what the first load proved (lib/emul-ids.c, resolve_from_memo())
 * and must still give each mount its unique ID where its point leads to
 * it, its old ID where it is hidden now, and a new mount of a reused old
 * ID its own unique ID.
 */
T_CASE(reload_after_changes)
{
	char *d = setup();
	size_t h0 = ed_stats.hidden, h1;

	t_tmpfs(t_path("%s/x", d), 0, NULL);
	t_tmpfs(t_path("%s/x/y", d), 0, NULL);
	t_tmpfs(t_path("%s/s", d), 0, NULL);
	t_tmpfs(t_path("%s/r", d), 0, NULL);
	t_tmpfs(t_path("%s/m", d), 0, NULL);
	t_mkdir(t_path("%s/moved", d));
	for (int i = 0; i < 8; i++)
		t_tmpfs(t_path("%s/k%d", d, i), 0, NULL);
	done("reload_before");
	h1 = ed_stats.hidden;
	t_mount("over", t_path("%s/x", d), "tmpfs", 0, NULL); /* hides x/y */
	t_mount("stack", t_path("%s/s", d), "tmpfs", 0, NULL);
	t_umount(t_path("%s/r", d)); /* its old ID is free for the next */
	t_tmpfs(t_path("%s/r", d), 0, NULL);
	if (mount(t_path("%s/m", d), t_path("%s/moved", d), NULL, MS_MOVE,
		  NULL))
		t_fail("move: %s", strerror(errno));
	done("reload_after");
	/* the counts add up: the second table hides three more */
	if (ed_stats.hidden - h1 < h1 - h0 + 3)
		t_fail("expected 3 more hidden mounts (x, x/y, s): %zu, then %zu",
		       h1 - h0, ed_stats.hidden - h1);
}

T_CASE(escapes)
{
	static const char *const names[] = {
		"sp ace", "tab\there", "new\nline", "back\\slash",
		"\xc3\xbc\xe2\x82\xac-utf8", "oct\\040al", "mix \t\n\\ \\134",
	};
	char *d = setup();

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		char *p = t_path("%s/%s", d, names[i]);

		t_mkdir(p);
		t_mount(names[i], p, "tmpfs", 0, NULL);
		t_mkdir(t_path("%s/%s", p, names[i]));
		t_bind(t_path("%s/%s", p, names[i]),
		       t_path("%s/b%s", d, names[i]), 0);
	}
	/* an empty source */
	t_tmpfs(t_path("%s/empty", d), 0, NULL);
	t_mount("", t_path("%s/empty", d), "tmpfs", 0, NULL);
	done("escapes");
}

T_CASE(deleted_mount_point)
{
	char *d = setup();
	char *p = t_path("%s/gone", d);
	int fd;

	t_tmpfs(t_path("%s/a", d), 0, NULL);
	t_mkdir(t_path("%s/a/sub", d));
	t_bind(t_path("%s/a/sub", d), p, 0);
	/* a bind of a deleted directory: mnt_root "//deleted" */
	fd = open(t_path("%s/a/sub", d), O_PATH);
	if (fd < 0 || rmdir(t_path("%s/a/sub", d)))
		t_fail("rmdir: %s", strerror(errno));
	done("deleted");
	close(fd);
}

T_CASE(overlayfs)
{
	char *d = setup();
	char *opts;

	t_mkdir(t_path("%s/low er", d));
	t_mkdir(t_path("%s/low2", d));
	t_mkdir(t_path("%s/up", d));
	t_mkdir(t_path("%s/work", d));
	t_mkdir(t_path("%s/ov", d));
	opts = t_path("lowerdir=%s/low er:%s/low2,upperdir=%s/up,workdir=%s/work",
		      d, d, d, d);
	if (mount("over lay", t_path("%s/ov", d), "overlay", 0, opts)) {
		if (errno == ENODEV)
			t_skip("no overlayfs");
		t_fail("mount overlay: %s", strerror(errno));
	}
	done("overlay");
}

T_CASE(pseudo_filesystems)
{
	char *d = setup();

	t_tmpfs(t_path("%s/p", d), 0, NULL); /* placeholder dirs live here */
	t_mkdir(t_path("%s/p/proc", d));
	t_mount("proc", t_path("%s/p/proc", d), "proc", MS_NOSUID, "hidepid=2");
	t_mkdir(t_path("%s/p/sys", d));
	t_mount("sysfs", t_path("%s/p/sys", d), "sysfs", MS_RDONLY, NULL);
	t_mkdir(t_path("%s/p/pts", d));
	t_mount("devpts", t_path("%s/p/pts", d), "devpts", 0,
		"newinstance,ptmxmode=0666,mode=620");
	t_mkdir(t_path("%s/p/mq", d));
	t_mount("mqueue", t_path("%s/p/mq", d), "mqueue", 0, NULL);
	t_mkdir(t_path("%s/p/cg", d));
	mount("cgroup2", t_path("%s/p/cg", d), "cgroup2", 0, NULL);
	done("pseudo");
}

/*
 * A FUSE filesystem whose daemon never answers (the /dev/fuse fd is held
 * and never read): the kernel's replies need no daemon, and neither may
 * the emulation's. It names the mount by its old ID (a filesystem a
 * server or daemon answers for: its mount point is not looked at), and
 * every field is the kernel's, fuse.subtype split included.
 */
T_CASE(fuse_without_daemon)
{
	char *d = setup(), *mp = t_path("%s/fz", d);
	int fd = open("/dev/fuse", O_RDWR | O_CLOEXEC);
	uint64_t old, *ids;
	size_t n, k;

	if (fd < 0)
		t_skip("/dev/fuse: %s", strerror(errno));
	t_mkdir(mp);
	if (mount("deadfuse", mp, "fuse.dead", MS_NOSUID | MS_NODEV,
		  t_path("fd=%d,rootmode=40000,user_id=0,group_id=0", fd)))
		t_skip("mount fuse: %s", strerror(errno));
	done("fuse");
	/* the emulation on 6.8+ lists it by its old ID */
	old = t_old_id(mp);
	n = ed_emul_lm(T_LSMT_ROOT, 0, 0, &ids);
	for (k = 0; k < n && ids[k] != old; k++)
		;
	T_ASSERTF(k < n, "%s: not listed by its old ID %#" PRIx64
		  " (its mount point was looked at)", mp, old);
	free(ids);
	close(fd);
}

static int run(const char *cmd)
{
	int st = system(cmd);

	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

T_CASE(loop_images)
{
	char *d = setup();
	int any = 0;

	/* system(3) runs /bin/sh: a minimal root (a test VM's) has none */
	if (access("/bin/sh", X_OK))
		t_skip("no /bin/sh for system(3) to make the images with");
	t_mkdir(t_path("%s/src", d));
	t_mkdir(t_path("%s/e", d));
	t_mkdir(t_path("%s/q", d));
	if (run(t_path("echo hi > '%s/src/f' && truncate -s 8M '%s/img' && "
		       "mkfs.ext4 -q -F '%s/img' >/dev/null 2>&1", d, d, d)) == 0 &&
	    run(t_path("mount -o loop,noatime,errors=remount-ro '%s/img' '%s/e' 2>/dev/null",
		       d, d)) == 0)
		any++;
	if (run(t_path("mksquashfs '%s/src' '%s/sq' -quiet -noappend >/dev/null 2>&1",
		       d, d)) == 0 &&
	    run(t_path("mount -o loop '%s/sq' '%s/q' 2>/dev/null", d, d)) == 0)
		any++;
	if (!any)
		t_skip("neither an ext4 nor a squashfs image could be made and "
		       "mounted (mkfs.ext4, mksquashfs, loop devices)");
	done("loop");
}

T_CASE(idmapped)
{
	char *d = setup();
	int ufd;

	t_tmpfs(t_path("%s/a", d), 0, NULL);
	ufd = t_userns_fd("0 100000 65536");
	t_idmap_mount(t_path("%s/a", d), t_path("%s/i", d), ufd);
	done("idmapped");
	/* seen where the kernel's statmount has the maps (6.15+) */
	if (!ed_stats.idmapped &&
	    (t_kernel_groups() & MNTKIT_STATMOUNT_MNT_UIDMAP))
		t_fail("the idmapped mount was not seen");
}

T_CASE(chroot_reachability)
{
	char *d = setup();

	t_tmpfs(t_path("%s/r", d), 0, NULL);
	t_mkdir(t_path("%s/r/in", d));
	t_tmpfs(t_path("%s/r/in/x", d), 0, NULL);
	t_tmpfs(t_path("%s/r/in/x/y", d), 0, NULL);
	t_tmpfs(t_path("%s/r/out", d), 0, NULL);
	jail_proc(t_path("%s/r/in", d));
	/* chroot into a directory that is not a mount root */
	if (chroot(t_path("%s/r/in", d)) || chdir("/"))
		t_fail("chroot: %s", strerror(errno));
	done("chroot_subdir");
}

T_CASE(unprivileged_userns)
{
	char *d = setup();
	pid_t pid;

	ed_require();
	t_require_root();
	pid = fork();
	if (pid < 0)
		t_fail("fork: %s", strerror(errno));
	if (pid == 0) {
		char map[64];
		int fd;
		uid_t uid = 65534;
		const char *pre;

		/* where / is, learned while setns(2) is allowed: a skip
		 * for a refused user namespace names a chroot */
		(void)t_ns_root_prefix_try(&pre);
		if (chmod(t_base, 0777) || chmod(d, 0777))
			t_fail("chmod: %s", strerror(errno));
		if (setgid(65534) || setuid(uid))
			t_fail("setuid: %s", strerror(errno));
		prctl(PR_SET_DUMPABLE, 1);
		if (unshare(CLONE_NEWUSER | CLONE_NEWNS))
			t_skip_userns(errno, "unshare(CLONE_NEWUSER|CLONE_NEWNS)");
		fd = open("/proc/self/setgroups", O_WRONLY);
		if (fd >= 0) {
			if (write(fd, "deny", 4) < 0)
				t_fail("setgroups: %s", strerror(errno));
			close(fd);
		}
		snprintf(map, sizeof(map), "0 %u 1", uid);
		fd = open("/proc/self/uid_map", O_WRONLY);
		if (fd < 0 || write(fd, map, strlen(map)) < 0)
			t_fail("uid_map: %s", strerror(errno));
		close(fd);
		snprintf(map, sizeof(map), "0 %u 1", 65534u);
		fd = open("/proc/self/gid_map", O_WRONLY);
		if (fd < 0 || write(fd, map, strlen(map)) < 0)
			t_fail("gid_map: %s", strerror(errno));
		close(fd);
		t_private = 1;
		if (t_make_rprivate())
			t_fail("rprivate: %s", strerror(errno));
		t_tmpfs(t_path("%s/u", d), 0, "size=1m,mode=755");
		t_bind(t_path("%s/u", d), t_path("%s/ub", d), 0);
		t_mount(NULL, t_path("%s/ub", d), NULL,
			MS_REMOUNT | MS_BIND | MS_RDONLY | MS_NOSUID, NULL);
		done("userns");
		_exit(0);
	}
	t_wait_child(pid, "userns child");
}

T_CASE(ten_thousand_mounts)
{
	char *d = setup();
	struct ed_map m;

	t_tmpfs(t_path("%s/many", d), 0, NULL);
	for (int i = 0; i < 10000; i++) {
		char *p = t_path("%s/many/%d", d, i);

		t_mkdir(p);
		if (mount("m", p, "tmpfs", i % 3 ? 0 : MS_NOSUID, NULL))
			t_fail("mount %d: %s", i, strerror(errno));
		free(p);
	}
	/* one mask for all mounts (all groups at once), then every group on
	 * a sample */
	ed_build_map(&m, 0, "10k");
	if (m.n < 10000)
		t_fail("only %zu mounts listed", m.n);
	for (size_t i = 0; i < m.n; i++)
		ed_compare_one(&m, m.nat[i], m.emu[i], ED_ALL, 0, "10k");
	for (size_t i = 0; i < m.n; i += 997)
		for (uint64_t bit = 1; bit <= ED_ALL; bit <<= 1)
			ed_compare_one(&m, m.nat[i], m.emu[i], bit, 0, "10k");
	ed_free_map(&m);
}

/* a foreign namespace, by mnt_ns_id */
T_CASE(foreign_namespace)
{
	int go[2], ready[2];
	char c;
	pid_t pid;
	uint64_t ns;

	ed_require();
	t_private_ns();
	if (pipe(go) || pipe(ready))
		t_fail("pipe: %s", strerror(errno));
	pid = fork();
	if (pid == 0) {
		char *d = t_path("%s/f", t_base);

		if (unshare(CLONE_NEWNS))
			_exit(1);
		t_mkdir(d);
		if (mount("foreign", d, "tmpfs", MS_NODEV, "size=2m"))
			_exit(1);
		t_ns_root_take(); /* as in a container */
		if (write(ready[1], "x", 1) != 1 || read(go[0], &c, 1) < 0)
			_exit(1);
		_exit(0);
	}
	if (read(ready[0], &c, 1) != 1)
		t_fail("child did not get ready");
	ns = t_ns_id(pid);
	ed_compare_ns(ns, 1, "foreign");
	if (write(go[1], "x", 1) != 1)
		t_fail("write: %s", strerror(errno));
	t_wait_child(pid, "ns child");
}

int main(int argc, char **argv)
{
	return t_run(argc, argv);
}
