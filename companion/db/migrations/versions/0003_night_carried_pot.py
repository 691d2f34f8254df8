"""a night can start with the pot carried in from a previous night

A night whose setting carries an unfinished game's pot to the next night can
start that next night: ``carried_in`` holds each contributor's chips in the pot
its first game starts with, ``carried_from`` the night they came from (unique: a
pot is carried once; the old night's row is never changed).

Revision ID: 0003
Revises: 0002
Create Date: 2026-11-30 10:00:00

"""
from alembic import op
import sqlalchemy as sa


revision = '0003'
down_revision = '0002'
branch_labels = None
depends_on = None


def upgrade():
    with op.batch_alter_table('night', schema=None) as batch_op:
        batch_op.add_column(sa.Column('carried_in', sa.JSON(), nullable=True))
        batch_op.add_column(sa.Column('carried_from', sa.Integer(), nullable=True))
        batch_op.create_unique_constraint('uq_night_carried_from', ['carried_from'])
        batch_op.create_foreign_key('fk_night_carried_from_night', 'night', ['carried_from'], ['id'])


def downgrade():
    with op.batch_alter_table('night', schema=None) as batch_op:
        batch_op.drop_constraint('fk_night_carried_from_night', type_='foreignkey')
        batch_op.drop_constraint('uq_night_carried_from', type_='unique')
        batch_op.drop_column('carried_from')
        batch_op.drop_column('carried_in')
