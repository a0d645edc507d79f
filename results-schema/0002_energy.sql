-- kvbench results schema, version 2: energy channels and their samples.
--
-- Every sample an energy instrument recorded during a job (or that
-- `kvbench import energy CSV --job ID` attached to it) is kept, compactly:
-- samples are grouped per channel into chunks of up to 4096, one row each.
--
-- energy_chunk.blob, encoding 1 (little endian; src/core/samples.h):
--   byte 0          1 (the encoding number)
--   n x float32     the values, in energy_channel.units (mW for power)
--   n-1 x varint    timestamps: zigzag LEB128 of the delta-of-delta,
--                   d_i = t_i - t_(i-1) in ns, value stored zz(d_i - d_(i-1)), d_0 = 0;
--                   t_0 = t0_ns; zz(x) = (x << 1) ^ (x >> 63)
-- A meter with a steady clock costs 5 bytes a sample (1 byte of time).
-- `kvbench export samples --job ID [--channel NAME]` decodes them to CSV.

-- One channel of one job: a rail or a sum (chan_name classifier of its metrics).
CREATE TABLE energy_channel (
  id            INTEGER PRIMARY KEY,
  job_id        INTEGER NOT NULL REFERENCES job(id),
  name          TEXT NOT NULL,           -- chan_name: "little", "big", "total_power" ...
  units         TEXT NOT NULL,           -- units of the samples: mW
  instrument    TEXT,                    -- instrument instance name, or 'import'
  estimated     INTEGER NOT NULL DEFAULT 0, -- 1 when derived from a model
  n_samples     INTEGER NOT NULL,
  t_first_ns    INTEGER,                 -- first and last sample kept (CLOCK_REALTIME ns)
  t_last_ns     INTEGER,
  energy_j      REAL,                    -- sum P_i (t_i - t_(i-1)) over the samples, J
  power_mean_mw REAL                     -- mean of the samples, mW
);
CREATE INDEX energy_channel_job ON energy_channel(job_id);

-- Samples of a channel, in chunks (seq 0, 1, ...) of n samples starting at t0_ns.
CREATE TABLE energy_chunk (
  id          INTEGER PRIMARY KEY,
  channel_id  INTEGER NOT NULL REFERENCES energy_channel(id),
  seq         INTEGER NOT NULL,
  t0_ns       INTEGER NOT NULL,
  n           INTEGER NOT NULL,
  blob        BLOB NOT NULL
);
CREATE UNIQUE INDEX energy_chunk_seq ON energy_chunk(channel_id, seq);

-- Stable view: one row per energy channel of a job, with its run and variant.
CREATE VIEW energy AS
SELECT c.id AS channel_id, j.run_id, v.name AS variant, j.id AS job_id, j.round AS boot,
       j.workload, j.label, j.section, j.iteration,
       c.name AS chan_name, c.units, c.instrument, c.estimated, c.n_samples,
       c.t_first_ns, c.t_last_ns, (c.t_last_ns - c.t_first_ns) / 1e9 AS duration_s,
       c.energy_j, c.power_mean_mw,
       (SELECT sum(length(blob)) FROM energy_chunk k WHERE k.channel_id = c.id) AS stored_bytes
  FROM energy_channel c JOIN job j ON j.id = c.job_id JOIN variant v ON v.id = j.variant_id;
