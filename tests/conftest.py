"""Shared test configuration: fixed Hypothesis profiles.

``ci`` is derandomized with no deadline so a run on a loaded machine neither
flakes nor finds different examples each time; ``dev`` is the default for
local runs; ``nightly`` runs ten times as many random examples (``pytest -m
slow`` with ``HYPOTHESIS_PROFILE=nightly``).
"""

import os

from hypothesis import HealthCheck, settings

settings.register_profile(
    "ci",
    derandomize=True,
    deadline=None,
    max_examples=200,
    print_blob=True,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.register_profile("dev", deadline=None, max_examples=100)
settings.register_profile("nightly", deadline=None, max_examples=2000)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci" if os.environ.get("CI") else "dev"))
