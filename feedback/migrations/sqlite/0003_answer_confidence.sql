-- The confidence shown with each answer (askserver: its judgement as JSON,
-- {"level", "label", "reasons"}); empty for answers recorded before.
ALTER TABLE answers ADD COLUMN confidence TEXT NOT NULL DEFAULT '';
