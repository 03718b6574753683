"""The audit's rules: a recorded session's calls checked against a policy, and the values
that flowed between them (pure: no file is read here; the shell hands over the capability
table, the policy and each event's evidence value).

Imports from `core.report`, `core.replay`, `core.lifecycle` and `core.tools`; imported by
the shell (``shell.audit``, the command).
"""
