-- `kvbench run --until-decided` where every job of a run shares one boot (flash: none, e.g. local;
-- docs/design.md#verdicts-and-deciding): each round runs the agenda's iterations again, so the rule
-- adds runs until decided instead of splitting the iterations over the rounds. Stored with the rule
-- so --resume rebuilds the same plan; runs stored before this migration split them (0).
ALTER TABLE run_decide ADD COLUMN add_rounds INTEGER NOT NULL DEFAULT 0 CHECK (add_rounds IN (0, 1));
