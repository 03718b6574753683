"""Replay and time travel: projections, the fold, retention policies, timelines, replay errors,
and the structures that answer at any sequence (order statistics, stabbing).

Imports ``core.lifecycle`` and ``core.tools``; the shell imports it.
"""
