-- Tables and their event logs. A table's state is the replay of its events
-- through the rules; tokens are stored as SHA-256 hashes (hex).
CREATE TABLE tables (
    id TEXT PRIMARY KEY NOT NULL,
    created_at BIGINT NOT NULL,
    opponent TEXT NOT NULL CHECK (opponent IN ('friend', 'computer', 'bots')),
    level BIGINT,
    host_side TEXT NOT NULL CHECK (host_side IN ('goats', 'tigers')),
    spectator_seats BIGINT NOT NULL,
    goats_to_win BIGINT NOT NULL,
    first_side TEXT NOT NULL CHECK (first_side IN ('goats', 'tigers')),
    multi_jump BIGINT NOT NULL,
    three_tigers BIGINT NOT NULL,
    repetition TEXT NOT NULL CHECK (repetition IN ('forbid', 'threefold_draw')),
    ply_limit BIGINT NOT NULL,
    host_secret TEXT,
    guest_secret TEXT,
    invite_token TEXT,
    watch_token TEXT,
    -- 1 while the current game is unfinished (or the table plays by itself):
    -- such tables are loaded at start-up and resume.
    active BIGINT NOT NULL
);

CREATE INDEX tables_active ON tables (active) WHERE active = 1;

CREATE TABLE events (
    table_id TEXT NOT NULL REFERENCES tables (id),
    version BIGINT NOT NULL,
    kind TEXT NOT NULL,
    side TEXT,
    action TEXT,
    player TEXT,
    client_id TEXT,
    created_at BIGINT NOT NULL,
    PRIMARY KEY (table_id, version)
);
