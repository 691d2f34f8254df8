"""a group across nights: the group (its links and version), its append-only records, and the nights it keeps

Revision ID: 0007
Revises: 0006
Create Date: 2026-12-01 10:00:00

"""
from alembic import op
import sqlalchemy as sa


revision = '0007'
down_revision = '0006'
branch_labels = None
depends_on = None


def upgrade():
    op.create_table(
        'home_group',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('name', sa.String(length=80), nullable=False),
        sa.Column('organiser_key', sa.String(length=64), nullable=False),
        sa.Column('member_key', sa.String(length=64), nullable=False),
        sa.Column('version', sa.Integer(), nullable=False),
        sa.Column('created_at', sa.DateTime(), nullable=False),
        sa.Column('request_key', sa.String(length=64), nullable=True),
        sa.Column('request_digest', sa.String(length=64), nullable=True),
        sa.PrimaryKeyConstraint('id'),
        sa.UniqueConstraint('request_key', name='uq_home_group_request_key'),
    )
    with op.batch_alter_table('home_group', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_home_group_organiser_key'), ['organiser_key'], unique=True)
        batch_op.create_index(batch_op.f('ix_home_group_member_key'), ['member_key'], unique=True)

    op.create_table(
        'group_record',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('group_id', sa.Integer(), nullable=False),
        sa.Column('seq', sa.Integer(), nullable=False),
        sa.Column('kind', sa.String(length=20), nullable=False),
        sa.Column('payload', sa.JSON(), nullable=False),
        sa.Column('request_key', sa.String(length=64), nullable=True),
        sa.Column('recorded_by', sa.String(length=40), nullable=False),
        sa.Column('created_at', sa.DateTime(), nullable=False),
        sa.ForeignKeyConstraint(['group_id'], ['home_group.id'], ),
        sa.PrimaryKeyConstraint('id'),
        sa.UniqueConstraint('group_id', 'seq', name='uq_group_record_group_seq'),
        sa.UniqueConstraint('group_id', 'request_key', name='uq_group_record_group_request_key'),
    )
    with op.batch_alter_table('group_record', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_group_record_group_id'), ['group_id'], unique=False)

    op.create_table(
        'group_night',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('group_id', sa.Integer(), nullable=False),
        sa.Column('night_id', sa.Integer(), nullable=False),
        sa.Column('position', sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(['group_id'], ['home_group.id'], ),
        sa.ForeignKeyConstraint(['night_id'], ['night.id'], ),
        sa.PrimaryKeyConstraint('id'),
        sa.UniqueConstraint('night_id', name='uq_group_night_night'),
        sa.UniqueConstraint('group_id', 'position', name='uq_group_night_group_position'),
    )
    with op.batch_alter_table('group_night', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_group_night_group_id'), ['group_id'], unique=False)


def downgrade():
    with op.batch_alter_table('group_night', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_group_night_group_id'))
    op.drop_table('group_night')
    with op.batch_alter_table('group_record', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_group_record_group_id'))
    op.drop_table('group_record')
    with op.batch_alter_table('home_group', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_home_group_member_key'))
        batch_op.drop_index(batch_op.f('ix_home_group_organiser_key'))
    op.drop_table('home_group')
