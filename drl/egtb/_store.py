"""The database file: a checksummed header and the value codes of every slice.

Layout (little-endian)::

    bytes 0..7     magic b"DRLEGTB" + format version (1 byte)
    bytes 8..39    SHA-256 of everything from byte 40 to the end
    bytes 40..47   header length h (uint64)
    bytes 48..     header: UTF-8 JSON (rules, pieces, slice table, statistics)
    then           zero padding to a multiple of 64, then each slice's value codes,
                   one per index entry, as uint8 (or uint16 where a slice holds a
                   win or loss longer than 126 plies), each slice starting on a
                   multiple of 8

Value codes are those of :mod:`drl.egtb._solve` (0 draw, 1 no position, ``2 + 2 d`` win
in ``d`` plies, ``3 + 2 d`` loss in ``d`` plies), so a byte holds the result and the
plies to the end.

A file is written atomically (``drl._atomic.write_atomic``: a reader sees the old file
or the new one) and read memory-mapped after its checksum has been verified; a file
that fails the check is set aside as ``<name>.corrupt`` and never read.
"""

from __future__ import annotations

import hashlib
import json
import mmap
import os
import struct
from pathlib import Path
from typing import Any, BinaryIO

import numpy as np

from drl._atomic import set_aside, write_atomic

__all__ = ["MAGIC", "DamagedFile", "write_file", "read_file", "payload_size"]

MAGIC = b"DRLEGTB\x01"
_PREFIX = 48
_CHUNK = 1 << 24

# Columns of the stored slice table: bm, bk, wm, wk, turn, entries, byte offset, width.
T_OFFSET, T_WIDTH = 6, 7


class DamagedFile(ValueError):
    """A database file failed its checks (magic, header or checksum); it was set aside."""


def _align(n: int, k: int) -> int:
    return -(-n // k) * k


def payload_size(sizes: list[int], widths: list[int]) -> int:
    """Bytes of the slices' value codes, with their alignment."""
    total = 0
    for size, width in zip(sizes, widths, strict=True):
        total = _align(total, 8) + size * width
    return total


def _slice_width(codes: np.ndarray) -> int:
    return 1 if codes.size == 0 or int(codes.max()) <= 255 else 2


def write_file(
    path: Path, header: dict[str, Any], table: np.ndarray, vals: np.ndarray
) -> list[list[int]]:
    """Write the database atomically: header, then ``vals`` (uint16 codes) by slice.

    Args:
        path: the file.
        header: JSON-able fields; ``slices`` is added (the stored slice table).
        table: ``int64[S, 8]`` the layout's slice table (columns ``S_*`` of ``_index``).
        vals: ``uint16[total]`` the value codes of every entry.

    Returns:
        The stored slice table (bm, bk, wm, wk, turn, entries, byte offset, width).

    Raises:
        OSError: the write failed (nothing is left at ``path`` but the old file).
    """
    widths = []
    for row in table:
        off, size = int(row[6]), int(row[5])
        widths.append(_slice_width(vals[off : off + size]))
    slices: list[list[int]] = []
    pos = 0
    for row, width in zip(table, widths, strict=True):
        pos = _align(pos, 8)
        slices.append([*(int(v) for v in row[:6]), pos, width])
        pos += int(row[5]) * width
    head = json.dumps({**header, "slices": slices}, sort_keys=True).encode("utf-8")
    start = _align(_PREFIX + len(head), 64)

    def body(fh: BinaryIO) -> None:
        digest = hashlib.sha256()

        def put(data: bytes | memoryview) -> None:
            digest.update(data)
            fh.write(data)

        fh.write(MAGIC + bytes(32))
        put(struct.pack("<Q", len(head)) + head + bytes(start - _PREFIX - len(head)))
        written = 0
        for row, (_, _, _, _, _, size, off, width) in zip(table, slices, strict=True):
            put(bytes(off - written))
            first = int(row[6])
            for lo in range(0, size, _CHUNK):
                codes = vals[first + lo : first + min(size, lo + _CHUNK)]
                put(codes.astype(np.uint8 if width == 1 else "<u2").tobytes())
            written = off + size * width
        fh.seek(len(MAGIC))
        fh.write(digest.digest())

    path.parent.mkdir(parents=True, exist_ok=True)
    write_atomic(path, body)
    return slices


def read_file(path: Path) -> tuple[dict[str, Any], np.ndarray, int]:
    """Check a database file and map it into memory.

    Returns:
        ``(header, data, start)``: the header (with its ``slices`` table), the whole file
        as a read-only ``uint8`` array over a memory map, and the byte where the slices
        start (their offsets in ``slices`` count from there).

    Raises:
        FileNotFoundError: no file at ``path``.
        DamagedFile: the magic, the header or the checksum is wrong; the file has been
            renamed to ``<name>.corrupt`` beside it (and the message says so).
    """
    with open(path, "rb") as fh:
        size = os.fstat(fh.fileno()).st_size
        mm = mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ) if size else None
    reason = None
    header: dict[str, Any] = {}
    hlen = 0
    if mm is None or size < _PREFIX or mm[:8] != MAGIC:
        reason = "not a drl endgame database of this format"
    else:
        view = memoryview(mm)
        digest = hashlib.sha256()
        for lo in range(40, size, _CHUNK):
            digest.update(view[lo : min(size, lo + _CHUNK)])
        del view
        (hlen,) = struct.unpack("<Q", mm[40:48])
        if digest.digest() != mm[8:40]:
            reason = "checksum mismatch (the file is damaged or was cut short)"
        else:
            try:
                header = json.loads(mm[_PREFIX : _PREFIX + hlen].decode("utf-8"))
            except (UnicodeDecodeError, json.JSONDecodeError):
                reason = "unreadable header"
    if reason is not None:
        if mm is not None:
            mm.close()
        moved = set_aside(path)
        raise DamagedFile(f"{path}: {reason}; set aside as {moved.name}")
    assert mm is not None
    data = np.frombuffer(mm, dtype=np.uint8)
    return header, data, _align(_PREFIX + hlen, 64)
