"""Files written safely: atomically (readers see the old or the new file, never half), under an
advisory lock, or only if nobody changed them since they were read (``mark --in-place``)."""

from __future__ import annotations

import contextlib
import hashlib
import os
import sys
import tempfile
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from claimledger._exceptions import ClaimledgerError

__all__ = ["FileChanged", "FileIdentity", "atomic_write", "digest_files", "locked", "replace_if_unchanged"]


def _new_file_mode(path: Path) -> int:
    """The mode a plain ``open(path, "w")`` would give: the existing file's, else 0666 minus the umask."""
    try:
        return path.stat().st_mode & 0o7777
    except OSError:
        umask = os.umask(0)
        os.umask(umask)
        return 0o666 & ~umask


def atomic_write(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` so that readers see the old or the new file, never half.

    The data goes to a temporary file in the same folder, is flushed to disk
    and renamed over ``path``; on any failure the temporary file is removed and
    ``path`` is left as it was. The file keeps its mode (a new one gets the umask's).
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with contextlib.suppress(OSError):
            os.fchmod(fd, _new_file_mode(path))
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


@dataclass(frozen=True)
class FileIdentity:
    """What a file was when it was read: device, inode, modification time, size and SHA-256 of its bytes."""

    dev: int
    ino: int
    mtime_ns: int
    size: int
    sha256: str

    @classmethod
    def read(cls, path: Path) -> tuple[FileIdentity, bytes]:
        """The file's bytes and its identity, both from one open file."""
        with path.open("rb") as fh:
            st = os.fstat(fh.fileno())
            data = fh.read()
        return cls(st.st_dev, st.st_ino, st.st_mtime_ns, st.st_size, hashlib.sha256(data).hexdigest()), data


class FileChanged(ClaimledgerError, OSError):
    """The file is no longer what was read: someone edited, replaced or removed it meanwhile."""


def replace_if_unchanged(path: Path, expected: FileIdentity, data: bytes) -> None:
    """Atomically replace ``path`` with ``data``, only if it is still exactly the file that was read.

    The new content is written and flushed to a temporary file first, and the
    file's identity and content hash are compared with ``expected``. Where the
    system can swap two names atomically (Linux ``renameat2`` with
    ``RENAME_EXCHANGE``), the new file and the old one are then swapped and the
    old one, now under the temporary name, is compared again: an edit saved
    between the comparison and the swap is found and the swap undone, so the
    edit stays in place. Elsewhere the temporary file is renamed over ``path``
    after the comparison (the window left is the rename itself). Raises
    :class:`FileChanged` and leaves ``path`` as the writer left it when it
    changed.
    """
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    keep_tmp = False  # True when the temporary name holds the writer's version (never deleted)
    try:
        with contextlib.suppress(OSError):
            os.fchmod(fd, _new_file_mode(path))
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        _still(path, expected)
        if exchange(tmp, path):
            try:
                _still(Path(tmp), expected)  # what was at `path` just before the swap
            except FileChanged:
                if not exchange(tmp, path):  # put the writer's version back; never delete it
                    keep_tmp = True
                    raise FileChanged(f"{path} changed while it was being marked; its new version could not be "
                                      f"put back and is kept as {tmp}") from None  # fmt: skip
                raise FileChanged(f"{path} changed while it was being marked") from None
        else:
            os.replace(tmp, path)
    except BaseException:
        if not keep_tmp:
            Path(tmp).unlink(missing_ok=True)
        raise
    Path(tmp).unlink(missing_ok=True)  # after a swap: the old file


def _still(path: Path, expected: FileIdentity) -> None:
    try:
        now, _ = FileIdentity.read(path)
    except FileNotFoundError:
        raise FileChanged(f"{path} was removed while it was being marked") from None
    if now != expected:
        raise FileChanged(f"{path} changed while it was being marked")


_RENAME_EXCHANGE = 2  # linux/fs.h
_renameat2: Any = None


def exchange(a: str | Path, b: str | Path) -> bool:
    """Swap the files named ``a`` and ``b`` in one step (``renameat2(RENAME_EXCHANGE)``). False when it
    was not done (the system or the file system cannot swap, or the call failed)."""
    global _renameat2
    if _renameat2 is None:
        _renameat2 = False
        if sys.platform.startswith("linux"):
            import ctypes
            import ctypes.util

            with contextlib.suppress(OSError, AttributeError):
                libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
                fn = libc.renameat2
                fn.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_uint]
                fn.restype = ctypes.c_int
                _renameat2 = fn
    if not _renameat2:
        return False
    at_fdcwd = -100
    # one step or nothing: on any error (not supported here, or the rename itself fails) nothing was
    # done, and the caller's plain rename either works or raises the system's own error
    return bool(_renameat2(at_fdcwd, os.fsencode(a), at_fdcwd, os.fsencode(b), _RENAME_EXCHANGE) == 0)


@contextlib.contextmanager
def locked(lock_path: Path) -> Iterator[None]:
    """Hold an exclusive advisory lock on ``lock_path`` (POSIX ``flock``; a no-op where unavailable)."""
    try:
        import fcntl
    except ImportError:  # Windows: atomic renames alone keep the cache whole
        yield
        return
    lock_path.parent.mkdir(parents=True, exist_ok=True)
    with lock_path.open("a+b") as fh:
        fcntl.flock(fh.fileno(), fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(fh.fileno(), fcntl.LOCK_UN)


def digest_files(digest: Any, base: Path, names: Iterable[str]) -> None:
    """Feed each file's name and bytes into ``digest`` (a missing file as ``<missing>``): the code
    fingerprints that key the caches (what a reading or a rule's answer depends on)."""
    for name in names:
        digest.update(name.encode() + b"\0")
        try:
            digest.update((base / name).read_bytes())
        except OSError:
            digest.update(b"<missing>")
        digest.update(b"\0")
