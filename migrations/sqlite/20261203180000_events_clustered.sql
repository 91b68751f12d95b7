-- Each table's events in one B-tree keyed by (table_id, version), with the
-- rows in its leaves: an append writes one leaf, where a rowid table wrote
-- its own leaf and a leaf of the key's index beside it, and a table's
-- events are read back from consecutive leaves.
CREATE TABLE events_clustered (
    table_id TEXT NOT NULL REFERENCES tables (id),
    version BIGINT NOT NULL,
    kind TEXT NOT NULL,
    side TEXT,
    action TEXT,
    player TEXT,
    client_id TEXT,
    created_at BIGINT NOT NULL,
    board BIGINT NOT NULL DEFAULT 1,
    PRIMARY KEY (table_id, version)
) WITHOUT ROWID;

INSERT INTO events_clustered (table_id, version, kind, side, action, player, client_id, created_at, board)
SELECT table_id, version, kind, side, action, player, client_id, created_at, board FROM events;

DROP TABLE events;

ALTER TABLE events_clustered RENAME TO events;
