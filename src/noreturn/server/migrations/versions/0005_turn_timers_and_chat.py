"""Turn timers and the table chat (issue 18, "Online together").

``game_tables`` gets the timer chosen at creation (``turn_seconds``, None: no timer, and
``timeout_level``, the bot that plays a turn whose time ran out) and the deadline of the
turn under way (``turn_deadline``, None while a bot is to move or with no timer). Every
process finds the turns whose time ran out through the (status, turn_deadline) index, so
the deadline lives in the database: it survives a restart and is the same for every
process. Existing tables have no timer.

``table_chat`` holds each table's chat, one row per message, deleted with its table.

Revision ID: 0005
Revises: 0004
Create Date: 2026-12-02
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision: str = "0005"
down_revision: str | None = "0004"
branch_labels: str | None = None
depends_on: str | None = None


def upgrade() -> None:
    """Add the timer columns and their index; create table_chat."""
    with op.batch_alter_table("game_tables") as batch:
        batch.add_column(sa.Column("turn_seconds", sa.Integer(), nullable=True))
        batch.add_column(sa.Column("timeout_level", sa.String(length=64), nullable=True))
        batch.add_column(sa.Column("turn_deadline", sa.DateTime(timezone=True), nullable=True))
        batch.create_index("ix_game_tables_status_deadline", ["status", "turn_deadline"],
                           unique=False)
    op.create_table(
        "table_chat",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("table_id", sa.String(length=32), nullable=False),
        sa.Column("seat", sa.Integer(), nullable=False),
        sa.Column("name", sa.String(length=64), nullable=False),
        sa.Column("text", sa.Text(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["table_id"], ["game_tables.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index("ix_table_chat_table", "table_chat", ["table_id", "id"], unique=False)


def downgrade() -> None:
    """Drop table_chat and the timer columns (the chats and timers are lost)."""
    op.drop_index("ix_table_chat_table", table_name="table_chat")
    op.drop_table("table_chat")
    with op.batch_alter_table("game_tables") as batch:
        batch.drop_index("ix_game_tables_status_deadline")
        batch.drop_column("turn_deadline")
        batch.drop_column("timeout_level")
        batch.drop_column("turn_seconds")
