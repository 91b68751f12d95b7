-- One row per finished game, aborted ones too, written in the same
-- transaction as the event that ended it: what lists, ratings and reviews
-- read, instead of replaying a table's events. `version` is the table's
-- version after that event; `started_at` the time of the game's first
-- event (the table's first, or the rematch that started it); the variant
-- is the `rules` line of `record`. `analysis` holds the review (JSON) once
-- it has been computed.
CREATE TABLE games (
    table_id TEXT NOT NULL REFERENCES tables (id),
    game BIGINT NOT NULL,
    board BIGINT NOT NULL,
    version BIGINT NOT NULL,
    host_seat TEXT NOT NULL CHECK (host_seat IN ('link', 'computer')),
    guest_seat TEXT NOT NULL CHECK (guest_seat IN ('link', 'computer')),
    host_side TEXT NOT NULL CHECK (host_side IN ('goats', 'tigers')),
    winner TEXT CHECK (winner IN ('goats', 'tigers')),
    reason TEXT NOT NULL,
    plies BIGINT NOT NULL,
    started_at BIGINT NOT NULL,
    ended_at BIGINT NOT NULL,
    clock_initial_ms BIGINT,
    clock_increment_ms BIGINT,
    clock_days BIGINT,
    format TEXT NOT NULL,
    series_games BIGINT,
    record TEXT NOT NULL,
    analysis TEXT,
    PRIMARY KEY (table_id, game, board)
);

CREATE INDEX games_ended_at ON games (ended_at);

-- The tables whose games ended before this migration: the server replays
-- each once at start-up, writes their rows and removes it from here.
CREATE TABLE games_backfill (
    table_id TEXT PRIMARY KEY NOT NULL
);

INSERT INTO games_backfill (table_id) SELECT id FROM tables;
