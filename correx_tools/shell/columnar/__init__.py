"""A store's sessions, calls and events as columnar tables any analysis engine reads in place
(`export --to parquet|csv`): the tables (`tables`), their rows (`rows`), and the writing
(`writing`, with pyarrow: the ``parquet`` extra).

Imports the stores and the core; the command imports it.
"""
