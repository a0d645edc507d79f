-- kvbench results schema, version 1.
-- Times are int64 nanoseconds since the Unix epoch (CLOCK_REALTIME) unless named *_ns
-- of a duration. Every table is documented here; the views at the end are the stable
-- interface for `kvbench query` and notebooks.

-- One `kvbench run` (or `kvbench import`) invocation.
CREATE TABLE run (
  id            INTEGER PRIMARY KEY,
  started_ns    INTEGER NOT NULL,
  finished_ns   INTEGER,                 -- NULL while running or after a crash
  status        TEXT NOT NULL,           -- running | ok | incomplete | interrupted | imported
  agenda_path   TEXT,
  agenda_json   TEXT,                    -- the agenda as loaded (JSON)
  platform      TEXT,                    -- platform name
  platform_json TEXT,                    -- platform file as loaded (JSON)
  rounds        INTEGER NOT NULL DEFAULT 1,
  exec_order    TEXT,
  max_retries   INTEGER NOT NULL DEFAULT 2,
  kvbench_version TEXT,
  hostname      TEXT,
  command_line  TEXT
);

-- A kernel under test within a run.
CREATE TABLE variant (
  id              INTEGER PRIMARY KEY,
  run_id          INTEGER NOT NULL REFERENCES run(id),
  name            TEXT NOT NULL,
  position        INTEGER NOT NULL,      -- order in the agenda; 0 is the default baseline
  kernel          TEXT, kernel_sha256 TEXT,
  dtb             TEXT, dtb_sha256 TEXT,
  initrd          TEXT, initrd_sha256 TEXT,
  boot_image      TEXT, boot_image_sha256 TEXT,
  modules         TEXT, modules_sha256 TEXT,
  cmdline         TEXT,
  expected_release TEXT,                 -- read from the image
  expected_version TEXT,
  runtime_json    TEXT,                  -- runtime knobs
  status          TEXT NOT NULL DEFAULT 'pending', -- pending | ok | failed
  error           TEXT,
  UNIQUE (run_id, name)
);

-- One boot of a variant (a round): identity of the running kernel as seen after boot.
CREATE TABLE boot (
  id              INTEGER PRIMARY KEY,
  variant_id      INTEGER NOT NULL REFERENCES variant(id),
  round           INTEGER NOT NULL,      -- 1-based
  started_ns      INTEGER,
  ready_ns        INTEGER,
  status          TEXT NOT NULL,         -- ok | failed
  error           TEXT,
  running_release TEXT,                  -- uname -r
  running_version TEXT,                  -- uname -v
  running_cmdline TEXT,                  -- /proc/cmdline
  UNIQUE (variant_id, round)
);

-- One (variant, section, spec, iteration): the unit that runs, retries and is stored.
-- Planned jobs are inserted as 'pending' when the run starts, so --resume knows what is left.
CREATE TABLE job (
  id          INTEGER PRIMARY KEY,
  run_id      INTEGER NOT NULL REFERENCES run(id),
  variant_id  INTEGER NOT NULL REFERENCES variant(id),
  seq         INTEGER NOT NULL,          -- position in the plan (execution order)
  round       INTEGER NOT NULL,          -- the boot this job belongs to (1-based)
  spec_id     TEXT NOT NULL,
  workload    TEXT NOT NULL,
  label       TEXT,
  section     TEXT,
  iteration   INTEGER NOT NULL,          -- 1-based
  params_json TEXT,
  runtime_json TEXT,
  status      TEXT NOT NULL DEFAULT 'pending', -- pending | ok | failed | instrument-failed | skipped
  attempts    INTEGER NOT NULL DEFAULT 0,
  error       TEXT,
  start_ns    INTEGER,
  end_ns      INTEGER,
  UNIQUE (run_id, seq)
);
CREATE INDEX job_run ON job(run_id, status);

-- Every attempt of a job, failed ones included, with its error.
CREATE TABLE job_attempt (
  id        INTEGER PRIMARY KEY,
  job_id    INTEGER NOT NULL REFERENCES job(id),
  attempt   INTEGER NOT NULL,            -- 1-based
  status    TEXT NOT NULL,
  error     TEXT,
  start_ns  INTEGER,
  end_ns    INTEGER
);

-- A measured value.
CREATE TABLE metric (
  id              INTEGER PRIMARY KEY,
  job_id          INTEGER NOT NULL REFERENCES job(id),
  name            TEXT NOT NULL,
  value           REAL NOT NULL,
  units           TEXT,
  lower_is_better INTEGER NOT NULL       -- 1 or 0
);
CREATE INDEX metric_job ON metric(job_id);

-- key/value labels of a job (metric_id NULL) or of one metric.
-- Every job carries variant, section (if any), iteration, workload parameters marked
-- as classifiers, sweep keys and the agenda's classifiers.
CREATE TABLE classifier (
  id        INTEGER PRIMARY KEY,
  job_id    INTEGER NOT NULL REFERENCES job(id),
  metric_id INTEGER REFERENCES metric(id),
  key       TEXT NOT NULL,
  value     TEXT NOT NULL
);
CREATE INDEX classifier_job ON classifier(job_id);
CREATE INDEX classifier_metric ON classifier(metric_id);

-- Files a job produced (raw tool output, logs, traces), stored under the artifact dir.
CREATE TABLE artifact (
  id      INTEGER PRIMARY KEY,
  job_id  INTEGER REFERENCES job(id),
  run_id  INTEGER REFERENCES run(id),
  kind    TEXT NOT NULL,
  path    TEXT NOT NULL,
  sha256  TEXT,
  bytes   INTEGER
);

-- What happened during a run, in order (flash, boot, retries, interruptions).
CREATE TABLE event (
  id      INTEGER PRIMARY KEY,
  run_id  INTEGER NOT NULL REFERENCES run(id),
  t_ns    INTEGER NOT NULL,
  level   TEXT NOT NULL,                 -- info | warning | error
  message TEXT NOT NULL
);

-- Stable views --------------------------------------------------------------------

-- One row per metric, with its job's context and all classifiers as a JSON object
-- (metric-level classifiers override job-level ones of the same key).
-- `round` is the plan's round; `boot` is the boot unit of the statistics: the round on
-- platforms that flash and reboot, 1 for every job on platforms that never reboot
-- (flash method none: all rounds ran in the same boot), the CSV's column for imports.
CREATE VIEW results AS
SELECT m.id AS metric_id, j.run_id, v.name AS variant, j.id AS job_id, j.round,
       CASE WHEN r.status <> 'imported'
             AND coalesce(json_extract(r.platform_json, '$.flash.method'), 'none') = 'none'
            THEN 1 ELSE j.round END AS boot,
       j.workload, j.label, j.section, j.spec_id, j.iteration,
       m.name AS metric, m.value, m.units, m.lower_is_better,
       (SELECT json_group_object(key, value) FROM (
          SELECT c.key, c.value FROM classifier c
           WHERE c.job_id = j.id
             AND (c.metric_id = m.id
                  OR (c.metric_id IS NULL
                      AND c.key NOT IN (SELECT key FROM classifier WHERE metric_id = m.id)))
           ORDER BY c.key)) AS classifiers
  FROM metric m JOIN job j ON j.id = m.job_id JOIN variant v ON v.id = j.variant_id
       JOIN run r ON r.id = j.run_id
 WHERE j.status IN ('ok', 'instrument-failed');

CREATE VIEW jobs AS
SELECT j.id AS job_id, j.run_id, v.name AS variant, j.seq, j.round AS boot, j.spec_id, j.workload,
       j.label, j.section, j.iteration, j.status, j.attempts, j.error,
       (j.end_ns - j.start_ns) / 1e9 AS duration_s, j.params_json, j.runtime_json
  FROM job j JOIN variant v ON v.id = j.variant_id;
