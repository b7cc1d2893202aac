"""The exact sum's binning, compiled (:mod:`cvxpb.numerics.compiled`).

:func:`cvxpb.numerics.summation.exact_sum` sums every float's significand, split in
two halves, per exponent in 64-bit integers; this is that loop, one pass over the
terms' bits.
"""

from __future__ import annotations

from cvxpb.numerics.compiled import kernel

BINS = 2047  # one for each biased exponent of a finite float (0 and 1 share a weight)
OFFSET = 1075  # bin k weighs 2**(k - OFFSET): the significand's last bit at that exponent
FRACTION = (1 << 52) - 1


@kernel
def binned_halves(bits, highs, lows):
    """Add each float's signed 53-bit significand (from its IEEE bits, ``bits`` the
    terms viewed as int64), split as ``high * 2**26 + low``, into ``highs`` and
    ``lows`` at its biased exponent's bin (subnormals at 1, whose weight is theirs);
    exact for up to ``2**35`` terms."""
    for word in bits:
        exponent = (word >> 52) & 0x7FF
        significand = word & FRACTION
        if exponent > 0:
            significand |= 1 << 52
        else:
            exponent = 1
        if word < 0:
            significand = -significand
        high = significand >> 26
        highs[exponent] += high
        lows[exponent] += significand - (high << 26)
