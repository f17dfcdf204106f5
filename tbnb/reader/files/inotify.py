"""Change notification for a local logdir on Linux (inotify), so that an idle poll of a sweep of
10,000 runs costs one read of a queue instead of a stat per directory and per event file.

The kernel queues an event for every entry added to, removed from or renamed in a watched
directory, and for every write to or attribute change of a file in it. A directory watched
*before* it is listed therefore either holds what its listing found or has an event queued, and a
file whose directory has no event queued has the size it had at the last poll. ``DirectoryWatch``
turns the queue into the two sets discovery needs: the directories to list again, and the
directories where anything happened (whose runs' files must be stat-ed).

It is used only where events are complete: Linux, and a logdir on a file system whose changes
all pass through this kernel (``LOCAL_FILESYSTEMS``; not NFS, SMB, FUSE or a VM's shared folder,
whose other clients write without telling us), with no other mount below it. A queue that
overflowed, or a file system unmounted under it, says "everything may have changed".
"""

from __future__ import annotations

import ctypes
import errno
import os
import struct
import sys
import threading
import weakref
from dataclasses import dataclass, field

IN_MODIFY = 0x00000002
IN_ATTRIB = 0x00000004
IN_CLOSE_WRITE = 0x00000008
IN_MOVED_FROM = 0x00000040
IN_MOVED_TO = 0x00000080
IN_CREATE = 0x00000100
IN_DELETE = 0x00000200
IN_DELETE_SELF = 0x00000400
IN_MOVE_SELF = 0x00000800
IN_UNMOUNT = 0x00002000
IN_Q_OVERFLOW = 0x00004000
IN_IGNORED = 0x00008000
IN_ONLYDIR = 0x01000000

#: An entry of the directory added, removed or renamed: its listing is out of date.
ENTRIES = IN_CREATE | IN_DELETE | IN_MOVED_FROM | IN_MOVED_TO
#: The directory itself went away or lost its watch: list it (and so watch it) again if reached.
SELF = IN_DELETE_SELF | IN_MOVE_SELF | IN_IGNORED
#: What a watch asks for: the above, writes, and attribute changes (a permission taken away).
#: A symlink is followed: the logdir itself may be one (``runs -> /data/runs``); below it,
#: discovery hands a symlinked directory to the general walk before watching it.
MASK = ENTRIES | IN_MODIFY | IN_ATTRIB | IN_CLOSE_WRITE | IN_DELETE_SELF | IN_MOVE_SELF | IN_ONLYDIR

#: File systems whose every change passes through this kernel, so inotify sees all of them.
#: (overlay: a container's own writes; a change made to its lower layers from outside is not
#: seen, and a logdir does not live there.)
LOCAL_FILESYSTEMS = frozenset({"ext2", "ext3", "ext4", "xfs", "btrfs", "tmpfs", "ramfs", "f2fs", "jfs",
                               "reiserfs", "zfs", "bcachefs", "nilfs2", "overlay"})

_HEADER = struct.Struct("iIII")  # struct inotify_event: wd, mask, cookie, len (then the name)
_READ_SIZE = 1 << 16


@dataclass
class Changes:
    """What the queue said since the last drain."""

    listed: set[str] = field(default_factory=set)  # directories whose entries changed
    touched: set[str] = field(default_factory=set)  # directories where anything happened
    dropped: set[int] = field(default_factory=set)  # watches the kernel removed (directory deleted)


def decode(buffer: bytes, paths: dict[int, str]) -> Changes | None:
    """The changes a run of ``inotify_event`` records tells, for watches ``paths`` (wd: directory);
    None when they say anything may have changed (the queue overflowed, a file system was
    unmounted). Events of watches no longer kept are dropped: their directories left the logdir."""
    changes = Changes()
    offset, end = 0, len(buffer)
    while offset + _HEADER.size <= end:
        wd, mask, _cookie, length = _HEADER.unpack_from(buffer, offset)
        offset += _HEADER.size + length
        if mask & (IN_Q_OVERFLOW | IN_UNMOUNT):
            return None
        directory = paths.get(wd)
        if directory is None:
            continue
        if mask & IN_IGNORED:
            changes.dropped.add(wd)
        changes.touched.add(directory)
        if mask & (ENTRIES | SELF | IN_ATTRIB):  # (an attribute: a permission may have gone)
            changes.listed.add(directory)
    return changes


def _parse_mountinfo_line(line: str) -> tuple[str, str] | None:
    """(mount point, file system type) of one line of /proc/self/mountinfo."""
    left, sep, right = line.partition(" - ")
    fields, after = left.split(), right.split()
    if not sep or len(fields) < 5 or not after:
        return None
    point = fields[4].replace("\\040", " ").replace("\\011", "\t").replace("\\012", "\n").replace("\\134", "\\")
    return point, after[0]


def watchable(directory: str, mountinfo: str | None = None) -> bool:
    """Whether inotify sees every change under ``directory``: the file system holding it, and any
    mounted below it, are ones whose changes all pass through this kernel."""
    if mountinfo is None:
        if not sys.platform.startswith("linux"):
            return False
        try:
            with open("/proc/self/mountinfo", encoding="utf-8", errors="replace") as fh:
                mountinfo = fh.read()
        except OSError:
            return False
    target = os.path.realpath(directory)
    holder, holder_type = "", ""
    below: list[str] = []
    for line in mountinfo.splitlines():
        parsed = _parse_mountinfo_line(line)
        if parsed is None:
            continue
        point, fstype = parsed
        if _under(target, point) and len(point) >= len(holder):  # (a later mount on the same point hides the earlier)
            holder, holder_type = point, fstype
        elif _under(point, target) and point != target:
            below.append(fstype)
    return bool(holder) and holder_type in LOCAL_FILESYSTEMS and all(t in LOCAL_FILESYSTEMS for t in below)


def _under(path: str, point: str) -> bool:
    return path == point or point == "/" or path.startswith(point.rstrip("/") + "/")


class _Inotify:
    """The three calls of libc's inotify API."""

    def __init__(self) -> None:
        # (the process's own symbols, libc's among them: ``find_library`` would run ldconfig
        # in a subprocess, a fork of the kernel on the way to a Board's first read)
        libc = ctypes.CDLL(None, use_errno=True)
        self.init1 = libc.inotify_init1
        self.init1.argtypes = [ctypes.c_int]
        self.add_watch = libc.inotify_add_watch
        self.add_watch.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_uint32]
        self.rm_watch = libc.inotify_rm_watch
        self.rm_watch.argtypes = [ctypes.c_int, ctypes.c_int]


_LIBC: _Inotify | None = None


def _libc() -> _Inotify:
    global _LIBC
    if _LIBC is None:
        try:
            _LIBC = _Inotify()
        except (OSError, AttributeError) as err:  # no libc, or one without inotify
            raise OSError(errno.ENOSYS, f"inotify is not available: {err}") from None
    return _LIBC


class DirectoryWatch:
    """One inotify instance watching a logdir's directories (added one by one, before each is
    listed). Raises OSError where inotify cannot be had (another system, no instance left)."""

    def __init__(self) -> None:
        self._api = _libc()
        fd = self._api.init1(os.O_NONBLOCK | os.O_CLOEXEC)
        if fd < 0:
            err = ctypes.get_errno()
            raise OSError(err, os.strerror(err))
        self._fd = fd
        self._close = weakref.finalize(self, os.close, fd)
        self._wds: dict[str, int] = {}  # directory: its watch
        self._paths: dict[int, str] = {}  # watch: its directory (the latest path it was added by)

    def __contains__(self, directory: str) -> bool:
        return directory in self._wds

    def add(self, directory: str) -> None:
        """Watch ``directory`` (again: a renamed directory keeps its watch, now under this path)."""
        wd = self._api.add_watch(self._fd, os.fsencode(directory), MASK)
        if wd < 0:
            err = ctypes.get_errno()
            raise OSError(err, os.strerror(err), directory)
        old = self._paths.get(wd)
        if old is not None and old != directory and self._wds.get(old) == wd:
            del self._wds[old]
        replaced = self._wds.get(directory)
        if replaced is not None and replaced != wd:  # another directory now has this path
            if self._paths.get(replaced) == directory:
                del self._paths[replaced]
            self._api.rm_watch(self._fd, replaced)  # (the one moved away: its events are not ours)
        self._wds[directory] = wd
        self._paths[wd] = directory

    def keep(self, directories: set[str] | dict[str, object]) -> None:
        """Stop watching every directory not in ``directories`` (they left the logdir)."""
        for directory in [d for d in self._wds if d not in directories]:
            wd = self._wds.pop(directory)
            if self._paths.get(wd) == directory:
                del self._paths[wd]
                self._api.rm_watch(self._fd, wd)  # (fails harmlessly for a directory already gone)

    def drain(self) -> Changes | None:
        """Everything queued since the last drain (see ``decode``). A watch the kernel dropped (its
        directory deleted) is forgotten, so a directory of that path is watched again when met."""
        chunks = []
        while True:
            try:
                chunk = os.read(self._fd, _READ_SIZE)
            except BlockingIOError:
                break
            if not chunk:
                break
            chunks.append(chunk)
        changes = decode(b"".join(chunks), self._paths)
        for wd in changes.dropped if changes is not None else ():
            directory = self._paths.pop(wd)
            if self._wds.get(directory) == wd:
                del self._wds[directory]
        return changes

    def close_soon(self) -> None:
        """Stop watching; the descriptor is closed on a thread of its own: the kernel frees an
        instance that holds watches only after a grace period (1.5-3 ms here), which a poll (a
        small logdir's first, letting its watch go) need not wait for."""
        self._wds.clear()
        self._paths.clear()
        threading.Thread(target=self._close, name="tbnb-inotify-close", daemon=True).start()

