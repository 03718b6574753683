"""Transcripts other agents write, brought in as sessions: Claude Code, Codex, Gemini CLI,
Cline and Roo Code, Goose, OpenCode, Aider, MCP traffic, OpenHands, SWE-agent, and OpenAI or
Anthropic message lists.

Its rooms, each importing only the ones below it:

* `cache` — transcripts read as a store, kept in step with the files (`manifest`,
  `following`);
* `importing` — a file, bytes or a folder written as sessions, all or nothing
  (`options`: the one frozen value of an import's choices; `events`: a transcript
  as the lifecycle's events; `tiers`: each call's tier, from the capability table);
* `recognising` — a file's format told from its content, and read; `homes` — the
  agents' folders on this machine;
* `agents` — one package per format, each exporting one `AgentFormat` record
  (`agent_format`) that says all the machinery needs of it; `agents.REGISTRY`
  lists them, and nothing outside `agents` names one;
* `common` — what the readers share: how a call ended (`outcomes`), results paired
  with calls (`pairing`), a file still being written (`lines`), the conversation
  a reader gathers (`talk`);
* `model` — what every format is read into; `errors` — what a reader raises;
  `description` — an imported session's description, read from a store.

Imports the stores and the core; the command, ``serve`` and ``runs`` import it.
"""
