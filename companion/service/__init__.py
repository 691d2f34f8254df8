"""The service layer: the only writer to the database, every command through one unit of work."""
