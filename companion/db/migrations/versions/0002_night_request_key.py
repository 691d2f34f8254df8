"""a night remembers the key of the form that started it

A doubled tap on "Start the night" or "Import" sends the same form twice; the
second finds the night the first made instead of starting another.

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-23 11:40:00

"""
from alembic import op
import sqlalchemy as sa


revision = '0002'
down_revision = '0001'
branch_labels = None
depends_on = None


def upgrade():
    with op.batch_alter_table('night', schema=None) as batch_op:
        batch_op.add_column(sa.Column('request_key', sa.String(length=64), nullable=True))
        batch_op.add_column(sa.Column('request_digest', sa.String(length=64), nullable=True))
        batch_op.create_unique_constraint('uq_night_request_key', ['request_key'])


def downgrade():
    with op.batch_alter_table('night', schema=None) as batch_op:
        batch_op.drop_constraint('uq_night_request_key', type_='unique')
        batch_op.drop_column('request_digest')
        batch_op.drop_column('request_key')
