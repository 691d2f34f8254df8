"""the group's nights indexed by (group, night): the one-row stamp of a group's pages reads its nights from the
index alone (SQLite: a covering index; PostgreSQL: an index-only scan once the database holds other groups'
nights); it takes the place of the index on the group alone, which it serves as well

Revision ID: 0009
Revises: 0008
Create Date: 2026-11-26 16:30:00

"""
from alembic import op


revision = '0009'
down_revision = '0008'
branch_labels = None
depends_on = None


def upgrade():
    with op.batch_alter_table('group_night', schema=None) as batch_op:
        batch_op.create_index('ix_group_night_group_id_night_id', ['group_id', 'night_id'], unique=False)
        batch_op.drop_index(batch_op.f('ix_group_night_group_id'))


def downgrade():
    with op.batch_alter_table('group_night', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_group_night_group_id'), ['group_id'], unique=False)
        batch_op.drop_index('ix_group_night_group_id_night_id')
