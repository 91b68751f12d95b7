-- Puzzle ratings (docs/puzzles.md): a player's first try of a puzzle is a
-- Glicko-2 game between the player and the puzzle. Every change of a try
-- is made in one transaction: the try's row, the player's rating and the
-- puzzle's.

-- Each player's puzzle rating, from their first rated try.
CREATE TABLE puzzle_ratings (
    player_id TEXT PRIMARY KEY NOT NULL REFERENCES players (id) ON DELETE CASCADE,
    rating REAL NOT NULL,
    deviation REAL NOT NULL,
    volatility REAL NOT NULL,
    -- Puzzles tried (first tries) and solved at the first try.
    tries BIGINT NOT NULL,
    solved BIGINT NOT NULL,
    rated_at BIGINT NOT NULL
);

-- The puzzles of the shipped set, by id: written at each start (a new
-- puzzle at its starting rating, an old one keeps its rating and gains
-- the set's themes), and their ratings and plays moved by the tries.
-- `themes` is the theme names with a space on each side (' capture
-- endgame '), so that one theme is found with LIKE.
CREATE TABLE puzzles (
    id TEXT PRIMARY KEY NOT NULL,
    themes TEXT NOT NULL,
    rating REAL NOT NULL,
    deviation REAL NOT NULL,
    volatility REAL NOT NULL,
    -- First tries, and those solved.
    plays BIGINT NOT NULL,
    solves BIGINT NOT NULL
);

CREATE INDEX puzzles_rating ON puzzles (rating);

-- Each player's first try of each puzzle, so that a later try changes
-- nothing and the next puzzle is one not tried yet. A player keeps the
-- newest 2,000 (the oldest are removed as new ones come).
CREATE TABLE puzzle_tries (
    player_id TEXT NOT NULL REFERENCES players (id) ON DELETE CASCADE,
    puzzle_id TEXT NOT NULL,
    solved BIGINT NOT NULL,
    -- Whether the try moved the puzzle's rating.
    moved_puzzle BIGINT NOT NULL,
    tried_at BIGINT NOT NULL,
    PRIMARY KEY (player_id, puzzle_id)
);

CREATE INDEX puzzle_tries_player ON puzzle_tries (player_id, tried_at);
