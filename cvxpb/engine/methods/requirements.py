"""What a method needs of a problem, stated as data.

As skglm's solvers name the attributes a datafit must have and CVXPY's conic solvers
list the cones they support, each method states what it needs in its ``requires``:
shapes of the declaration (:class:`Shape`: one bound of a Gibbs risk and a divergence,
three or more terms) and members of its distance or divergence (:class:`Needs`). Its
refusal is the first statement the problem does not meet, in one line; the docs' table
of methods and the protocol table's "who asks" column are made from the same
statements (:func:`cvxpb.engine.methods.requirement_rows`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from cvxpb.engine.declare.standard import TO_STANDARD_FORM
from cvxpb.pac_bayes.distances import Distance
from cvxpb.pac_bayes.divergences import Divergence
from cvxpb.pac_bayes.protocol import DISTANCE_MEMBERS, DIVERGENCE_MEMBERS, offers

_PROTOCOLS = {
    "distance": (DISTANCE_MEMBERS, Distance),
    "divergence": (DIVERGENCE_MEMBERS, Divergence),
}


@dataclass(frozen=True)
class Shape:
    """A shape a method needs of a declaration.

    Parameters
    ----------
    words : str
        The shape, as the docs' table says it.
    refusal : callable
        ``refusal(problem) -> str or None``: what the declaration is instead, in one
        line, or None where it has the shape.
    """

    words: str
    refusal: Callable

    def written(self) -> str:
        """Write the shape for the docs' table.

        Returns
        -------
        str
            ``words``.
        """
        return self.words

    def members(self) -> tuple:
        """Name the protocol members asked for: none, a shape is the declaration's.

        Returns
        -------
        tuple
            Empty.
        """
        return ()


def _not_one_bound(problem) -> str | None:
    if TO_STANDARD_FORM.accepts(problem):
        return None
    return (
        "the declaration is not one PAC-Bayes bound of a Gibbs risk and a divergence "
        "(c * pac_bayes(bound, gibbs_risk(q, risks), D(q)), c > 0)"
    )


ONE_BOUND = Shape("one bound of a Gibbs risk and a divergence (its standard form)", _not_one_bound)


@dataclass(frozen=True)
class Needs:
    """A member a method needs of the distance or the divergence.

    Parameters
    ----------
    of : {"distance", "divergence"}
        Whose member: the standard form's, or, with ``each_term``, every divergence
        of the declaration's terms that has no closed-form minimum of its own.
    member : str
        The member, a name of :mod:`cvxpb.pac_bayes.protocol`.
    missing : str
        What the refusal says the object lacks.
    values : tuple, optional
        For an attribute: the values the method takes (by default it must be true).
    gives : bool, default=False
        Called with the bound's own arguments (by the protocol's names: ``bound``,
        ``p``, ``q``), it must give something, not None.
    instead : str, optional
        Another member that does the same work for the method.
    also : str, optional
        A member the method calls where ``member`` says it may (``family`` where
        ``has_family``): named with it, not checked.
    each_term : bool, default=False
        Asked of the declaration's divergence terms, not of a standard form.
    """

    of: str
    member: str
    missing: str
    values: tuple = ()
    gives: bool = False
    instead: str = ""
    also: str = ""
    each_term: bool = False

    def written(self, whose: bool = True) -> str:
        """Write what is needed as code, for the docs' table and the refusal.

        Parameters
        ----------
        whose : bool, default=True
            Prefix each member with whose it is (``divergence.cone(bound, p)``).

        Returns
        -------
        str
            ``cone(bound, p)``, ``inverse_form in ('sum',)`` or ``linear_min(p, g, mu)
            or expr(q, p)``.
        """
        prefix = f"{self.of}." if whose else ""
        text = prefix + _member(self.of, self.member).written()
        if self.values:
            text += f" in {self.values!r}"
        if self.instead:
            text += f" or {prefix}{_member(self.of, self.instead).written()}"
        if self.also:
            text += f" and {prefix}{_member(self.of, self.also).written()}"
        return text

    def members(self) -> tuple:
        """Name the protocol members this statement asks for.

        Returns
        -------
        tuple of str
            ``member``, and ``instead`` and ``also`` where given.
        """
        return tuple(name for name in (self.member, self.instead, self.also) if name)

    def refusal(self, problem) -> str | None:
        """Say what ``problem``'s distance or divergence lacks, in one line.

        Parameters
        ----------
        problem : cvxpb.Minimize
            The declaration; a standard form for all but ``each_term``.

        Returns
        -------
        str or None
            The refusal naming the member; None where every object asked meets it.
        """
        if self.each_term:
            terms = problem.declared().terms
            found = [t.measure for t in terms if _measured(t) and not t.closed_form_min]
            return next((self._words(m) for m in found if not self._met(m, None)), None)
        form = TO_STANDARD_FORM.apply(problem)
        return _not_one_bound(problem) if form is None else self.data_refusal(form.problem)

    def data_refusal(self, data) -> str | None:
        """Say what the distance or divergence of one bound's data lacks, in one line.

        Parameters
        ----------
        data : cvxpb.engine.one_bound.OneBound
            A standard form's data.

        Returns
        -------
        str or None
            The refusal naming the member, or None.
        """
        obj = data.distance_function if self.of == "distance" else data.divergence_function
        return None if self._met(obj, data) else self._words(obj)

    def _met(self, obj, data) -> bool:
        base = _PROTOCOLS[self.of][1]
        if self.instead and offers(obj, self.instead, base):
            return True
        if self.gives:
            return offers(obj, self.member, base) and _called(obj, self.member, data) is not None
        if self.each_term:
            return offers(obj, self.member, base)
        value = getattr(obj, self.member, None)
        return value in self.values if self.values else bool(value)

    def _words(self, obj) -> str:
        name = getattr(obj, "name", type(obj).__name__)
        if self.values:
            value = getattr(obj, self.member, None)
            allowed = repr(self.values[0]) if len(self.values) == 1 else f"one of {self.values!r}"
            has = f"has {self.member} {value!r}"
            return f"the {self.of} {name!r} {has}, not {allowed} ({self.missing})"
        return f"the {self.of} {name!r} {self.missing} ({self.written(whose=False)})"


def refusal(requires, problem) -> str | None:
    """The first of ``requires`` that ``problem`` does not meet, in one line.

    Parameters
    ----------
    requires : tuple of Shape or Needs
        A method's statements.
    problem : cvxpb.Minimize
        The problem.

    Returns
    -------
    str or None
        None where it meets every one.
    """
    return next((why for need in requires if (why := need.refusal(problem))), None)


def _measured(term) -> bool:
    return getattr(term, "measure", None) is not None


def _member(of: str, name: str):
    return next(m for m in _PROTOCOLS[of][0] if m.name == name)


def _called(obj, member: str, data):
    """``obj.member`` called with the bound's arguments, named as the protocol names
    them, on the classifiers with prior mass."""
    on = data.prior > 0
    arguments = {"bound": data.bound_function, "p": data.prior[on]}
    names = [name.strip() for name in _member("divergence", member).call.split(",")]
    if "q" in names:
        import cvxpy as cp

        arguments["q"] = cp.Variable(int(np.count_nonzero(on)), nonneg=True)
    return getattr(obj, member)(*(arguments[name] for name in names))
