-- Witnesses (docs/design.md#witnesses): what kvbench checked to believe each stored number. One row
-- per check: a knob read back after its write, a meter's coverage of the job window, a
-- thermal zone before and after, the kernel log's sequence, the host's pressure, pLoad at
-- the end of a round. A job's witnesses are written in the job's transaction, whatever its
-- status (a failed job keeps the witness that failed it); a witness of a boot or a round
-- (pLoad re-check) has no job and names its variant and round.
CREATE TABLE witness (
  id          INTEGER PRIMARY KEY,
  run_id      INTEGER NOT NULL REFERENCES run(id),
  job_id      INTEGER REFERENCES job(id),       -- NULL: a witness of a boot or round
  variant_id  INTEGER REFERENCES variant(id),   -- set when job_id is NULL
  round       INTEGER,                          -- set when job_id is NULL
  t_ns        INTEGER NOT NULL,                 -- when it was checked
  kind        TEXT NOT NULL,                    -- knob | meter | thermal | kmsg | sampler | pload | host | ...
  subject     TEXT NOT NULL,                    -- what was checked (a path, a channel, a zone)
  expected    TEXT,                             -- what kvbench asked or believed
  observed    TEXT,                             -- what the board showed (NULL: unreadable)
  verdict     TEXT NOT NULL CHECK (verdict IN ('ok', 'recorded', 'changed', 'disturbed', 'refused', 'failed')),
  detail      TEXT                              -- why, for a human
);
CREATE INDEX witness_job ON witness(job_id);
CREATE INDEX witness_run ON witness(run_id);

-- Stable view: every witness with its variant, round and job context.
CREATE VIEW witnesses AS
SELECT w.id AS witness_id, w.run_id, coalesce(jv.name, v.name) AS variant, w.job_id,
       coalesce(j.round, w.round) AS round, j.workload, j.spec_id, j.iteration,
       w.kind, w.subject, w.expected, w.observed, w.verdict, w.detail, w.t_ns
FROM witness w
LEFT JOIN job j ON j.id = w.job_id
LEFT JOIN variant jv ON jv.id = j.variant_id
LEFT JOIN variant v ON v.id = w.variant_id;
