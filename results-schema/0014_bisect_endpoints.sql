-- kvbench bisect: the good and bad endpoints' extra runs (docs/design.md#kernels-from-git). Endpoints that
-- are not decided against each other after their first run (bisect.good_run_id /
-- bad_run_id, --rounds boots) get one more boot each, a run of its own, up to --max-rounds.
CREATE TABLE bisect_endpoint_run (
  bisect_id     INTEGER NOT NULL REFERENCES bisect(id),
  endpoint      TEXT NOT NULL CHECK (endpoint IN ('good', 'bad')),
  run_id        INTEGER NOT NULL REFERENCES run(id),
  PRIMARY KEY (bisect_id, run_id)
);
