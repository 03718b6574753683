"""What the server answers from: one store opened read-only (`debugger.Debugger`), its two
repositories, and what it keeps to answer quickly: each session's row (`catalog`), the
subagents' links (`relations`), the tokens by turn (`talk_shelf`), beside the columns
(``shell.serve.columns``).

Imports ``shell.serve.columns``, ``shell.serve.errors``, ``shell.audit`` (the policy read
once), ``shell.transcripts``, ``shell.replay``, ``shell.stores`` and the core; the API and the
server import it.
"""
