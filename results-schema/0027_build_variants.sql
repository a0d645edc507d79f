-- A variant's own build (issue 39, src/kbuild/variant.h): its config fragments on top of the
-- agenda's build, and patch files applied with `git am` onto its revision.
--
-- variant_build.config_diff: the options its final .config sets differently from the first
--   built variant's of the run ("CONFIG_X: n -> y; ..."), '' when none, NULL for the first (or
--   when a .config was not kept).
-- variant_build.patched_onto: the revision (40 hex) the patches went onto; commit_sha is then
--   the patched commit that was built. NULL when the variant has no patches.
-- variant_patch: one row per commit the patches made, oldest first (pos 0-based): its id and
--   subject as `git am` committed them (fixed committer, the author's date: the same base and
--   patches give the same ids again).
ALTER TABLE variant_build ADD COLUMN config_diff TEXT;
ALTER TABLE variant_build ADD COLUMN patched_onto TEXT;

CREATE TABLE variant_patch (
  variant_id INTEGER NOT NULL REFERENCES variant(id),
  pos        INTEGER NOT NULL,
  commit_sha TEXT NOT NULL,
  subject    TEXT NOT NULL,
  PRIMARY KEY (variant_id, pos)
);
