"""An outer polytope of the reachable terms, with its vertices, in exact arithmetic.

``P = {x : lo <= x <= hi, w_k @ x >= c_k}`` in ``d`` dimensions, kept as its
constraints and its vertices. A cut is added by the double description method (Fukuda
and Prodon, 1996): the vertices on the cut's side stay, those
beyond it go, and each edge between the two meets the cut's plane in a new vertex. Two
vertices span an edge when the constraints active at both have rank ``d - 1`` (the
algebraic adjacency test). Every number is a :class:`fractions.Fraction`, so a vertex is
exact and nothing is lost to rounding or degeneracy; each new vertex is solved from
``d`` of the original constraints, so its size does not grow with the cuts.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np

from cvxpb.numerics.tolerances import EPS, nudge


class Polytope:
    """The box ``[lo, hi]`` cut by halfspaces ``w @ x >= c``, with its vertices.

    Parameters
    ----------
    lo, hi : sequence of float
        The box's corners, ``lo <= hi`` in each coordinate.

    Examples
    --------
    >>> P = Polytope([0.0, 0.0], [1.0, 1.0])
    >>> P.cut([1.0, 1.0], 1.0)
    True
    >>> sorted(tuple(map(float, v)) for v in P.vertices)
    [(0.0, 1.0), (1.0, 0.0), (1.0, 1.0)]
    """

    def __init__(self, lo, hi):
        self.d = len(lo)
        if len(hi) != self.d or any(b < a for a, b in zip(lo, hi, strict=True)):
            raise ValueError("lo and hi must have one length and lo <= hi")
        self.normals: list[tuple] = []  # constraint j: normals[j] @ x >= offsets[j]
        self.offsets: list[Fraction] = []
        self._rows: list[list] = []  # constraint j scaled to integers: (a..., b), a @ x >= b
        self._N, self._o = np.empty((0, self.d)), np.empty(0)
        self.cuts: list[int] = []  # the indices of the cuts, in the order added
        for i in range(self.d):
            e = tuple(Fraction(int(k == i)) for k in range(self.d))
            self._add(e, Fraction(lo[i]))
            self._add(tuple(-x for x in e), -Fraction(hi[i]))
        self.vertices: list[tuple] = []
        self.active: list[frozenset] = []
        for corner in range(1 << self.d):
            x = tuple(
                Fraction(lo[i]) if (corner >> i) & 1 == 0 else Fraction(hi[i])
                for i in range(self.d)
            )
            if x not in self.vertices:
                self.vertices.append(x)
                self.active.append(self._active_at(x))
        self._exact = [_scaled(x) for x in self.vertices]
        self._X = _floats(self.vertices, self.d)
        self._reset_marks(len(self.vertices))

    def _reset_marks(self, count):
        """Per-vertex bookkeeping for ``count`` vertices, none filled: ``values`` (a
        value the caller keeps for each vertex, None until it sets one), each vertex's
        coordinates rounded down (once), and ``kept`` (the indices, before the last cut,
        of the vertices it kept). Lists beside ``vertices``: a rational vertex is costly
        to hash."""
        self.values: list = [None] * count
        self._lower: list = [None] * count
        self.kept = np.arange(count)

    def _add(self, normal, offset) -> int:
        self.normals.append(normal)
        self.offsets.append(offset)
        self._rows.append(_integers(list(normal) + [offset]))
        self._N = np.vstack([self._N, [[float(x) for x in normal]]])
        self._o = np.append(self._o, float(offset))
        return len(self.normals) - 1

    def _pop(self):
        """Take the last constraint away."""
        for kept in (self.normals, self.offsets, self._rows):
            kept.pop()
        self._N, self._o = self._N[:-1], self._o[:-1]

    def _signs(self, rows, points, floats):
        """The sign (-1, 0 or +1) of ``normals[j] @ x - offsets[j]`` for each ``j`` in
        ``rows`` (axis 0) and ``x`` in ``points`` (axis 1, each as :func:`_scaled`
        gives it), for sure: by floats, with a guard on their rounding, and in integers
        where the guard does not settle it."""
        N, o = self._N[rows], self._o[rows]
        approx = N @ floats.T - o[:, None]
        guard = 16 * EPS * (np.abs(N) @ np.abs(floats).T + np.abs(o)[:, None]) + 1e-300
        signs = np.sign(approx).astype(int)
        for r, k in zip(*np.nonzero(np.abs(approx) <= guard), strict=True):
            *a, b = self._rows[rows[r]]
            numerators, denominator = points[k]
            exact = sum(x * y for x, y in zip(a, numerators, strict=True)) - b * denominator
            signs[r, k] = (exact > 0) - (exact < 0)
        return signs

    def _active_at(self, x, tight=()) -> frozenset:
        """The constraints tight at ``x``: ``tight`` (known to be) and those of the rest
        that are, checked in exact arithmetic."""
        rows = np.array([j for j in range(len(self.normals)) if j not in tight], dtype=int)
        signs = self._signs(rows, [_scaled(x)], _floats([x], self.d))[:, 0]
        return frozenset(int(j) for j in rows[signs == 0]) | frozenset(tight)

    def cut(self, w, c) -> bool:
        """Add the halfspace ``w @ x >= c``.

        Parameters
        ----------
        w : sequence of float
            The normal (finite).
        c : float
            The offset (finite).

        Returns
        -------
        bool
            Whether any vertex was cut off (a cut that removes none is not kept).
        """
        j = self._add(tuple(Fraction(float(x)) for x in w), Fraction(float(c)))
        slacks = self._signs([j], self._exact, self._X)[0]
        if np.all(slacks >= 0):
            self._pop()
            return False
        self.cuts.append(j)
        new_vertices, new_active, seen = [], [], set()
        masks = [sum(1 << i for i in active) for active in self.active]  # as bits: fast
        beyond = [(m, masks[m]) for m in np.flatnonzero(slacks < 0)]
        for k in np.flatnonzero(slacks > 0):
            for m, mask in beyond:
                if (masks[k] & mask).bit_count() < self.d - 1:
                    continue
                common = self.active[k] & self.active[m]
                normals = {i: self._rows[i][:-1] for i in common}
                if _rank(list(normals.values())) != self.d - 1:
                    continue
                rows = _independent(normals, self.d - 1) + [j]
                x = self._solve(rows)
                if x is not None and x not in seen:
                    seen.add(x)
                    new_vertices.append(x)
                    new_active.append(self._active_at(x, rows))
        kept = np.flatnonzero(slacks >= 0)
        fresh = [None] * len(new_vertices)
        self.values = [self.values[k] for k in kept] + fresh
        self._lower = [self._lower[k] for k in kept] + fresh
        self.kept = kept
        self.vertices = [self.vertices[k] for k in kept] + new_vertices
        self._exact = [self._exact[k] for k in kept] + [_scaled(x) for x in new_vertices]
        self._X = np.vstack([self._X[kept], _floats(new_vertices, self.d)])
        self.active = [
            self.active[k] | ({j} if slacks[k] == 0 else set()) for k in kept
        ] + new_active
        return True

    def _solve(self, rows):
        """The point where the constraints ``rows`` (``d`` independent ones) are tight:
        each row scaled to integers (a float's denominator is a power of 2), eliminated
        without fractions (Bareiss), and each coordinate one exact quotient."""
        d = self.d
        A = [list(self._rows[i]) for i in rows]
        previous = 1
        for col in range(d):
            pivot = next((r for r in range(col, d) if A[r][col] != 0), None)
            if pivot is None:
                return None
            A[col], A[pivot] = A[pivot], A[col]
            for r in range(col + 1, d):
                A[r] = [
                    (A[col][col] * a - A[r][col] * b) // previous
                    for a, b in zip(A[r], A[col], strict=True)
                ]
            previous = A[col][col]
        x = [Fraction(0)] * d  # back substitution on the triangular integer system
        for i in range(d - 1, -1, -1):
            rest = sum((A[i][j] * x[j] for j in range(i + 1, d)), Fraction(0))
            x[i] = (A[i][d] - rest) / A[i][i]
        return tuple(x)

    def lower_vertices(self, indices=None) -> np.ndarray:
        """The vertices as floats, each coordinate rounded down.

        Parameters
        ----------
        indices : sequence of int, optional
            Which vertices (all by default).

        Returns
        -------
        ndarray of shape (V, d)
            ``float(x)`` or the float just below it, whichever is at most ``x``.
        """
        indices = range(len(self.vertices)) if indices is None else indices
        out = np.empty((len(indices), self.d))
        for row, k in enumerate(indices):
            if self._lower[k] is None:
                self._lower[k] = [_float_below(x) for x in self.vertices[k]]
            out[row] = self._lower[k]
        return out

    def normals_at(self, k):
        """Find the constraints tight at vertex ``k``.

        The normals of the lower ones (the cuts and the box's lower faces), and the
        coordinates at the box's upper faces.

        Parameters
        ----------
        k : int
            A vertex's index.

        Returns
        -------
        normals : list of ndarray
            Each a normal with nonnegative entries.
        capped : ndarray of bool, shape (d,)
            Where the vertex is at the box's upper face.
        """
        normals, capped = [], np.zeros(self.d, dtype=bool)
        for j in sorted(self.active[k]):
            normal = np.array([float(x) for x in self.normals[j]])
            if np.all(normal >= 0):
                normals.append(normal)
            elif j < 2 * self.d:  # -e_i: the box's upper face in coordinate i
                capped[j // 2] = True
        return normals, capped


def _float_below(x: Fraction) -> float:
    """``float(x)``, or the float just below it where that is above ``x``."""
    f = float(x)
    return f if Fraction(f) <= x else float(nudge(f, -1))


def _floats(points, d) -> np.ndarray:
    """Rational points in ``d`` dimensions as the nearest floats, shape ``(len(points), d)``."""
    return np.array([[float(x) for x in p] for p in points], dtype=float).reshape(len(points), d)


def _integers(row) -> list[int]:
    """A row of rationals times the least common multiple of their denominators."""
    scale = math.lcm(*(x.denominator for x in row))
    return [int(x * scale) for x in row]


def _scaled(x) -> tuple:
    """A rational point as ``(numerators, denominator)``: integers over their least
    common denominator, so that a constraint's sign at it is one integer sum."""
    denominator = math.lcm(*(v.denominator for v in x))
    return tuple(v.numerator * (denominator // v.denominator) for v in x), denominator


def _rank(rows) -> int:
    """The rank of a list of integer vectors (elimination by cross-multiplication,
    each row divided by its entries' greatest common divisor: exact)."""
    rows = [list(r) for r in rows]
    rank, cols = 0, len(rows[0]) if rows else 0
    for col in range(cols):
        pivot = next((r for r in range(rank, len(rows)) if rows[r][col] != 0), None)
        if pivot is None:
            continue
        rows[rank], rows[pivot] = rows[pivot], rows[rank]
        top = rows[rank]
        for r in range(rank + 1, len(rows)):
            if rows[r][col] != 0:
                f = rows[r][col]
                row = [top[col] * a - f * b for a, b in zip(rows[r], top, strict=True)]
                g = math.gcd(*row)
                rows[r] = [a // g for a in row] if g > 1 else row
        rank += 1
    return rank


def _independent(normals, count) -> list[int]:
    """``count`` of the constraints ``normals`` (``{index: integer normal}``) whose
    normals are linearly independent, in order of index."""
    chosen: list[int] = []
    for i in sorted(normals):
        if _rank([normals[j] for j in chosen] + [normals[i]]) > len(chosen):
            chosen.append(i)
            if len(chosen) == count:
                break
    return chosen
