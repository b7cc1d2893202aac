"""The numbers docs/benchmarks.rst quotes, computed from the committed benchmark runs."""

import pandas as pd


def _tables(path):
    """The benchmark's tables (its output, blank-line separated) by their first line."""
    tables = {}
    for block in path.read_text().strip().split("\n\n"):
        lines = block.splitlines()
        title = lines[0]
        start = 2 if title.startswith(("published", "first solve", "MajorityVote")) else 1
        header = lines[start - 1]
        rows = [line.split() for line in lines[start:]]
        tables[title] = (header, rows)
    return tables


def _published(tables):
    title = next(t for t in tables if t.startswith("published optimizers"))
    _, rows = tables[title]
    columns = ["dataset", "mode", "bound", "cvxpb", "status", "published", "difference"]
    columns += ["cvxpb s", "published s", "ratio"]
    frame = pd.DataFrame([row[:10] for row in rows], columns=columns)
    for name in ("cvxpb", "published", "difference", "cvxpb s", "published s", "ratio"):
        frame[name] = frame[name].astype(float)
    return frame


def _span(out, key, values):
    """``out[key_min]`` and ``out[key_max]``: the least and largest of ``values``."""
    out[f"{key}_min"], out[f"{key}_max"] = values.min(), values.max()


def majority_vote(benchmark_txt):
    """The majority-vote benchmark against the published optimizers."""
    tables = _tables(benchmark_txt)
    frame = _published(tables)
    out = {
        "rows": len(frame),
        "never_above": bool((frame["difference"] <= 0).all()),
        "below_everywhere": bool((frame["difference"] < 0).all()),
        "split_optimal": bool((frame.loc[frame["mode"] == "split", "status"] == "optimal").all()),
    }
    oob = frame[frame["mode"] == "oob"]
    second = oob[oob["bound"].isin(["tnd", "cctnd"])]
    certified = second.groupby("dataset")["status"].apply(lambda s: (s == "optimal").all())
    out["oob_certified"] = ", ".join(certified.index[certified])
    out["oob_local"] = int((~certified).sum())
    for bound in ("lambda", "first_order", "tnd", "cctnd"):
        _span(out, f"{bound}_below", -frame.loc[frame["bound"] == bound, "difference"])
    parts = {
        f"{mode}_{bound}": frame[(frame["mode"] == mode) & (frame["bound"] == bound)]
        for mode in ("split", "oob")
        for bound in ("lambda", "first_order", "tnd", "cctnd")
    }
    parts |= {
        f"local_{b}": oob[(oob["status"] == "local") & (oob["bound"] == b)]
        for b in ("tnd", "cctnd")
    }
    parts["closed"] = frame[frame["bound"].isin(["lambda", "first_order"])]
    for key, part in parts.items():
        _span(out, f"{key}_s", part["cvxpb s"])
        _span(out, f"{key}_theirs", part["published s"])
        _span(out, f"{key}_ratio", part["ratio"])
    _span(out, "closed_theirs_ms", parts["closed"]["published s"] * 1000)
    out |= _fresh(tables) | _classifier(tables) | _voters(tables)
    return out


def _fresh(tables):
    """The first solve in a fresh process, beside the warm one, for the bounds whose
    kernels are compiled (PAC-Bayes-lambda's closed form has none)."""
    title = next(t for t in tables if t.startswith("first solve"))
    _, rows = tables[title]
    rows = [row for row in rows if row[2] != "lambda"]
    empty = [float(row[3]) - float(row[5]) for row in rows]
    cached = [float(row[4]) - float(row[5]) for row in rows]
    return {
        "cached_extra_min": min(cached),
        "cached_extra_max": max(cached),
        "empty_extra_min": min(empty),
        "empty_extra_max": max(empty),
    }


def _classifier(tables):
    """``MajorityVoteClassifier`` beside the forest's own fit."""
    title = next(t for t in tables if t.startswith("MajorityVoteClassifier"))
    _, rows = tables[title]
    by = {row[0]: row for row in rows}
    out = {}
    for name, row in by.items():
        out[f"{name}_forest_s"], out[f"{name}_fit_s"] = float(row[1]), float(row[2])
        out[f"{name}_fit_ratio"], out[f"{name}_bounds_ratio"] = float(row[3]), float(row[7])
    return out


def _voters(tables):
    """TND on a thousand-voter forest's held-out errors."""
    title = next(t for t in tables if t.startswith("dataset  mode  bound voters"))
    _, rows = tables[title]  # a block with no title: its first line is the header
    row = rows[0]
    return {
        "voters": int(row[3]),
        "voters_status": row[5],
        "voters_gap": float(row[6]),
        "voters_s": float(row[7]),
        "voters_dataset": row[0],
    }
