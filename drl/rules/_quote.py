"""Quoting input in error messages: a bounded excerpt, never the whole text.

Readers of FEN, PDN, move text and variant strings name the bad input in their errors.
The input may be megabytes long (a corrupt file, a hostile string), and a message that
repeats it, once or twice, is useless and costly; every such message goes through
:func:`excerpt`.
"""

from __future__ import annotations

__all__ = ["EXCERPT_CHARS", "excerpt"]

#: Characters of a long input quoted in an error message.
EXCERPT_CHARS = 80

_BIG_INT_BITS = 256  # repr of larger ints is long (and over 4300 digits, an error)


def excerpt(value: object, limit: int = EXCERPT_CHARS) -> str:
    """``repr(value)`` when it is short; else a bounded excerpt that says how long it is.

    A ``str`` or ``bytes`` of more than ``limit`` characters gives the repr of its first
    ``limit`` characters followed by ``... (N characters)`` (``N bytes``); an ``int`` of
    more than 256 bits gives ``an integer of N digits``; any other object gives its repr,
    cut likewise.

    Args:
        value: what to quote.
        limit: characters kept, >= 1.

    Returns:
        At most about ``limit + 40`` characters.
    """
    if isinstance(value, (str, bytes)):
        if len(value) <= limit:
            return repr(value)
        unit = "characters" if isinstance(value, str) else "bytes"
        return f"{value[:limit]!r}... ({len(value)} {unit})"
    if isinstance(value, int) and abs(value).bit_length() > _BIG_INT_BITS:
        digits = int(abs(value).bit_length() * 0.30103) + 1  # log10(2)
        return f"an integer of about {digits} digits"
    try:
        text = repr(value)
    except Exception:  # a repr that fails says nothing useful; name the type
        return f"<{type(value).__name__}>"
    if len(text) <= limit:
        return text
    return f"{text[:limit]}... ({len(text)} characters)"
