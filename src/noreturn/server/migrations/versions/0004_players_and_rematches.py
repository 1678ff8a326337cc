"""Player keys, ratings and rematches (issue 18, "Online together" and "After a game").

``players`` holds one row per rated player: a person, known only by the SHA-256 of the
player key their browser keeps, or a bot level; ``player_seats`` ties a key to the seats
it joined, for the person's history and the rating of a finished table. ``rematch_id``
points a finished table to its rematch. Existing tables have no keyed seats: they appear
in nobody's history and are never rated.

Revision ID: 0004
Revises: 0003
Create Date: 2026-12-02
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision: str = "0004"
down_revision: str | None = "0003"
branch_labels: str | None = None
depends_on: str | None = None


def upgrade() -> None:
    """Create players and player_seats; add game_tables.rematch_id."""
    op.create_table(
        "players",
        sa.Column("id", sa.String(length=80), nullable=False),
        sa.Column("kind", sa.String(length=8), nullable=False),
        sa.Column("name", sa.String(length=64), nullable=False),
        sa.Column("mu", sa.Float(), nullable=False),
        sa.Column("sigma", sa.Float(), nullable=False),
        sa.Column("ordinal", sa.Float(), nullable=False),
        sa.Column("games", sa.Integer(), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index("ix_players_ordinal", "players", ["ordinal"], unique=False)
    op.create_table(
        "player_seats",
        sa.Column("table_id", sa.String(length=32), nullable=False),
        sa.Column("seat", sa.Integer(), nullable=False),
        sa.Column("player_id", sa.String(length=80), nullable=False),
        sa.Column("rated", sa.Boolean(), nullable=False),
        sa.Column("ordinal_after", sa.Float(), nullable=True),
        sa.ForeignKeyConstraint(["table_id"], ["game_tables.id"], ondelete="CASCADE"),
        sa.ForeignKeyConstraint(["player_id"], ["players.id"]),
        sa.PrimaryKeyConstraint("table_id", "seat"),
    )
    op.create_index("ix_player_seats_player", "player_seats", ["player_id", "table_id"],
                    unique=False)
    op.create_index("ix_player_seats_unrated", "player_seats", ["rated", "table_id"],
                    unique=False)
    with op.batch_alter_table("game_tables") as batch:
        batch.add_column(sa.Column("rematch_id", sa.String(length=32), nullable=True))


def downgrade() -> None:
    """Drop them (histories, ratings and rematch pointers are lost)."""
    with op.batch_alter_table("game_tables") as batch:
        batch.drop_column("rematch_id")
    op.drop_index("ix_player_seats_unrated", table_name="player_seats")
    op.drop_index("ix_player_seats_player", table_name="player_seats")
    op.drop_table("player_seats")
    op.drop_index("ix_players_ordinal", table_name="players")
    op.drop_table("players")
