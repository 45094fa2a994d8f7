/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * cli.h - the command-line pieces statmnt, lsmnt and mntwatch share:
 * error lines, refused options, numbers, --ns, MNTKIT_BACKEND and the
 * CAP_SYS_ADMIN check. Each tool keeps its own wording where the wordings
 * differ: the parsers here report what went wrong, the tool says it.
 */
#ifndef MNTKIT_TOOLS_CLI_H
#define MNTKIT_TOOLS_CLI_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "mntkit.h"

/* set once by main(): the prefix of every error line, e.g. "statmnt" */
extern const char *cli_prog;
/* the usage line cli_usage_error() prints after the error; may be NULL */
extern const char *cli_usage;

/*
 * setlocale(LC_ALL, "") at the first call, in a tool that sets
 * @cli_wants_locale (lsmnt; the others keep the C locale). Such a tool
 * calls it where its work first needs the locale (it costs about 0.5 ms:
 * a dozen files read), and cli_strerror() for a message's errno, as the
 * reasons below do. Not thread-safe: the tools call it from their main
 * thread.
 */
extern bool cli_wants_locale;
void cli_locale(void);

/* strerror(), in the locale (cli_locale() first) */
const char *cli_strerror(int err);

/*
 * Print "PROG: SUBJECT: REASON" on one line (no "SUBJECT: " when @subject
 * is NULL). Both parts are escaped like text output, so that a path with
 * a newline cannot split the line.
 */
void cli_errmsg(const char *subject, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* cli_errmsg(), then cli_usage on a line of its own */
void cli_usage_error(const char *subject, const char *reason);

/*
 * The option getopt_long() just refused, as the user wrote it: "--name",
 * or "-x" (also from inside a group such as -lx). @buf holds a short one.
 */
const char *cli_bad_option_name(char *const argv[], char buf[3]);

/* cli_usage_error() about the option getopt_long() just refused */
void cli_bad_option(char *const argv[], const char *reason);

/* "PROG (mntkit) X.Y.Z" on stdout */
void cli_version(void);

/* the usage line, then @n lines of help, on stdout */
void cli_help(const char *const *lines, size_t n);

/*
 * The options every tool has, for the end of its option switch (getopt
 * with a leading ':'): -h (cli_help() with @help, @nhelp) and -V return 1
 * (done, exit 0); a missing argument or an unknown option is a usage
 * error, -1.
 */
int cli_common_option(int opt, char *const argv[], const char *const *help,
		      size_t nhelp);

/*
 * A whole decimal or 0x hex number: no sign, space, octal or suffix.
 * Returns 1 and stores it, 0 when @s is not such a number, or -ERANGE when
 * it does not fit 64 bits (*v untouched unless 1).
 */
int cli_parse_number(const char *s, uint64_t *v);

/*
 * cli_parse_number(), but also taking "0x0xHEX" as HEX (strtoull()'s
 * second prefix), as lsmnt and mntwatch always have; statmnt does not.
 */
int cli_parse_number_lax(const char *s, uint64_t *v);

/* what went wrong with --ns (or a PID) */
enum cli_ns_fail {
	CLI_NS_NOT_PID,	   /* pid:X: X is not a process ID */
	CLI_NS_PID_ERR,	   /* the process's namespace: err */
	CLI_NS_PID_REFUSED, /* its nsfs file and its mountinfo refused: err */
	CLI_NS_NOT_ID,	   /* a number, but 0 or too big */
	CLI_NS_ID_ERR,	   /* the namespace of the ID: err */
	CLI_NS_OPEN_ERR,   /* a path that does not open: err */
	CLI_NS_NOT_NSFILE, /* a file, but no namespace */
	CLI_NS_NOT_MNTNS,  /* a namespace, but no mount namespace */
	CLI_NS_REFUSED,	   /* the nsfs ioctl is refused (seccomp): err */
};

/* the usual words for @what and @err (an errno value, or 0) */
const char *cli_ns_reason(enum cli_ns_fail what, int err);

/* says what went wrong with @arg (the whole --ns argument) */
typedef void (*cli_ns_report_fn)(const char *arg, enum cli_ns_fail what,
				 int err);

/*
 * A process ID (digits only, 1 to INT_MAX) whose mount namespace opens.
 * Returns 0 and stores it, or -1 with *what and *err set.
 */
int cli_parse_pid(const char *s, pid_t *pid, enum cli_ns_fail *what, int *err);

/* make sure a namespace ID names a namespace (mntkit_root_id) */
#define CLI_NS_CHECK_ID 1U
/* read the ID with cli_parse_number_lax() */
#define CLI_NS_LAX_ID 2U

/*
 * --ns ID|PATH|pid:PID into @o: mnt_ns_id, mnt_ns_fd (never 0) or pid.
 * Returns 0, or -1 after @report said why.
 */
int cli_parse_ns(const char *arg, struct mntkit_opts *o, unsigned int flags,
		 cli_ns_report_fn report);

/*
 * MNTKIT_BACKEND is read by the library too; checking it turns an unknown
 * name or an impossible choice into an error instead of a guess.
 * Returns 0 (unset, empty or set), CLI_BACKEND_UNKNOWN for a name that is
 * no backend, or the negative errno of mntkit_set_backend(); *env is the
 * value.
 */
#define CLI_BACKEND_UNKNOWN 1
int cli_check_backend_env(const char **env);

/*
 * The words for cli_check_backend_env()'s error @r: for the native
 * backend refused (-ENOSYS) by a filter, the refused call
 * ("statmount(2) is refused by the system (seccomp?): EPERM"), else
 * strerror(-@r).
 */
const char *cli_backend_reason(int r);

/* whether this process has CAP_SYS_ADMIN in its effective set */
bool cli_has_cap_sys_admin(void);

/*
 * A query failed with @err (an errno value). When one of @calls
 * (MNTKIT_REFUSED_*) is refused with that errno (mntkit_refused()), or
 * /proc is not mounted and one of them that it would stand in for is
 * refused, say so in one line ("PROG: SUBJECT: statmount(2) is refused by
 * the system (seccomp?): EPERM") and return true; else false (nothing
 * printed).
 */
bool cli_report_refusal(const char *subject, uint32_t calls, int err);

/* "SUBJECT: NAME(2) is refused by the system (seccomp?): ERRNO" + @tail */
void cli_say_refused(const char *subject, const char *name, int err,
		     const char *tail);

/* the calls a listing or a lookup may make */
#define CLI_REFUSED_QUERY                                                    \
	(MNTKIT_REFUSED_STATMOUNT | MNTKIT_REFUSED_LISTMOUNT |                 \
	 MNTKIT_REFUSED_STATX | MNTKIT_REFUSED_HANDLE)
/* and a watch */
#define CLI_REFUSED_WATCH                                                    \
	(CLI_REFUSED_QUERY | MNTKIT_REFUSED_FANOTIFY | MNTKIT_REFUSED_EPOLL |  \
	 MNTKIT_REFUSED_PIDFD)

/*
 * What an EPERM means: "needs CAP_SYS_ADMIN", or, for a process that has
 * it in the initial user namespace (where no capability check fails it),
 * a refusal of the system (seccomp, a security module).
 */
const char *cli_eperm_hint(void);

/*
 * An all-namespace watch takes about six fds per namespace: raise the
 * soft limit of open files to the hard one (nothing said if it fails).
 */
void cli_raise_fd_limit(void);

#endif
