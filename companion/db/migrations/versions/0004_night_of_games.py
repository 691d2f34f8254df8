"""a night is a sequence of games: every existing night becomes a night with one Napalm game

A ``game`` row holds what a night's columns held for its one game of Napalm (its
rules, first dealer, and a pot carried in), and every game event is tagged with
its game.  The night keeps what is the night's: its name, seats, money and links.
Downgrading puts the first game's settings back on the night (a night of several
games cannot go back: the older release knew one game a night, so it is refused).

Revision ID: 0004
Revises: 0003
Create Date: 2026-11-23 17:30:00

"""
import json

import sqlalchemy as sa
from alembic import op

revision = '0004'
down_revision = '0003'
branch_labels = None
depends_on = None

NAPALM_EVENTS = ('declare', 'challenge', 'showdown', 'void')


def _json(value):
    """A JSON column's value as the driver hands it back (text on SQLite, decoded on PostgreSQL)."""
    return json.loads(value) if isinstance(value, str) else value


def upgrade():
    op.create_table(
        'game',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('night_id', sa.Integer(), nullable=False),
        sa.Column('position', sa.Integer(), nullable=False),
        sa.Column('kind', sa.String(length=20), nullable=False),
        sa.Column('rules', sa.JSON(), nullable=False),
        sa.Column('players', sa.JSON(), nullable=False),
        sa.Column('first_dealer', sa.String(length=40), nullable=False),
        sa.Column('carried_in', sa.JSON(), nullable=True),
        sa.Column('created_at', sa.DateTime(), nullable=False),
        sa.ForeignKeyConstraint(['night_id'], ['night.id'], name='fk_game_night_id_night'),
        sa.PrimaryKeyConstraint('id', name='pk_game'),
        sa.UniqueConstraint('night_id', 'position', name='uq_game_night_position'),
    )
    with op.batch_alter_table('game', schema=None) as batch_op:
        batch_op.create_index('ix_game_night_id', ['night_id'], unique=False)
    with op.batch_alter_table('event', schema=None) as batch_op:
        batch_op.add_column(sa.Column('game_id', sa.Integer(), nullable=True))
        batch_op.create_foreign_key('fk_event_game_id_game', 'game', ['game_id'], ['id'])

    connection = op.get_bind()
    night = sa.table(
        'night', sa.column('id', sa.Integer), sa.column('players', sa.JSON), sa.column('first_dealer', sa.String),
        sa.column('ante', sa.Integer), sa.column('ante_every', sa.Integer), sa.column('tokens_to_win', sa.Integer),
        sa.column('unfinished_pot', sa.String), sa.column('carried_in', sa.JSON), sa.column('created_at', sa.DateTime),
    )
    game = sa.table(
        'game', sa.column('id', sa.Integer), sa.column('night_id', sa.Integer), sa.column('position', sa.Integer),
        sa.column('kind', sa.String), sa.column('rules', sa.JSON), sa.column('players', sa.JSON),
        sa.column('first_dealer', sa.String), sa.column('carried_in', sa.JSON), sa.column('created_at', sa.DateTime),
    )
    event = sa.table('event', sa.column('night_id', sa.Integer), sa.column('kind', sa.String), sa.column('game_id', sa.Integer))
    for row in connection.execute(sa.select(night)).all():
        connection.execute(
            game.insert().values(
                night_id=row.id, position=1, kind='napalm',
                rules={'ante': row.ante, 'ante_every': row.ante_every, 'tokens_to_win': row.tokens_to_win,
                       'unfinished_pot': row.unfinished_pot},
                players=_json(row.players), first_dealer=row.first_dealer,
                carried_in=_json(row.carried_in) or None, created_at=row.created_at,
            )
        )
        game_id = connection.execute(
            sa.select(game.c.id).where(game.c.night_id == row.id, game.c.position == 1)
        ).scalar_one()
        connection.execute(
            event.update().where(event.c.night_id == row.id, event.c.kind.in_(NAPALM_EVENTS)).values(game_id=game_id)
        )

    # Dropped in place (SQLite 3.35 and later, PostgreSQL): rebuilding the night table, as a
    # batch would on SQLite, trips the references the game and event rows hold to it.
    for column in ('first_dealer', 'ante', 'ante_every', 'tokens_to_win', 'unfinished_pot', 'carried_in'):
        op.drop_column('night', column)


def downgrade():
    connection = op.get_bind()
    several = connection.execute(sa.text("SELECT count(*) FROM game WHERE position > 1")).scalar()
    if several:
        raise RuntimeError(
            f"{several} game(s) were started after a night's first: the release before 0004 kept one game a night"
        )
    with op.batch_alter_table('night', schema=None) as batch_op:
        batch_op.add_column(sa.Column('first_dealer', sa.String(length=40), nullable=False, server_default=''))
        batch_op.add_column(sa.Column('ante', sa.Integer(), nullable=False, server_default='1'))
        batch_op.add_column(sa.Column('ante_every', sa.Integer(), nullable=False, server_default='1'))
        batch_op.add_column(sa.Column('tokens_to_win', sa.Integer(), nullable=False, server_default='5'))
        batch_op.add_column(sa.Column('unfinished_pot', sa.String(length=20), nullable=False, server_default='return_antes'))
        batch_op.add_column(sa.Column('carried_in', sa.JSON(), nullable=True))
    night = sa.table(
        'night', sa.column('id', sa.Integer), sa.column('first_dealer', sa.String), sa.column('ante', sa.Integer),
        sa.column('ante_every', sa.Integer), sa.column('tokens_to_win', sa.Integer),
        sa.column('unfinished_pot', sa.String), sa.column('carried_in', sa.JSON),
    )
    game = sa.table(
        'game', sa.column('night_id', sa.Integer), sa.column('rules', sa.JSON), sa.column('first_dealer', sa.String),
        sa.column('carried_in', sa.JSON),
    )
    for row in connection.execute(sa.select(game)).all():
        rules = _json(row.rules)
        connection.execute(
            night.update().where(night.c.id == row.night_id).values(
                first_dealer=row.first_dealer, ante=rules['ante'], ante_every=rules['ante_every'],
                tokens_to_win=rules['tokens_to_win'], unfinished_pot=rules['unfinished_pot'],
                carried_in=_json(row.carried_in),
            )
        )
    with op.batch_alter_table('event', schema=None) as batch_op:  # nothing refers to an event
        batch_op.drop_constraint('fk_event_game_id_game', type_='foreignkey')
        batch_op.drop_column('game_id')
    op.drop_table('game')
