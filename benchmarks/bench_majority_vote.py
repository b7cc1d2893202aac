"""cvxpb's majority-vote bounds against the published alternating minimizations.

The published optimizers, written here from their papers (not from their code):

* Thiemann, Igel, Wintenberger and Seldin (2017): the PAC-Bayes-lambda bound by
  alternating its two closed forms, ``rho ~ pi exp(-lambda n L)`` and
  ``lambda = 2 / (sqrt(2 n L(rho) / (KL + ln(xi(n) / delta)) + 1) + 1)``, until the
  bound stops falling; the first-order kl bound is then read at that ``rho``;
* Masegosa, Lorenzen, Igel and Seldin (2020): the tandem bound's lambda form
  ``T(rho) / (1 - lambda/2) + (2 KL + ln(xi(n) / delta)) / (lambda (1 - lambda/2) n)``
  by alternating the closed-form ``lambda`` with gradient steps on ``rho`` (here
  L-BFGS on the softmax parameters, exact gradients); the TND bound (kl form) is then
  read at that ``rho``.

Both with Maurer's ``xi(n)`` (:func:`cvxpb.numerics.maurer.log_xi`) where the papers
write ``2 sqrt(n)``, as cvxpb's bounds take it, so that the two minimize the same bound.

For each KEEL dataset, both ways of measuring the trees' errors (a 50:50 split, out of
bag) and each bound, the table gives cvxpb's minimum, the published optimizer's value
of the same bound at its posterior, the difference (``ours - theirs``, never positive
where cvxpb's status is "optimal") and the time ratio. A random forest of 100 trees,
one 80:20 split per dataset.

With ``--authors PATH`` (a checkout of the authors' repository,
github.com/StephanLorenzen/MajorityVoteBounds, GPL-licensed: imported at run time
from that path, none of it copied here) their own ``optimizeLamb`` and ``optimizeTND``
give the published posteriors instead, on the same statistics; without it the table
says that the alternations written here stand in.

    python -m benchmarks.bench_majority_vote [--dataset spambase,...] [--authors PATH]
        [--voters 1000] [--json]

``--voters`` adds TND on that many trees' held-out errors, timed alone (the row of
1000 voters, certified in under 10 s, that the published optimizers have no match
for).
"""

from __future__ import annotations

import argparse
import json
import sys
import time

import numpy as np
from scipy.optimize import minimize
from scipy.special import logsumexp, softmax
from sklearn.ensemble import RandomForestClassifier
from sklearn.model_selection import train_test_split
from threadpoolctl import threadpool_limits

from cvxpb import Minimize, Posterior, datasets, log_xi
from cvxpb.app.texttable import print_table
from cvxpb.ensemble import MajorityVoteClassifier
from cvxpb.ensemble import bounds as mv

DATASETS = ("spambase", "mushroom", "phoneme", "twonorm", "splice", "satimage")
DELTA = 0.05
TOL = {"lambda": 1e-10, "first_order": 1e-10, "tnd": 1e-7}  # certified gaps asked


def _kl_uniform(rho) -> float:
    positive = rho > 0
    return float(np.sum(rho[positive] * np.log(rho[positive] * rho.size)))


def _confidence(n) -> float:
    """``ln(xi(n) / delta)``, the kl inequality's confidence term."""
    return log_xi(n) - np.log(DELTA)


def _lambda_step(loss, kl, n, copies=1):
    """Thiemann et al.'s optimal lambda for the current posterior."""
    complexity = copies * kl + _confidence(n)
    return 2 / (np.sqrt(2 * n * loss / complexity + 1) + 1)


def thiemann(risks, n, tol=1e-12, max_rounds=10_000):
    """Alternating minimization of PAC-Bayes-lambda: ``(rho, 2 x bound)``."""
    lam, previous = 1.0, np.inf
    for _ in range(max_rounds):
        rho = softmax(-lam * n * risks)
        loss, kl = float(rho @ risks), _kl_uniform(rho)
        lam = _lambda_step(loss, kl, n)
        value = (loss + (kl + _confidence(n)) / (lam * n)) / (1 - lam / 2)
        if previous - value < tol:
            break
        previous = value
    return rho, 2 * value


def masegosa(tandem, n, tol=1e-10, max_rounds=1000):
    """Alternating minimization of the tandem bound's lambda form: ``rho``."""
    H = tandem.shape[0]
    z, lam, previous = np.zeros(H), 1.0, np.inf
    log_term = _confidence(n)
    for _ in range(max_rounds):
        scale = 1 - lam / 2

        def objective(z, lam=lam, scale=scale):
            rho = np.exp(z - logsumexp(z))
            kl = float(rho @ (np.log(np.maximum(rho, 1e-300)) + np.log(H)))
            value = rho @ tandem @ rho / scale + (2 * kl + log_term) / (lam * scale * n)
            grad_rho = 2 * tandem @ rho / scale + 2 * (
                np.log(np.maximum(rho, 1e-300)) + np.log(H) + 1
            ) / (lam * scale * n)
            return value, rho * (grad_rho - rho @ grad_rho)

        z = minimize(objective, z, jac=True, method="L-BFGS-B").x
        rho = np.exp(z - logsumexp(z))
        value = objective(z)[0]
        lam = _lambda_step(float(rho @ tandem @ rho), _kl_uniform(rho), n, copies=2)
        if previous - value < tol:
            break
        previous = value
    return rho


def thiemann_posterior(risks, n):
    """The posterior of :func:`thiemann`."""
    return thiemann(risks, n)[0]


def published_optimizers(checkout=None):
    """``(lambda_posterior, tandem_posterior, source)``: the published optimizers, from
    the authors' checkout at ``checkout`` where given, else as written here.

    Each maps the statistics (``risks, n`` or ``tandem, n``) to a posterior; ``source``
    says where they came from.
    """
    if checkout is None:
        source = "alternations written in this benchmark (no --authors checkout given)"
        return thiemann_posterior, masegosa, source
    if str(checkout) not in sys.path:
        sys.path.insert(0, str(checkout))
    from mvb import bounds as authors  # GPL: imported from the user's checkout only

    def lambda_posterior(risks, n):
        return _posterior(authors.optimizeLamb(risks, n, DELTA), risks.size, "optimizeLamb")

    def tandem_posterior(tandem, n):
        return _posterior(authors.optimizeTND(tandem, n, DELTA), len(tandem), "optimizeTND")

    return lambda_posterior, tandem_posterior, f"the authors' code at {checkout}"


def _posterior(returned, H, name):
    """The posterior among what an authors' optimizer returned: the one array of ``H``
    weights."""
    found = [np.asarray(x, float) for x in returned if np.shape(x) == (H,)]
    if len(found) != 1:
        raise ValueError(f"{name} returned no single posterior of {H} weights")
    return found[0]


def statistics(name, mode, seed=0):
    data = datasets.keel(name)
    X, _, y, _ = train_test_split(data.X, data.y, test_size=0.2, random_state=seed, stratify=data.y)
    forest = RandomForestClassifier(n_estimators=100, random_state=seed, n_jobs=1)
    model = MajorityVoteClassifier(forest, bound="first_order", validation=mode, random_state=seed)
    return model.fit(X, y)


def compare(name, mode, optimizers=None) -> list[dict]:
    lambda_posterior, tandem_posterior, _ = optimizers or published_optimizers()
    model = statistics(name, mode)
    stats = model.statistics_
    risks, tandem, n_gibbs, n = stats["risks"], stats["tandem"], stats["n_gibbs"], stats["n"]
    q = Posterior.uniform(risks.size)
    rows = []
    start = time.perf_counter()
    rho_lambda = lambda_posterior(risks, n_gibbs)
    theirs_seconds = time.perf_counter() - start
    for bound, declared in (
        ("lambda", mv.pac_bayes_lambda(q, risks, n_gibbs, DELTA)),
        ("first_order", mv.first_order(q, risks, n_gibbs, DELTA)),
    ):
        rows.append(_row(name, mode, bound, declared, rho_lambda, theirs_seconds))
    start = time.perf_counter()
    rho_tandem = tandem_posterior(tandem, n)
    theirs_seconds = time.perf_counter() - start
    declared = mv.tandem(q, None, n, DELTA, matrix=tandem)
    rows.append(_row(name, mode, "tnd", declared, rho_tandem, theirs_seconds))
    return rows


def _row(name, mode, bound, declared, rho, theirs_seconds) -> dict:
    problem = Minimize(declared)
    start = time.perf_counter()
    result = problem.solve(tol=TOL[bound])
    ours_seconds = time.perf_counter() - start
    theirs = problem.value_at(rho)
    return {
        "dataset": name,
        "mode": mode,
        "bound": bound,
        "cvxpb": result.bound,
        "status": result.status,
        "published": theirs,
        "ours - theirs": result.bound - theirs,
        "cvxpb s": ours_seconds,
        "published s": theirs_seconds,
        "time ratio": ours_seconds / theirs_seconds,
    }


def many_voters(trees=1000, name="spambase", seed=0) -> dict:
    """TND on ``trees`` voters' errors measured on a held-out half (a Gram matrix, so
    certified): the time of cvxpb's search alone (issue goal: under 10 s at 1000)."""
    data = datasets.keel(name)
    X, _, y, _ = train_test_split(data.X, data.y, test_size=0.2, random_state=seed, stratify=data.y)
    X_fit, X_bound, y_fit, y_bound = train_test_split(X, y, test_size=0.5, random_state=seed)
    forest = RandomForestClassifier(n_estimators=trees, random_state=seed, n_jobs=1)
    forest.fit(X_fit, y_fit)
    labels = [forest.classes_[tree.predict(X_bound).astype(int)] for tree in forest.estimators_]
    errors = (np.stack(labels, axis=1) != y_bound[:, None]).astype(float)
    problem = Minimize(mv.tandem(Posterior.uniform(trees), errors, delta=DELTA))
    start = time.perf_counter()
    result = problem.solve(tol=TOL["tnd"])
    seconds = time.perf_counter() - start
    return {
        "dataset": name,
        "mode": "split",
        "bound": "tnd",
        "voters": trees,
        "cvxpb": result.bound,
        "status": result.status,
        "gap": result.certificate.gap,
        "cvxpb s": seconds,
        "goal": "< 10 s",
        "met": "yes" if seconds < 10 and result.status == "optimal" else "NO",
    }


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dataset", default=",".join(DATASETS))
    parser.add_argument("--authors", help="a checkout of the authors' MajorityVoteBounds")
    parser.add_argument("--json", action="store_true")
    parser.add_argument(
        "--voters", type=int, help="also TND on this many trees' split errors (alone timed)"
    )
    args = parser.parse_args(argv)
    optimizers = published_optimizers(args.authors)
    rows = []
    with threadpool_limits(1, "blas"):
        for name in args.dataset.split(","):
            for mode in ("split", "oob"):
                rows += compare(name.strip(), mode, optimizers)
    large = None
    if args.voters:
        with threadpool_limits(1, "blas"):
            large = many_voters(args.voters)
    if args.json:
        print(json.dumps({"published": optimizers[2], "rows": rows, "many": large}, indent=1))
        return
    print(f"published optimizers: {optimizers[2]}")
    formats = {"dataset": "<", "mode": "<", "bound": "<", "cvxpb": ".6f", "status": "<"}
    formats |= {"published": ".6f", "ours - theirs": ".2e", "cvxpb s": ".3f"}
    formats |= {"published s": ".3f", "time ratio": ".2f"}
    print_table(rows, formats)
    if large is not None:
        print()
        columns = {"dataset": "<", "mode": "<", "bound": "<", "voters": "d", "cvxpb": ".6f"}
        columns |= {"status": "<", "gap": ".2e", "cvxpb s": ".2f", "goal": "<", "met": "<"}
        print_table([large], columns)


if __name__ == "__main__":
    main()
