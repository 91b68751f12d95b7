-- How a table's games are arranged: 'single' (one game at a time, the
-- format of every table created before this column) or 'series' with
-- series_games games (2, 4 or 6), sides swapped after each. The series'
-- score is computed from the events, like everything else.
ALTER TABLE tables ADD COLUMN format TEXT NOT NULL DEFAULT 'single';
ALTER TABLE tables ADD COLUMN series_games BIGINT;
