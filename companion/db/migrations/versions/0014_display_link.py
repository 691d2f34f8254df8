"""the table display's own link: read only, one per night, made, replaced and taken back (issue 39)

A table of its own (the night's row is not changed): one row per night at most, its key unique as the
night's other links are, so a display's key is found by its index.  Nothing in the ledger changes: a link
is not a record.

Revision ID: 0014
Revises: 0013
Create Date: 2026-12-02 10:00:00

"""
from alembic import op
import sqlalchemy as sa


revision = '0014'
down_revision = '0013'
branch_labels = None
depends_on = None


def upgrade():
    op.create_table(
        'display_link',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('night_id', sa.Integer(), nullable=False),
        sa.Column('key', sa.String(length=64), nullable=False),
        sa.Column('created_at', sa.DateTime(), nullable=False),
        sa.ForeignKeyConstraint(['night_id'], ['night.id'], ),
        sa.PrimaryKeyConstraint('id'),
    )
    with op.batch_alter_table('display_link', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_display_link_night_id'), ['night_id'], unique=True)
        batch_op.create_index(batch_op.f('ix_display_link_key'), ['key'], unique=True)


def downgrade():
    with op.batch_alter_table('display_link', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_display_link_key'))
        batch_op.drop_index(batch_op.f('ix_display_link_night_id'))
    op.drop_table('display_link')
