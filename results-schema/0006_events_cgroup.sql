-- Nothing silent (docs/design.md#backends-and-capabilities): every warning or error printed during a run is an event
-- row; events raised while a job ran name that job, so `diff` can footnote the cells
-- whose jobs had them.
ALTER TABLE event ADD COLUMN job_id INTEGER REFERENCES job(id);
CREATE INDEX event_job ON event(job_id);

-- cgroup_depth: the cgroup the workload's process was seen in (its /proc/PID/cgroup
-- line for the hierarchy with the cpu controller, as a full path under that
-- hierarchy's mount, e.g. /dev/cpuctl/kvbench-run1/l2); NULL without cgroup_depth.
ALTER TABLE job ADD COLUMN cgroup TEXT;
