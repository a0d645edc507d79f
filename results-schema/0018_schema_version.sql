-- The results database's schema version, readable with a query (issue 31): scripts and
-- notebooks check it before they read the views (`SELECT version FROM kvbench_schema`).
-- It is SQLite's PRAGMA user_version, which kvbench sets to the number of results-schema/
-- migrations applied (store.c); a kvbench opens a DB of a version up to the number it
-- embeds (`kvbench --version` prints it), migrates an older one and refuses a newer one.
-- docs/outputs.md documents it with the views and the JSON outputs.
CREATE VIEW kvbench_schema AS
SELECT user_version AS version FROM pragma_user_version;
