"""Transcripts other agents write, brought in as sessions: Claude Code, OpenHands, SWE-agent,
and OpenAI or Anthropic message lists.

Each format module reads one format into `calls.Transcript` (the calls,
their times and how each ended); `importing` turns a transcript into the
lifecycle's events and writes them. Imports the stores and the core; only the
command imports it.
"""
