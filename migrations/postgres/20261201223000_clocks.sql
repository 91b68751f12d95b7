-- A table's time control: an initial time and an increment per action (in
-- milliseconds), or a correspondence pace in days per action; all null for
-- a table without a clock. The clocks themselves are computed from the
-- events' created_at, the time each event was accepted.
ALTER TABLE tables ADD COLUMN clock_initial_ms BIGINT;
ALTER TABLE tables ADD COLUMN clock_increment_ms BIGINT;
ALTER TABLE tables ADD COLUMN clock_days BIGINT;
