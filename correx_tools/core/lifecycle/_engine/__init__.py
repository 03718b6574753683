"""What makes the lifecycle fast without being its rules: trie, shared index, batch builder.

Imported only by ``core.lifecycle`` and ``core.replay``; each module says what it speeds up.
"""
