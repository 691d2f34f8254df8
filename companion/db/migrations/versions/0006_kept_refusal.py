"""what a refused submit left for its page, kept in the database instead of the session cookie
(the cookie showed the scorekeeper's link and outgrew what browsers keep)

Revision ID: 0006
Revises: 0005
Create Date: 2026-11-25 10:00:00

"""
from alembic import op
import sqlalchemy as sa


revision = '0006'
down_revision = '0005'
branch_labels = None
depends_on = None


def upgrade():
    op.create_table(
        'kept_refusal',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('token', sa.String(length=32), nullable=False),
        sa.Column('path_digest', sa.String(length=64), nullable=False),
        sa.Column('content', sa.JSON(), nullable=False),
        sa.Column('created_at', sa.DateTime(), nullable=False),
        sa.PrimaryKeyConstraint('id'),
        sa.UniqueConstraint('token', name='uq_kept_refusal_token'),
    )
    with op.batch_alter_table('kept_refusal', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_kept_refusal_created_at'), ['created_at'], unique=False)


def downgrade():
    with op.batch_alter_table('kept_refusal', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_kept_refusal_created_at'))
    op.drop_table('kept_refusal')
