-- Players. Every browser is one from its first visit: an anonymous player
-- has no name; an account is a player with a name (unique without regard
-- to case: `name_key` is its lower-case form) and a password hash
-- (Argon2id, in the PHC string format). A closed account keeps its row
-- and its games, without a name or a password.
CREATE TABLE players (
    id TEXT PRIMARY KEY NOT NULL,
    name TEXT,
    name_key TEXT UNIQUE,
    password_hash TEXT,
    created_at BIGINT NOT NULL,
    seen_at BIGINT NOT NULL,
    closed_at BIGINT,
    -- The lobby table of the game this player is in while that game lasts.
    -- A pairing sets it only where it is null, in the transaction that
    -- creates the table: no player is ever paired twice at once.
    lobby_table TEXT,
    -- Lobby games this player let abort by never moving.
    aborts BIGINT NOT NULL DEFAULT 0
);

-- A browser's session: the SHA-256 of the cookie's token, never the token.
CREATE TABLE sessions (
    token_hash TEXT PRIMARY KEY NOT NULL,
    player_id TEXT NOT NULL REFERENCES players (id) ON DELETE CASCADE,
    created_at BIGINT NOT NULL,
    seen_at BIGINT NOT NULL
);

CREATE INDEX sessions_player ON sessions (player_id);

-- Glicko-2 ratings, one per player and speed class.
CREATE TABLE ratings (
    player_id TEXT NOT NULL REFERENCES players (id),
    speed TEXT NOT NULL,
    rating REAL NOT NULL,
    deviation REAL NOT NULL,
    volatility REAL NOT NULL,
    games BIGINT NOT NULL,
    rated_at BIGINT NOT NULL,
    PRIMARY KEY (player_id, speed)
);

CREATE INDEX ratings_leaderboard ON ratings (speed, rating);

-- A table's seats may belong to players: set at creation for the lobby's
-- tables (which need no links and whose gallery is open to anyone) and
-- for the creator of a friend table who has a session, and for whoever
-- claims its opponent link with one.
ALTER TABLE tables ADD COLUMN host_player TEXT;
ALTER TABLE tables ADD COLUMN guest_player TEXT;
ALTER TABLE tables ADD COLUMN lobby BIGINT NOT NULL DEFAULT 0;
ALTER TABLE tables ADD COLUMN rated BIGINT NOT NULL DEFAULT 0;

CREATE INDEX tables_host_player ON tables (host_player) WHERE host_player IS NOT NULL;
CREATE INDEX tables_guest_player ON tables (guest_player) WHERE guest_player IS NOT NULL;

-- The lobby's open challenges. A challenge lives while its owner's lobby
-- channel refreshes `seen_at`; accepting one deletes it in the transaction
-- that creates the table, so it is taken once.
CREATE TABLE challenges (
    id TEXT PRIMARY KEY NOT NULL,
    player_id TEXT NOT NULL REFERENCES players (id),
    side TEXT NOT NULL CHECK (side IN ('goats', 'tigers', 'random')),
    clock_initial_ms BIGINT,
    clock_increment_ms BIGINT,
    clock_days BIGINT,
    rated BIGINT NOT NULL,
    -- The maker's rating in the game's class when they made it.
    rating BIGINT NOT NULL,
    provisional BIGINT NOT NULL,
    min_rating BIGINT,
    max_rating BIGINT,
    created_at BIGINT NOT NULL,
    seen_at BIGINT NOT NULL
);

CREATE INDEX challenges_player ON challenges (player_id);

-- The players waiting in the quick-pairing pools: one pool at a time per
-- player. A wave deletes the entries it pairs in the transaction that
-- creates their tables.
CREATE TABLE pool_entries (
    player_id TEXT PRIMARY KEY NOT NULL REFERENCES players (id),
    pool TEXT NOT NULL,
    rated BIGINT NOT NULL,
    rating BIGINT NOT NULL,
    -- The side the player had in their last game, to give them the other.
    last_side TEXT,
    joined_at BIGINT NOT NULL,
    seen_at BIGINT NOT NULL
);

CREATE INDEX pool_entries_pool ON pool_entries (pool, joined_at);

-- The games' seats gain a kind, `player` (seated from the lobby by
-- identity), and each seat's player, whether the game was rated and the
-- rating of each player before and after it. SQLite cannot change a CHECK
-- in place: the table is rebuilt.
CREATE TABLE games_next (
    table_id TEXT NOT NULL REFERENCES tables (id),
    game BIGINT NOT NULL,
    board BIGINT NOT NULL,
    version BIGINT NOT NULL,
    host_seat TEXT NOT NULL CHECK (host_seat IN ('link', 'computer', 'player')),
    guest_seat TEXT NOT NULL CHECK (guest_seat IN ('link', 'computer', 'player')),
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
    host_player TEXT,
    guest_player TEXT,
    rated BIGINT NOT NULL DEFAULT 0,
    host_rating_before REAL,
    host_rating_after REAL,
    guest_rating_before REAL,
    guest_rating_after REAL,
    PRIMARY KEY (table_id, game, board)
);

INSERT INTO games_next (table_id, game, board, version, host_seat, guest_seat, host_side,
    winner, reason, plies, started_at, ended_at, clock_initial_ms, clock_increment_ms,
    clock_days, format, series_games, record, analysis)
SELECT table_id, game, board, version, host_seat, guest_seat, host_side, winner, reason,
    plies, started_at, ended_at, clock_initial_ms, clock_increment_ms, clock_days, format,
    series_games, record, analysis FROM games;

DROP TABLE games;
ALTER TABLE games_next RENAME TO games;
CREATE INDEX games_ended_at ON games (ended_at);

CREATE INDEX games_host_player ON games (host_player, ended_at) WHERE host_player IS NOT NULL;
CREATE INDEX games_guest_player ON games (guest_player, ended_at) WHERE guest_player IS NOT NULL;
