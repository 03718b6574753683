"""What the agents' readers share: how a call ended (`outcomes`), results paired with their
calls by id (`pairing`), a file of JSON lines still being written (`lines`), the
conversation a reader gathers (`talk`), a transcript's values read strictly
(`values`), the walk over a message list two formats share (`message_lists`).

Imports only `model`, `errors`, the stores' strict JSON and the core; the agents'
packages and the machinery import it.
"""
