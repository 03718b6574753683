"""Sessions written out for other tools: OpenTelemetry traces.

Imports ``core`` only; the command imports it.
"""
