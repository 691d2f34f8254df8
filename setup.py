"""How a built wheel holds the app: the top-level ``templates/`` and ``static/`` go inside it.

The repository keeps the app's templates and static files at its top level, beside the
package (the layout of Flask's tutorial), but a wheel installs only packages (and
``data_files``, scattered under the environment's prefix where no app looks).  So a
build maps each folder into the package (``package_dir``: a mapped package's data is
read from its folder): ``templates/`` becomes ``companion/templates``, ``static/``
``companion/static``, where the installed app finds them (``companion._shipped``).

The metadata stays in ``pyproject.toml``.  The package list is here because a list
found by discovery cannot take extra mapped packages there, and a written-out list
would name every game's package.
"""

from setuptools import find_namespace_packages, setup

#: the package each top-level folder becomes in a wheel
SHIPPED = {"companion.templates": "templates", "companion.static": "static"}


def shipped(package: str) -> list[str]:
    """The folder's package and its subfolders' (setuptools counts every folder of data a package)."""
    return [package] + [f"{package}.{sub}" for sub in find_namespace_packages(SHIPPED[package])]


setup(
    packages=find_namespace_packages(include=["companion*"]) + [name for package in SHIPPED for name in shipped(package)],
    package_dir=SHIPPED,
    package_data={
        # each folder whole, whatever kinds of file it comes to hold
        "companion.templates": ["**/*"],
        "companion.static": ["**/*"],
        # the app upgrades its database at start: Alembic's settings and its script template
        "companion.db.migrations": ["alembic.ini", "script.py.mako"],
    },
)
