"""Alembic's environment for the server's schema (``noreturn.server.db.migrate`` runs it).

The server passes its own connection in ``config.attributes["connection"]``; the ``alembic``
command line may instead set ``sqlalchemy.url``. Batch mode lets SQLite alter tables.
"""

from __future__ import annotations

from alembic import context
from sqlalchemy import Connection

from noreturn.server.db import Base, make_engine

config = context.config
target_metadata = Base.metadata


def _run(connection: Connection) -> None:
    context.configure(connection=connection, target_metadata=target_metadata,
                      render_as_batch=True, compare_type=True)
    with context.begin_transaction():
        context.run_migrations()


def run_offline() -> None:
    """Write the SQL instead of running it (``alembic upgrade --sql``)."""
    context.configure(url=config.get_main_option("sqlalchemy.url"),
                      target_metadata=target_metadata, literal_binds=True,
                      dialect_opts={"paramstyle": "named"})
    with context.begin_transaction():
        context.run_migrations()


def run_online() -> None:
    """Migrate through the given connection, or one to ``sqlalchemy.url``."""
    connection = config.attributes.get("connection")
    if connection is not None:
        _run(connection)
        return
    engine = make_engine(config.get_main_option("sqlalchemy.url") or "")
    with engine.begin() as own:
        _run(own)
    engine.dispose()


if context.is_offline_mode():
    run_offline()
else:
    run_online()
