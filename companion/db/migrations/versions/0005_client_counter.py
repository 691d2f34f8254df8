"""counters of what each client does, shared by every process: the brakes on link guessing,
creating nights and importing files

Revision ID: 0005
Revises: 0004
Create Date: 2026-11-23 17:00:00

"""
from alembic import op
import sqlalchemy as sa


revision = '0005'
down_revision = '0004'
branch_labels = None
depends_on = None


def upgrade():
    op.create_table(
        'client_counter',
        sa.Column('kind', sa.String(length=16), nullable=False),
        sa.Column('client', sa.String(length=64), nullable=False),
        sa.Column('bucket', sa.BigInteger(), nullable=False),
        sa.Column('hits', sa.Integer(), nullable=False),
        sa.PrimaryKeyConstraint('kind', 'client', 'bucket'),
    )
    with op.batch_alter_table('client_counter', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_client_counter_bucket'), ['bucket'], unique=False)


def downgrade():
    with op.batch_alter_table('client_counter', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_client_counter_bucket'))
    op.drop_table('client_counter')
