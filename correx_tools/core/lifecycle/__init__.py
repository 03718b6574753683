"""The invocation lifecycle: events, statuses, records, the transition table, reducer, state.

Imports only ``core.tools``; ``core.replay`` and the shell import it. The rules need no ``_engine``.
"""
