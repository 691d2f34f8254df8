"""Storage: the models, the engine's settings, migrations, backups and the brakes counted in the database."""
