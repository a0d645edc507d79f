-- The boot unit of the results view comes from a capability stored with the run, not from
-- the flash method's name (issue 17): boots_each_round is 1 when the run's flasher installs
-- the variant's kernel and so boots the board afresh for every round (the round is the boot),
-- 0 when it installs nothing and every round ran in the one boot (flash method none). The
-- engine writes it from the flasher's capabilities (kvb_flasher_boots_each_round).
ALTER TABLE run ADD COLUMN boots_each_round INTEGER NOT NULL DEFAULT 0;
-- Runs stored before this migration: the method name is all they have (unset = none), so the
-- view gives the same boot for them as it did.
UPDATE run SET boots_each_round = 1
 WHERE coalesce(json_extract(platform_json, '$.flash.method'), 'none') <> 'none';

-- As in 0001, with the capability in place of the name: `boot` is the round on runs whose
-- flasher boots each round, 1 for every job of a run whose rounds shared one boot, the CSV's
-- column for imports.
DROP VIEW results;
CREATE VIEW results AS
SELECT m.id AS metric_id, j.run_id, v.name AS variant, j.id AS job_id, j.round,
       CASE WHEN r.status <> 'imported' AND r.boots_each_round = 0
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
