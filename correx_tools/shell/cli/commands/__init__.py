"""The commands, one module each: ``add_arguments(parser)`` declares its arguments and
``run(args) -> int`` runs it. Only `correx_tools.shell.cli.main` imports them, the one
being run alone; no command imports another."""
