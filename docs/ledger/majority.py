"""Our numbers for the majority-vote rows (Masegosa et al., 2020; Wu et al., 2021; Wu
and Seldin, 2022), each computed from the files its row names. The published numbers
are :mod:`cvxpb.app.experiments.published`'s, which wrote the comparison files."""

import numpy as np
import pandas as pd
from scipy.optimize import brentq

SECOND_ORDER = ["tnd", "cctnd", "ccpbb"]


def _beside(path):
    return pd.read_csv(path).set_index(["dataset", "bound"])


def _values(table, name, bounds):
    return ", ".join(f"{table.loc[(name, b), 'cvxpb']:.4f}" for b in bounds)


def settings(runs_csv, uniform_runs_csv):
    """How many runs each comparison rests on."""
    runs = pd.read_csv(runs_csv)
    uniform = pd.read_csv(uniform_runs_csv)
    return {
        "runs": runs["run"].nunique(),
        "trees": int(runs["H"].max()),
        "uniform_runs": uniform["run"].nunique(),
    }


def wu_2021(published_csv, held_out_published_csv):
    """First order, TND and CCTND beside Wu et al.'s on the data both have."""
    table = _beside(published_csv)
    same = table[table["same data"] == "yes"].drop(index="ccpbb", level=1)
    other = pd.read_csv(held_out_published_csv)
    other = other[other["same data"] == "yes"]
    out = {
        "cells": len(same),
        "largest": same["difference"].abs().max(),
        "in_sd": same["in sd"].abs().max(),
        "below": int((same["difference"] < 0).sum()),
        "other_bounds": len(set(other["bound"])),
        "other_largest": other["difference"].abs().max(),
        "other_in_sd": other["in sd"].abs().max(),
    }
    for name in ("letter", "penbased", "satimage"):
        out[name] = _values(table, name, ["first_order", "tnd", "cctnd"])
    return out


def ccpbb(published_csv, runs_csv):
    """CCPBB beside Wu et al.'s, and how far our own minima are certified."""
    table = _beside(published_csv)
    same = table[table["same data"] == "yes"].xs("ccpbb", level=1)
    runs = pd.read_csv(runs_csv)
    mine = runs[runs["bound"] == "ccpbb"]
    gaps = mine.groupby("dataset")["gap"].max()
    optimal = mine[mine["dataset"] == "letter"]["status"].eq("optimal").sum()
    return {
        "values": ", ".join(f"{v:.4f}" for v in same["cvxpb"]),
        "lower_min": (-same["difference"]).min(),
        "lower_max": (-same["difference"]).max(),
        "in_sd_min": (-same["in sd"]).min(),
        "in_sd_max": (-same["in sd"]).max(),
        "gap_letter": gaps["letter"],
        "gap_penbased": gaps["penbased"],
        "gap_satimage": gaps["satimage"],
        "letter_optimal": int(optimal),
        "letter_runs": int((mine["dataset"] == "letter").sum()),
        "lower_over_gap": (-same["difference"] / gaps[same.index]).min(),
    }


def test_risks(risks_csv):
    """The votes' test risks beside Wu et al.'s, and how the posteriors compare."""
    table = pd.read_csv(risks_csv)
    same = table[table["same data"] == "yes"].set_index(["dataset", "bound"])
    ratios = {"lambda": [], "second": []}
    for side in ("cvxpb", "published"):
        uniform = same.xs("uniform", level=1)[side]
        ratios["lambda"] += (same.xs("lambda", level=1)[side] / uniform).tolist()
        for bound in SECOND_ORDER:
            ratios["second"] += (same.xs(bound, level=1)[side] / uniform).tolist()
    return {
        "in_sd": same["in sd"].abs().max(),
        "uniform": _values(same, "letter", ["uniform"]),
        "lambda_min": min(ratios["lambda"]),
        "lambda_max": max(ratios["lambda"]),
        "second_min": min(ratios["second"]),
        "second_max": max(ratios["second"]),
        "ours_uniform": ", ".join(
            f"{same.loc[(d, 'uniform'), 'cvxpb']:.4f}" for d in ("letter", "penbased", "satimage")
        ),
        "ours_lambda": ", ".join(
            f"{same.loc[(d, 'lambda'), 'cvxpb']:.4f}" for d in ("letter", "penbased", "satimage")
        ),
    }


def _tnd_at_zero(n, confidence, delta=0.05):
    """TND with no tandem errors and ``KL = 0``: ``4 kl^-1(0, ln(confidence/delta)/n)``."""
    return 4 * -np.expm1(-np.log(confidence / delta) / n)


def mushroom_and_splice(published_csv, runs_csv):
    """Wu et al.'s mushroom and splice: other data, and what the sample size costs."""
    from cvxpb.numerics.maurer import log_xi

    def maurer_xi(n):
        return float(np.exp(log_xi(n)))

    table = _beside(published_csv)
    runs = pd.read_csv(runs_csv)
    pairs = runs[(runs["dataset"] == "mushroom") & (runs["bound"] == "tnd")]["n"]
    low, high = int(pairs.min()), int(pairs.max())
    published = table.loc[("mushroom", "tnd"), "published"]
    at = brentq(lambda n: _tnd_at_zero(n, 2 * np.sqrt(n)) - published, 100, 5000)
    different = table[table["same data"] == "no"]
    return {
        "mushroom": _values(table, "mushroom", ["first_order", "tnd", "cctnd", "ccpbb"]),
        "splice": _values(table, "splice", ["first_order", "tnd", "cctnd", "ccpbb"]),
        "n_low": low,
        "n_high": high,
        "zero_low": _tnd_at_zero(high, maurer_xi(high)),
        "zero_high": _tnd_at_zero(low, maurer_xi(low)),
        "zero_theirs_low": _tnd_at_zero(high, 2 * np.sqrt(high)),
        "zero_theirs_high": _tnd_at_zero(low, 2 * np.sqrt(low)),
        "their_n": at,
        "ours_above": bool((different["difference"] > 0).all()),
        "tnd_at_least_zero": bool(
            table.loc[("mushroom", "tnd"), "cvxpb"] >= _tnd_at_zero(high, maurer_xi(high)) - 5e-5
        ),
    }


def masegosa_2020(uniform_csv, uniform_runs_csv):
    """The bounds at the uniform posterior beside Masegosa et al.'s."""
    table = _beside(uniform_csv)
    same = table[table["same data"] == "yes"]
    first_tnd = same.drop(index="ctd", level=1)
    runs = pd.read_csv(uniform_runs_csv)
    satimage_ctd = runs[(runs["dataset"] == "satimage") & (runs["bound"] == "ctd")]
    mushroom = table.xs("mushroom")
    pairs = runs[(runs["dataset"] == "mushroom") & (runs["bound"] == "tnd")]["n"]
    return {
        "letter": _values(table, "letter", ["first_order", "tnd"]),
        "satimage": _values(table, "satimage", ["first_order", "tnd"]),
        "in_sd": first_tnd["in sd"].abs().max(),
        "all_below": bool((first_tnd["difference"] < 0).all()),
        "letter_ctd": table.loc[("letter", "ctd"), "cvxpb"],
        "satimage_ctd_vacuous": bool((satimage_ctd["at uniform"] == 1).all()),
        "mushroom": ", ".join(f"{v:.4f}" for v in mushroom["cvxpb"]),
        "mushroom_higher": bool((mushroom["difference"] > 0).all()),
        "mushroom_bounds": len(mushroom),
        "n_low": int(pairs.min()),
        "n_high": int(pairs.max()),
    }


def masegosa_letter_ctd(*_sources):
    """CTD (their repository's formula and ours) at their letter file's mean risks."""
    from cvxpb.numerics.kl import kl_inv_lower, kl_inv_upper

    gibbs, tandem, pairs, examples, delta = 0.1807, 0.0853, 2010, 16000, 0.05
    per_tree = round(examples * (1 - 1 / examples) ** examples)  # the out-of-bag share
    tandem_side = np.log(4 * np.sqrt(pairs) / delta) / pairs
    gibbs_side = np.log(4 * np.sqrt(per_tree) / delta) / per_tree
    up, low = kl_inv_upper(tandem, tandem_side), kl_inv_lower(tandem, tandem_side)
    numerator = up - kl_inv_lower(gibbs, gibbs_side) ** 2
    return {
        "ctd": numerator / (low - kl_inv_upper(gibbs, gibbs_side) + 0.25),
        "per_tree": per_tree,
        "pairs": pairs,
    }


def _bound_table(path):
    runs = pd.read_csv(path)
    return runs.pivot_table(index="dataset", columns="bound", values="bound value")


def wu_seldin_2022(oob_csv, held_csv):
    """Wu and Seldin's (2022) findings on our forests, out of bag and held out."""
    oob, held = _bound_table(oob_csv), _bound_table(held_csv)
    out = {"n": len(oob)}
    lag = oob["ccpbb"] - oob[["tnd", "cctnd"]].max(axis=1)
    out["oob_lag_min"], out["oob_lag_max"] = lag.min(), lag.max()
    lag = held["ccpbb"] - held["cctnd"]
    out["held_lag_min"], out["held_lag_max"] = lag.min(), lag.max()
    for name, runs in (("oob", oob), ("held", held)):
        apart = (runs["split_kl"] - runs["unexpected_bernstein"]).abs()
        out[f"{name}_close"] = int((apart < 0.006).sum())
        out[f"{name}_apart_max"] = apart.drop("mushroom").max()
        out[f"{name}_mushroom"] = (
            runs.loc["mushroom", "unexpected_bernstein"] - runs.loc["mushroom", "split_kl"]
        )
    above = oob["split_kl"] - oob["tnd"]
    out["split_above_min"], out["split_above_max"] = above.min(), above.max()
    above = oob["unexpected_bernstein"] - oob["tnd"]
    out["ub_above_min"] = above.drop("mushroom").min()
    out["ub_above_max"] = above.drop("mushroom").max()
    out["ub_above_mushroom"] = above["mushroom"]
    out["held_below_cctnd"] = ", ".join(held.index[held["unexpected_bernstein"] < held["cctnd"]])
    out["oob_below_tnd"] = int(
        ((oob["split_kl"] < oob["tnd"]) | (oob["unexpected_bernstein"] < oob["tnd"])).sum()
    )
    return out


def masegosa_letter_ctd_beside(uniform_csv, uniform_runs_csv, _kl_module):
    """CTD on letter and satimage, ours beside their file's, and their mean statistics."""
    ours = masegosa_2020(uniform_csv, uniform_runs_csv)
    keep = ("letter_ctd", "satimage_ctd_vacuous")
    return {**{k: ours[k] for k in keep}, **masegosa_letter_ctd()}
