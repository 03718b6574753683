"""The write side an agent loop uses: a session recorder that keeps the history legal.

Imports the stores and the core; only the command imports it.
"""
