"""Benchmarks of correx_tools against baselines measured in the same run (``python -m benchmarks``)."""
