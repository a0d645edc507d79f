-- `kvbench run --until-decided` (DESIGN.md §11): the stopping rule a run was started with, so
-- --resume goes on with the same rule, and where it stopped.
CREATE TABLE run_decide (
  run_id        INTEGER PRIMARY KEY REFERENCES run(id),
  margin        REAL NOT NULL,            -- "same" margin, fraction (0.01 = 1 %)
  alpha         REAL NOT NULL,            -- family-wise level over all looks
  max_rounds    INTEGER NOT NULL,         -- looks planned (one after every round)
  max_time_s    REAL,                     -- wall-clock budget from the start, NULL = none
  metrics_json  TEXT NOT NULL,            -- ["WORKLOAD/METRIC", ...]; [] = every metric
  decided_round INTEGER,                  -- round after which the run stopped, NULL while undecided
  outcome       TEXT                      -- decided | budget, NULL while running
);
