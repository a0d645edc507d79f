-- Every physical boot is its own record and its own unit (issue 38).
--
-- Before, a boot row was UNIQUE (variant_id, round) and written with INSERT OR REPLACE, and a
-- job carried only its round: a run interrupted in round 2 and resumed with `--resume` booted
-- round 2 again, that boot replaced the killed boot's row (boots 1, 3, 4, 5 listed; boot 2
-- gone) and the jobs finished before the kill and after the resume were one boot to diff,
-- report, --until-decided and bisect. Now:
--  - boot keeps one row per boot: a second boot of a round (a resume, a pool's board lost, a
--    LAVA job retried) is a new row; `seq` numbers the variant's boots 1, 2, ... in the order
--    they were recorded (equal to the round in a run that was never interrupted); `status`
--    adds `interrupted`: the boot's round still had jobs to run when the run stopped (Ctrl-C,
--    SIGTERM, --max-jobs, or a kill found by the next --resume);
--  - job.boot_id is the boot the job ran in, written when the job is committed; NULL for a job
--    that did not run in a boot (skipped) and for jobs stored before this migration, whose
--    boot is still their round;
--  - the views' `boot` is the boot's seq (else the round), as before 1 for every job of a run
--    whose rounds shared one boot (boots_each_round 0), and the imported column for imports.
-- Boots stored before this migration keep their id, and their round as seq.
CREATE TABLE boot_new (
  id              INTEGER PRIMARY KEY,
  variant_id      INTEGER NOT NULL REFERENCES variant(id),
  round           INTEGER NOT NULL,      -- 1-based; a round may have several boots
  started_ns      INTEGER,
  ready_ns        INTEGER,
  status          TEXT NOT NULL,         -- ok | failed | interrupted
  error           TEXT,
  running_release TEXT,                  -- uname -r
  running_version TEXT,                  -- uname -v
  running_cmdline TEXT,                  -- /proc/cmdline
  board           TEXT,                  -- 0009
  lava_job_id     INTEGER,               -- 0009
  lava_url        TEXT,                  -- 0009
  seq             INTEGER NOT NULL,      -- the variant's n-th boot (1-based, in recorded order)
  UNIQUE (variant_id, seq)
);
INSERT INTO boot_new(id, variant_id, round, started_ns, ready_ns, status, error, running_release,
                     running_version, running_cmdline, board, lava_job_id, lava_url, seq)
SELECT id, variant_id, round, started_ns, ready_ns, status, error, running_release,
       running_version, running_cmdline, board, lava_job_id, lava_url, round
  FROM boot;
DROP TABLE boot;
ALTER TABLE boot_new RENAME TO boot;
CREATE INDEX boot_round ON boot(variant_id, round);

ALTER TABLE job ADD COLUMN boot_id INTEGER REFERENCES boot(id);

-- As in 0010, with the job's own boot in place of its round.
DROP VIEW results;
CREATE VIEW results AS
SELECT m.id AS metric_id, j.run_id, v.name AS variant, j.id AS job_id, j.round,
       CASE WHEN r.status <> 'imported' AND r.boots_each_round = 0 THEN 1
            ELSE coalesce((SELECT b.seq FROM boot b WHERE b.id = j.boot_id), j.round) END AS boot,
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

-- As in 0016: `boot` is the job's boot (its seq; the round for jobs without one, before this
-- migration or never run), not collapsed for runs whose rounds shared one boot (`show jobs`
-- and the report do that, as the results view does). New columns at the end: the plan's
-- round and the boot row's id.
DROP VIEW jobs;
CREATE VIEW jobs AS
SELECT j.id AS job_id, j.run_id, v.name AS variant, j.seq,
       coalesce((SELECT b.seq FROM boot b WHERE b.id = j.boot_id), j.round) AS boot, j.spec_id, j.workload,
       j.label, j.section, j.iteration, j.status, j.attempts, j.error,
       CASE WHEN j.start_ns > 0 AND j.end_ns >= j.start_ns THEN (j.end_ns - j.start_ns) / 1e9 END AS duration_s,
       j.params_json, j.runtime_json, j.round, j.boot_id
  FROM job j JOIN variant v ON v.id = j.variant_id;

-- As in 0017, with the job's own boot.
DROP VIEW energy;
CREATE VIEW energy AS
SELECT c.id AS channel_id, j.run_id, v.name AS variant, j.id AS job_id,
       CASE WHEN r.status <> 'imported' AND r.boots_each_round = 0 THEN 1
            ELSE coalesce((SELECT b.seq FROM boot b WHERE b.id = j.boot_id), j.round) END AS boot,
       j.workload, j.label, j.section, j.iteration,
       c.name AS chan_name, c.units, c.instrument, c.estimated, c.n_samples,
       c.t_first_ns, c.t_last_ns, (c.t_last_ns - c.t_first_ns) / 1e9 AS duration_s,
       c.energy_j, c.power_mean_mw,
       (SELECT sum(length(blob)) FROM energy_chunk k WHERE k.channel_id = c.id) AS stored_bytes,
       j.round, j.spec_id,
       (SELECT json_group_object(key, value) FROM (
          SELECT k.key, k.value FROM classifier k WHERE k.job_id = j.id AND k.metric_id IS NULL
           ORDER BY k.key)) AS classifiers
  FROM energy_channel c JOIN job j ON j.id = c.job_id JOIN variant v ON v.id = j.variant_id
       JOIN run r ON r.id = j.run_id;
