-- One grouping rule and one meaning of "boot" in every view (issue 26).
--
-- `boot` is the boot unit of the statistics everywhere, as in the results view (0010): the
-- round on runs whose flasher boots each round, 1 for every job of a run whose rounds shared
-- one boot (boots_each_round 0: flash none, e.g. local), the imported round for imports. The
-- plan's round is kept beside it as `round`.
--
-- Energy rows carry their job's classifiers (the spec's: test, use case, parameters, knobs;
-- metric_id NULL rows, as JSON like results.classifiers), so a plot or query of them never
-- pools the jobs of two specs of one workload (Jankbench list_view with image_list_view).
-- New columns go after the old ones, so `SELECT *` readers keep their positions.
DROP VIEW energy;
CREATE VIEW energy AS
SELECT c.id AS channel_id, j.run_id, v.name AS variant, j.id AS job_id,
       CASE WHEN r.status <> 'imported' AND r.boots_each_round = 0 THEN 1 ELSE j.round END AS boot,
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

-- The comparison view groups as `kvbench diff` does (src/report/groups.c): `grp` is the
-- metric's classifiers without the keys that tell samples apart (variant, iteration, rep, board,
-- pload_ns) and without the knobs a variant of the run sets (its runtime_json leaves, named as
-- the job classifiers name them: governor, sysctl.NAME, sysfs.PATH, cpufreq.CLUSTER.KEY), which
-- diff compares across variants instead of grouping by them. Before, board and a variant's knob
-- kept the cells of two variants apart (no baseline, perc_diff NULL) where diff compared them.
-- perc_diff is (mean - baseline) / |baseline| x 100 (issue 26 item 1: the sign says which way the
-- mean moved, also for a negative baseline such as rt-app's slack).
DROP VIEW comparison;
CREATE VIEW comparison AS
WITH knob AS (
  -- leaf keys of each variant's knobs: objects are walked, anything else (arrays included) is a leaf
  SELECT DISTINCT v.run_id, replace(substr(t.fullkey, 3), '"', '') AS key
    FROM variant v, json_tree(CASE WHEN json_valid(v.runtime_json) THEN v.runtime_json ELSE '{}' END) t
   WHERE t.type <> 'object' AND instr(t.path, '[') = 0
), res AS (
  SELECT r.*,
         (SELECT json_group_object(e.key, e.value) FROM json_each(r.classifiers) e
           WHERE e.key NOT IN ('variant', 'iteration', 'rep', 'board', 'pload_ns')
             AND e.key NOT IN (SELECT key FROM knob WHERE knob.run_id = r.run_id)) AS grp
    FROM results r
), cell AS (
  SELECT run_id, workload, metric, units, lower_is_better, grp,
         variant, count(*) AS n, avg(value) AS mean, min(value) AS min, max(value) AS max,
         avg(value * value) AS mean_sq
    FROM res
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
