"""Replay and time travel: projections, the fold, retention policies, timelines, replay errors.

Imports ``core.lifecycle`` and ``core.tools``; the shell imports it.
"""
