"""Creator tokens, the bot-due flag, and indexes for the lobby and the sweeps.

``creator_hash`` holds the SHA-256 of a table's creator token (tables made before have
none: nobody can close them, the idle sweep still does). ``bot_due`` is True for the
existing rows, so a game in progress is looked at once (as before) and the flag is then
kept exact. The single-column indexes give way to the ones the lobby's newest-first list
and the sweeps use.

Revision ID: 0002
Revises: 0001
Create Date: 2026-12-02
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision: str = "0002"
down_revision: str | None = "0001"
branch_labels: str | None = None
depends_on: str | None = None


def upgrade() -> None:
    """Add creator_hash and bot_due; replace the indexes."""
    with op.batch_alter_table("game_tables") as batch:
        batch.add_column(sa.Column("creator_hash", sa.String(length=64), nullable=True))
        batch.add_column(sa.Column("bot_due", sa.Boolean(), nullable=False,
                                   server_default=sa.true()))
        batch.drop_index("ix_game_tables_status")
        batch.drop_index("ix_game_tables_created_at")
        batch.create_index("ix_game_tables_newest", ["created_at", "id"], unique=False)
        batch.create_index("ix_game_tables_status_newest", ["status", "created_at", "id"],
                           unique=False)
        batch.create_index("ix_game_tables_status_updated", ["status", "updated_at"],
                           unique=False)


def downgrade() -> None:
    """Back to revision 0001's columns and indexes (closed tables keep their status)."""
    with op.batch_alter_table("game_tables") as batch:
        batch.drop_index("ix_game_tables_status_updated")
        batch.drop_index("ix_game_tables_status_newest")
        batch.drop_index("ix_game_tables_newest")
        batch.create_index("ix_game_tables_created_at", ["created_at"], unique=False)
        batch.create_index("ix_game_tables_status", ["status"], unique=False)
        batch.drop_column("bot_due")
        batch.drop_column("creator_hash")
