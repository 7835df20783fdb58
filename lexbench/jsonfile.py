"""Reading the JSON files lexbench is given: rules, cohorts, datasets, bindings, provider
configurations, gold tuples, run manifests.

Every one of them may be hand-edited, truncated or hostile, and ``json.loads`` fails in more ways than
``JSONDecodeError``: ``UnicodeDecodeError`` for bytes that are not UTF-8, ``ValueError`` for an integer
of more than 4,300 digits, ``RecursionError`` for ``[[[[…``, and it accepts ``"\\ud800"`` (a lone
surrogate no UTF-8 file can hold, and that would make every record derived from it unwritable).
:func:`decode_json` turns all of them into one :class:`InvalidJson` with a one-line reason, so each
loader reports its own error class (:class:`~lexbench.errors.RulesError`,
:class:`~lexbench.errors.ConfigError`, …) naming the file, and nothing else escapes.
"""

from __future__ import annotations

import errno
import json
import os
import re
import stat
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

MAX_DEPTH = 64
"""Deepest nesting of arrays and objects accepted; lexbench's own files nest fewer than ten levels."""


class InvalidJson(ValueError):
    """The bytes are not one UTF-8 JSON document lexbench can use; the message says why."""


def decode_json(data: bytes | str, *, object_pairs_hook: Callable[[list[tuple[str, Any]]], Any] | None = None) -> Any:
    """Parse ``data`` (UTF-8 bytes, a leading BOM allowed, or text) as one JSON value.

    Raises :class:`InvalidJson` for invalid UTF-8, invalid JSON, ``NaN``/``Infinity``, integers too
    long to convert, nesting deeper than :data:`MAX_DEPTH` and strings holding lone surrogates.
    ``object_pairs_hook`` is passed to :func:`json.loads`; a ``ValueError`` it raises is reported too.
    """
    if isinstance(data, bytes):
        try:
            text = data.decode("utf-8-sig")
        except UnicodeDecodeError as exc:
            raise InvalidJson(f"not UTF-8 (byte {exc.start}: {data[exc.start:exc.start + 1]!r})") from None
    else:
        text = data

    def constant(name: str) -> Any:
        raise InvalidJson(f"{name} is not JSON")

    try:
        value = json.loads(text, object_pairs_hook=object_pairs_hook, parse_constant=constant)
    except InvalidJson:
        raise
    except json.JSONDecodeError as exc:
        raise InvalidJson(f"not valid JSON ({exc.msg} at line {exc.lineno} column {exc.colno})") from None
    except RecursionError:
        raise InvalidJson(f"nested too deeply (more than {MAX_DEPTH} levels)") from None
    except ValueError as exc:  # an over-long integer; or the hook's own complaint
        raise InvalidJson(str(exc).split(";")[0]) from None
    # A lone surrogate can only come from a \uD800–\uDFFF escape, or from text that already held one.
    _check(value, texts=_MAY_HOLD_SURROGATE.search(text) is not None)
    return value


_MAY_HOLD_SURROGATE = re.compile(r"\\u[dD][89a-fA-F]|[\ud800-\udfff]")


def read_json(path: Path, **options: Any) -> Any:
    """Read ``path`` and :func:`decode_json` it. Raises ``OSError`` (missing, a directory, not a
    regular file, too large, unreadable) or :class:`InvalidJson`."""
    return decode_json(read_regular_file(path), **options)


MAX_FILE_BYTES = 1 << 30
"""Largest input file read (1 GiB): an evidence capture is at most the 20 MB response ceiling."""


def read_regular_file(path: Path, max_bytes: int = MAX_FILE_BYTES, *, within: Path | None = None) -> bytes:
    """The bytes of ``path``, which must be a regular file (symlinks followed) of at most ``max_bytes``:
    the one reader for every file a user names to lexbench (sources, mirror files, configurations,
    datasets, answers).

    A symlink to ``/dev/zero`` would be read until memory ran out and a FIFO would block forever: the
    kind is checked with ``os.stat`` before opening (a socket or device is never opened), the file is
    opened without blocking and checked again before anything is read, and at most ``max_bytes + 1``
    bytes are read. With ``within`` (a directory), ``path`` must stay inside it once every symlink is
    resolved: ``../``, an absolute path or a symlink out of it is refused before the file is opened, and
    the message names only the path as given. Raises ``FileNotFoundError`` when missing and ``OSError``
    with a one-line reason otherwise."""
    if within is not None:
        confined(path, within)
    status = os.stat(path)  # FileNotFoundError as it is
    if not stat.S_ISREG(status.st_mode):
        raise OSError(errno.EINVAL, f"not a regular file (a {_file_kind(status.st_mode)}); refusing to read it", str(path))
    descriptor = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    try:
        status = os.fstat(descriptor)  # it may have been swapped since the stat
        if not stat.S_ISREG(status.st_mode):
            raise OSError(errno.EINVAL, f"not a regular file (a {_file_kind(status.st_mode)}); refusing to read it", str(path))
        if status.st_size > max_bytes:
            raise OSError(errno.EFBIG, f"{status.st_size:,} bytes, more than the {max_bytes:,} a file may have", str(path))
        os.set_blocking(descriptor, True)
        with os.fdopen(descriptor, "rb", closefd=False) as handle:
            data = _read_bounded(handle, status.st_size, max_bytes)
    finally:
        os.close(descriptor)
    if len(data) > max_bytes:  # it grew while being read
        raise OSError(errno.EFBIG, f"more than the {max_bytes:,} bytes a file may have", str(path))
    return data


def _read_bounded(handle: Any, size: int, max_bytes: int) -> bytes:
    # read(n) allocates n bytes at once: ask for the stat size (+1 to see growth), then 1 MiB steps
    # while the file keeps growing (or reports 0 bytes, as /proc files do), never past max_bytes + 1.
    chunks = [handle.read(min(size, max_bytes) + 1)]
    total = len(chunks[0])
    while size < total <= max_bytes:
        chunk = handle.read(min(1 << 20, max_bytes + 1 - total))
        if not chunk:
            break
        chunks.append(chunk)
        total += len(chunk)
    return b"".join(chunks)


def confined(path: Path, root: Path) -> Path:
    """``path`` resolved (every symlink followed), which must lie inside ``root`` (resolved too).
    Raises ``PermissionError`` naming ``path`` as given, never where it leads (a file outside ``root``
    is not described)."""
    resolved_root = Path(os.path.realpath(root))
    resolved = Path(os.path.realpath(path))
    if resolved != resolved_root and resolved_root not in resolved.parents:
        raise PermissionError(errno.EACCES, f"outside {root} (by an absolute path, '..' or a symlink); only files "
                              "inside it are read", str(path))
    return resolved


def _file_kind(mode: int) -> str:
    for test, kind in ((stat.S_ISDIR, "directory"), (stat.S_ISCHR, "character device"), (stat.S_ISBLK, "block device"),
                       (stat.S_ISFIFO, "FIFO"), (stat.S_ISSOCK, "socket")):
        if test(mode):
            return kind
    return "special file"


def _check(value: Any, *, texts: bool = True) -> None:
    """Refuse nesting deeper than :data:`MAX_DEPTH` and, when ``texts``, strings holding lone
    surrogates; without recursion. Only containers are walked when ``texts`` is false (a 1,000-case
    dataset holds ~400,000 strings)."""
    if not isinstance(value, (list, dict)):
        if texts and isinstance(value, str):
            _check_text(value)
        return
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if depth > MAX_DEPTH:
            raise InvalidJson(f"nested too deeply (more than {MAX_DEPTH} levels)")
        children = item.values() if isinstance(item, dict) else item
        if texts:
            if isinstance(item, dict):
                for key in item:
                    _check_text(key)
            for child in children:
                if isinstance(child, str):
                    _check_text(child)
        stack.extend((child, depth + 1) for child in children if isinstance(child, (list, dict)))


def _check_text(text: str) -> None:
    if text.isascii():
        return
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise InvalidJson(f"a string holds a lone surrogate ({text[exc.start]!r}), which UTF-8 cannot encode") from None


OBJECT_ERRORS = frozenset({"model_type", "model_attributes_type", "dict_type"})
"""pydantic error types meaning "this value should have been a JSON object"."""


def json_kind(value: Any) -> str:
    """What JSON value ``value`` is, in words: ``"an array"``, ``"a string"``, ``"null"``, …"""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, (list, tuple)):
        return "an array"
    return "an object" if isinstance(value, dict) else type(value).__name__


def validation_problem(error: Mapping[str, Any], *, root: str = "the top level") -> str:
    """One pydantic error (an item of ``ValidationError.errors()``) as ``"<where>: <problem>"`` for a
    user who wrote JSON: ``where`` is the dotted field path, or ``root`` for the document itself (never an
    empty location); a value that should be an object reads ``"expected a JSON object, got an array"``
    instead of pydantic's wording about dictionaries and model classes."""
    where = ".".join(str(part) for part in error["loc"]) or root
    problem = error["msg"]
    if error["type"] in OBJECT_ERRORS:
        problem = f"expected a JSON object, got {json_kind(error.get('input'))}"
    return f"{where}: {problem}"
