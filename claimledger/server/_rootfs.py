"""Reading and writing under the servers' root through a directory descriptor, never by path.

A client (or a ledger) names a file by a path inside the root. Checking that
path and then opening it by name leaves a gap: a folder swapped for a symbolic
link in between sends the open outside the root. Here nothing is opened by a
full path. The root is opened once (``O_DIRECTORY``) and every path is walked
from it one component at a time with ``os.open(name, dir_fd=parent)`` and
``O_NOFOLLOW``. A component that is a symbolic link is not followed by the
kernel: its target is read (``readlink`` relative to the same descriptor) and
walked again from the root, component by component, so a link that points
inside the root works and one that points outside (or a swap that makes it do
so) is refused. ``..`` pops a folder that was itself reached this way, and never
above the root.

Reads hand back an open descriptor of a regular file, from which the caller
copies the bytes: what is read is what was checked. Writes create a temporary
file in the target folder through that folder's descriptor and rename it into
place with ``src_dir_fd``/``dst_dir_fd``.
"""

from __future__ import annotations

import contextlib
import errno
import os
import secrets
import stat
from collections.abc import Iterator
from pathlib import Path

from claimledger._exceptions import ClaimledgerError

MAX_LINKS = 40  # as the kernel's own limit on symbolic links in one lookup
_NOFOLLOW, _DIRECTORY = getattr(os, "O_NOFOLLOW", 0), getattr(os, "O_DIRECTORY", 0)
_CLOEXEC, _NONBLOCK = getattr(os, "O_CLOEXEC", 0), getattr(os, "O_NONBLOCK", 0)
_DIR_FLAGS = os.O_RDONLY | _DIRECTORY | _NOFOLLOW | _CLOEXEC
_FILE_FLAGS = os.O_RDONLY | _NOFOLLOW | _CLOEXEC | _NONBLOCK  # a FIFO never blocks the open
SUPPORTED = bool(_NOFOLLOW and _DIRECTORY) and os.open in os.supports_dir_fd and os.readlink in os.supports_dir_fd


DEFAULT_MAX_READ_BYTES = 1 << 30  # bytes of files under the root one server request may read, together

class RootError(ClaimledgerError, OSError):
    """A path the root refuses; ``kind`` is ``outside``, ``missing``, ``not_file``, ``not_dir``, ``too_large`` or ``io``."""

    def __init__(self, kind: str, message: str) -> None:
        super().__init__(message)
        self.kind = kind
        self.message = message


class RootFS:
    """A folder opened once; every path under it is opened relative to its descriptor."""

    def __init__(self, root: Path) -> None:
        if not SUPPORTED:  # the confinement rests on openat(2) and O_NOFOLLOW: never serve without them
            raise OSError(0, "the servers need a POSIX system (openat with O_NOFOLLOW); this one has none")
        self.root = root
        self.fd = os.open(root, os.O_RDONLY | _DIRECTORY | _CLOEXEC)

    def close(self) -> None:
        with contextlib.suppress(OSError):
            os.close(self.fd)

    # -- paths ------------------------------------------------------------------

    def parts(self, given: str, base: tuple[str, ...] = ()) -> list[str]:
        """``given`` as components relative to the root (absolute paths must start with the root)."""
        path = given.replace("\\", "/") if os.sep == "\\" else given
        if path.startswith("/"):
            rootp = str(self.root).rstrip("/") + "/"
            if path.rstrip("/") == str(self.root).rstrip("/"):
                return []
            if not path.startswith(rootp):
                raise RootError("outside", "is outside the root")
            path = path[len(rootp) :]
            base = ()
        return [*base, *(p for p in path.split("/") if p not in ("", "."))]

    def _walk(self, parts: list[str], *, last_is_dir: bool) -> tuple[int, list[str], str | None]:
        """Open every folder of ``parts`` from the root; return (folder fd, its components, last name).

        When ``last_is_dir`` the last component is a folder too, opened and
        returned with name ``None``. Links are expanded from the root.
        """
        todo = list(parts)
        done: list[str] = []
        fds = [os.dup(self.fd)]
        links = 0
        try:
            while todo:
                name = todo.pop(0)
                if name == "..":
                    if not done:
                        raise RootError("outside", "goes above the root")
                    done.pop()
                    os.close(fds.pop())
                    continue
                if name == ".":
                    continue
                if not todo and not last_is_dir:
                    target = self._link_target(fds[-1], name)
                    if target is None:
                        return fds.pop(), done, name
                else:
                    try:
                        fds.append(os.open(name, _DIR_FLAGS, dir_fd=fds[-1]))
                        done.append(name)
                        continue
                    except OSError as exc:
                        if exc.errno not in (errno.ELOOP, errno.ENOTDIR):
                            raise self._error(exc) from None
                    target = self._link_target(fds[-1], name)
                    if target is None:
                        raise RootError("not_dir", "is not a folder") from None
                links += 1
                if links > MAX_LINKS:
                    raise RootError("outside", "has too many symbolic links")
                if target.startswith("/"):
                    rel = self.parts(target)  # absolute: only inside the root
                    for fd in fds[1:]:
                        os.close(fd)
                    del fds[1:]
                    done = []
                    todo = rel + todo
                else:
                    todo = [p for p in target.split("/") if p not in ("", ".")] + todo
            if last_is_dir:
                return fds.pop(), done, None
            raise RootError("not_file", "names a folder, not a file")
        finally:
            for fd in fds:
                os.close(fd)

    @staticmethod
    def _link_target(dir_fd: int, name: str) -> str | None:
        """The link's target when ``name`` (in ``dir_fd``) is a symbolic link, else None."""
        try:
            return os.readlink(name, dir_fd=dir_fd)
        except OSError as exc:
            if exc.errno in (errno.EINVAL, errno.ENOENT, errno.ENOTDIR):
                return None
            raise RootError("io", f"cannot read ({exc.strerror})") from None

    @staticmethod
    def _error(exc: OSError) -> RootError:
        if exc.errno == errno.ENOENT:
            return RootError("missing", "not found under the root")
        if exc.errno == errno.ENOTDIR:
            return RootError("not_dir", "is not a folder")
        if exc.errno == errno.EISDIR:
            return RootError("not_file", "names a folder, not a file")
        if exc.errno == errno.ELOOP:
            return RootError("outside", "has too many symbolic links")
        if exc.errno in (errno.EACCES, errno.EPERM):
            return RootError("io", "permission denied")
        return RootError("io", f"cannot open ({exc.strerror})")

    # -- reads --------------------------------------------------------------------

    @contextlib.contextmanager
    def open_file(self, parts: list[str]) -> Iterator[tuple[int, list[str]]]:
        """An open descriptor of the regular file ``parts`` names, and its canonical components."""
        dir_fd, folder, name = self._walk(parts, last_is_dir=False)
        try:
            assert name is not None
            try:
                fd = os.open(name, _FILE_FLAGS, dir_fd=dir_fd)
            except OSError as exc:
                if exc.errno == errno.ELOOP:  # swapped for a link after the check: walk again
                    raise RootError("outside", "changed into a symbolic link while it was opened") from None
                raise self._error(exc) from None
        finally:
            os.close(dir_fd)
        try:
            st = os.fstat(fd)
            if stat.S_ISDIR(st.st_mode):
                raise RootError("not_file", "names a folder, not a file")
            if not stat.S_ISREG(st.st_mode):
                raise RootError("not_file", "is not a regular file")
            os.set_blocking(fd, True)
            yield fd, [*folder, name]
        finally:
            os.close(fd)

    def is_dir(self, parts: list[str]) -> bool:
        try:
            fd, _, _ = self._walk(parts, last_is_dir=True)
        except RootError:
            return False
        os.close(fd)
        return True

    def copy_to(self, parts: list[str], dest: Path, limit: int | None = None) -> list[str]:
        """Copy the file ``parts`` names to ``dest`` (through its descriptor); its canonical components."""
        with self.open_file(parts) as (fd, canonical):
            size = os.fstat(fd).st_size
            if limit is not None and size > limit:
                raise RootError("too_large", f"is {size:,} bytes, over the {limit:,}-byte limit")
            dest.parent.mkdir(parents=True, exist_ok=True)
            out = os.open(dest, os.O_WRONLY | os.O_CREAT | os.O_EXCL | _CLOEXEC, 0o600)
            copied = 0
            try:
                while True:
                    chunk = os.read(fd, 1 << 20)
                    if not chunk:
                        break
                    copied += len(chunk)
                    if limit is not None and copied > limit:  # it grew while being copied
                        raise RootError("too_large", f"grew past the {limit:,}-byte limit while being read")
                    os.write(out, chunk)
            finally:
                os.close(out)
            return canonical

    # -- writes -------------------------------------------------------------------

    def write_atomic(self, parts: list[str], data: bytes) -> list[str]:
        """Replace (or create) the file ``parts`` names with ``data``: a temporary file, then a rename."""
        if not parts:
            raise RootError("not_file", "names the root folder")
        dir_fd, folder, _ = self._walk(parts[:-1], last_is_dir=True)
        name = parts[-1]
        try:
            if name in ("..", "."):
                raise RootError("not_file", "names a folder, not a file")
            try:
                st = os.stat(name, dir_fd=dir_fd, follow_symlinks=False)
                if stat.S_ISDIR(st.st_mode):
                    raise RootError("not_file", "names a folder, not a file")
                mode = st.st_mode & 0o777 if stat.S_ISREG(st.st_mode) else 0o644
            except FileNotFoundError:
                umask = os.umask(0)
                os.umask(umask)
                mode = 0o666 & ~umask
            tmp = f".{name}.{secrets.token_hex(6)}.tmp"
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW | _CLOEXEC, mode,
                         dir_fd=dir_fd)  # fmt: skip
            try:
                try:
                    view = memoryview(data)
                    while view:
                        view = view[os.write(fd, view) :]
                    os.fsync(fd)
                finally:
                    os.close(fd)
                os.rename(tmp, name, src_dir_fd=dir_fd, dst_dir_fd=dir_fd)
            except BaseException:
                with contextlib.suppress(OSError):
                    os.unlink(tmp, dir_fd=dir_fd)
                raise
        except OSError as exc:
            if isinstance(exc, RootError):
                raise
            raise self._error(exc) from None
        finally:
            os.close(dir_fd)
        return [*folder, name]
