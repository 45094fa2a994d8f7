// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Backend choice: the forced one (mntkit_set_backend(), else MNTKIT_BACKEND
 * in the environment) or, by default, native where the kernel has both
 * system calls - and no seccomp filter refuses either (lib/features.c,
 * "Refusals") - and the mountinfo emulation elsewhere; the pins that keep
 * one backend through a call; mntkit_get_features() and mntkit_init().
 */
#include <stdatomic.h>
#include <string.h>
#include <unistd.h>

#include "internal.h"

/* MNTKIT_BACKEND_AUTO until forced by the API; -1 until the env is read */
static _Atomic int forced_backend = -1;

static int backend_from_name(const char *name)
{
	if (!name || !*name || !strcmp(name, "auto"))
		return MNTKIT_BACKEND_AUTO;
	if (!strcmp(name, "native"))
		return MNTKIT_BACKEND_NATIVE;
	if (!strcmp(name, "mountinfo"))
		return MNTKIT_BACKEND_MOUNTINFO;
	return -1;
}


static int native_possible(void)
{
	uint32_t need = MNTKIT_FEAT_STATMOUNT | MNTKIT_FEAT_LISTMOUNT;

	return (mntkit__kernel_calls() & need) == need;
}

/*
 * MNTKIT_BACKEND, by the rule of mntkit_set_backend(): a name it would
 * refuse - unknown, or "native" where the kernel (or a seccomp filter)
 * denies a system call the native backend needs - is ignored (AUTO).
 */
static int backend_from_env(void)
{
	const char *name = mntkit__env(MNTKIT__ENV_BACKEND);
	int b = backend_from_name(name);

	if (b < 0) {
		mntkit__debug(MNTKIT_PRINT_WARN,
			      "MNTKIT_BACKEND=%s: no such backend, ignored",
			      name);
		return MNTKIT_BACKEND_AUTO;
	}
	if (b == MNTKIT_BACKEND_NATIVE && !native_possible()) {
		mntkit__debug(MNTKIT_PRINT_WARN,
			      "MNTKIT_BACKEND=native: the kernel lacks (or a "
			      "filter refuses) statmount/listmount, ignored");
		return MNTKIT_BACKEND_AUTO;
	}
	if (name && *name)
		mntkit__debug(MNTKIT_PRINT_INFO, "MNTKIT_BACKEND=%s", name);
	return b;
}

static int forced(void)
{
	int b = atomic_load(&forced_backend);

	if (b < 0) {
		int expected = -1;

		b = backend_from_env();
		if (!atomic_compare_exchange_strong(&forced_backend, &expected,
						    b))
			b = expected;
	}
	return b;
}

/* the backend a call pinned (MNTKIT__PIN()), and how deep */
static MNTKIT__TLS const struct mntkit_backend_ops *pinned_ops;
static MNTKIT__TLS unsigned int pin_depth;

/* the backend in effect now, whatever is pinned */
static enum mntkit_backend backend_now(void)
{
	int b = forced();

	if (b != MNTKIT_BACKEND_AUTO)
		return (enum mntkit_backend)b;
	return native_possible() ? MNTKIT_BACKEND_NATIVE :
				   MNTKIT_BACKEND_MOUNTINFO;
}

static const struct mntkit_backend_ops *ops_of(enum mntkit_backend b)
{
	return b == MNTKIT_BACKEND_NATIVE ? &mntkit_native_ops :
					    &mntkit_mountinfo_ops;
}

enum mntkit_backend mntkit_get_backend(void)
{
	if (pin_depth)
		return pinned_ops == &mntkit_native_ops ?
			       MNTKIT_BACKEND_NATIVE :
			       MNTKIT_BACKEND_MOUNTINFO;
	return backend_now();
}

const struct mntkit_backend_ops *mntkit__ops(void)
{
	return pin_depth ? pinned_ops : ops_of(backend_now());
}

struct mntkit__pin mntkit__pin_begin(const struct mntkit_backend_ops *ops)
{
	struct mntkit__pin pin = { 1 };

	if (!pin_depth++)
		pinned_ops = ops ? ops : ops_of(backend_now());
	return pin;
}

void mntkit__pin_end(struct mntkit__pin *pin)
{
	if (pin->pinned && pin_depth && !--pin_depth) {
		mntkit__emul_set_pid(0);
		mntkit__emul_set_cheap_ids(0);
	}
	pin->pinned = 0;
}

struct mntkit__pin mntkit__pin_begin_pid(const struct mntkit_backend_ops *ops,
					 pid_t pid)
{
	struct mntkit__pin pin = mntkit__pin_begin(ops);

	if (pid > 0 && pin_depth == 1)
		mntkit__emul_set_pid(pid);
	return pin;
}

int mntkit__pin_mountinfo_of(pid_t pid)
{
	if (!pin_depth)
		return -EPERM;
	pinned_ops = &mntkit_mountinfo_ops;
	mntkit__emul_set_pid(pid);
	return 0;
}

int mntkit__pin_cheap_ids(void)
{
	if (!pin_depth)
		return -EPERM;
	mntkit__emul_set_cheap_ids(1);
	return 0;
}

int mntkit__pinned_cheap_ids(void)
{
	return pin_depth && mntkit__emul_cheap_ids();
}

pid_t mntkit__pinned_pid(void)
{
	return pin_depth ? mntkit__emul_pid() : 0;
}

int mntkit_set_backend(enum mntkit_backend backend)
{
	switch (backend) {
	case MNTKIT_BACKEND_AUTO:
	case MNTKIT_BACKEND_MOUNTINFO:
		break;
	case MNTKIT_BACKEND_NATIVE:
		if (!native_possible())
			return mntkit__fail(ENOSYS);
		break;
	default:
		return mntkit__fail(EINVAL);
	}
	atomic_store(&forced_backend, (int)backend);
	mntkit__debug(MNTKIT_PRINT_INFO, "backend set to %s",
		      mntkit_backend_name(backend));
	return 0;
}

const char *mntkit_backend_name(enum mntkit_backend backend)
{
	switch (backend) {
	case MNTKIT_BACKEND_AUTO:
		return "auto";
	case MNTKIT_BACKEND_NATIVE:
		return "native";
	case MNTKIT_BACKEND_MOUNTINFO:
		return "mountinfo";
	}
	return NULL;
}

int mntkit__unique_ids(void)
{
	return mntkit__ops() != &mntkit_mountinfo_ops ||
	       mntkit__emul_unique_ids();
}

int mntkit_get_features(struct mntkit_features *features)
{
	MNTKIT__PIN();
	struct mntkit_features f = { .size = sizeof(f) };

	if (!features)
		return MNTKIT__MISUSE(EINVAL, "a NULL features pointer");
	if (features->size < MNTKIT_FEATURES_SIZE_VER0)
		return mntkit__short_size("struct mntkit_features",
					  features->size,
					  MNTKIT_FEATURES_SIZE_VER0,
					  "MNTKIT_FEATURES");
	f.flags = mntkit__kernel_features() | mntkit__kernel_fanotify();
	f.backend = mntkit_get_backend();
	/* the emulation's IDs are old ones (MNTKIT_TEST_OLD_IDS, lib/features.c) */
	if (f.backend == MNTKIT_BACKEND_MOUNTINFO && !mntkit__emul_unique_ids())
		f.flags &= ~(MNTKIT_FEAT_UNIQUE_IDS | MNTKIT_FEAT_STATX_UNIQUE |
			     MNTKIT_FEAT_HANDLE_UNIQUE);
	if (mntkit__kernel_by_fd())
		f.flags |= MNTKIT_FEAT_STATMOUNT_BY_FD;
	if (mntkit__kernel_listns())
		f.flags |= MNTKIT_FEAT_LISTNS;
	f.kernel_mask = mntkit__kernel_mask();
	f.refused = mntkit__refused_mask();
	f.supported_mask = f.backend == MNTKIT_BACKEND_NATIVE ?
				   mntkit__kernel_mask() | mntkit__hybrid_mask() :
				   mntkit__emul_supported_mask();
	/* the kernel may lack only what the emulation cannot know either */
	if (f.backend == MNTKIT_BACKEND_NATIVE && mntkit__hybrid_mask()) {
		f.flags |= MNTKIT_FEAT_HYBRID;
		f.emul_mask = mntkit__hybrid_mask();
	}
	mntkit__sized_out(features, features->size, &f, sizeof(f),
			  sizeof(f.size));
	return 0;
}

int mntkit_init(unsigned int flags)
{
	int ret;

	if (flags)
		return mntkit__fail(EINVAL);
	mntkit__emul_unique_ids(); /* the emulation's probes */
	ret = mntkit__proc_grab();
	mntkit__ops(); /* the backend is chosen now too */
	return ret ? mntkit__fail(-ret) : 0;
}
