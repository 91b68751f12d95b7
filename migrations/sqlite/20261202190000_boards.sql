-- The board of each event: 1, or 2 for the second board of a two-board
-- match (format 'two_boards'); the table's version counts the events of
-- both boards in one stream.
ALTER TABLE events ADD COLUMN board BIGINT NOT NULL DEFAULT 1;
