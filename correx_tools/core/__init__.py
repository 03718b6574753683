"""The pure core: values, the lifecycle reducer, the fold and time travel.

Nothing here performs I/O, reads a clock, draws random numbers or logs; a
test walks these modules' imports to keep it so.
"""
