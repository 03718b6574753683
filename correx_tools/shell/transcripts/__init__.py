"""Transcripts other agents write, brought in as sessions: Claude Code, Codex, Gemini CLI,
Cline and Roo Code, Goose, OpenCode, Aider, MCP traffic, OpenHands, SWE-agent, and OpenAI or
Anthropic message lists.

Each format module reads one format into `model.Transcript` (the calls,
their times and how each ended; `outcomes` holds the one rule for how a call
ended, `pairing` the pairing of results with calls by id); `reading`
recognises a file's format from its content; `staging` turns a transcript
into the lifecycle's events, `importing` writes them as a session (adding
only what is new when the file grew), and `folders` imports every transcript
under a folder. Imports the stores and the core; only the command imports it.
"""
