"""JSON Schemas of tool arguments, compiled once and safely (RE2 patterns, local refs only).

Imports only the rest of ``tools``; the contract's modules import it.
"""
