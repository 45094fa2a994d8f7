/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * mntkit-py.h - what the files of the mntkit extension module share.
 *
 *   module.c   the module: mounts(), stat(), backend(), features()
 *   args.c     int arguments; hashing and comparing by ID
 *   error.c    the exceptions, and the library's reason for an error
 *   ns.c       the ns= argument, Namespace, namespaces()
 *   mount.c    Mount: one reply, read-only
 *   table.c    Table: a snapshot
 *   aio.c      the asyncio form of a Watch and of a LiveTable: waiting
 *              for an fd on the running loop
 *   watch.c    Watch and Event
 *   live.c     LiveTable: a table kept current by a watch's events
 *
 * The module is written over the library's public API only (mntkit.h).
 * Every call that may make a system call runs with the GIL released,
 * between mkpy_call_begin() and mkpy_call_end() (MKPY_CALL()), which
 * keep the warn-level line the library prints about the call's failure.
 */
#ifndef MNTKIT_PY_H
#define MNTKIT_PY_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <mntkit.h>

/* the groups asked for: all of them */
#define MKPY_MASK MNTKIT_STATMOUNT_ALL

/* a method's function cast to what PyMethodDef holds */
#define MKPY_METH(fn) ((PyCFunction)(void (*)(void))(fn))

/* ---- args.c ---- */

/*
 * mkpy_u64_arg - int argument @arg in [@min, @max] into *@out: 0, or -1
 * with TypeError (not an int, or a bool) or ValueError (out of range)
 * naming @what.
 */
int mkpy_u64_arg(PyObject *arg, const char *what, uint64_t min, uint64_t max,
		 uint64_t *out);
/* hash(@id), as of an int */
Py_hash_t mkpy_id_hash(uint64_t id);
/* == and != of two objects of one type by their IDs (@id_of) */
PyObject *mkpy_id_compare(PyObject *a, PyObject *b, int op,
			  uint64_t (*id_of)(PyObject *));

/* ---- error.c ---- */

void mkpy_call_begin(void);
void mkpy_call_end(void);

/*
 * MKPY_CALL(stmt): run @stmt (library calls) with the GIL released and
 * the library's reason for a failure kept (mkpy_raise() adds it).
 */
#define MKPY_CALL(...)                                                         \
	do {                                                                   \
		mkpy_call_begin();                                             \
		Py_BEGIN_ALLOW_THREADS __VA_ARGS__;                            \
		Py_END_ALLOW_THREADS mkpy_call_end();                          \
	} while (0)

/*
 * mkpy_raise - raise mntkit.Error (an OSError) for errno @err (positive
 * or negative) with the reason the library gave in the last MKPY_CALL()
 * of this thread, and @filename (may be NULL). Returns NULL.
 */
PyObject *mkpy_raise(int err, PyObject *filename);
int mkpy_errors_init(PyObject *module);

/* ---- ns.c ---- */

/*
 * mkpy_ns_opts - the ns= argument as struct mntkit_opts: None (the
 * caller's namespace: *@use NULL), a PID (int), a Namespace (its ID), or
 * an open namespace file (an object with fileno()). Returns 0 with *@use
 * NULL or @o, or -1 with TypeError or ValueError set.
 */
int mkpy_ns_opts(PyObject *ns, struct mntkit_opts *o,
		 const struct mntkit_opts **use);
/*
 * mkpy_cheap_ids - the cheap_ids= argument (@on) into @o, which *@use
 * then points to (the caller's namespace when ns= named none): with @on,
 * MNTKIT_OPTS_F_CHEAP_IDS.
 */
void mkpy_cheap_ids(int on, struct mntkit_opts *o,
		    const struct mntkit_opts **use);
PyObject *mkpy_namespaces(PyObject *self, PyObject *unused);
extern PyTypeObject mkpy_namespace_type;

/* ---- mount.c ---- */

/*
 * struct mkpy_mount - a Mount: a reply, either its own copy (@owner
 * NULL: @sm points to @data) or one that @owner keeps alive (a Table's).
 */
struct mkpy_mount {
	PyObject_VAR_HEAD
	const struct mntkit_statmount *sm;
	PyObject *owner;
	uint64_t data[];
};

extern PyTypeObject mkpy_mount_type;

/* a Mount of its own copy of @sm (sm->size bytes) */
PyObject *mkpy_mount_copy(const struct mntkit_statmount *sm);
/* a Mount of @sm, which @owner keeps alive */
PyObject *mkpy_mount_borrow(const struct mntkit_statmount *sm,
			    PyObject *owner);
/* the mount ID of a Mount or an int; -1 with TypeError/ValueError set */
int mkpy_mount_id(PyObject *arg, uint64_t *id);
/* fills in the getters and readies the type */
int mkpy_mount_ready(void);

/* ---- table.c ---- */

extern PyTypeObject mkpy_table_type;
int mkpy_table_ready(void);
/* a Table of @t, which it takes over (freed on failure: NULL with the
 * error set); @lexical: @t is another namespace's (paths taken
 * lexically) */
PyObject *mkpy_table_wrap(struct mntkit_table *t, int lexical);

/* ---- aio.c ---- */

struct awaiter;

/* what an object an async iteration waits on holds (at ops->offset) */
struct mkpy_aio {
	struct awaiter *waiting; /* the iteration whose fd is registered */
};

/*
 * struct mkpy_aio_ops - how an async iteration takes the items of an
 * owner (a Watch, a LiveTable) and waits for them.
 *
 * @what:    the owner's type, for the messages ("Watch")
 * @offset:  of the owner's struct mkpy_aio
 * @is_open: the owner is open (not closed, no close() pending)
 * @fd:      the fd that polls readable when items may be ready
 * @next:    the next item without waiting (called while open): 1 and
 *           *@out, 0 when none is ready, -1 with the error set
 * @release: no iteration waits on it now: end the owner if close() came
 *           meanwhile and no call runs
 */
struct mkpy_aio_ops {
	const char *what;
	size_t offset;
	int (*is_open)(PyObject *owner);
	int (*fd)(PyObject *owner);
	int (*next)(PyObject *owner, PyObject **out);
	void (*release)(PyObject *owner);
};

/* what __anext__() of @owner returns: an awaitable of its next item */
PyObject *mkpy_aio_anext(PyObject *owner, const struct mkpy_aio_ops *ops);
/* an async iterator of @owner's items (its __anext__() is the above) */
PyObject *mkpy_aio_iter(PyObject *owner, const struct mkpy_aio_ops *ops);
/* close() of an owner @a: wake the iteration that waits, through its
 * loop (from any thread); its next step ends it. 0, or -1 with the error
 * set */
int mkpy_aio_wake(struct mkpy_aio *a);
int mkpy_aio_ready(void);

/* ---- watch.c ---- */

extern PyTypeObject mkpy_event_type;
extern PyTypeObject mkpy_watch_type;
int mkpy_watch_ready(void);

/* an Event of @ev: the Mount of @ev->before borrows from @before_owner,
 * that of @ev->after from @after_owner (a diff's Tables); each is a copy
 * when its owner is NULL (a watch's records) */
PyObject *mkpy_event_new(const struct mntkit_event *ev,
			 PyObject *before_owner, PyObject *after_owner);
PyObject *mkpy_watch_func(PyObject *self, PyObject *args, PyObject *kwargs);
/*
 * mkpy_watch_args - the arguments (ns=None, *, all_namespaces=False,
 * initial=False, cheap_ids=False) of the call @name (watch, LiveTable)
 * into @wo's flags and *@use (NULL, or @o: as mkpy_ns_opts()). 0, or -1
 * with TypeError or ValueError (cheap_ids=True: a watch compares the IDs
 * of many loads) set.
 */
int mkpy_watch_args(PyObject *args, PyObject *kwargs, const char *name,
		    struct mntkit_watch_opts *wo, struct mntkit_opts *o,
		    const struct mntkit_opts **use);

/* ---- live.c ---- */

extern PyTypeObject mkpy_live_type;

#endif /* MNTKIT_PY_H */
