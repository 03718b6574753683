"""What a command's arguments name, opened: stores, transcripts and folders read through
their cache, the filters and prices a command is given. The commands import it; it
imports the stores, the transcripts, the replay and the output beside it."""
