-- Kernels built from git (docs/design.md#kernels-from-git): what each variant of a run was built from,
-- and `kvbench bisect` sessions with their steps (each step is a run of its own).

-- One row per variant that names a git revision (`git:` in the agenda, `run --series`,
-- bisect steps). The build log is also a run artifact (kind 'build-log').
CREATE TABLE variant_build (
  variant_id    INTEGER PRIMARY KEY REFERENCES variant(id),
  repo          TEXT NOT NULL,     -- absolute path of the repository
  rev           TEXT NOT NULL,     -- the revision as the user wrote it
  commit_sha    TEXT NOT NULL,     -- 40 hex digits
  describe      TEXT,              -- git describe --always --tags
  subject       TEXT,              -- first line of the commit message
  parent_sha    TEXT,              -- first parent (NULL for a root commit)
  series_pos    INTEGER,           -- 0-based position in a --series, else NULL
  config_hash   TEXT NOT NULL,     -- 16 hex: config targets, fragments, make args, toolchain
  toolchain     TEXT,              -- first line of `CC --version`
  build_s       REAL,              -- wall time of the build that made the image, s
  cached        INTEGER NOT NULL DEFAULT 0, -- 1: image came from the cache in this run
  build_log     TEXT,              -- path of the build log
  error         TEXT               -- failed build: reason and the end of the log
);

CREATE TABLE bisect (
  id            INTEGER PRIMARY KEY,
  repo          TEXT NOT NULL,
  good_sha      TEXT NOT NULL,
  bad_sha       TEXT NOT NULL,
  metric        TEXT NOT NULL,     -- WORKLOAD/METRIC
  threshold_pct REAL NOT NULL,
  rounds        INTEGER,           -- boots per measurement (NULL = platform default)
  max_rounds    INTEGER NOT NULL,  -- boots a step may get before the nearer endpoint decides
  agenda_path   TEXT,
  platform      TEXT NOT NULL,
  command_line  TEXT,
  status        TEXT NOT NULL DEFAULT 'running', -- running | done | failed | aborted | interrupted
  first_bad_sha TEXT,
  change_pct    REAL,              -- first bad against good, %
  good_run_id   INTEGER REFERENCES run(id),
  bad_run_id    INTEGER REFERENCES run(id),
  git_log       TEXT,              -- `git bisect log` after the last step
  error         TEXT,
  started_ns    INTEGER NOT NULL,
  finished_ns   INTEGER
);

CREATE TABLE bisect_step (
  id            INTEGER PRIMARY KEY,
  bisect_id     INTEGER NOT NULL REFERENCES bisect(id),
  step          INTEGER NOT NULL,  -- 1-based
  commit_sha    TEXT NOT NULL,
  run_id        INTEGER REFERENCES run(id),
  outcome       TEXT NOT NULL,     -- good | bad | skip | abort
  value         REAL,              -- mean of the metric at this step
  vs_good_pct   REAL,              -- change against the good endpoint, %
  vs_bad_pct    REAL,              -- change against the bad endpoint, %
  rounds        INTEGER,           -- boots measured (more when undecided)
  reason        TEXT,              -- why (verdicts, or the failure)
  UNIQUE (bisect_id, step)
);
