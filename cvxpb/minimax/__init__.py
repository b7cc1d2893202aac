"""Minimax supervised learning (Farnia & Tse (2016)): maximum conditional entropy as GLMs."""

from cvxpb.minimax.entropies import get_entropy
from cvxpb.minimax.estimators import (
    MinimaxClassifier,
    MinimaxRegressor,
    MinimaxSolverError,
    RobustFeatureSelector,
)
from cvxpb.minimax.program import minimax_program

__all__ = [
    "MinimaxClassifier",
    "MinimaxRegressor",
    "MinimaxSolverError",
    "RobustFeatureSelector",
    "get_entropy",
    "minimax_program",
]
