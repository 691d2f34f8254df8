"""The stored rows the service hands to the web layer, named for what a page may do with them.

A page reads a night's or a group's fields (its name, its version, its links) off the row the
service found for it; it never queries, adds or changes one.  Naming the row types here lets
the web layer type its views without importing the database layer: every read and write it
asks for goes through this package's functions, and the models stay the service's own.
"""

from companion.db.models import Group as GroupRow
from companion.db.models import Night as NightRow

__all__ = ["GroupRow", "NightRow"]
