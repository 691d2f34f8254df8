"""the table display's own link: a third secret on the night, read only, made and taken back (issue 39)

A column of the night (NULL: no display link, or one taken back), unique as the other two links are, so
a display's key is found by its index.  Nothing in the ledger changes: a link is not a record.

Revision ID: 0014
Revises: 0013
Create Date: 2026-12-02 10:00:00

"""
from alembic import op
import sqlalchemy as sa


revision = '0014'
down_revision = '0013'
branch_labels = None
depends_on = None


def upgrade():
    with op.batch_alter_table('night', schema=None) as batch_op:
        batch_op.add_column(sa.Column('display_key', sa.String(length=64), nullable=True))
        batch_op.create_index(batch_op.f('ix_night_display_key'), ['display_key'], unique=True)


def downgrade():
    with op.batch_alter_table('night', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_night_display_key'))
        batch_op.drop_column('display_key')
