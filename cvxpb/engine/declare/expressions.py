"""Expressions of posterior terms: the atoms a bound is declared with, and the
composition rule.

As in disciplined convex programming (Grant, Boyd and Ye, 2006), every atom declares
its monotonicity in each argument, and a declaration is accepted by a rule checked on
its tree before anything is solved. The rule here is the one the Pareto argument
needs (:mod:`cvxpb.engine.declare.pareto`): the bound must be **monotone in every posterior
term**, increasing in each convex term and decreasing in each concave one (affine
terms either way), with one direction per term wherever it occurs. Then the bound is
an increasing function of convex functions of ``q``, and its minimum is at a Pareto
point of those functions. Breaking the rule raises a :class:`DeclarationError` that
names the atom and the term.

Every atom evaluates with outward rounding: ``rounding=+1`` returns a value at least
the exact one and ``-1`` at most, each argument rounded in the direction its
monotonicity asks for.
"""

from __future__ import annotations

import copy
from numbers import Real

import numpy as np

from cvxpb.numerics.kl import kl_inv_lower_bracket, kl_inv_lower_newton
from cvxpb.numerics.tolerances import EPS, nudge
from cvxpb.numerics.trinomial import pac_bound_two as _pac_bound_two
from cvxpb.pac_bayes.distances import KLDistance

_KL_DISTANCE = KLDistance()


class DeclarationError(ValueError):
    """A declared bound breaks the composition rule."""


class Expression:
    """A node of a declared bound. Numbers combine with it by ``+ - * / **``.

    Each atom declares its ``monotonicity`` in each argument (+1 increasing, -1
    decreasing, None neither); :meth:`leaves` checks the composition rule on the tree.

    Parameters
    ----------
    *args : Expression or float
        The atom's arguments; numbers become constants.
    """

    monotonicity: tuple = ()  # per argument: +1 increasing, -1 decreasing, None neither
    clipped = False  # True for an atom whose safeguards only raise its value (bounding_form
    # below drops them: the atom then evaluates without them)

    def __init__(self, *args):
        self.args = tuple(as_expression(a) for a in args)

    def __float__(self):
        raise TypeError(
            f"{self!r} is a declared expression of the posterior, not a number: it "
            "composes with cvxpb's own atoms (pb.sqrt, pb.log, pb.exp, pb.inv, "
            "pb.minimum, pb.maximum, pb.kl_inverse, ...) and numbers, not with CVXPY's "
            "or NumPy's functions; its value at a posterior is pb.Minimize(it).value_at(q)"
        )

    def leaves(self) -> dict:
        """Collect the posterior terms under this node, with the node's direction in each.

        Returns
        -------
        dict
            ``{term: signs}``, ``signs`` a subset of ``{+1, -1}``: the signs of the node's
            dependence on the term wherever it occurs.

        Raises
        ------
        DeclarationError
            If a term lies under an argument the atom is not monotone in.
        """
        found: dict = {}
        for arg, sign in zip(self.args, self.monotonicity, strict=True):
            for term, signs in arg.leaves().items():
                if sign == 0:  # multiplied by zero: no dependence
                    continue
                if sign is None:
                    raise DeclarationError(
                        f"{type(self).__name__.lower()} is not monotone in its argument "
                        f"{arg!r}, which depends on the posterior term {term!r}; a declared "
                        "bound must be monotone in every posterior term"
                    )
                found.setdefault(term, set()).update(sign * s for s in signs)
        return found

    def evaluate(self, values, rounding: int):
        """Evaluate the node with outward rounding.

        Parameters
        ----------
        values : callable
            ``values(term, rounding)``: each posterior term's value rounded in the direction
            ``rounding``.
        rounding : {-1, 0, 1}
            ``+1`` for a value at least the exact one, ``-1`` at most, ``0`` to nearest;
            each argument is evaluated in the direction the node's monotonicity asks for.

        Returns
        -------
        float or ndarray
            The node's value.
        """
        arguments = [a.evaluate(values, rounding * s) for a, s in self._signed()]
        return self._apply(arguments, rounding)

    def affine(self) -> bool:
        """Whether the node is an affine function of its terms' values.

        Returns
        -------
        bool
            True for numbers, sums and multiples of affine nodes, and terms whose value
            is an affine map of their core.
        """
        return False

    def monotone_of_affine(self) -> bool:
        """Whether the node is a monotone function of one affine function of its terms.

        Such a bound is monotone along every line in the terms' values, so over a
        polygon it is least at a vertex (:mod:`cvxpb.engine.declare.pareto` uses this).

        Returns
        -------
        bool
            True if the node is affine, or depends on the posterior through one argument,
            monotonically, which is itself such a node.
        """
        if self.affine():
            return True
        live = [(a, s) for a, s in zip(self.args, self.monotonicity, strict=True) if a.leaves()]
        return len(live) == 1 and live[0][1] in (1, -1) and live[0][0].monotone_of_affine()

    def bounding_form(self, sign: int = 1) -> Expression:
        """Drop the safeguards that break this node's concavity, in one direction.

        The result is this node where that moves its value only down (``sign=+1``) or
        only up (``-1``): below, an atom with ``clipped`` set evaluates without its
        safeguards. The search for bounds of three or more terms
        (:mod:`cvxpb.engine.declare.vertices`) minimizes this form of the bound, a
        minorant, over an outer polytope. Each argument is taken in the direction the
        atom's monotonicity carries ``sign`` to.

        Parameters
        ----------
        sign : {1, -1}, default=1
            ``+1`` for a form at most this node everywhere, ``-1`` at least.

        Returns
        -------
        Expression
            A node of the same shape (this node itself where nothing changes).
        """
        if not self.args:
            return self
        forms = tuple(
            a.bounding_form(sign * (s if s else 1))
            for a, s in zip(self.args, self.monotonicity, strict=True)
        )
        unchanged = all(f is a for f, a in zip(forms, self.args, strict=True))
        drop = sign > 0 and self.clipped
        if unchanged and not drop:
            return self
        node = copy.copy(self)
        node.args = forms
        if drop:
            node.clipped = False
        return node

    def curvature_over(self, box):
        """The node's curvature as a function of the oriented terms over a box.

        Each atom states where it is concave or convex, jointly in its arguments, given
        their ranges over the box; the rule of disciplined convex programming composes
        them (an atom concave and increasing in concave arguments, decreasing in convex
        ones, is concave).

        Parameters
        ----------
        box : object
            ``box.range(node)`` gives ``(low, high)``, an enclosure of the node's values
            over the box.

        Returns
        -------
        {"affine", "concave", "convex", "quasiconcave"} or None
            None where the rules do not prove a curvature ("quasiconcave" only for the
            whole bound: the rules compose no further from it).
        """
        if self.affine():
            return "affine"
        kinds = [a.curvature_over(box) for a in self.args]
        if None in kinds:
            return None
        return self._curvature(kinds, [box.range(a) for a in self.args])

    def _curvature(self, kinds, ranges):
        """The atom's curvature given its arguments' curvatures and ranges, or None."""
        return None

    def _signed(self):
        pairs = zip(self.args, self.monotonicity, strict=True)
        return [(a, 0 if s is None else s) for a, s in pairs]

    def _apply(self, arguments, rounding):
        raise NotImplementedError

    def __add__(self, other):
        return Sum(self, other)

    __radd__ = __add__

    def __sub__(self, other):
        return Sum(self, Scale(-1.0, other))

    def __rsub__(self, other):
        return Sum(other, Scale(-1.0, self))

    def __neg__(self):
        return Scale(-1.0, self)

    def __mul__(self, other):
        if isinstance(other, Expression) and not isinstance(other, Constant):
            raise DeclarationError(
                f"{self!r} * {other!r}: only a product with a number is a declared atom"
            )
        return Scale(_number(other, "a factor"), self)

    __rmul__ = __mul__

    def __truediv__(self, other):
        if isinstance(other, Expression):
            raise DeclarationError(f"{self!r} / {other!r}: divide by a number, or use inv()")
        return Scale(1.0 / _number(other, "a divisor", positive_or_negative=True), self)

    def __rtruediv__(self, other):
        return Scale(_number(other, "a numerator"), Inverse(self))

    def __pow__(self, exponent):
        return Power(self, exponent)


class Constant(Expression):
    """A number in a declared bound: it depends on no posterior term.

    Parameters
    ----------
    value : float
        A finite number.
    """

    def __init__(self, value):
        super().__init__()
        self.value = _number(value, "a constant")

    def leaves(self):
        return {}

    def affine(self) -> bool:
        return True

    def evaluate(self, values, rounding):
        return np.float64(self.value)

    def __repr__(self):
        return f"{self.value:g}"


def as_expression(x) -> Expression:
    """Take an expression as it is and a number as a :class:`Constant`.

    Parameters
    ----------
    x : Expression or float
        An operand of an atom.

    Returns
    -------
    Expression
        ``x`` itself, or the constant ``x``.

    Raises
    ------
    DeclarationError
        If ``x`` is neither an expression nor a finite number.
    """
    if isinstance(x, Expression):
        return x
    return Constant(_number(x, "an operand"))


def _number(x, what, positive_or_negative=False) -> float:
    if isinstance(x, Constant):
        x = x.value
    if type(x).__module__.startswith("cvxpy"):
        raise DeclarationError(
            f"{what} of a declared bound is a CVXPY object ({type(x).__name__}): a declared "
            "bound is built from cvxpb's terms (pb.gibbs_risk, pb.KL, ...), its atoms "
            "(pb.sqrt, pb.log, pb.kl_inverse, ...) and numbers, and cvxpb writes the CVXPY "
            "programs itself (pb.Minimize(bound).explain() shows them)"
        )
    if isinstance(x, bool) or not isinstance(x, Real) or not np.isfinite(x):
        raise DeclarationError(f"{what} of a declared bound must be a finite number, got {x!r}")
    if positive_or_negative and x == 0:
        raise DeclarationError("division by zero in a declared bound")
    return float(x)


def _composes(kinds, monotonicity, want) -> bool:
    """Whether an atom ``want`` (concave or convex) in its arguments keeps that curvature
    here: increasing in arguments of that curvature, decreasing in the opposite, any
    way in affine ones."""
    opposite = {"concave": "convex", "convex": "concave"}[want]
    for kind, sign in zip(kinds, monotonicity, strict=True):
        if kind == "affine" or sign == 0:
            continue
        if sign is None or kind != (want if sign > 0 else opposite):
            return False
    return True


def _either(kinds, monotonicity) -> str | None:
    """``"concave"`` or ``"convex"`` for an affine atom by the composition rule."""
    for want in ("concave", "convex"):
        if _composes(kinds, monotonicity, want):
            return want
    return None


def _within(bounds, low=-np.inf, high=np.inf, open_high=False) -> bool:
    """Whether a range ``(a, b)`` lies in ``[low, high]`` (``[low, high)``)."""
    a, b = bounds
    return bool(a >= low and (b < high if open_high else b <= high))


class Sum(Expression):
    """The sum of its arguments: increasing in each.

    Parameters
    ----------
    *args : Expression or float
        The summands.
    """

    @property
    def monotonicity(self):
        return (1,) * len(self.args)

    def affine(self) -> bool:
        return all(a.affine() for a in self.args)

    def _curvature(self, kinds, ranges):
        return _either(kinds, self.monotonicity)

    def _apply(self, arguments, rounding):
        total = arguments[0]
        for a in arguments[1:]:
            total = nudge(total + a, rounding)
        return total

    def __repr__(self):
        return " + ".join(map(repr, self.args))


class Scale(Expression):
    """A number times an expression.

    Increasing for a positive factor, decreasing for a negative one, independent of the
    argument for zero.

    Parameters
    ----------
    factor : float
        The finite factor.
    x : Expression or float
        The argument.
    """

    def __init__(self, factor, x):
        super().__init__(x)
        self.factor = _number(factor, "a factor")
        self.monotonicity = (1 if self.factor > 0 else -1 if self.factor < 0 else 0,)

    def affine(self) -> bool:
        return self.args[0].affine()

    def _curvature(self, kinds, ranges):
        return _either(kinds, self.monotonicity)

    def _apply(self, arguments, rounding):
        x = np.asarray(arguments[0], dtype=float)
        product = self.factor * x
        # a zero argument's product is exactly 0: no rounding to cover (a box's corner
        # at a divergence's least value 0 stays at 0, where the bound is proven concave)
        return np.where(x == 0, product, nudge(product, rounding))

    def __repr__(self):
        return f"{self.factor:g} * ({self.args[0]!r})"


class Inverse(Expression):
    """``1 / x`` for ``x > 0`` (``+inf`` at ``x <= 0``): decreasing.

    Parameters
    ----------
    *args : Expression or float
        The one argument ``x``.
    """

    monotonicity = (-1,)

    def _apply(self, arguments, rounding):
        with np.errstate(divide="ignore"):
            x = arguments[0]
            return nudge(np.where(x > 0, 1.0 / np.where(x > 0, x, 1.0), np.inf), rounding)

    def _curvature(self, kinds, ranges):
        convex = _composes(kinds, self.monotonicity, "convex") and ranges[0][0] > 0
        return "convex" if convex else None

    def __repr__(self):
        return f"inv({self.args[0]!r})"


class Power(Expression):
    """``x ** p`` for ``x >= 0`` (negative arguments clipped to 0), ``p > 0``: increasing.

    Parameters
    ----------
    x : Expression or float
        The base.
    exponent : float
        The exponent ``p > 0``.
    """

    monotonicity = (1,)

    def __init__(self, x, exponent):
        super().__init__(x)
        self.exponent = _number(exponent, "an exponent")
        if self.exponent <= 0:
            raise DeclarationError(f"x ** p is declared for p > 0, got p = {self.exponent:g}")

    def _apply(self, arguments, rounding):
        base = np.maximum(arguments[0], 0.0)
        with np.errstate(over="ignore"):
            return nudge(base**self.exponent, rounding)

    def _curvature(self, kinds, ranges):
        if self.exponent >= 1:  # max(x, 0) ** p: convex and increasing
            return "convex" if _composes(kinds, self.monotonicity, "convex") else None
        concave = _composes(kinds, self.monotonicity, "concave") and _within(ranges[0], 0)
        return "concave" if concave else None

    def __repr__(self):
        return f"({self.args[0]!r}) ** {self.exponent:g}"


class Elementary(Expression):
    """An increasing function of one argument: ``log`` or ``exp``.

    Parameters
    ----------
    name : {"log", "exp"}
        The function.
    x : Expression or float
        The argument.
    """

    monotonicity = (1,)
    functions = {"log": np.log, "exp": np.exp}

    def __init__(self, name, x):
        super().__init__(x)
        self.name = name

    def _apply(self, arguments, rounding):
        with np.errstate(divide="ignore", over="ignore", invalid="ignore"):
            return nudge(self.functions[self.name](arguments[0]), rounding)

    def _curvature(self, kinds, ranges):
        if self.name == "exp":
            return "convex" if _composes(kinds, self.monotonicity, "convex") else None
        concave = _composes(kinds, self.monotonicity, "concave") and ranges[0][0] > 0
        return "concave" if concave else None

    def __repr__(self):
        return f"{self.name}({self.args[0]!r})"


class KLInverse(Expression):
    """The upper or lower inverse of the binary kl divergence.

    The upper inverse ``sup {r >= L : kl(L, r) <= e}`` is increasing in both arguments;
    the lower one ``inf {r <= L : kl(L, r) <= e}`` is increasing in ``L`` and decreasing
    in ``e``. ``L`` is clipped into [0, 1] and ``e`` at 0.

    Parameters
    ----------
    L : Expression or float
        The empirical risk.
    e : Expression or float
        The right-hand side (complexity term).
    upper : bool, default=True
        The upper inverse, else the lower one.
    """

    def __init__(self, L, e, upper=True):
        super().__init__(L, e)
        self.upper = upper
        self.monotonicity = (1, 1) if upper else (1, -1)

    def _apply(self, arguments, rounding):
        L, e = np.broadcast_arrays(*arguments)
        if self.upper:
            return _KL_DISTANCE.inverse(L, e, rounding)
        return _kl_lower(L, e, rounding)

    def _curvature(self, kinds, ranges):
        """The upper inverse is jointly concave, the lower one jointly convex: each is
        the largest or least ``r`` over a slice of the convex set ``kl(L, r) <= e``.
        The clips keep that where they act on the side that bends the right way (the
        least of concave functions is concave, the largest of convex ones convex): ``L``
        clipped at 1 above the upper inverse, at 0 below the lower one. The others must
        not act: ``L >= 0`` for the upper, ``L <= 1`` for the lower, ``e >= 0`` both."""
        want = "concave" if self.upper else "convex"
        L = _within(ranges[0], 0.0) if self.upper else _within(ranges[0], high=1.0)
        inside = L and _within(ranges[1], 0.0)
        return want if inside and _composes(kinds, self.monotonicity, want) else None

    def __repr__(self):
        name = "kl_inverse" if self.upper else "kl_inverse_lower"
        return f"{name}({self.args[0]!r}, {self.args[1]!r})"


def _kl_lower(L, e, rounding):
    """The lower kl inverse ``inf {r <= L : kl(L, r) <= e}``, rounded in ``rounding``
    (``L`` clipped into [0, 1], ``e`` at 0)."""
    L, e = np.clip(L, 0.0, 1.0), np.maximum(e, 0.0)
    lo, hi = kl_inv_lower_bracket(L, e)
    exact = (e == 0) | (L == 0)
    if rounding == 0:  # Newton's root within the bracket: the midpoint of a bracket
        # cut at its absolute width (1e-300) lies far above a subnormal root
        end = np.clip(kl_inv_lower_newton(L, e)[0], lo, hi)
    else:
        end = lo if rounding < 0 else nudge(hi, rounding)
    return np.where(exact, L, np.clip(end, 0.0, L))


class Extreme(Expression):
    """The least (``minimum``) or largest (``maximum``) of its arguments: increasing.

    Parameters
    ----------
    *args : Expression or float
        The arguments.
    least : bool, default=True
        The minimum, else the maximum.
    """

    def __init__(self, *args, least=True):
        super().__init__(*args)
        self.least = least
        self.monotonicity = (1,) * len(self.args)

    def _apply(self, arguments, rounding):
        stacked = np.stack(np.broadcast_arrays(*arguments))
        return stacked.min(axis=0) if self.least else stacked.max(axis=0)

    def _curvature(self, kinds, ranges):
        """Concave (``minimum``) or convex (``maximum``) by the composition rule; and
        where one argument is the least (largest) over the whole box, that argument's
        curvature, since the atom is that argument there (``maximum(x, 0)`` with ``x``
        positive on the box is ``x``)."""
        want = "concave" if self.least else "convex"
        if _composes(kinds, self.monotonicity, want):
            return want
        for k, (low, high) in enumerate(ranges):
            others = [r for j, r in enumerate(ranges) if j != k]
            if self.least and all(high <= other[0] for other in others):
                return kinds[k]
            if not self.least and all(low >= other[1] for other in others):
                return kinds[k]
        return None

    def __repr__(self):
        name = "minimum" if self.least else "maximum"
        if len(self.args) > 4:
            return f"{name}({self.args[0]!r}, ... {len(self.args)} in all)"
        return f"{name}({', '.join(map(repr, self.args))})"


class CBound(Expression):
    """The C-bound of Germain et al. (2015) as an atom.

    ``1 - (1 - 2 min(R, 1/2))^2 / (1 - 2 D)`` of a bound ``R`` on the Gibbs risk and
    ``D`` on the disagreement: increasing in ``R``, decreasing in ``D``. ``R >= 1/2``
    gives 1; ``D`` is clipped into ``[0, 1/2)`` (where ``R < 1/2`` holds, the true
    disagreement is below ``2 R (1 - R) < 1/2``).

    Parameters
    ----------
    *args : Expression or float
        ``(R, D)``: an upper bound on the Gibbs risk and a lower bound on the
        disagreement.
    """

    monotonicity = (1, -1)

    def _apply(self, arguments, rounding):
        R, D = np.broadcast_arrays(*arguments)
        margin = nudge(1 - 2 * np.minimum(R, 0.5), -rounding)
        squared = nudge(np.maximum(margin, 0.0) ** 2, -rounding)
        spread = nudge(1 - 2 * np.clip(D, 0.0, 0.5), rounding)
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            ratio = nudge(np.where(squared > 0, squared / spread, 0.0), -rounding)
        return np.where(R >= 0.5, 1.0, nudge(1 - ratio, rounding))

    def _curvature(self, kinds, ranges):
        """Concave where ``D < 1/2``: ``x^2 / y`` is jointly convex for ``y > 0`` and
        increasing in ``x >= 0``, with ``x = max(1 - 2R, 0)`` convex in ``R`` and
        ``y = 1 - 2 max(D, 0)`` concave in ``D``."""
        below = ranges[1][1] < 0.5
        return "concave" if below and _composes(kinds, self.monotonicity, "concave") else None

    def __repr__(self):
        return f"c_bound({self.args[0]!r}, {self.args[1]!r})"


class PacBoundTwo(Expression):
    """Germain et al.'s (2015) PAC-Bound 2 as an atom, over its monotone region.

    The largest C-bound ``1 - (1 - 2e - d)^2 / (1 - 2d)`` over the joint error and
    disagreement ``(d, e)`` within trinomial kl ``s`` of the quadrant
    ``d' >= D, e' <= E`` (:mod:`cvxpb.numerics.trinomial`): increasing in ``E`` and ``s``,
    decreasing in ``D``.

    Parameters
    ----------
    *args : Expression or float
        ``(E, D, s)``: the empirical joint error (tandem risk), the empirical
        disagreement, and the kl inequality's side.
    """

    monotonicity = (1, -1, 1)

    def _apply(self, arguments, rounding):
        return _pac_bound_two(*np.broadcast_arrays(*arguments), rounding)

    def _curvature(self, kinds, ranges):
        """Jointly concave for ``D < 1/2``, the largest value of a concave function over
        slices of a convex set (:mod:`cvxpb.numerics.trinomial`), where no clip that
        breaks it acts: ``E`` in [0, 1], ``D + E <= 1``, ``s >= 0``. ``D`` raised to 0
        keeps it (a concave function decreasing in ``D`` of ``max(D, 0)``, convex)."""
        E, D, s = ranges
        inside = _within(E, 0.0, 1.0) and _within(D, high=0.5, open_high=True)
        inside = inside and _within(s, 0.0) and E[1] + D[1] <= 1
        return "concave" if inside and _composes(kinds, self.monotonicity, "concave") else None

    def __repr__(self):
        return f"pac_bound_two({', '.join(map(repr, self.args))})"


class LambdaBound(Expression):
    """The PAC-Bayes-lambda bound at its best lambda, in closed form.

    ``min over lambda in (0, 2) of (L + e / lambda) / (1 - lambda / 2)`` for ``L >= 0``,
    ``e > 0``: at ``lambda* = (s - e) / L``, ``s = sqrt(e^2 + 2 L e)`` (in (0, 2)), the
    least value is ``(2L + e + s)^2 / (2 (2L + e))``. Increasing in both.

    Parameters
    ----------
    *args : Expression or float
        ``(L, e)``: the empirical risk and the complexity term
        ``(KL + log(2 sqrt(n) / delta)) / n``.
    """

    monotonicity = (1, 1)

    def _apply(self, arguments, rounding):
        L, e = np.broadcast_arrays(*arguments)
        L, e = np.maximum(L, 0.0), np.maximum(e, 0.0)
        with np.errstate(divide="ignore", invalid="ignore"):
            twice = 2 * L + e
            value = (twice + np.sqrt(e * e + 2 * L * e)) ** 2 / (2 * twice)
        value = np.where(twice > 0, value, 0.0)
        value = np.where(np.isposinf(twice), np.inf, value)  # a divergence of inf: vacuous
        return nudge(value * (1 + rounding * 16 * EPS), rounding)

    def _curvature(self, kinds, ranges):
        """Concave for ``L, e >= 0``: the least over lambda of functions affine in both."""
        inside = _within(ranges[0], 0.0) and _within(ranges[1], 0.0)
        return "concave" if inside and _composes(kinds, self.monotonicity, "concave") else None

    def __repr__(self):
        return f"lambda_bound({self.args[0]!r}, {self.args[1]!r})"


class ChebyshevCantelli(Expression):
    """Wu et al.'s (2021) parametric Chebyshev-Cantelli bound at its best ``mu`` on one side.

    ``MV <= (T - 2 mu L + mu^2) / (1/2 - mu)^2`` for every ``mu < 1/2``, with ``T`` the
    tandem risk and ``L`` the Gibbs risk. With ``v = 1/(1/2 - mu)`` the right side is
    ``q(v) = 1 - (1 - 2L) v + (T - L + 1/4) v^2``, a quadratic in ``v``; ``mu >= 0`` is
    ``v >= 2`` and ``mu < 0`` is ``0 < v < 2``. On ``v >= 2`` the slope in ``L``,
    ``v (2 - v)``, is at most 0, so that side is decreasing in ``L`` (give a lower bound
    on the Gibbs risk); on ``v <= 2`` it is increasing (give an upper bound). Both are
    increasing in ``T``. The least value over the side is at the vertex
    ``v* = (1 - 2L) / (2 (T - L + 1/4))`` when it lies there, ``(T - L^2) / (T - L + 1/4)``,
    else at the side's end (``4 T`` at ``mu = 0``; 1 as ``mu -> -inf``). On the
    ``mu >= 0`` side ``L``, a lower bound on the Gibbs risk, is lowered to at most 1/2
    and to ``sqrt(T)`` (the Gibbs risk is at most the square root of the tandem risk,
    by Jensen): neither changes a valid bound, and they keep that side monotone
    everywhere, not only where ``T >= L^2``.

    Parameters
    ----------
    *args : Expression or float
        ``(T, L)``: an upper bound on the tandem risk and a bound on the Gibbs risk
        (lower for ``mu_nonnegative``, upper otherwise); both clipped into [0, 1].
    mu_nonnegative : bool, default=True
        The side ``mu >= 0``, else ``mu < 0``.
    """

    clipped = True  # the safeguards on T and L (bounding_form drops them: unclipped below)

    def __init__(self, *args, mu_nonnegative=True):
        super().__init__(*args)
        self.nonnegative = mu_nonnegative
        self.monotonicity = (1, -1) if mu_nonnegative else (1, 1)

    def _apply(self, arguments, rounding):
        return self._least(*np.broadcast_arrays(*arguments), rounding)

    def _curvature(self, kinds, ranges):
        """Without the safeguards, concave: the least over ``v`` of functions affine in
        ``(T, L)``; where ``T`` is in [0, 1] and ``L`` in the range no clip changes."""
        T, L = ranges
        inside = _within(T, 0.0, 1.0) and _within(L, 0.0, np.inf if self.nonnegative else 1.0)
        concave = _composes(kinds, self.monotonicity, "concave")
        return "concave" if not self.clipped and inside and concave else None

    def unclipped(self, T, L, rounding):
        """Evaluate the least value over the side without the safeguards.

        That is ``inf over the side's v of 1 - (1 - 2L) v + (T - L + 1/4) v^2`` at any
        ``T``, ``L``, rounded in ``rounding``: ``-inf`` where it is unbounded below (on
        ``mu >= 0`` where the square's weight ``a`` is negative, or zero with a rising
        slope). Where no safeguard acts it is the atom's value; elsewhere below it.

        Parameters
        ----------
        T, L : ndarray
            The arguments.
        rounding : {-1, 0, 1}
            The direction to round in.

        Returns
        -------
        ndarray
            The value.
        """
        if not self.nonnegative:
            return self._least(T, L, rounding)
        T, L = np.asarray(T, dtype=float), np.asarray(L, dtype=float)
        b, a = 1 - 2 * L, T - L + 0.25
        slack = 4 * EPS * (np.abs(T) + np.abs(L) + 0.25)  # a's and b's rounding, at most
        a_out = a + rounding * slack  # each moves the value in the rounding's direction
        b_out = np.maximum(np.abs(b) - rounding * slack, 0.0)
        two = 1 - 2 * b + 4 * a  # at v = 2, the side's end
        two = two + rounding * 16 * EPS * (1 + 2 * np.abs(b) + 4 * np.abs(a))
        with np.errstate(divide="ignore", invalid="ignore"):
            vertex = 1 - b_out * b_out / (4 * a_out)  # at v* = b / 2a
            vertex = vertex + rounding * 16 * EPS * (1 + np.abs(vertex))
        # v* >= 2; where rounding cannot tell, below takes the vertex too, above not
        inside = (b > -slack) & (b - 4 * a > rounding * 1e-9 * (1 + np.abs(a))) & (a_out > 0)
        value = np.where(inside, np.minimum(vertex, two), two)
        unbounded = (a_out < 0) | ((a_out <= 0) & (b > rounding * slack))
        return nudge(np.where(unbounded, -np.inf, value), rounding)

    def _least(self, T, L, rounding):
        """The least value over the side at ``(T, L)``, rounded in ``rounding``."""
        if self.nonnegative and not self.clipped:
            return self.unclipped(T, L, rounding)
        T, L = np.clip(T, 0.0, 1.0), np.clip(L, 0.0, 1.0)
        if self.nonnegative:  # a lower bound on the Gibbs risk may be lowered
            L = np.minimum(L, np.minimum(0.5, np.sqrt(T)))
        lo, hi = (2.0, np.inf) if self.nonnegative else (0.0, 2.0)
        b, a = 1 - 2 * L, T - L + 0.25

        def q(v):
            return 1 - b * v + a * v * v, 16 * EPS * (1 + np.abs(b) * v + np.abs(a) * v * v)

        ends = [q(lo)] + ([q(hi)] if np.isfinite(hi) else [])
        with np.errstate(divide="ignore", invalid="ignore"):
            vertex = np.where(a > 0, b / (2 * a), -np.inf)
            slack = 1e-9 * (1 + np.abs(vertex))  # the computed vertex is within this
            inside = (vertex > lo - slack) & (vertex < hi + slack)
            least = np.where(a > 0, 1 - b * b / (4 * a), np.inf)
        _, vertex_margin = q(np.where(np.isfinite(vertex), np.abs(vertex), 0.0))
        candidates = [*ends, (np.where(inside, least, np.inf), vertex_margin)]
        values = [value + rounding * margin for value, margin in candidates]
        return nudge(np.minimum.reduce(values), rounding)

    def __repr__(self):
        side = "mu >= 0" if self.nonnegative else "mu < 0"
        return f"chebyshev_cantelli[{side}]({self.args[0]!r}, {self.args[1]!r})"


class SplitCantelli(ChebyshevCantelli):
    """The Chebyshev-Cantelli bound with the split-kl bound on the shifted tandem loss.

    Wu and Seldin (2022) split the ``mu``-shifted tandem loss ``Z``, which takes three
    values ``a < m < b`` by how many of two voters err, as
    ``Z = m + (b - m) 1[Z = b] - (m - a) 1[Z = a]``, and bound the two rates by kl
    inequalities: ``U`` above the rate at which both err (the tandem risk), ``V`` below
    the rate of ``Z = a``. For ``mu >= 0`` that is the rate at which exactly one errs
    and ``(a, m, b) = (-mu (1 - mu), mu^2, (1 - mu)^2)``; for ``mu < 0`` the rate at
    which neither errs and ``(a, m, b) = (mu^2, -mu (1 - mu), (1 - mu)^2)``. Then
    ``E[Z] <= U - 2 mu l + mu^2`` with ``l = U + V / 2`` (``mu >= 0``) or
    ``l = (1 + U - V) / 2`` (``mu < 0``), which is :class:`ChebyshevCantelli`'s
    numerator at ``(U, l)``, so the least value over the side is its closed form there.
    At each ``mu`` the numerator's slope is ``1 - 2 mu >= 0`` (``mu >= 0``) or
    ``1 - mu > 0`` in ``U`` and ``-mu`` in ``V``, so the atom increases in ``U`` and
    decreases in ``V`` on both sides.

    Parameters
    ----------
    *args : Expression or float
        ``(U, V)``: an upper bound on the tandem risk and a lower bound on the rate of
        exactly one error (``mu >= 0``) or of none (``mu < 0``).
    mu_nonnegative : bool, default=True
        The side ``mu >= 0``, else ``mu < 0``.
    """

    def __init__(self, *args, mu_nonnegative=True):
        super().__init__(*args, mu_nonnegative=mu_nonnegative)
        self.monotonicity = (1, -1)

    def _apply(self, arguments, rounding):
        U, V = (np.clip(x, 0.0, 1.0) for x in np.broadcast_arrays(*arguments))
        if self.nonnegative:  # the bound decreases in l here: round l the other way
            level = nudge(U + 0.5 * V, -rounding)
        else:
            level = nudge(0.5 * nudge(1 + U - V, rounding), rounding)
        return self._least(U, level, rounding)

    def __repr__(self):
        side = "mu >= 0" if self.nonnegative else "mu < 0"
        return f"split_cantelli[{side}]({self.args[0]!r}, {self.args[1]!r})"


_SPLIT_BELOW_SIDE = ChebyshevCantelli(0.0, 0.0, mu_nonnegative=False)  # its least value


class SplitCantelliBelow(Expression):
    """The ``mu < 0`` side of the split-kl Chebyshev-Cantelli bound on one shared sample.

    For ``mu < 0`` the split of the ``mu``-shifted tandem loss needs an upper bound on
    the rate at which at least one of two voters errs (:class:`SplitCantelli` takes a
    lower bound on its complement). On one sample that rate is ``2 L - T`` at the
    posterior, with ``L`` the Gibbs risk and ``T`` the tandem risk, so with
    ``U(t) = kl^-1(t, e)`` and ``R(t) = kl^-1(2 L - t, e)`` the side's value is
    ``g(T)``, ``g(t) = CC(U(t), (U(t) + R(t)) / 2)`` (:class:`ChebyshevCantelli`'s least
    value over ``mu < 0``). ``g`` is concave but not monotone in ``t``; this atom is its
    increasing envelope ``G = max {g(t) : 0 <= t <= min(T, 2 L)}``, at least ``g(T)``
    (so a valid bound), equal to it wherever ``g`` rises at ``T``, as it does at the
    posteriors of forests (the tandem risk's inverse rises faster than the other's), and
    concave and increasing in ``(T, L, e)`` (a partial maximum of a jointly concave
    function over a convex set): three convex terms, certified by
    :mod:`cvxpb.engine.declare.vertices`.

    Where a secant from the end one step on proves ``g`` rising there, every secant
    before has a greater slope (``g`` is concave), so ``G`` is ``g`` at the end.
    Elsewhere, rounded down, ``g`` at its peak found by golden sections (at most ``G``);
    rounded up, ``CC`` at ``U`` of the end and ``R`` of 0, which bounds ``g`` on the whole
    interval.

    Parameters
    ----------
    *args : Expression or float
        ``(T, L, e)``: the empirical tandem risk, the empirical Gibbs risk on the same
        sample, and the kl inequalities' right-hand side.
    """

    monotonicity = (1, 1, 1)

    def _apply(self, arguments, rounding):
        T, L, e = (np.asarray(x, dtype=float) for x in np.broadcast_arrays(*arguments))
        end = np.clip(np.minimum(T, 2 * L), 0.0, 1.0)
        L, e = np.clip(L, 0.0, 1.0), np.maximum(e, 0.0)
        value = self._g(end, L, e, rounding)
        step = np.maximum(1e-7 * end, 1e-12)
        ahead = end + step
        room = ahead <= np.minimum(2 * L, 1.0)  # g is defined a step past the end
        after = self._g(np.where(room, ahead, end), L, e, -1)
        rising = (end == 0) | (room & (after >= self._g(end, L, e, +1)))
        if np.all(rising):
            return value
        if rounding > 0:  # g on [0, end] is at most its parts' ends
            far = _SPLIT_BELOW_SIDE._least(
                _KL_DISTANCE.inverse(end, e, +1),
                self._level(end, np.minimum(2 * L, 1.0), e, +1),
                +1,
            )
            return np.where(rising, value, np.maximum(value, far))
        peak = self._g(self._argmax(end, L, e), L, e, rounding)  # g there is at most G
        return np.where(rising, value, np.maximum(value, peak))

    def _argmax(self, end, L, e, steps=40):
        """Where ``g`` peaks on ``[0, end]``, by golden sections (``g`` is concave)."""
        low, high = np.zeros_like(end), end.copy()
        ratio = (np.sqrt(5.0) - 1) / 2
        for _ in range(steps):
            left, right = high - ratio * (high - low), low + ratio * (high - low)
            falling = self._g(left, L, e, 0) >= self._g(right, L, e, 0)
            low, high = np.where(falling, low, left), np.where(falling, right, high)
        return (low + high) / 2

    @staticmethod
    def _level(t, r, e, rounding):
        """``(U(t) + kl^-1(r, e)) / 2`` rounded in ``rounding``."""
        U = _KL_DISTANCE.inverse(t, e, rounding)
        R = _KL_DISTANCE.inverse(np.clip(r, 0.0, 1.0), e, rounding)
        return nudge(0.5 * nudge(U + R, rounding), rounding)

    def _g(self, t, L, e, rounding):
        """``g(t)`` rounded in ``rounding``."""
        U = _KL_DISTANCE.inverse(t, e, rounding)
        level = self._level(t, np.minimum(2 * L - t, 1.0), e, rounding)
        return _SPLIT_BELOW_SIDE._least(U, level, rounding)

    def _curvature(self, kinds, ranges):
        """Concave where ``T``, ``L`` and ``e`` are at least 0 (the class's text)."""
        inside = all(_within(r, 0.0) for r in ranges)
        concave = _composes(kinds, self.monotonicity, "concave")
        return "concave" if inside and concave else None

    def __repr__(self):
        return f"split_cantelli_below({', '.join(map(repr, self.args))})"


class CTandem(Expression):
    """Masegosa et al.'s (2020) C-tandem bound as an atom of the empirical tandem risk.

    Chebyshev-Cantelli for the weighted error ``Z`` of the vote (``E Z = L``, the Gibbs
    risk; ``E Z^2 = T``, the tandem risk): where ``L < 1/2`` the vote's risk is at most
    ``(T - L^2) / (T - L + 1/4)``. Masegosa et al. bound the numerator above at
    ``(T_hi, L_lo)`` and the denominator below at ``(T_lo, L_hi)``, with
    ``T_hi, T_lo = kl^-1(T_hat, e)`` the two sides of one kl inequality on the empirical
    tandem risk ``T_hat``: the value is ``N / D``, ``N = T_hi - L_lo^2``,
    ``D = T_lo - L_hi + 1/4``, capped at 1, and 1 where ``D <= 0``, ``L_hi >= 1/2`` or
    ``T_hi > 1/2``. Where ``N < 0`` the two inequalities cannot both hold (the tandem risk
    is at least the Gibbs risk squared, by Jensen): the value is 0 there, as any value
    is true on an event that has failed.

    ``T_hat`` enters both ``N`` and ``D``, and the value still increases in it: where
    ``T_hi <= 1/2``, ``dT_hi / dT_hat >= 1 >= dT_lo / dT_hat`` (each slope is
    ``f``'s mean between ``T_hat`` and the inverse over ``f`` at the inverse,
    ``f(s) = 1 / (s (1 - s))`` falling on (0, 1/2]), so ``N - lam D`` increases in it
    for every ``lam`` in [0, 1], and the value is the largest ``lam <= 1`` with
    ``N - mu D >= 0`` for every ``mu`` in ``[0, lam]`` (0 where there is none); above,
    it is 1. It increases in ``e`` and ``L_hi`` and decreases in ``L_lo`` the same
    way. Without the caps at 1 for ``L_hi >= 1/2`` and ``T_hi > 1/2`` (its
    :meth:`bounding_form` below, with ``clipped`` off) it is **quasi-concave**: each
    ``N - mu D`` is concave (``kl^-1`` is jointly concave above and convex below), so
    each set where the value is at least ``lam`` is an intersection of convex sets; the
    least value over a polytope is then at a vertex, which is what
    :mod:`cvxpb.engine.declare.vertices` needs.

    Parameters
    ----------
    *args : Expression or float
        ``(T, e, L_lo, L_hi)``: the empirical tandem risk, its kl inequality's right-hand
        side, and bounds below and above on the Gibbs risk.
    """

    monotonicity = (1, 1, -1, 1)
    clipped = True  # the caps at 1 for L_hi >= 1/2 and T_hi > 1/2 (bounding_form drops them)

    def _apply(self, arguments, rounding):
        T, e, L_lo, L_hi = (np.asarray(x, dtype=float) for x in np.broadcast_arrays(*arguments))
        T, e = np.clip(T, 0.0, 1.0), np.maximum(e, 0.0)
        L_lo, L_hi = np.clip(L_lo, 0.0, 1.0), np.clip(L_hi, 0.0, 1.0)
        T_hi = _KL_DISTANCE.inverse(T, e, rounding)
        T_lo = _kl_lower(T, e, -rounding)
        numerator = nudge(T_hi - nudge(L_lo * L_lo, -rounding), rounding)
        spread = nudge(nudge(T_lo - L_hi, -rounding) + 0.25, -rounding)
        with np.errstate(divide="ignore", invalid="ignore"):
            ratio = np.minimum(nudge(numerator / spread, rounding), 1.0)
        value = np.where(numerator < 0, 0.0, np.where(spread <= 0, 1.0, ratio))
        if self.clipped:
            value = np.where((L_hi >= 0.5) | (T_hi > 0.5), 1.0, value)
        return value

    def _curvature(self, kinds, ranges):
        """Without the caps, quasi-concave (the class's text) where ``T`` is affine in
        the terms, ``e`` and ``L_hi`` concave, ``L_lo`` convex, no clip acts, and
        ``T_hi <= 1/2`` over the box (where the value increases in ``T``)."""
        T, e, L_lo, L_hi = ranges
        shapes = (("affine",), ("affine", "concave"), ("affine", "convex"), ("affine", "concave"))
        fits = all(kind in allowed for kind, allowed in zip(kinds, shapes, strict=True))
        inside = _within(T, 0.0, 1.0) and _within(e, 0.0) and _within(L_lo, 0.0, 1.0)
        inside = inside and _within(L_hi, 0.0, 1.0)
        if self.clipped or not (fits and inside):
            return None
        top = float(_KL_DISTANCE.inverse(np.float64(T[1]), np.float64(e[1]), +1))
        return "quasiconcave" if top <= 0.5 else None

    def __repr__(self):
        return f"c_tandem({', '.join(map(repr, self.args))})"


class PacBayesBennett(Expression):
    """The PAC-Bayes-Bennett excess of a loss over its empirical mean, at its best grid point.

    Wu, Masegosa, Lorenzen, Igel and Seldin (2021) combine Bennett's inequality with the
    PAC-Bayesian change of measure. For a loss ``Z`` with ``E[Z] - Z <= b`` (here ``b`` is
    the loss's range) and any ``gamma > 0``,
    ``E[exp(gamma (E[Z] - Z))] <= exp(phi(gamma b) / b^2 Var[Z])`` with
    ``phi(u) = e^u - u - 1`` (Bennett's lemma), so with probability ``1 - delta``, for
    every posterior at once, ``E[Z] <= Z_hat + phi(gamma b) / (gamma b^2) V + (D + c) /
    (gamma n)``, with ``V`` the posterior's average variance, ``D`` its divergence and
    ``c = ln(1 / delta)``. ``V`` is itself bounded by Tolstikhin and Seldin's (2013)
    PAC-Bayes-empirical-Bernstein inequality for the variance, at every ``t`` in (0, 1):
    ``V <= V_hat / (1 - t) + b^2 (D + c_V) / (2 (n - 1) t (1 - t))``, with ``V_hat`` the
    average of unbiased empirical variances, and by ``b^2 / 4`` (Popoviciu). Both hold
    on grids fixed before the data by the union bound (the costs ``c`` and ``c_V`` carry
    the grids' sizes), so the atom is the least value over both grids of functions
    affine in ``(V_hat, D)`` with nonnegative slopes: increasing in both, and concave.

    Parameters
    ----------
    *args : Expression or float
        ``(V_hat, D)``: the empirical variance and the divergence.
    n : int
        The sample size (at least 2).
    spread : float
        ``b``: the loss's range.
    gammas : array_like
        The grid of ``gamma b`` (positive).
    cost : float
        ``c``: ``ln`` of the Bennett grid's size over its confidence.
    ts : array_like
        The grid of ``t`` in (0, 1) of the variance bound.
    variance_cost : float
        ``c_V``: ``ln`` of that grid's size over its confidence.
    """

    monotonicity = (1, 1)

    def __init__(self, *args, n, spread, gammas, cost, ts, variance_cost):
        super().__init__(*args)
        self.n, self.spread, self.cost, self.variance_cost = n, spread, cost, variance_cost
        self.gammas = np.asarray(gammas, dtype=float)
        self.ts = np.asarray(ts, dtype=float)

    def _apply(self, arguments, rounding):
        V, D = (np.maximum(x, 0.0)[..., None] for x in np.broadcast_arrays(*arguments))
        b, n, t = self.spread, self.n, self.ts
        variance = np.min(
            V / (1 - t) + b * b * (D + self.variance_cost) / (2 * (n - 1) * t * (1 - t)), axis=-1
        )
        variance = np.minimum(variance, b * b / 4)[..., None]
        x = self.gammas  # gamma b
        weight = (np.expm1(x) - x) / (x * b)  # phi(gamma b) / (gamma b^2), by expm1
        value = np.min(weight * variance + b * (D + self.cost) / (x * n), axis=-1)
        return nudge(value * (1 + rounding * 64 * EPS), rounding)

    def _curvature(self, kinds, ranges):
        """Concave: the least over the grids of functions affine in ``(V_hat, D)``."""
        inside = _within(ranges[0], 0.0) and _within(ranges[1], 0.0)
        return "concave" if inside and _composes(kinds, self.monotonicity, "concave") else None

    def __repr__(self):
        return f"pac_bayes_bennett({self.args[0]!r}, {self.args[1]!r})"


class PacBayes(Expression):
    """The bound ``g(L, D)`` of one distance and divergence, as an atom.

    ``g`` is a :class:`cvxpb.pac_bayes.bounds.Bound` (Sahu & Hemachandra's Theorem 1,
    or the KL bounds): increasing in both arguments. ``L`` is clipped into [0, 1] and
    ``D`` at 0, which the true values are in.

    Parameters
    ----------
    function : Bound
        The bound's function of the risk and the divergence.
    L : Expression or float
        The Gibbs risk.
    D : Expression or float
        The divergence as the bound takes it.
    """

    monotonicity = (1, 1)

    def __init__(self, function, L, D):
        super().__init__(L, D)
        self.function = function

    def _apply(self, arguments, rounding):
        L, D = np.broadcast_arrays(*arguments)
        return self.function(np.clip(L, 0.0, 1.0), np.maximum(D, 0.0), rounding)

    def _curvature(self, kinds, ranges):
        """Concave where the divergence says its bound with this distance is jointly
        concave (:meth:`cvxpb.pac_bayes.divergences.Divergence.concave_bound`; the kl
        distance with KL) and the clips that would bend it do not act: ``L >= 0`` and
        ``D >= 0`` (``L`` clipped at 1 from above keeps it concave)."""
        f = self.function
        inside = _within(ranges[0], 0.0) and _within(ranges[1], 0.0)
        concave = f.measure.concave_bound(f.metric) and inside
        return "concave" if concave and _composes(kinds, self.monotonicity, "concave") else None

    def __repr__(self):
        f = self.function
        return f"pac_bayes[{f.distance}, {f.divergence}]({self.args[0]!r}, {self.args[1]!r})"


def pac_bayes(function, L, D) -> Expression:
    """Declare the bound ``function`` of a risk and a divergence.

    Parameters
    ----------
    function : Bound
        A :class:`cvxpb.pac_bayes.bounds.Bound` of one distance and divergence.
    L : Expression or float
        The Gibbs risk.
    D : Expression or float
        The divergence as the bound takes it (``sum q^2 / p`` for chi2, ``D_alpha`` for
        renyi, KL for kl).

    Returns
    -------
    Expression
        ``function(L, D)``, increasing in both.
    """
    return PacBayes(function, L, D)


def sqrt(x) -> Expression:
    """The square root ``x ** 0.5`` (negative arguments clipped to 0).

    Parameters
    ----------
    x : Expression or float
        The argument.

    Returns
    -------
    Expression
        The atom, increasing.
    """
    return Power(x, 0.5)


def log(x) -> Expression:
    """The natural logarithm.

    Parameters
    ----------
    x : Expression or float
        The argument.

    Returns
    -------
    Expression
        The atom, increasing.
    """
    return Elementary("log", x)


def exp(x) -> Expression:
    """The exponential.

    Parameters
    ----------
    x : Expression or float
        The argument.

    Returns
    -------
    Expression
        The atom, increasing.
    """
    return Elementary("exp", x)


def inv(x) -> Expression:
    """``1 / x`` for ``x > 0``.

    Parameters
    ----------
    x : Expression or float
        The argument.

    Returns
    -------
    Expression
        The atom, decreasing.
    """
    return Inverse(x)


def kl_inverse(L, e) -> Expression:
    """The upper kl inverse ``sup {r : kl(L, r) <= e}``.

    Parameters
    ----------
    L : Expression or float
        The empirical risk, clipped into [0, 1].
    e : Expression or float
        The right-hand side, clipped at 0.

    Returns
    -------
    Expression
        The atom, increasing in both.
    """
    return KLInverse(L, e, upper=True)


def kl_inverse_lower(L, e) -> Expression:
    """The lower kl inverse ``inf {r : kl(L, r) <= e}``.

    Parameters
    ----------
    L : Expression or float
        The empirical value, clipped into [0, 1].
    e : Expression or float
        The right-hand side, clipped at 0.

    Returns
    -------
    Expression
        The atom: increasing in ``L``, decreasing in ``e``.
    """
    return KLInverse(L, e, upper=False)


def c_bound(R, D) -> Expression:
    """Declare the C-bound on the majority vote's risk (Germain et al., 2015).

    ``1 - (1 - 2 R)^2 / (1 - 2 D)`` for ``R < 1/2``, else 1.

    Parameters
    ----------
    R : Expression or float
        An upper bound on the Gibbs risk.
    D : Expression or float
        A lower bound on the disagreement.

    Returns
    -------
    Expression
        The atom: increasing in ``R``, decreasing in ``D``.
    """
    return CBound(R, D)


def pac_bound_two(E, D, s) -> Expression:
    """Declare Germain et al.'s (2015) PAC-Bound 2 over its monotone region.

    Parameters
    ----------
    E : Expression or float
        The empirical joint error (tandem risk).
    D : Expression or float
        The empirical disagreement, on the same examples.
    s : Expression or float
        The trinomial kl inequality's side ``(2 KL + ln((xi(m) + m) / delta)) / m``.

    Returns
    -------
    Expression
        The atom: increasing in ``E`` and ``s``, decreasing in ``D``.
    """
    return PacBoundTwo(E, D, s)


def lambda_bound(L, e) -> Expression:
    """Declare Thiemann et al.'s (2017) PAC-Bayes-lambda bound at its best lambda.

    ``min over lambda in (0, 2) of (L + e / lambda) / (1 - lambda / 2)``, in closed form.

    Parameters
    ----------
    L : Expression or float
        The empirical risk.
    e : Expression or float
        The complexity term ``(KL + log(2 sqrt(n) / delta)) / n``.

    Returns
    -------
    Expression
        The atom, increasing in both.
    """
    return LambdaBound(L, e)


def split_cantelli_below(T, L, e) -> Expression:
    """Declare the ``mu < 0`` side of the split-kl bound on one shared sample.

    See :class:`SplitCantelliBelow`.

    Parameters
    ----------
    T : Expression or float
        The empirical tandem risk.
    L : Expression or float
        The empirical Gibbs risk, on the same sample.
    e : Expression or float
        The kl inequalities' right-hand side.

    Returns
    -------
    Expression
        The atom: increasing in each argument, concave where they are at least 0.

    Examples
    --------
    >>> from cvxpb.engine.declare.expressions import split_cantelli_below
    >>> round(float(split_cantelli_below(0.05, 0.2, 0.01).evaluate(None, 0)), 4)
    0.3476
    """
    return SplitCantelliBelow(T, L, e)


def chebyshev_cantelli(T, L, mu_nonnegative=True) -> Expression:
    """Declare Wu et al.'s (2021) Chebyshev-Cantelli bound at its best ``mu`` on one side.

    ``min over mu of (T - 2 mu L + mu^2) / (1/2 - mu)^2``, over ``mu >= 0`` or over
    ``mu < 0``, in closed form (:class:`ChebyshevCantelli`).

    Parameters
    ----------
    T : Expression or float
        An upper bound on the tandem risk.
    L : Expression or float
        A lower bound on the Gibbs risk for ``mu_nonnegative``, an upper bound otherwise.
    mu_nonnegative : bool, default=True
        Which side of 0 ``mu`` ranges over.

    Returns
    -------
    Expression
        The atom: increasing in ``T``; decreasing in ``L`` for ``mu >= 0``, increasing
        for ``mu < 0``.

    Examples
    --------
    At ``mu = 0`` the bound is the tandem bound ``4 T``; a better ``mu`` only lowers it:

    >>> float(chebyshev_cantelli(0.05, 0.2).evaluate(None, 0)) < 4 * 0.05
    True
    """
    return ChebyshevCantelli(T, L, mu_nonnegative=mu_nonnegative)


def split_cantelli(U, V, mu_nonnegative=True) -> Expression:
    """Declare the split-kl Chebyshev-Cantelli bound at its best ``mu`` on one side.

    Wu and Seldin's (2022) bound on the vote's risk from the split of the ``mu``-shifted
    tandem loss (:class:`SplitCantelli`), least over ``mu >= 0`` or over ``mu < 0``.

    Parameters
    ----------
    U : Expression or float
        An upper bound on the tandem risk.
    V : Expression or float
        A lower bound on the rate at which exactly one of two voters errs
        (``mu_nonnegative``), or neither does (otherwise).
    mu_nonnegative : bool, default=True
        The side ``mu >= 0``, else ``mu < 0``.

    Returns
    -------
    Expression
        The atom: increasing in ``U``, decreasing in ``V``.

    Examples
    --------
    >>> from cvxpb.engine.declare.expressions import split_cantelli
    >>> float(split_cantelli(0.05, 0.3).evaluate(None, 0)) < 4 * 0.05
    True
    """
    return SplitCantelli(U, V, mu_nonnegative=mu_nonnegative)


def c_tandem(T, e, L_lo, L_hi) -> Expression:
    """Masegosa et al.'s (2020) C-tandem bound at the empirical tandem risk.

    See :class:`CTandem`.

    Parameters
    ----------
    T : Expression or float
        The empirical tandem risk.
    e : Expression or float
        The right-hand side of its kl inequality.
    L_lo, L_hi : Expression or float
        Bounds below and above on the Gibbs risk.

    Returns
    -------
    Expression
        The atom: increasing in ``T``, ``e`` and ``L_hi``, decreasing in ``L_lo``.

    Examples
    --------
    With exact risks (``e = 0``) it is ``(T - L^2) / (T - L + 1/4)``:

    >>> round(float(c_tandem(0.05, 0.0, 0.1, 0.1).evaluate(None, 0)), 6)  # 0.04 / 0.2
    0.2
    """
    return CTandem(T, e, L_lo, L_hi)


def pac_bayes_bennett(V, D, *, n, spread, gammas, cost, ts, variance_cost) -> Expression:
    """The PAC-Bayes-Bennett excess ``E[Z] - Z_hat`` at its best grid point.

    See :class:`PacBayesBennett` for the inequalities and the parameters.

    Parameters
    ----------
    V, D : Expression or float
        The posterior's average unbiased empirical variance and its divergence.
    n : int
        The sample size (at least 2).
    spread : float
        The loss's range ``b``.
    gammas : array_like
        The grid of ``gamma b``.
    cost : float
        ``ln`` of the Bennett grid's size over its confidence.
    ts : array_like
        The grid of ``t`` in (0, 1) of the variance bound.
    variance_cost : float
        ``ln`` of that grid's size over its confidence.

    Returns
    -------
    Expression
        The atom, increasing and concave in both arguments.
    """
    return PacBayesBennett(
        V, D, n=n, spread=spread, gammas=gammas, cost=cost, ts=ts, variance_cost=variance_cost
    )


def minimum(*args) -> Expression:
    """The least of the arguments.

    Parameters
    ----------
    *args : Expression or float
        The arguments.

    Returns
    -------
    Expression
        The atom, increasing in each argument.
    """
    return Extreme(*args, least=True)


def maximum(*args) -> Expression:
    """The largest of the arguments.

    Parameters
    ----------
    *args : Expression or float
        The arguments.

    Returns
    -------
    Expression
        The atom, increasing in each argument.
    """
    return Extreme(*args, least=False)


def union_min(make, grid, delta) -> Expression:
    """Declare the least of a bound over a grid of parameter values, by the union bound.

    ``min over v in grid of make(v, delta / len(grid))``: each grid value's bound holds
    at confidence ``delta / len(grid)``, so all hold at once with probability at least
    ``1 - delta`` and so does their least value.

    Parameters
    ----------
    make : callable
        ``make(v, delta)``: the declared bound at the parameter value ``v`` and
        confidence ``delta``.
    grid : array_like
        The parameter values (finite, at least one).
    delta : float
        The confidence shared among the grid.

    Returns
    -------
    Expression
        The minimum of the grid's bounds.

    Raises
    ------
    ValueError
        If ``grid`` is empty or holds a non-finite value.

    Examples
    --------
    >>> import cvxpb as pb
    >>> q = pb.Posterior.uniform(3)
    >>> L, kl = pb.gibbs_risk(q, [0.1, 0.2, 0.3]), pb.KL(q)
    >>> bound = pb.union_min(lambda lam, d: L / (1 - lam / 2) + kl / lam, [0.5, 1.0], 0.05)
    >>> type(bound).__name__
    'Extreme'
    """
    grid = np.asarray(grid, dtype=float).ravel()
    if grid.size == 0 or np.any(~np.isfinite(grid)):
        raise ValueError("grid must be a non-empty array of finite values")
    share = float(delta) / grid.size
    return minimum(*(make(float(v), share) for v in grid))
