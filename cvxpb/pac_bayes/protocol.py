"""The members a divergence and a distance offer, stated once, and objects that offer them.

A divergence or distance is any object with the required members of
:data:`DIVERGENCE_MEMBERS` or :data:`DISTANCE_MEMBERS`, and a divergence's family of
optimal posteriors (what ``family(risks, prior)`` returns) one with those of
:data:`FAMILY_MEMBERS` (:class:`cvxpb.pac_bayes.families.Family` holds their defaults); subclassing
:class:`cvxpb.Divergence` or :class:`cvxpb.pac_bayes.distances.Distance` is one way to
have the defaults of the optional ones, :func:`adopt` the other: it wraps a user's
object so that the members it lacks take the base class's defaults and the ones it
has are its own. Each engine and method asks for the members it needs and, where one
is missing, says which (:mod:`cvxpb.engine.methods`); the docs' table of members is
made from these lists, so it names every member the engines use.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class Member:
    """One member of a protocol.

    Parameters
    ----------
    name : str
        The attribute's name.
    call : str
        How it is called (its arguments), or ``""`` for a plain attribute.
    what : str
        What it gives.
    who : str
        Which engines and methods ask for it.
    required : bool
        Whether every use needs it (no default).
    for_bounds : bool
        Whether every bound needs it (a change of measure), though a term of a declared
        bound does not.
    unless : str
        Another member that, where the object has its own, does this one's work (a
        ``bound_value`` of its own needs no ``right_side``).
    arrays : tuple of int
        The arguments the engines may pass as arrays, by position: an adopted object's
        member is called on each element in turn unless the object says
        ``vectorized = True``.
    """

    name: str
    call: str
    what: str
    who: str
    required: bool = False
    for_bounds: bool = False
    unless: str = ""
    arrays: tuple = ()

    def written(self) -> str:
        """Write the member as code.

        Returns
        -------
        str
            ``core(q, p, rounding)``, or the attribute's name.
        """
        return f"{self.name}({self.call})" if self.call else self.name


_DECLARED = "the declared engine (cvxpb.Minimize)"
_BOUNDS = "every bound of it (cvxpb.Bound, BoundProblem, the majority-vote bounds)"

DIVERGENCE_MEMBERS = (
    Member("name", "", "the word users pass and results name it by", "everyone", True),
    Member(
        "core",
        "q, p, rounding",
        "the convex core at q, rounded outward (rounding=+1 up, -1 down)",
        "everyone",
        True,
    ),
    Member(
        "transform",
        "core, rounding",
        "the divergence from its core, increasing (identity by default)",
        _DECLARED,
        arrays=(0,),
    ),
    Member(
        "affine_transform",
        "",
        "True where an overridden transform is affine (the term is then convex)",
        _DECLARED,
    ),
    Member("core_gradient", "q, p", "the core's gradient", f"{_DECLARED}; the default gradient"),
    Member("expr", "q, p", "the core as a convex CVXPY expression", _DECLARED),
    Member(
        "linear_min",
        "p, g, mu",
        "the minimizer of g @ q + mu core(q) on the simplex and a lower bound on its value",
        f"{_DECLARED}: certificates by weak duality (else CVXPY and Frank-Wolfe)",
    ),
    Member(
        "least",
        "",
        "a value the core is never below (0 for KL), or None",
        f"{_DECLARED}: its box",
    ),
    Member(
        "least_value",
        "",
        "a value the bound's argument (value) is never below, or None",
        "every method: a bound that is 1 everywhere certified at once",
    ),
    Member(
        "least_curvature",
        "p",
        "a curvature the core has everywhere on the simplex (0 by default)",
        f"{_DECLARED}: curvature lent to indefinite forms",
    ),
    Member(
        "largest",
        "p",
        "the core's largest value on the simplex",
        f"{_DECLARED}: its box",
    ),
    Member("entropic", "", "True where the core is KL itself", f"{_DECLARED}: Newton's method"),
    Member(
        "accepts",
        "distance",
        "whether it has a bound with this distance",
        _BOUNDS,
        for_bounds=True,
    ),
    Member(
        "right_side",
        "bound, value, rounding",
        "the change of measure: rhs in phi(L, R) <= rhs",
        _BOUNDS,
        for_bounds=True,
        unless="bound_value",
        arrays=(1,),
    ),
    Member(
        "bound_value",
        "bound, L, value, rounding",
        "the bound on the true risk (the distance's inverse at right_side by default)",
        _BOUNDS,
        arrays=(1, 2),
    ),
    Member(
        "value",
        "q, p",
        "the argument the bound takes (the transformed core by default)",
        _BOUNDS,
    ),
    Member("rounding_error", "q, p", "a bound on value's rounding error (0)", _BOUNDS),
    Member(
        "gradient",
        "q, p",
        "value's gradient (by default the core's times the transform's derivative there)",
        "",
    ),
    Member(
        "reported",
        "value",
        "the divergence by its own definition, from value (value itself)",
        "results",
        arrays=(0,),
    ),
    Member("term_name", "", "the term's name in results (name by default)", "results"),
    Member(
        "alpha",
        "",
        "the order, for divergences of the Renyi family (None)",
        "the constant I_phi(m, alpha') of Theorem 1",
    ),
    Member(
        "uses_constant",
        "",
        "whether its bounds take the distance's constant I_phi (Theorem 1); the bound "
        "computes bound.constant on first use either way",
        "explain",
    ),
    Member("uses_grid", "", "whether its bounds may take a union-bounded grid", _BOUNDS),
    Member(
        "concave_bound",
        "distance",
        "whether its bound with distance is jointly concave in (L, value) (False)",
        f"{_DECLARED}: edges checked at their ends",
    ),
    Member(
        "additive",
        "",
        "True where the argument doubles on q x q against p x p (KL, Renyi)",
        "the tandem bounds",
    ),
    Member(
        "bound_argument",
        "term, copies",
        "the argument of q (copies=1) or q x q (copies=2) as a declared expression",
        "the tandem bounds",
    ),
    Member(
        "has_family",
        "",
        "True where family gives the posteriors that hold every optimum",
        "",
    ),
    Member(
        "family",
        "risks, prior",
        "that one-parameter family (cvxpb.pac_bayes.families)",
        "",
    ),
    Member(
        "cone",
        "bound, p",
        "(c2, r) where the change of measure is sqrt(c2 sum q_i^2 / r_i), a second-order cone",
        "right_side_expr by default",
    ),
    Member(
        "right_side_expr",
        "bound, q, p",
        "the change of measure as a convex CVXPY expression of q, or None",
        "",
    ),
    Member(
        "vectorized",
        "",
        "True where every member takes arrays where the table says (else each element in turn)",
        "everyone",
    ),
    Member("symbol", "", "how explain() writes its argument", "explain"),
    Member(
        "teaching_terms",
        "q, p",
        "the CVXPY expressions explain() shows",
        "explain",
    ),
    Member(
        "formula",
        "distance",
        "the bound with distance as a program, and why it is not DCP, for explain()",
        "explain",
    ),
)

DISTANCE_MEMBERS = (
    Member("name", "", "the word users pass", "everyone", True),
    Member(
        "inverse",
        "L, rhs, rounding",
        "the largest R with phi(L, R) <= rhs, rounded outward",
        "every bound",
        True,
        arrays=(0, 1),
    ),
    Member("phi", "lhat, l", "the distance itself", "nlp and the tests", arrays=(0, 1)),
    Member("expr", "lhat, l", "the distance as a CVXPY expression", "explain"),
    Member(
        "inverse_form",
        "",
        '"sum" (R = L + rhs), "root" (R = L + sqrt(rhs)), "kl" (the kl inverse) or None',
        "",
    ),
    Member(
        "at_least",
        "bound, L, div, threshold",
        "whether the bound reaches threshold (by evaluating it by default)",
        "exact: pruning",
    ),
    Member(
        "moment_bound",
        "",
        "whether Theorem 1 applies (the distance has a constant I_phi)",
        "the chi-squared and Renyi bounds",
    ),
    Member(
        "log_constant",
        "m, constants, alpha",
        "log I_phi(m, alpha'), rounded up",
        "the chi-squared and Renyi bounds",
    ),
    Member("constant", "m, constants, alpha", "I_phi(m, alpha')", "the chi-squared bounds"),
    Member(
        "kl_right_side",
        "K, m, delta, rounding",
        "rhs of the KL bound",
        "the KL bounds",
        arrays=(0,),
    ),
    Member(
        "kl_bound",
        "L, K, m, delta, grid, rounding",
        "the KL bound (the inverse at kl_right_side by default)",
        "the KL bounds",
        arrays=(0, 1),
    ),
    Member(
        "default_grid",
        "m",
        "the free parameter's grid of the KL bound, or None",
        "the KL bounds",
    ),
    Member(
        "concave_kl_bound",
        "",
        "whether the KL bound is jointly concave in (L, KL)",
        f"{_DECLARED}: edges checked at their ends",
    ),
    Member("teaching_form", "L, second, r", "the bound as explain() writes it", "explain"),
    Member(
        "vectorized",
        "",
        "True where every member takes arrays where the table says (else each element in turn)",
        "everyone",
    ),
)


_EXACT = "exact"

FAMILY_MEMBERS = (
    Member(
        "parameter",
        "",
        "the parameter's name in certificates (nu, beta)",
        _EXACT,
        True,
    ),
    Member(
        "L_increasing",
        "",
        "whether the Gibbs risk rises along v (the divergence's argument then falls)",
        f"{_EXACT}: which end of an interval bounds which term",
        True,
    ),
    Member(
        "stats",
        "x",
        "(L, div) at the points x of v, each an array: the family is v in [-800, 800], "
        "its ends the two limits",
        _EXACT,
        True,
        arrays=(0,),
    ),
    Member(
        "lower_terms",
        "x, L, div",
        "L and div moved down by at least their rounding errors (the interval bounds "
        "are proven with them)",
        _EXACT,
        True,
        arrays=(0, 1, 2),
    ),
    Member("posterior", "x", "the posterior at v = x over all the classifiers", _EXACT, True),
    Member(
        "parameter_value",
        "x",
        "the parameter at v = x, as the certificate reports it",
        _EXACT,
        True,
    ),
    Member("grid", "", "the first points of v searched", _EXACT, True),
    Member(
        "breaks",
        "",
        "the points of v where the support changes, or None (with them, the segment "
        "members of cvxpb.pac_bayes.families.NuFamily too)",
        f"{_EXACT}: pieces cut at the breaks",
        True,
    ),
    Member(
        "frontier_pairs",
        "",
        "second-order lower bounds of an interval's (L, div), or None",
        f"{_EXACT}: tighter interval bounds",
        True,
    ),
    Member(
        "program_weight",
        "parameter",
        "the mu at which that member solves min l @ q + mu core(q)",
        'formulation("exact")',
    ),
)


def placeholder(function):
    """Mark a base class's member as one it does not offer.

    The member raises, or says False, until a subclass or the adopted object gives its
    own: :func:`offers` then says the object lacks it.

    Parameters
    ----------
    function : callable
        The base class's method.

    Returns
    -------
    callable
        ``function``, marked.
    """
    function.not_offered = True
    return function


def own(obj, name: str, base: type) -> bool:
    """Say whether ``obj`` has a member ``name`` of its own (not ``base``'s default).

    Parameters
    ----------
    obj : object
        A divergence or distance, adopted or a subclass of ``base``.
    name : str
        The member.
    base : type
        The protocol's base class.

    Returns
    -------
    bool
        True where the member is the user's or a subclass's.
    """
    target = getattr(obj, "unwrapped", obj)
    if not hasattr(target, name):
        return False
    return getattr(type(target), name, None) is not getattr(base, name, None)


def offers(obj, name: str, base: type) -> bool:
    """Say whether ``obj`` offers the member ``name``.

    Its own, or a default of ``base`` that is not a :func:`placeholder`.

    Parameters
    ----------
    obj : object
        A divergence or distance.
    name : str
        The member.
    base : type
        The protocol's base class.

    Returns
    -------
    bool
        Whether an engine may call it.
    """
    if own(obj, name, base):
        return True
    default = getattr(base, name, None)
    return default is not None and not getattr(default, "not_offered", False)


def bound_refusal(obj, members, base: type) -> str | None:
    """Say, in one line, which member a bound needs that ``obj`` lacks.

    Parameters
    ----------
    obj : object
        A divergence.
    members : tuple of Member
        The protocol.
    base : type
        The protocol's base class.

    Returns
    -------
    str or None
        None where ``obj`` offers every member a bound needs (:attr:`Member.for_bounds`).
    """
    for m in members:
        if not m.for_bounds or offers(obj, m.name, base):
            continue
        if m.unless and own(obj, m.unless, base):
            continue
        kind = base.__name__.lower()
        return f"the {kind} {obj.name!r} has no {m.written()}, which every bound needs: {m.what}"
    return None


def missing(user, members) -> list[str]:
    """Name the required members ``user`` lacks.

    Parameters
    ----------
    user : object
        A divergence or distance.
    members : tuple of Member
        The protocol.

    Returns
    -------
    list of str
        The missing required members, as code.
    """
    return [m.written() for m in members if m.required and not hasattr(user, m.name)]


def offers_protocol(user, base: type) -> bool:
    """Say whether ``user`` is meant as an object of ``base``'s kind without being one.

    Parameters
    ----------
    user : object
        What the user passed.
    base : type
        The protocol's base class.

    Returns
    -------
    bool
        True for an object that is neither a word nor a ``base`` but has a ``name``
        (a misspelt word or a number is left to the caller's message).
    """
    return not isinstance(user, (str, base)) and hasattr(user, "name")


_ADOPTERS: dict = {}


def adopt(user, base: type, members):
    """Wrap ``user`` so that it offers the protocol of ``base``.

    The members of ``members`` that ``user`` has are its own; the others are
    ``base``'s defaults (which may call the user's: ``value`` transforms the user's
    ``core``).

    Parameters
    ----------
    user : object
        A divergence or distance that does not subclass ``base``.
    base : type
        :class:`cvxpb.Divergence` or :class:`cvxpb.pac_bayes.distances.Distance`.
    members : tuple of Member
        The protocol.

    Returns
    -------
    base
        The wrapped object; ``unwrapped`` is ``user``.

    Raises
    ------
    ValueError
        Naming the required members ``user`` lacks.
    """
    lacking = missing(user, members)
    if lacking:
        raise ValueError(
            f"a {base.__name__.lower()} needs {', '.join(lacking)}; "
            f"{type(user).__name__} has no {lacking[0]}"
        )
    key = (base, tuple(m.name for m in members))
    if key not in _ADOPTERS:
        arrays = {m.name: m.arrays for m in members if m.arrays}
        _ADOPTERS[key] = _adopter(base, frozenset(m.name for m in members), arrays)
    return _ADOPTERS[key](user)


def _adopter(base: type, names: frozenset, arrays: dict) -> type:
    """A subclass of ``base`` whose protocol members come from a wrapped object (those
    of ``arrays``, ``{name: positions}``, called element by element unless the object
    is ``vectorized``)."""

    def __init__(self, user):
        object.__setattr__(self, "unwrapped", user)

    def __getattribute__(self, name):
        if name in names:
            user = object.__getattribute__(self, "unwrapped")
            if hasattr(user, name):
                found = getattr(user, name)
                if name in arrays and not getattr(user, "vectorized", False):
                    return _elementwise(found, arrays[name])
                return found
        return object.__getattribute__(self, name)

    def __repr__(self):
        return repr(object.__getattribute__(self, "unwrapped"))

    def transform_is_affine(self):
        user = object.__getattribute__(self, "unwrapped")
        return not hasattr(user, "transform") or bool(getattr(user, "affine_transform", False))

    body = {
        "__init__": __init__,
        "__getattribute__": __getattribute__,
        "__repr__": __repr__,
        "transform_is_affine": transform_is_affine,
        "__doc__": f"A user's object offering the protocol of {base.__name__}.",
    }
    return type(f"Adopted{base.__name__}", (base,), body)


def _elementwise(function, positions):
    """``function`` called on each element of its arguments at ``positions`` (broadcast
    together) where any is an array: a member written for floats (``math.exp``) takes
    the arrays the engines pass."""

    def each(*args, **kwargs):
        values = [np.asarray(args[i], dtype=float) for i in positions if i < len(args)]
        if all(v.ndim == 0 for v in values):
            return function(*args, **kwargs)
        shaped = np.broadcast_arrays(*values)
        out = np.empty(shaped[0].shape)
        for index in np.ndindex(out.shape):
            call = list(args)
            for i, v in zip(positions, shaped, strict=False):
                call[i] = float(v[index])
            out[index] = function(*call, **kwargs)
        return out

    return each


def table(members, asked=None) -> str:
    """Write ``members`` as a reStructuredText list-table, for the docs.

    Parameters
    ----------
    members : tuple of Member
        The protocol.
    asked : dict, optional
        ``{member: [method, ...]}``: the methods whose requirements name each member
        (:func:`cvxpb.engine.methods.who_asks`), added to the engines' uses in ``who``.

    Returns
    -------
    str
        The table: member, required or not, what it gives, who asks for it.
    """
    asked = {} if asked is None else asked
    rows = [("member", "required", "what it gives", "who asks for it")]
    for m in members:
        required = "yes" if m.required else "for a bound" if m.for_bounds else ""
        what = m.what
        if m.unless:
            what += f" (not needed with a {m.unless} of its own)"
        if m.arrays:
            names = [m.call.split(", ")[i] for i in m.arrays]
            what += f"; {' and '.join(names)} may be arrays"
        methods = [f"method {name}" for name in asked.get(m.name, ())]
        rows.append(
            (f"``{m.written()}``", required, what, "; ".join(filter(None, [m.who, *methods])))
        )
    return list_table(rows)


def list_table(rows) -> str:
    """Write ``rows`` as a reStructuredText list-table whose first row is the header.

    Parameters
    ----------
    rows : list of tuple of str
        The header, then one tuple of cells per row.

    Returns
    -------
    str
        The directive and its rows.
    """
    lines = [".. list-table::", "   :header-rows: 1", ""]
    for row in rows:
        lines.append(f"   * - {row[0]}")
        lines.extend(f"     - {cell}" for cell in row[1:])
    return "\n".join(lines) + "\n"
