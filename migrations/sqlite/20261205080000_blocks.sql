-- Blocks: a player may block another. Two players where either blocks the
-- other are never paired by a pool's wave, cannot take each other's
-- challenges, and do not see each other's challenges in the lobby. A
-- player blocks at most 500 others (checked where a block is added).
CREATE TABLE blocks (
    blocker_id TEXT NOT NULL REFERENCES players (id),
    blocked_id TEXT NOT NULL REFERENCES players (id),
    created_at BIGINT NOT NULL,
    PRIMARY KEY (blocker_id, blocked_id)
);

CREATE INDEX blocks_blocked ON blocks (blocked_id);
