"""a group's count of its nights' changes that move no night version (a players' link replaced, a setup
edited before play): part of the one-row stamp the group's pages are kept by

Revision ID: 0008
Revises: 0007
Create Date: 2026-11-26 16:00:00

"""
from alembic import op
import sqlalchemy as sa


revision = '0008'
down_revision = '0007'
branch_labels = None
depends_on = None


def upgrade():
    with op.batch_alter_table('home_group', schema=None) as batch_op:
        batch_op.add_column(sa.Column('nights_changed', sa.Integer(), server_default='0', nullable=False))


def downgrade():
    with op.batch_alter_table('home_group', schema=None) as batch_op:
        batch_op.drop_column('nights_changed')
