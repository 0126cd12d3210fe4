"""Bit tricks for the compiled kernels: popcount, lowest set bit, whole-board steps.

Bitboards are ``int64`` with bit ``s`` standing for square ``s`` (at most 50 bits, so they
stay non-negative). ``popcount`` and ``lowest_square`` compile to single instructions.
"""

from __future__ import annotations

from llvmlite import ir
from numba import njit
from numba.core import types
from numba.extending import intrinsic

from drl.rules.geometry import SHIFT_AMOUNT, SHIFT_MASK


@intrinsic
def popcount(typingctx, x):
    """Number of set bits of an int64 (LLVM ``ctpop``)."""
    sig = types.int64(types.int64)

    def codegen(context, builder, signature, args):
        return builder.ctpop(args[0])

    return sig, codegen


@intrinsic
def lowest_square(typingctx, x):
    """Index of the lowest set bit of a non-zero int64 (LLVM ``cttz``)."""
    sig = types.int64(types.int64)

    def codegen(context, builder, signature, args):
        return builder.cttz(args[0], ir.Constant(ir.IntType(1), 0))

    return sig, codegen


@njit(cache=True, inline="always")
def step(bb, z, d):
    """Move every square of bitboard ``bb`` one square in direction ``d``.

    Off-board bits vanish. ``z`` is the size index.
    """
    m0 = SHIFT_MASK[z, d, 0]
    m1 = SHIFT_MASK[z, d, 1]
    a0 = SHIFT_AMOUNT[z, d, 0]
    a1 = SHIFT_AMOUNT[z, d, 1]
    if d < 2:
        return ((bb & m0) >> -a0) | ((bb & m1) >> -a1)
    return ((bb & m0) << a0) | ((bb & m1) << a1)
