-- Board pools and LAVA (docs/design.md#pools-and-lava).
-- The board a boot ran on: a pool's board name (platform boards:, or each -p), or NULL
-- for a run on one board. Jobs carry the same name as their `board` classifier.
ALTER TABLE boot ADD COLUMN board TEXT;
-- A boot that was a LAVA job: its id on the LAVA server and the job's page.
ALTER TABLE boot ADD COLUMN lava_job_id INTEGER;
ALTER TABLE boot ADD COLUMN lava_url TEXT;
