"""The reviews of finished games, one row per table (docs/review.md, "In the browser").

A table of its own rather than a column of ``game_tables``, so that the tables' frequent
reads never carry a review. Existing finished tables have no row: they are reviewed when
someone asks for their review.

Revision ID: 0003
Revises: 0002
Create Date: 2026-12-02
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision: str = "0003"
down_revision: str | None = "0002"
branch_labels: str | None = None
depends_on: str | None = None


def upgrade() -> None:
    """Create table_reviews (primary key table_id, deleted with its table)."""
    op.create_table(
        "table_reviews",
        sa.Column("table_id", sa.String(length=32), nullable=False),
        sa.Column("state", sa.String(length=16), nullable=False),
        sa.Column("claimed_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("review", sa.JSON(), nullable=True),
        sa.Column("error", sa.Text(), nullable=True),
        sa.ForeignKeyConstraint(["table_id"], ["game_tables.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("table_id"),
    )


def downgrade() -> None:
    """Drop table_reviews (the reviews are lost; they can be made again)."""
    op.drop_table("table_reviews")
