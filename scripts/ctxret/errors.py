"""The one error type a user sees: a clear message, no traceback."""
from __future__ import annotations

import errno
import os
import re
import shutil

# what the filesystem refused, said as the user fixes it (any other OSError is a bug: its traceback)
FILESYSTEM = {errno.ENOSPC: "no space left on the device", errno.EDQUOT: "disk quota exceeded",
              errno.EFBIG: "file too large for the device", errno.EROFS: "the file system is read-only",
              errno.EACCES: "permission denied", errno.EPERM: "operation not permitted"}


class InputError(Exception):
    """Bad input or configuration; the message names the file (and line) at fault."""


def filesystem_line(e: BaseException) -> str | None:
    """'<file>: <what the filesystem refused>' for a full disk, a read-only or forbidden folder
    (an OSError, or shutil.Error from a copy), else None."""
    if isinstance(e, shutil.Error) and e.args and isinstance(e.args[0], list) and e.args[0]:
        _, dst, why = e.args[0][0]
        return f"{dst}: {why}"
    if isinstance(e, OSError) and e.errno in FILESYSTEM:
        where = e.filename2 or e.filename
        return f"{_written(str(where)) + ': ' if where else ''}{FILESYSTEM[e.errno]} ({e.strerror})"
    return None


def _written(path: str) -> str:
    """The file being written: `path`, or the one whose temporary copy it is (fileio.atomic_path)."""
    folder, name = os.path.split(path)
    found = re.fullmatch(r"\.(.+)\.[^.]+\.tmp", name)
    return os.path.join(folder, found.group(1)) if found else path
