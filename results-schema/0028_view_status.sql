-- The documented views say which jobs they hold (issue 40 item 3). Before, the energy view held
-- every job's channels, warm-ups (iteration 0, status 'warmup'), disturbed and failed jobs
-- included, with no status column: averaging energy_j over it mixed warm-ups in, where diff and
-- the report compare ok and instrument-failed jobs only (the results view).
--
-- energy: as in 0024, plus the job's `status` as the last column (ok, instrument-failed, warmup,
--   disturbed, failed, ...). Every job's channels stay (a refused channel's samples are evidence;
--   the report's power-over-time plots draw them); select `WHERE status IN ('ok',
--   'instrument-failed')` to average what diff compares, or use energy_compared.
-- energy_compared: the energy view's rows of the jobs diff compares (the results view's rule:
--   status ok or instrument-failed), so no warm-up, disturbed or failed job is in it.
-- witnesses: as in 0015, plus the job's `status` as the last column (NULL for a witness of a
--   variant and round, e.g. rt-app's pLoad recheck, which belongs to no job).
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
           ORDER BY k.key)) AS classifiers,
       j.status
  FROM energy_channel c JOIN job j ON j.id = c.job_id JOIN variant v ON v.id = j.variant_id
       JOIN run r ON r.id = j.run_id;

CREATE VIEW energy_compared AS
SELECT * FROM energy WHERE status IN ('ok', 'instrument-failed');

DROP VIEW witnesses;
CREATE VIEW witnesses AS
SELECT w.id AS witness_id, w.run_id, coalesce(jv.name, v.name) AS variant, w.job_id,
       coalesce(j.round, w.round) AS round, j.workload, j.spec_id, j.iteration,
       w.kind, w.subject, w.expected, w.observed, w.verdict, w.detail, w.t_ns,
       j.status
FROM witness w
LEFT JOIN job j ON j.id = w.job_id
LEFT JOIN variant jv ON jv.id = j.variant_id
LEFT JOIN variant v ON v.id = w.variant_id;
