"""Files written safely: atomically (readers see the old or the new file, never half), under an
advisory lock, or only if nobody changed them since they were read (``mark --in-place``)."""

from __future__ import annotations

import contextlib
import hashlib
import os
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from claimledger._exceptions import ClaimledgerError

__all__ = ["FileChanged", "FileIdentity", "atomic_write", "locked", "replace_if_unchanged"]


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

    The new content is written and flushed to a temporary file first; then the
    file's identity and content hash are compared with ``expected`` and, only
    if they match, the temporary file is renamed over it (the window left is
    the rename itself). Raises :class:`FileChanged` and leaves ``path`` as it
    is when it changed.
    """
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with contextlib.suppress(OSError):
            os.fchmod(fd, _new_file_mode(path))
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        try:
            now, _ = FileIdentity.read(path)
        except FileNotFoundError:
            raise FileChanged(f"{path} was removed while it was being marked") from None
        if now != expected:
            raise FileChanged(f"{path} changed while it was being marked")
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


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
