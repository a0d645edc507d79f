-- LAVA as a lab uses it (issue 28, docs/design.md#pools-and-lava).
--
-- Every LAVA job kvbench submits, stored the moment LAVA answers with its id (before kvbench
-- follows it), so that a kvbench killed mid-run leaves no job it does not know about:
-- `run --resume` finds the unit's job still in flight (ended_ns NULL) and reattaches to it, or
-- cancels it and submits anew, saying which. `state` is what the lava target needs to
-- recognise the job (JSON: the test shell's marker nonce, the token of the URLs its files and
-- results are served under, kvbench's server port, the definition's sha256); never a secret
-- of the user's (the API token stays in the environment).
CREATE TABLE lava_job (
  id           INTEGER PRIMARY KEY,
  run_id       INTEGER NOT NULL REFERENCES run(id),
  variant_id   INTEGER NOT NULL REFERENCES variant(id),
  round        INTEGER NOT NULL,
  lava_job_id  INTEGER NOT NULL,
  url          TEXT,
  state        TEXT,
  submitted_ns INTEGER NOT NULL,
  ended_ns     INTEGER,             -- NULL while in flight
  ended_how    TEXT                 -- LAVA's health at the end: Complete, Incomplete, Canceled
);
CREATE INDEX lava_job_unit ON lava_job(run_id, variant_id, round);

-- The platform file a run was started with (absolute), so `run --resume` reloads it without
-- -p when it was given as a path rather than a name from the platform search path.
ALTER TABLE run ADD COLUMN platform_path TEXT;
