"""The voters' errors in pairs, and the ``mu``-shifted tandem loss built on them.

Wu, Masegosa, Lorenzen, Igel and Seldin (2021) bound the vote's risk through the
``mu``-shifted tandem loss of a pair of voters, ``(e_i - mu)(e_j - mu)`` with ``e`` a
voter's 0/1 error. On one example it takes three values, by how many of the two err:
``mu^2`` (neither), ``-mu (1 - mu)`` (one) and ``(1 - mu)^2`` (both). Its mean for a
pair is ``T_ij - mu (A_ij + A_ji) + mu^2``, with ``T_ij`` the rate at which both err and
``A_ij`` the error rate of ``i`` on the examples that count for the pair: on one shared
sample ``A_ij`` is voter ``i``'s risk; out of bag each pair counts the examples both
voters left out (Masegosa et al., 2020), so ``A`` is a matrix of its own.
"""

from __future__ import annotations

import functools

import numpy as np

from cvxpb.engine.declare.quadratic import factored_loss, pairwise_loss, tandem_risk
from cvxpb.engine.declare.terms import Posterior
from cvxpb.numerics.tolerances import EPS
from cvxpb.validation import real_array


class PairErrors:
    """The voters' 0/1 errors, counted in pairs.

    Parameters
    ----------
    errors : array_like of shape (n, H)
        0/1 error indicators (where ``seen`` is False the entry is ignored).
    seen : array_like of shape (n, H), optional
        Which examples count for each voter (out of bag: the ones its bootstrap sample
        left out). All of them by default: one shared sample.

    Attributes
    ----------
    n : int
        The least number of examples a pair of voters is counted on.
    tandem : ndarray of shape (H, H)
        ``T``: the rate at which both voters of a pair err.
    own : ndarray of shape (H, H)
        ``A``: ``A[i, j]`` is voter ``i``'s error rate on the pair's examples.
    counts : ndarray of shape (H, H)
        The number of examples each pair is counted on.
    shared : bool
        Whether every example counts for every voter (one sample).

    Raises
    ------
    ValueError
        For errors that are not 0/1, a mask of another shape, or a pair of voters
        counted on no common example.
    """

    def __init__(self, errors, seen=None):
        E = real_array(errors, "errors")
        if E.ndim != 2 or 0 in E.shape:
            raise ValueError(f"errors must be an n x H matrix, got shape {E.shape}")
        if not np.all(np.isin(E, (0, 1))):
            raise ValueError("errors must hold only 0 and 1")
        S = np.ones(E.shape, dtype=bool) if seen is None else np.asarray(seen)
        if S.shape != E.shape or S.dtype != bool:
            raise ValueError(f"seen must be a boolean matrix of the errors' shape {E.shape}")
        E, S = E * S, S.astype(float)
        counts = S.T @ S
        if np.min(counts) < 1:
            i, j = np.unravel_index(np.argmin(counts), counts.shape)
            raise ValueError(f"voters {i} and {j} share no counted example")
        self.n = int(counts.min())
        self.counts = counts
        self.shared = bool(np.all(S == 1))
        self.tandem = np.clip(E.T @ E / counts, 0.0, 1.0)
        self.own = np.clip(E.T @ S / counts, 0.0, 1.0)
        self._errors = E if self.shared else None

    @property
    def size(self) -> int:
        """The number of voters ``H``."""
        return self.tandem.shape[0]

    def tandem_term(self, q: Posterior):
        """Declare the tandem risk ``q @ T @ q`` (a sum of squares on one sample).

        Parameters
        ----------
        q : Posterior
            The posterior.

        Returns
        -------
        TandemRisk
            The term.
        """
        if self._errors is not None:
            return tandem_risk(q, self._errors)
        return tandem_risk(q, matrix=self.tandem)

    def one_error(self) -> np.ndarray:
        """The rate at which exactly one voter of a pair errs: ``A + A.T - 2 T``.

        Returns
        -------
        ndarray of shape (H, H)
            The rates.
        """
        return np.clip(self.own + self.own.T - 2 * self.tandem, 0.0, 1.0)

    def no_error(self) -> np.ndarray:
        """The rate at which neither voter of a pair errs: ``1 - A - A.T + T``.

        Returns
        -------
        ndarray of shape (H, H)
            The rates.
        """
        return np.clip(1 - self.own - self.own.T + self.tandem, 0.0, 1.0)

    def shifted_variance(self, q: Posterior, mu: float):
        """Declare ``V_mu(q)``: the pairs' unbiased empirical variances of the shifted loss.

        For the pair ``(i, j)`` on its ``n_ij`` examples, ``n_ij / (n_ij - 1)`` times the
        mean of the square less the square of the mean, each from the pair's rates
        (:meth:`shifted_loss`); averaged under ``q x q``. Each entry is at least 0; the
        matrix need not be semidefinite.

        Parameters
        ----------
        q : Posterior
            The posterior.
        mu : float
            The shift.

        Returns
        -------
        PairwiseLoss
            The term.

        Raises
        ------
        ValueError
            If a pair is counted on fewer than two examples (no unbiased variance).
        """
        if self.n < 2:
            raise ValueError(
                f"an unbiased variance needs two examples a pair; one pair has {self.n}"
            )
        mean, square = self._shifted_moments(mu)
        rounding = 16 * EPS * (np.abs(square) + mean * mean)  # raised past float error
        matrix = (
            self.counts / (self.counts - 1) * (np.maximum(square - mean * mean, 0.0) + rounding)
        )
        return pairwise_loss(q, (matrix + matrix.T) / 2, name=f"shifted_variance[mu={mu:g}]")

    def summed(self, square: bool = False) -> int:
        """How many products each entry of :meth:`shifted_loss`'s matrix sums.

        On one sample the matrix is its factor's Gram matrix, a sum over the examples
        (twice as many with the square), whose rounding error may grow to that many
        units of ``EPS`` times the largest product (Higham's bound for a sum of ``k``
        terms); a bound's rounding margin adds them. Out of bag it comes from the pairs'
        counts in a few operations: 0.

        Parameters
        ----------
        square : bool, default=False
            Whether the loss's square is added (a second factor block).

        Returns
        -------
        int
            The products summed.
        """
        if self._errors is None:
            return 0
        return self._errors.shape[0] * (2 if square else 1)

    def shifted_loss(self, q: Posterior, mu: float, square_weight: float = 0.0):
        """Declare ``M_mu(q) + w S_mu(q)``: the shifted tandem loss and its square.

        ``M_mu`` averages ``(e_i - mu)(e_j - mu)`` and ``S_mu`` its square
        ``((1 - 2 mu) e_i + mu^2)((1 - 2 mu) e_j + mu^2)`` (as ``e^2 = e``), both under
        ``q x q``. On one sample it is a sum of squares (convex); out of bag, a matrix.

        Parameters
        ----------
        q : Posterior
            The posterior.
        mu : float
            The shift.
        square_weight : float, default=0.0
            ``w >= 0``, the weight of the square.

        Returns
        -------
        PairwiseLoss
            The term.
        """
        if self._errors is not None:  # the factor remade only for a CVXPY program
            factor = functools.partial(_shifted_rows, self._errors, mu, square_weight)
            return factored_loss(q, factor, name=f"shifted_tandem[mu={mu:g}]")
        mean, square = self._shifted_moments(mu)
        matrix = mean + square_weight * square if square_weight > 0 else mean
        return pairwise_loss(q, matrix, name=f"shifted_tandem[mu={mu:g}]")

    def _shifted_moments(self, mu):
        """Each pair's mean of the shifted loss ``(e_i - mu)(e_j - mu)`` and of its square
        ``((1 - 2 mu) e_i + mu^2)((1 - 2 mu) e_j + mu^2)``, from the pair's rates."""
        sides = self.own + self.own.T
        mean = self.tandem - mu * sides + mu * mu
        square = (1 - 2 * mu) ** 2 * self.tandem + mu * mu * (1 - 2 * mu) * sides + mu**4
        return mean, square


def _shifted_rows(errors, mu, square_weight):
    """The factor of the shifted tandem loss and its square on one sample: rows
    ``e - mu`` and ``sqrt(w) ((1 - 2 mu) e + mu^2)``, over ``sqrt(n)``."""
    rows = [errors - mu]
    if square_weight > 0:
        rows.append(np.sqrt(square_weight) * ((1 - 2 * mu) * errors + mu * mu))
    return np.vstack(rows) / np.sqrt(errors.shape[0])
