-- `kvbench run --until-decided` (docs/design.md#verdicts-and-deciding): the stopping rule a run was started with, so
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

-- Job-level classifiers (metric_id NULL, most rows) need no entry in the metric index: a partial
-- index keeps lookups by metric_id (`metric_id = ?` implies NOT NULL, so SQLite still uses it)
-- and saves one B-tree insert per job classifier (issue 14: import speed).
DROP INDEX classifier_metric;
CREATE INDEX classifier_metric ON classifier(metric_id) WHERE metric_id IS NOT NULL;
