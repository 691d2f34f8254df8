"""the address each kept refusal came from: what one client keeps is bounded, so a flood of refused
submits from one address no longer pushes out another phone's refusal (issue 36, item 4)

Revision ID: 0012
Revises: 0011
Create Date: 2026-11-29 02:40:00

"""
from alembic import op
import sqlalchemy as sa


revision = '0012'
down_revision = '0011'
branch_labels = None
depends_on = None


def upgrade():
    with op.batch_alter_table('kept_refusal', schema=None) as batch_op:
        batch_op.add_column(sa.Column('client', sa.String(length=64), server_default='', nullable=False))
        batch_op.create_index('ix_kept_refusal_client_id', ['client', 'id'], unique=False)


def downgrade():
    with op.batch_alter_table('kept_refusal', schema=None) as batch_op:
        batch_op.drop_index('ix_kept_refusal_client_id')
        batch_op.drop_column('client')
