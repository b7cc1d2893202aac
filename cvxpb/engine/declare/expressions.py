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

from cvxpb.numerics.tolerances import nudge


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
    domain: tuple = ()  # coefficients a over the arguments, each with a @ args >= 0 at every
    # rate a sample gives and the atom -inf (from below) elsewhere: the vertex search cuts
    # its polytope there once a vertex lies past it (cvxpb.engine.declare.vertices)

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


def composes(kinds, monotonicity, want) -> bool:
    """Apply the composition rule: an atom ``want`` in its arguments keeps that curvature.

    It does where it is increasing in arguments of that curvature, decreasing in those
    of the opposite one, and any way in affine ones: an atom's ``_curvature`` calls it
    (a user's atom as ours).

    Parameters
    ----------
    kinds : sequence of str
        Each argument's curvature (``"affine"``, ``"convex"``, ``"concave"``).
    monotonicity : sequence of {1, -1, 0, None}
        The atom's direction in each argument.
    want : {"concave", "convex"}
        The atom's own curvature in its arguments.

    Returns
    -------
    bool
        Whether the composition has curvature ``want``.
    """
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
        if composes(kinds, monotonicity, want):
            return want
    return None


def within(bounds, low=-np.inf, high=np.inf, open_high=False) -> bool:
    """Say whether an argument's range on the terms' box lies in an interval.

    Parameters
    ----------
    bounds : tuple of float
        The range ``(a, b)``.
    low, high : float
        The interval's ends.
    open_high : bool, default=False
        ``[low, high)`` instead of ``[low, high]``.

    Returns
    -------
    bool
        Whether ``[a, b]`` lies in the interval.
    """
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
        convex = composes(kinds, self.monotonicity, "convex") and ranges[0][0] > 0
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
            return "convex" if composes(kinds, self.monotonicity, "convex") else None
        concave = composes(kinds, self.monotonicity, "concave") and within(ranges[0], 0)
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
            return "convex" if composes(kinds, self.monotonicity, "convex") else None
        concave = composes(kinds, self.monotonicity, "concave") and ranges[0][0] > 0
        return "concave" if concave else None

    def __repr__(self):
        return f"{self.name}({self.args[0]!r})"


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
        if composes(kinds, self.monotonicity, want):
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
        inside = within(ranges[0], 0.0) and within(ranges[1], 0.0)
        concave = f.measure.concave_bound(f.metric) and inside
        return "concave" if concave and composes(kinds, self.monotonicity, "concave") else None

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
