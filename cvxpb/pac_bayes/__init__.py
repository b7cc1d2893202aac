"""The PAC-Bayes layer: the concepts as objects, each defined once.

:mod:`~cvxpb.pac_bayes.divergences` holds KL, chi-squared and the Renyi divergences
(and the protocol a user's own divergence follows), :mod:`~cvxpb.pac_bayes.families`
the one-parameter families of posteriors that contain every optimum of a bound in the
Gibbs risk and a divergence. It imports only :mod:`cvxpb.numerics`.
"""

DISTANCES_BY_DIVERGENCE = {
    "chi2": ("linear", "sq", "kl"),
    "renyi": ("linear", "sq", "kl"),
    "kl": ("linear", "sq", "kl", "catoni"),
}
"""The users' words: each divergence and the distances it has bounds with (the command
line's choices; here, where importing them loads nothing numerical)."""


def check_distance(distance: str, divergence: str) -> str:
    """Check a distance's name against a divergence's.

    A ValueError names the divergences the distance goes with, where ``divergence`` is
    not one of them.

    Parameters
    ----------
    distance : str
        The distance's name.
    divergence : str
        The divergence's name (one of ``DISTANCES_BY_DIVERGENCE``).

    Returns
    -------
    str
        ``distance``.
    """
    allowed = DISTANCES_BY_DIVERGENCE[divergence]
    if isinstance(distance, str) and distance in allowed:
        return distance
    with_it = [d for d, names in DISTANCES_BY_DIVERGENCE.items() if distance in names]
    needs = (
        f"distance={distance!r} needs divergence={' or '.join(map(repr, with_it))}; "
        if with_it
        else ""
    )
    raise ValueError(
        f"{needs}with divergence={divergence!r} distance must be one of {allowed}, got {distance!r}"
    )
