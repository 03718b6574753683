"""Importing transcripts into a store: a file, bytes already read, or a folder of files.

`importing` reads a transcript (`recognising`), turns it into the lifecycle's
events (`events`: a value too large cut to fit, `cutting`; each call's tier and
capabilities, `tiers`) and writes them as a session, adding only what is new when
the file grew (`held_of`: the one answer to how much of it a store holds);
`folders` imports every transcript under a folder. Every function takes the
import's choices as one frozen `options.ImportOptions`. Imports `recognising`,
`common`, `model`, `errors`, the stores and the core; the cache and the command
import it.

`events` is not pure, and stays here: it fits each event to the stores' size
limit, measured by the stores' own encoder (`cutting`).
"""
