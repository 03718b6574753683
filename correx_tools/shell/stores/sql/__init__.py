"""The SQL engine the database stores share: the time-travel index written, rebuilt and read.

Imports the core and ``stores.codec``; the SQLite and PostgreSQL stores import it.
"""
