# SPDX-License-Identifier: LGPL-2.1-or-later
"""A FUSE daemon that stops answering: python3 fusedaemon.py FD

Serves the FUSE connection on fd FD (/dev/fuse, mounted with fd=FD): a
root directory holding the directory "d". It answers INIT, LOOKUP and
GETATTR until SIGUSR1; from then on it reads every request and answers
none, so that whoever asks the filesystem anything waits for ever (in
request_wait_answer(), which SIGKILL does not end) - until the daemon
dies: closing the last fd of the connection aborts it, every waiter
returns."""
import errno
import os
import signal
import struct
import sys

FUSE_LOOKUP, FUSE_FORGET, FUSE_GETATTR = 1, 2, 3
FUSE_INIT, FUSE_INTERRUPT, FUSE_BATCH_FORGET = 26, 36, 42
IN_HEADER = struct.Struct("=IIQQIIII")   # len opcode unique nodeid uid gid pid pad
OUT_HEADER = struct.Struct("=IiQ")       # len error unique
# ino size blocks atime mtime ctime atimens mtimens ctimens mode nlink uid
# gid rdev blksize flags
ATTR = struct.Struct("=QQQQQQIIIIIIIIII")

swallow = False


def on_usr1(sig, frame):
    global swallow
    swallow = True


def attr(ino):
    return ATTR.pack(ino, 0, 0, 0, 0, 0, 0, 0, 0, 0o40755, 2, 0, 0, 0,
                     4096, 0)


def reply(fd, unique, error=0, body=b""):
    os.write(fd, OUT_HEADER.pack(OUT_HEADER.size + len(body), error,
                                 unique) + body)


def answer(fd, opcode, unique, nodeid, arg):
    if opcode == FUSE_INIT:
        # major minor max_readahead flags max_background
        # congestion_threshold max_write time_gran max_pages
        # map_alignment flags2 unused[7]
        reply(fd, unique, 0, struct.pack("=IIIIHHIIHHI7I", 7, 26, 0, 0, 16,
                                         0, 65536, 0, 0, 0, 0,
                                         *[0] * 7))
    elif opcode == FUSE_LOOKUP:
        if arg.split(b"\0")[0] != b"d":
            reply(fd, unique, -errno.ENOENT)
            return
        # nodeid generation entry_valid attr_valid entry_valid_nsec
        # attr_valid_nsec attr: valid for 0 s, every lookup asks again
        reply(fd, unique, 0, struct.pack("=QQQQII", 2, 0, 0, 0, 0, 0) +
              attr(2))
    elif opcode == FUSE_GETATTR:
        # attr_valid attr_valid_nsec dummy attr
        reply(fd, unique, 0, struct.pack("=QII", 0, 0, 0) + attr(nodeid))
    else:
        reply(fd, unique, -errno.ENOSYS)


def main():
    fd = int(sys.argv[1])
    signal.signal(signal.SIGUSR1, on_usr1)
    print("serving", flush=True)
    while True:
        try:
            buf = os.read(fd, 1 << 20)
        except InterruptedError:
            continue
        except OSError as e:
            if e.errno == errno.ENOENT:  # an interrupted request
                continue
            return  # ENODEV: unmounted or aborted
        if len(buf) < IN_HEADER.size:
            return
        _, opcode, unique, nodeid = IN_HEADER.unpack_from(buf)[:4]
        if swallow or opcode in (FUSE_FORGET, FUSE_BATCH_FORGET,
                                 FUSE_INTERRUPT):
            continue
        answer(fd, opcode, unique, nodeid, buf[IN_HEADER.size:])


if __name__ == "__main__":
    main()
