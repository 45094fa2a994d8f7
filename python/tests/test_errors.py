# SPDX-License-Identifier: LGPL-2.1-or-later
"""Bad input: TypeError for a wrong type, ValueError for a bad value,
mntkit.Error (an OSError, also of the errno's subclass) with errno and
the library's reason for what the kernel or the library refuses."""
import errno
import os

import pytest

import mntkit


@pytest.mark.parametrize("call", [
    lambda: mntkit.mounts(ns="1"),
    lambda: mntkit.mounts(ns=1.5),
    lambda: mntkit.mounts(ns=True),
    lambda: mntkit.mounts(ns=[]),
    lambda: mntkit.Table(ns=b"x"),
    lambda: mntkit.watch(ns=object()),
    lambda: mntkit.stat(None),
    lambda: mntkit.stat(True),
    lambda: mntkit.stat(1.0),
    lambda: mntkit.stat(["/"]),
    lambda: mntkit.Namespace("4"),
    lambda: mntkit.Namespace(True),
    lambda: mntkit.id_from_old("1"),
    lambda: mntkit.Table()["/"],
    lambda: mntkit.Table().parent(None),
    lambda: mntkit.Table().children(1.0),
    lambda: mntkit.Table().find_target(1),
    lambda: mntkit.Table().find_source(None),
    lambda: mntkit.Table().under(1),
    lambda: mntkit.Table().diff(None),
    lambda: mntkit.mounts(1, 2),
    lambda: mntkit.mounts(nss=1),
    lambda: mntkit.watch(None, True),
    lambda: mntkit.Mount(),
    lambda: mntkit.Event(),
    lambda: mntkit.watch().read(timeout="1"),
], ids=lambda c: None)
def test_type_errors(call):
    with pytest.raises(TypeError):
        call()


@pytest.mark.parametrize("call", [
    lambda: mntkit.mounts(ns=0),
    lambda: mntkit.mounts(ns=-1),
    lambda: mntkit.mounts(ns=2 ** 40),
    lambda: mntkit.mounts(ns=2 ** 80),
    lambda: mntkit.stat(-1),
    lambda: mntkit.stat(2 ** 64),
    lambda: mntkit.stat("/", ns=1),
    lambda: mntkit.stat("/\0x"),
    lambda: mntkit.Namespace(0),
    lambda: mntkit.Namespace(-5),
    lambda: mntkit.Namespace(2 ** 64),
    lambda: mntkit.id_from_old(0),
    lambda: mntkit.id_from_old(2 ** 31 + 1),
    lambda: mntkit.Table().under(""),
    lambda: mntkit.Table().find_target("/\0"),
    lambda: mntkit.watch(ns=1, all_namespaces=True),
    lambda: mntkit.watch().read(timeout=-1),
    lambda: mntkit.watch().read(timeout=float("nan")),
], ids=lambda c: None)
def test_value_errors(call):
    with pytest.raises(ValueError):
        call()


def test_old_id_where_unique_ids_are_taken():
    if mntkit.backend() != "native":
        pytest.skip("the native backend takes only unique IDs")
    old = mntkit.stat("/").old_id
    with pytest.raises(mntkit.Error) as e:
        mntkit.stat(old)
    assert e.value.errno == errno.EINVAL
    assert "old ID" in e.value.reason and "mntkit_" in e.value.reason
    assert e.value.reason in str(e.value)
    assert isinstance(e.value, OSError)


def test_no_such_mount_is_file_not_found():
    ids = [m.id for m in mntkit.mounts()]
    gone = max(ids) + 1000 if mntkit.backend() == "native" else 2 ** 31 - 7
    with pytest.raises(FileNotFoundError) as e:
        mntkit.stat(gone)
    assert isinstance(e.value, mntkit.Error)
    assert e.value.errno == errno.ENOENT and e.value.reason is None
    assert type(e.value).__module__ == "mntkit"
    assert type(e.value).__name__ == "FileNotFoundError"


def test_path_errors_name_the_path():
    with pytest.raises(FileNotFoundError) as e:
        mntkit.stat("/no/such/path")
    assert e.value.filename == "/no/such/path"
    assert e.value.errno == errno.ENOENT
    with pytest.raises(NotADirectoryError):
        mntkit.stat("/proc/self/status/x")


def test_no_such_process_and_bad_namespace_file():
    pid = 2 ** 22 + 17  # above pid_max's largest value
    with pytest.raises(mntkit.Error) as e:
        mntkit.mounts(ns=pid)
    assert e.value.errno in (errno.ESRCH, errno.ENOENT)
    with open("/proc/self/ns/net", "rb") as f:
        with pytest.raises(mntkit.Error) as e:
            mntkit.mounts(ns=f)
    assert e.value.errno == errno.EINVAL
    with open("/proc/self/status", "rb") as f:
        with pytest.raises(mntkit.Error) as e:
            mntkit.Table(ns=f)
    assert e.value.errno == errno.EINVAL
    with pytest.raises(ValueError):  # a closed file
        f = open("/proc/self/ns/mnt", "rb")
        f.close()
        mntkit.mounts(ns=f)


def test_unknown_namespace_id():
    if "ns_id" not in mntkit.features()["flags"]:
        pytest.skip("no namespace IDs (Linux 6.10+)")
    with pytest.raises(mntkit.Error) as e:
        mntkit.mounts(ns=mntkit.Namespace(2 ** 63 + 12345))
    assert e.value.errno in (errno.ENOENT, errno.EINVAL, errno.EPERM)


def test_error_is_an_oserror_subclass():
    assert issubclass(mntkit.Error, OSError)
    e = mntkit.Error(errno.EINVAL, "x")
    assert e.errno == errno.EINVAL
    assert os.strerror(errno.EINVAL) == "Invalid argument"
