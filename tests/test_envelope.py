"""The outer region's boundary in floating point (``cvxpb.engine.declare.pareto``):
the lines kept, the enclosures of their crossings, and the edges, against exact
rational arithmetic."""

from fractions import Fraction

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from cvxpb.engine.declare.pareto import _edges, _envelope

slopes = st.one_of(
    st.just(0.0),
    st.floats(1e-12, 1e3),  # a search's least mu is 1e-8
    st.sampled_from([1.0, 1.0 + 2**-52, 1.0 + 2**-50, 1e-8, 3e-8]),  # near ties
)
lines_strategy = st.lists(st.tuples(slopes, st.floats(-10.0, 10.0)), min_size=1, max_size=30)


def _exact_crossing(first, second):
    (m1, c1), (m2, c2) = [(Fraction(m), Fraction(c)) for m, c in (first, second)]
    return (c2 - c1) / (m2 - m1)


def _boundary(lines, b):
    """``max_k c_k - mu_k b``, exactly: the boundary's ``a`` at ``b``."""
    return max(Fraction(c) - Fraction(mu) * Fraction(b) for mu, c in lines)


@settings(max_examples=300, deadline=None)
@given(lines_strategy)
def test_each_kept_crossing_is_enclosed_and_in_order(lines):
    """Each pair of neighbouring kept lines meets inside its enclosure (exactly), the
    enclosures fall strictly (so every kept line is on the kept lines' envelope), and
    the kept lines are given lines, slopes ascending."""
    kept, crossings = _envelope(lines)
    assert len(crossings) == len(kept) - 1
    assert all(line in lines for line in kept)
    assert kept[0] == min(lines)[:1] + (max(c for mu, c in lines if mu == min(lines)[0]),)
    assert all(a[0] < b[0] for a, b in zip(kept, kept[1:], strict=False))
    for k, (low, high) in enumerate(crossings):
        assert Fraction(low) <= _exact_crossing(kept[k], kept[k + 1]) <= Fraction(high)
    pairs = zip(crossings, crossings[1:], strict=False)
    assert all(later[1] < earlier[0] for earlier, later in pairs)


@settings(max_examples=300, deadline=None)
@given(lines_strategy, st.floats(-5.0, 5.0))
def test_the_kept_lines_bound_as_all_of_them_do(lines, b):
    """The kept lines' boundary is at most all lines' (a subset, so the region holds
    the true one) and within 1e-12 of it wherever ``|b| <= 5``: a dropped line is only
    one the rounding could not place."""
    kept, _ = _envelope(lines)
    full, ours = _boundary(lines, b), _boundary(kept, b)
    assert ours <= full
    assert float(full - ours) <= 1e-12 * (1 + max(abs(c) for _, c in lines))


@settings(max_examples=200, deadline=None)
@given(lines_strategy, st.floats(-10.0, 10.0))
def test_the_edges_hold_where_each_line_is_the_boundary(lines, b_lo):
    """Each edge's ``b`` range holds the exact one where its line is the kept lines'
    boundary above ``b_lo``, and every kept line with such a range has its edge."""
    kept, crossings = _envelope(lines)
    edges = _edges(kept, crossings, b_lo)
    by_line = {(mu, c): (lo, hi) for mu, c, lo, hi in edges}
    for k, line in enumerate(kept):
        low = _exact_crossing(kept[k], kept[k + 1]) if k + 1 < len(kept) else None
        high = _exact_crossing(kept[k - 1], kept[k]) if k > 0 else None
        low = Fraction(b_lo) if low is None else max(low, Fraction(b_lo))
        if high is not None and high <= Fraction(b_lo):
            continue  # wholly below b_lo
        assert line in by_line
        lo, hi = by_line[line]
        assert Fraction(lo) <= low
        if high is not None:
            assert Fraction(hi) >= high
    assert edges[0][0] == kept[0][0] and np.isfinite(edges[0][2])


def test_a_crossing_past_the_largest_float_drops_the_new_line_not_the_floor():
    """Two lines meeting past the largest float (``b = 1 / 2.2e-311``) cannot be
    ordered: the floor ``a >= 0`` stays and the other line goes, never the reverse
    (without the floor the region would run off to every ``b``)."""
    kept, crossings = _envelope([(0.0, 0.0), (2.225073858507e-311, 1.0)])
    assert kept == [(0.0, 0.0)] and crossings == []
