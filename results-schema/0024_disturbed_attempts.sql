-- Witnesses act (docs/design.md "Witnesses", issue 38): a job the host disturbed runs again in
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
