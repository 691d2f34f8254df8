"""A group's members, and which member each name a night seats is.

A night knows its players only by the names typed at the table: "Dan" one week, "dan " the next,
"Daniel" when someone else keeps score.  The group's season and its tab add nights up per
*person*, so each name must be matched to a member, the same way everywhere: by the name as the
table reads it (runs of spaces made one, then trimmed) and case-folded, so "DAN", " dan" and "Dan"
are one member, and "Straße" is "STRASSE".

Members are never edited in place.  A group keeps its member records in the order they were made
(:class:`Added`, :class:`Merged`, :class:`Renamed`) and :func:`members_from` folds them, so
merging two names that are one person is a record appended, undone by nothing but a later
record, and every night already stored keeps the name it was played under.  A name a night seats
that no record knows is refused with :class:`UnknownMember`, never guessed at: a typo must not
start a new member's season silently.

Pure: values in, values out.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

from companion.games.protocol import MAX_NAME_LENGTH
from companion.values.reading import Unreadable, name as read_name

__all__ = [
    "Added",
    "MemberError",
    "MemberRecord",
    "Members",
    "Merged",
    "Renamed",
    "UnknownMember",
    "member_name",
    "MemberFold",
    "members_from",
    "name_key",
]


class MemberError(ValueError):
    """A member record that cannot apply (a name already taken, a merge of a member with itself)."""


class UnknownMember(LookupError):
    """A name no member of the group goes by; the message names it and the group's members."""

    def __init__(self, name: str, members: Iterable[str]) -> None:
        known = ", ".join(members) or "none yet"
        super().__init__(f"no member of the group is called {name!r} (members: {known}); add or merge it first")
        self.name = name


def member_name(value: object, what: str = "a member's name", *, stored: bool = False) -> str:
    """A member's name as the table reads a player's: one space between words, trimmed, at most 24 characters.

    :class:`~companion.values.reading.Unreadable` when it is not text, is empty, cannot be stored, is longer,
    or holds what no name holds (the one reader of a name, :func:`companion.values.reading.name`).
    """
    name = read_name(value, what, max_length=MAX_NAME_LENGTH, stored=stored)
    if not name:
        raise Unreadable(f"{what} cannot be empty")
    return name


def name_key(name: str) -> str:
    """What two names must share to be one member: the name as the table reads it, case-folded."""
    return " ".join(name.split()).casefold()


@dataclass(frozen=True)
class Added:
    """A new member, under ``name``."""

    name: str


@dataclass(frozen=True)
class Merged:
    """``merged`` is the same person as ``kept``: every night of ``merged`` counts for ``kept`` from now on."""

    kept: str
    merged: str


@dataclass(frozen=True)
class Renamed:
    """The member called ``old`` is shown as ``new``; nights seating ``old`` still count for them."""

    old: str
    new: str


MemberRecord = Added | Merged | Renamed


@dataclass(frozen=True)
class Members:
    """The group's members (as shown, in the order they joined) and every name that is one of them.

    Built by :func:`members_from`; :meth:`member` is the one way a night's name becomes a member.
    """

    names: tuple[str, ...] = ()
    #: each name's key (:func:`name_key`) → the member it is, as shown
    aliases: Mapping[str, str] = field(default_factory=lambda: MappingProxyType({}))

    def member(self, name: str) -> str:
        """The member a night's ``name`` is; :class:`UnknownMember` when none is."""
        if not isinstance(name, str):
            raise TypeError(f"a player's name must be text, got {name!r}")
        found = self.aliases.get(name_key(name))
        if found is None:
            raise UnknownMember(name, self.names)
        return found

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and name_key(name) in self.aliases

    def names_of(self, member: str) -> tuple[str, ...]:
        """Every key that counts for ``member`` (its own and the names merged into it), in the order made."""
        return tuple(key for key, who in self.aliases.items() if who == member)


def members_from(records: Iterable[MemberRecord]) -> Members:
    """The members the records make, applied in order.

    :class:`MemberError` (naming the record's position) when a record cannot apply: a new
    member whose name an existing member already goes by, a merge or a rename that names no
    member, a merge of a member with itself, a rename to a name another member goes by.  A
    rename may change only the case or the spacing of a member's own name.
    """
    fold = MemberFold()
    for record in records:
        fold.apply(record)
    return fold.members


class MemberFold:
    """The member records applied one at a time, for a reader that must ask who a name was just before a record.

    The service follows each pay handle through its member's renames and merges: it asks who
    a rename's old name was before applying it.  Folding every record again for each of them
    made a group's view quadratic in its member records; this keeps the fold as it goes.
    """

    def __init__(self, *, stored: bool = False) -> None:
        #: the records are the database's (read as :func:`member_name` reads a stored name), not a file's
        self._stored = stored
        self._names: list[str] = []
        self._aliases: dict[str, str] = {}
        self._applied = 0

    def apply(self, record: MemberRecord) -> None:
        """Apply ``record``; :class:`MemberError` naming its position when it cannot apply (as :func:`members_from`)."""
        try:
            _apply(record, self._names, self._aliases, self._stored)
        except (Unreadable, UnknownMember, MemberError) as error:
            raise MemberError(f"member record {self._applied}: {error}") from None
        self._applied += 1

    def member(self, name: str) -> str:
        """The member a night's ``name`` is now (:meth:`Members.member`), without copying the members."""
        return Members(tuple(self._names), self._aliases).member(name)

    @property
    def members(self) -> Members:
        """The members as the records applied so far make them (a copy: later records do not change it)."""
        return Members(tuple(self._names), MappingProxyType(dict(self._aliases)))


def _apply(record: MemberRecord, names: list[str], aliases: dict[str, str], stored: bool = False) -> None:
    """Apply one record to the members being folded (in place); ``stored``: a record the database holds."""
    if isinstance(record, Added):
        name = member_name(record.name, stored=stored)
        if name_key(name) in aliases:
            raise MemberError(f"{name!r} is already {aliases[name_key(name)]!r}; a member's names are one person's")
        names.append(name)
        aliases[name_key(name)] = name
    elif isinstance(record, Merged):
        kept = _known(record.kept, names, aliases, stored)
        merged = _known(record.merged, names, aliases, stored)
        if kept == merged:
            raise MemberError(f"{record.merged!r} is already {kept!r}: nothing to merge")
        names.remove(merged)
        for key, who in aliases.items():
            if who == merged:
                aliases[key] = kept
    elif isinstance(record, Renamed):
        old = _known(record.old, names, aliases, stored)
        new = member_name(record.new, "the new name", stored=stored)
        other = aliases.get(name_key(new))
        if other is not None and other != old:
            raise MemberError(f"{new!r} is already {other!r}: merge the two instead of renaming")
        names[names.index(old)] = new
        for key, who in aliases.items():
            if who == old:
                aliases[key] = new
        aliases[name_key(new)] = new
    else:
        raise TypeError(f"not a member record: {record!r}")


def _known(name: str, names: list[str], aliases: Mapping[str, str], stored: bool = False) -> str:
    """The member ``name`` is, while folding."""
    return Members(tuple(names), aliases).member(member_name(name, stored=stored))
