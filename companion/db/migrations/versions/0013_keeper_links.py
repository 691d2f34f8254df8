"""a second scorekeeper's phone: its own link to a night, named, taken back when it leaves (issue 39)

A table of its own: the nights' and events' tables are not changed (a record made through such a link
says so in its ``recorded_by``, as every record always said who made it).

Revision ID: 0013
Revises: 0012
Create Date: 2026-12-01 20:00:00

"""
from alembic import op
import sqlalchemy as sa


revision = '0013'
down_revision = '0012'
branch_labels = None
depends_on = None


def upgrade():
    op.create_table(
        'keeper_link',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('night_id', sa.Integer(), nullable=False),
        sa.Column('name', sa.String(length=40), nullable=False),
        sa.Column('key', sa.String(length=64), nullable=True),
        sa.Column('first_phone', sa.Boolean(), nullable=False),
        sa.Column('request_key', sa.String(length=64), nullable=True),
        sa.Column('created_at', sa.DateTime(), nullable=False),
        sa.Column('taken_back_at', sa.DateTime(), nullable=True),
        sa.ForeignKeyConstraint(['night_id'], ['night.id'], ),
        sa.PrimaryKeyConstraint('id'),
        sa.UniqueConstraint('night_id', 'request_key', name='uq_keeper_link_night_request_key'),
    )
    with op.batch_alter_table('keeper_link', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_keeper_link_night_id'), ['night_id'], unique=False)
        batch_op.create_index(batch_op.f('ix_keeper_link_key'), ['key'], unique=True)


def downgrade():
    with op.batch_alter_table('keeper_link', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_keeper_link_key'))
        batch_op.drop_index(batch_op.f('ix_keeper_link_night_id'))
    op.drop_table('keeper_link')
