"""Reading protocol records (Hub lines, DXP messages) with a length cap.

Every Hub and DXP read in drl goes through :class:`RecordReader`: ``drl-hub``'s stdin
lines and DXP socket, and the ``hub``/``dxp`` agents' engine output and DXP socket. The
cap is enforced while reading: the buffer never holds more than the cap plus one read,
each byte is searched for the terminator once (no re-scan of a growing buffer), and a
record over the cap is a :class:`RecordTooLong` whose message quotes a short excerpt and
the size, never the record.

The caps, and why:

- :data:`HUB_LINE_LIMIT` (64 KiB): Hub lines are short. Scan's ``info`` line with its
  principal variation is under 1 KiB, and the longest command, ``pos pos=<51 chars>
  moves="..."``, is about 12 bytes per move: a 400-ply game with captures is about 5 KiB.
  64 KiB leaves ten times that.
- :data:`DXP_MESSAGE_LIMIT` (1 KiB): the DamExchange description limits a message to
  127 characters (Moby Dam's buffer is 128 bytes, Scan's 256); the longest message drl
  sends, a ``B`` GAMEREQ, has 94. 1 KiB accepts a peer that overruns the limit with a
  long CHAT, and nothing that could be a flood.
"""

from __future__ import annotations

from collections.abc import Callable

from drl.rules._quote import EXCERPT_CHARS

__all__ = [
    "DXP_MESSAGE_LIMIT",
    "HUB_LINE_LIMIT",
    "RecordReader",
    "RecordTooLong",
    "quote_record",
]

HUB_LINE_LIMIT = 64 * 1024
"""Bytes in one Hub line, without its newline (module doc)."""

DXP_MESSAGE_LIMIT = 1024
"""Bytes in one DXP message, without its NUL (module doc)."""

_CHUNK = 64 * 1024


def quote_record(head: bytes | str, size: int | None = None, more: bool = False) -> str:
    """A short quote of a record, for messages.

    Its repr when short, else the repr of its first
    :data:`~drl.rules._quote.EXCERPT_CHARS` characters and ``... (N bytes)`` (with
    ``more``: ``more than N bytes``, for a record whose end was not read).

    Args:
        head: the record, or its first bytes.
        size: its length in bytes (default: ``len(head)``).
        more: the record goes on past ``size`` bytes.
    """
    text = head.decode("utf-8", "replace") if isinstance(head, bytes) else head
    if size is None:
        size = len(head)
    if len(text) <= EXCERPT_CHARS and size <= len(head) and not more:
        return repr(text)
    return f"{text[:EXCERPT_CHARS]!r}... ({'more than ' if more else ''}{size} bytes)"


class RecordTooLong(ValueError):
    """A record over the cap.

    Attributes:
        head: its first bytes (at most a few hundred).
        size: its length in bytes, or the bytes read so far when ``complete`` is False.
        complete: the whole record was read (its terminator was seen).
        limit: the cap.
    """

    def __init__(self, what: str, limit: int, head: bytes, size: int, complete: bool) -> None:
        self.what, self.limit, self.head = what, limit, head
        self.size, self.complete = size, complete
        super().__init__(self.describe())

    def describe(self, size: int | None = None) -> str:
        """``<what> longer than <limit> bytes: <excerpt>``.

        ``size`` is the full length, once the rest has been skipped.
        """
        more = not self.complete and size is None
        total = self.size if size is None else size
        return f"{self.what} longer than {self.limit} bytes: {quote_record(self.head, total, more)}"


class RecordReader:
    r"""Records ended by one terminator byte, read from ``read`` with a cap on their length.

    Args:
        read: ``read(n)``: up to ``n`` bytes, at least one unless the input ended (then
            ``b""``); e.g. ``BufferedReader.read1`` or ``socket.recv``. It may raise
            (a timeout): the reader's state is unchanged, and :meth:`next` can be called
            again.
        end: the terminator (``b"\\n"`` for Hub lines, ``b"\\0"`` for DXP messages).
        limit: the most bytes of one record (without its terminator).
        what: how messages name a record (``"line"``, ``"DXP message"``).
        partial_last: at the end of input, return unterminated bytes as a last record
            (True for lines; False for DXP, where they are a cut message and dropped).
    """

    def __init__(
        self,
        read: Callable[[int], bytes],
        end: bytes,
        limit: int,
        what: str,
        partial_last: bool = True,
    ) -> None:
        if len(end) != 1:
            raise ValueError("the terminator is one byte")
        self._read = read
        self._end = end
        self.limit = limit
        self.what = what
        self._partial_last = partial_last
        self._buf = bytearray()
        self._start = 0  # first unread byte in _buf
        self._scan = 0  # bytes before this (from _start) hold no terminator
        self.ended = False

    def _too_long(self, stop: int, complete: bool) -> RecordTooLong:
        head = bytes(self._buf[self._start : self._start + 4 * EXCERPT_CHARS])
        return RecordTooLong(self.what, self.limit, head, stop - self._start, complete)

    def next(self) -> bytes | None:
        """The next record without its terminator, or None at the end of input.

        Raises:
            RecordTooLong: the record is longer than ``limit``. With ``complete`` True it
                has been consumed; else call :meth:`skip` to drop the rest of it (or
                give up on the input).
            Whatever ``read`` raises.
        """
        buf = self._buf
        while True:
            i = buf.find(self._end, self._scan)
            if i >= 0:
                if i - self._start > self.limit:
                    err = self._too_long(i, complete=True)
                    self._start = self._scan = i + 1
                    raise err
                record = bytes(buf[self._start : i])
                self._start = self._scan = i + 1
                return record
            self._scan = len(buf)
            if len(buf) - self._start > self.limit:
                raise self._too_long(len(buf), complete=False)
            if self.ended:
                return self._rest()
            if self._start:  # drop what was returned, once per read (linear in all)
                del buf[: self._start]
                self._scan -= self._start
                self._start = 0
            data = self._read(_CHUNK)
            if not data:
                self.ended = True
                return self._rest()
            buf += data

    def _rest(self) -> bytes | None:
        rest = bytes(self._buf[self._start :])
        self._buf.clear()
        self._start = self._scan = 0
        return rest if rest and self._partial_last else None

    def skip(self) -> int:
        """Read and drop the rest of a record after an incomplete :class:`RecordTooLong`.

        Reads up to and including its terminator (or the end of input). Memory stays
        bounded whatever its length.

        Returns:
            The record's full length in bytes.
        """
        size = len(self._buf) - self._start
        self._buf.clear()
        self._start = self._scan = 0
        while not self.ended:
            data = self._read(_CHUNK)
            if not data:
                self.ended = True
                break
            i = data.find(self._end)
            if i >= 0:
                self._buf += data[i + 1 :]
                return size + i
            size += len(data)
        return size
