"""How a command shows what it found: tables that fit the terminal, readable numbers and
times, progress on a terminal, files written whole, spans sent to a collector. The
commands and their sources import it; it imports the core and what it shows from the
stores, the replay and the export."""
