"""The store for deployments that outgrow one machine: a PostgreSQL schema
(`PostgresEventStore`, the optional extra ``postgres``).

Imports the codec and the SQL engine; ``stores.opening`` imports it
only when a PostgreSQL store is opened (psycopg is optional).
"""

from .store import PostgresEventStore as PostgresEventStore

__all__ = ["PostgresEventStore"]
