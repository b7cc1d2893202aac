"""What a fitted majority vote's bound says, in words: the statistics it stands on, what
its status proves, and where a gap comes from."""

from __future__ import annotations

WHERE = {
    "oob": "out of bag: each voter's rates on the examples left out of its bootstrap sample, "
    "each pair's on the examples left out of both",
    "split": "on a held-out part of the data that no voter saw",
    "prefit": "on the data given to fit, which the prefit voters did not see",
}


def explain_fit(classifier) -> str:
    """Explain a fitted :class:`cvxpb.ensemble.classifier.MajorityVoteClassifier`'s bound.

    Parameters
    ----------
    classifier : MajorityVoteClassifier
        A fitted one.

    Returns
    -------
    str
        The bound and its confidence, the statistics and their sample sizes, the
        result (status, certificate, posterior, terms) and, where the certificate leaves
        a gap, what it means and why.
    """
    result, stats = classifier.result_, classifier.statistics_
    lines = [
        f"bound {classifier._bound_name!r}: the majority vote's risk is at most {result.bound:.6g} "
        f"with probability at least {1 - classifier.delta:g} over the sample",
        f"statistics: measured {WHERE[classifier.validation]}; each voter's risk on at least "
        f"{stats['n_gibbs']} of {stats['n_examples']} examples, each pair's rates on at "
        f"least {stats['n']} (n_bound_), and every bound counts the least of these",
    ]
    lines += ["result:"] + ["  " + line for line in str(result).splitlines()]
    if result.status != "optimal":
        lines.append(_gap_note(result, stats))
    return "\n".join(lines)


def _gap_note(result, stats) -> str:
    """Why the certificate leaves a gap, and what would close it."""
    if result.certificate is None:
        return (
            f"gap: method {result.method!r} proves no lower bound; the bound reported "
            "holds at its posterior, and the least bound may be lower"
        )
    note = (
        f"gap: the least bound over all posteriors lies between "
        f"{result.certificate.lower_bound:.6g} and {result.bound:.6g}; the bound reported "
        "holds, but a better posterior may exist"
    )
    if result.status == "local" and not stats["all_seen"]:
        return note + (
            ". Out of bag, each pair's rates come from its own examples, so the pairwise "
            "matrix is not the Gram matrix of one sample and can be indefinite on the "
            "simplex; its convex minorant proves the lower bound and leaves this gap, and "
            "the posterior is the best a convex-concave procedure found. The fewer examples "
            f"a pair shares ({stats['n']} here), the further from a Gram matrix it can be: "
            "validation='split' measures every rate on one sample, where the minimum is "
            "certified"
        )
    if result.status == "local":
        return note + (
            ". The search is local: the bound has three or more terms in which it is not "
            "proven concave, and its lower bound is the bound at the terms' separate minima"
        )
    return note + ". The search's budget of programs ended before the gap closed"
