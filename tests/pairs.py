"""The (distance, divergence, alpha) pairs of the bounds, for tests that run every one."""

PAIRS = [
    ("linear", "chi2", None),
    ("sq", "chi2", None),
    ("kl", "chi2", None),
    ("kl", "kl", None),
    ("sq", "kl", None),
    ("linear", "kl", None),
    ("catoni", "kl", None),
    ("kl", "renyi", 3.0),
    ("sq", "renyi", 1.5),
]
