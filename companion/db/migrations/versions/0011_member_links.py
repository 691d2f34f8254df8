"""each member's own secret link to their group: "I got it" is said by the payee alone (issue 35, item 7)

Revision ID: 0011
Revises: 0010
Create Date: 2026-11-29 02:40:00

"""
from alembic import op
import sqlalchemy as sa


revision = '0011'
down_revision = '0010'
branch_labels = None
depends_on = None


def upgrade():
    op.create_table(
        'member_link',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('group_id', sa.Integer(), nullable=False),
        sa.Column('member', sa.String(length=40), nullable=False),
        sa.Column('key', sa.String(length=64), nullable=False),
        sa.Column('created_at', sa.DateTime(), nullable=False),
        sa.ForeignKeyConstraint(['group_id'], ['home_group.id'], ),
        sa.PrimaryKeyConstraint('id'),
    )
    with op.batch_alter_table('member_link', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_member_link_group_id'), ['group_id'], unique=False)
        batch_op.create_index(batch_op.f('ix_member_link_key'), ['key'], unique=True)


def downgrade():
    with op.batch_alter_table('member_link', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_member_link_key'))
        batch_op.drop_index(batch_op.f('ix_member_link_group_id'))
    op.drop_table('member_link')
