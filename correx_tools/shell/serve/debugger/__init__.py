"""What the server answers from: one store opened read-only (`debugger.Debugger`), its two
repositories, and what it keeps to answer quickly: each session listed as the commands list
it (`catalog`, folded by `kept`, grouped by project by `grouping`), the subagents' links
(`relations`), the tokens by turn (`talk_shelf`), beside the columns
(``shell.serve.columns``).

Imports ``shell.serve.columns``, ``shell.serve.errors``, ``shell.catalog``, ``shell.audit``
(the policy read once), ``shell.transcripts``, ``shell.replay``, ``shell.stores`` and the
core; the API and the server import it.
"""
