-- Witnesses act (docs/design.md#witnesses, issue 38): a job the host disturbed runs again in
-- the same boot (agenda `retry_disturbed`), and the disturbed attempt is kept as evidence: its
-- row in job_attempt (status 'disturbed') carries the metrics it measured, and its witnesses
-- stay in the witness table with the attempt's number. A job still disturbed after its
-- retries is stored with status 'disturbed': its metrics are kept, the results view (ok and
-- instrument-failed jobs only) leaves it out, so diff, report, --until-decided and bisect
-- never compare it.
--
-- job_attempt.metrics_json: the attempt's metrics, [{"name", "value", "units"}], for an
--   attempt that measured and was not kept (NULL otherwise).
-- witness.attempt: the attempt a job's witness belongs to when that attempt is not the job's
--   final one (NULL: the final attempt, which is what the job's metrics come from).
ALTER TABLE job_attempt ADD COLUMN metrics_json TEXT;
ALTER TABLE witness ADD COLUMN attempt INTEGER;

-- Every measured value of every job with the job's status: the one definition the results view
-- (ok and instrument-failed jobs: what is compared) and results_left_out (jobs the host
-- disturbed in every attempt: counted per cell by diff, never compared) select from. Columns as
-- the results view of 0024, then status.
CREATE VIEW job_values AS
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
           ORDER BY c.key)) AS classifiers,
       j.status
  FROM metric m JOIN job j ON j.id = m.job_id JOIN variant v ON v.id = j.variant_id
       JOIN run r ON r.id = j.run_id;

DROP VIEW results;
CREATE VIEW results AS
SELECT metric_id, run_id, variant, job_id, round, boot, workload, label, section, spec_id, iteration,
       metric, value, units, lower_is_better, classifiers
  FROM job_values WHERE status IN ('ok', 'instrument-failed');

CREATE VIEW results_left_out AS
SELECT metric_id, run_id, variant, job_id, round, boot, workload, label, section, spec_id, iteration,
       metric, value, units, lower_is_better, classifiers
  FROM job_values WHERE status = 'disturbed';
