-- Original values of runtime knobs (sysctl, sysfs, governor files) while kvbench has
-- them changed. A row is written before the new value and deleted once the original is
-- back, so after a crash (SIGKILL, power loss) the next run or --resume on the same
-- platform finds the rows and puts the board back before measuring anything.
CREATE TABLE knob_saved (
  id        INTEGER PRIMARY KEY,
  run_id    INTEGER NOT NULL REFERENCES run(id),
  platform  TEXT NOT NULL,     -- platform name (the board the value belongs to)
  path      TEXT NOT NULL,     -- file on the target
  original  TEXT NOT NULL,     -- value read before kvbench wrote its own
  saved_ns  INTEGER NOT NULL
);
CREATE INDEX knob_saved_platform ON knob_saved(platform);
