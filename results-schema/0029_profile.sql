-- Sampling profiles (issue 39 item 3, docs/profile.md): where a job's instructions go. The
-- profile instrument runs `perf record -a -e cpu-clock:I -c PERIOD` around the job and stores
-- perf report's samples per function; on a board whose guest clock counts instructions (QEMU
-- -icount shift=0) one sample stands for PERIOD instructions. Written in the job's transaction;
-- a refused profile (samples lost, kernel symbols not resolved) is not stored, its witness is.
CREATE TABLE profile (
  id              INTEGER PRIMARY KEY,
  job_id          INTEGER NOT NULL REFERENCES job(id),
  event           TEXT,                -- the event perf sampled: 'cpu-clock:I'
  period          INTEGER NOT NULL,    -- ns of the board's clock per sample
  unit            TEXT NOT NULL CHECK (unit IN ('instructions', 'ns')), -- what samples x period counts
  samples         INTEGER NOT NULL,    -- every sample of the report
  lost            INTEGER,             -- samples perf said it lost (NULL: not printed)
  lost_chunks     INTEGER NOT NULL DEFAULT 0, -- ring-buffer overflows perf reported
  kernel_samples  INTEGER NOT NULL,    -- samples in the kernel
  kernel_resolved INTEGER NOT NULL,    -- of those, resolved to a symbol
  ops             REAL,                -- the workload's operations in the job (NULL: unknown)
  op_name         TEXT                 -- what one operation is ('loop', 'message')
);
CREATE UNIQUE INDEX profile_job ON profile(job_id);

-- One row per function (or unresolved address) of a profile.
CREATE TABLE profile_symbol (
  profile_id  INTEGER NOT NULL REFERENCES profile(id),
  dso         TEXT NOT NULL,           -- '[kernel.kallsyms]', 'libc.so.6', '[unknown]'
  symbol      TEXT NOT NULL,           -- 'pipe_read', or '0xffffffff81234567' when unresolved
  mode        TEXT NOT NULL,           -- perf's mark: 'k' kernel, '.' user
  resolved    INTEGER NOT NULL,        -- 0: an address perf found no symbol for
  samples     INTEGER NOT NULL
);
CREATE INDEX profile_symbol_profile ON profile_symbol(profile_id);

-- Every stored profile's functions with their job: count = samples x period (instructions when
-- unit is 'instructions'), per_op = count / ops (NULL when the workload's operations are unknown).
CREATE VIEW profiles AS
SELECT j.run_id, v.name AS variant, j.id AS job_id, j.workload, j.spec_id, j.iteration, j.round, j.status,
       p.event, p.period, p.unit, p.ops, p.op_name,
       s.dso, s.symbol, s.mode, s.resolved, s.samples,
       s.samples * p.period AS count,
       CASE WHEN p.ops > 0 THEN s.samples * p.period / p.ops END AS per_op
  FROM profile_symbol s JOIN profile p ON p.id = s.profile_id
       JOIN job j ON j.id = p.job_id JOIN variant v ON v.id = j.variant_id;
