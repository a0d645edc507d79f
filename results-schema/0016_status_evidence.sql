-- Right answers from the data (issue 26): signed changes, status only on evidence, no
-- impossible durations.

-- A job that never ran (skipped) has no times: they were stored as 0, so a run's "last
-- job end" could be 1970 and `show runs` gave durations of -1.8e9 s. 0 means unknown.
UPDATE job SET start_ns = NULL WHERE start_ns = 0;
UPDATE job SET end_ns = NULL WHERE end_ns = 0;
UPDATE job_attempt SET start_ns = NULL WHERE start_ns = 0;
UPDATE job_attempt SET end_ns = NULL WHERE end_ns = 0;
UPDATE run SET finished_ns = coalesce((SELECT max(j.end_ns) FROM job j WHERE j.run_id = run.id
                                        AND j.end_ns >= run.started_ns), started_ns)
 WHERE finished_ns IS NOT NULL AND finished_ns < started_ns;

-- As in 0001, with duration_s NULL unless the job has a start and an end at or after it.
DROP VIEW jobs;
CREATE VIEW jobs AS
SELECT j.id AS job_id, j.run_id, v.name AS variant, j.seq, j.round AS boot, j.spec_id, j.workload,
       j.label, j.section, j.iteration, j.status, j.attempts, j.error,
       CASE WHEN j.start_ns > 0 AND j.end_ns >= j.start_ns THEN (j.end_ns - j.start_ns) / 1e9 END AS duration_s,
       j.params_json, j.runtime_json
  FROM job j JOIN variant v ON v.id = j.variant_id;

-- Status is never upgraded without evidence (docs/design.md#witnesses): a variant is ok only when every
-- planned job of it is ok (jobs --until-decided skipped as not needed, in rounds after the
-- decided one, are not planned any more), a run only when every variant is. Runs stored
-- before this migration could say ok with failed or never-run jobs (a --resume that ran
-- nothing marked them ok): those are set to what their jobs show. Imports keep theirs.
UPDATE variant SET status = 'incomplete'
 WHERE status = 'ok'
   AND (SELECT status FROM run WHERE id = variant.run_id) <> 'imported'
   AND EXISTS (SELECT 1 FROM job j WHERE j.variant_id = variant.id AND j.status <> 'ok'
                AND NOT (j.status = 'skipped' AND EXISTS (SELECT 1 FROM run_decide d WHERE d.run_id = j.run_id
                         AND d.decided_round IS NOT NULL AND j.round > d.decided_round)));
UPDATE run SET status = 'incomplete'
 WHERE status = 'ok'
   AND EXISTS (SELECT 1 FROM variant v WHERE v.run_id = run.id AND v.status <> 'ok');

-- The relative change keeps the sign of the difference: over |baseline| (a negative
-- baseline, rt-app's slack, flipped it). As in 0003 otherwise.
DROP VIEW comparison;
CREATE VIEW comparison AS
WITH cell AS (
  SELECT run_id, workload, metric, units, lower_is_better,
         json_remove(classifiers, '$.variant', '$.iteration', '$.rep') AS grp,
         variant, count(*) AS n, avg(value) AS mean, min(value) AS min, max(value) AS max,
         avg(value * value) AS mean_sq
    FROM results
   GROUP BY run_id, workload, metric, units, lower_is_better, grp, variant
), base AS (
  SELECT c.* FROM cell c
    JOIN variant v ON v.run_id = c.run_id AND v.name = c.variant
   WHERE v.position = (SELECT min(position) FROM variant WHERE run_id = c.run_id)
)
SELECT c.run_id, c.workload, c.metric, c.units, c.lower_is_better, c.grp, c.variant, c.n, c.mean,
       CASE WHEN c.n > 1 THEN (c.mean_sq - c.mean * c.mean) * c.n / (c.n - 1) END AS variance,
       c.min, c.max, b.variant AS baseline, b.mean AS baseline_mean,
       CASE WHEN b.mean <> 0 THEN (c.mean - b.mean) / abs(b.mean) * 100 END AS perc_diff
  FROM cell c
  LEFT JOIN base b ON b.run_id = c.run_id AND b.workload = c.workload AND b.metric = c.metric
                  AND b.units IS c.units AND b.grp = c.grp;
