-- A per-variant comparison view for `kvbench query` and notebooks (the diff tables'
-- first columns, without the significance tests, which need GSL: use
-- `kvbench diff --format json` for those).
--
-- One row per (run, workload, metric, units, group, variant). `grp` is the metric's
-- classifiers without variant, iteration and rep (JSON). `baseline` is the run's first
-- variant (agenda order); perc_diff = (mean - baseline_mean) / baseline_mean * 100.
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
       CASE WHEN b.mean <> 0 THEN (c.mean - b.mean) / b.mean * 100 END AS perc_diff
  FROM cell c
  LEFT JOIN base b ON b.run_id = c.run_id AND b.workload = c.workload AND b.metric = c.metric
                  AND b.units IS c.units AND b.grp = c.grp;
