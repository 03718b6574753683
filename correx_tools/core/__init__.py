"""The pure core: the tool contract, the invocation lifecycle, and replay with time travel.

No I/O, clock, randomness or logging (a test walks the imports); it imports nothing from ``shell``.
"""
