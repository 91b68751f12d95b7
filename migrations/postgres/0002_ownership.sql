-- Ownership of tables when several nodes share this database: at most one
-- owner node at a time, its epoch (raised at every takeover) and its lease,
-- on the database's clock. A single node leaves them empty.
ALTER TABLE tables ADD COLUMN owner TEXT;
ALTER TABLE tables ADD COLUMN epoch BIGINT NOT NULL DEFAULT 0;
ALTER TABLE tables ADD COLUMN lease_until TIMESTAMPTZ;

CREATE INDEX tables_owner ON tables (owner) WHERE owner IS NOT NULL;

-- The epoch of the owner that appended each event (0 on a single node): a
-- log written under fencing is one line of versions, its epochs rising.
ALTER TABLE events ADD COLUMN epoch BIGINT NOT NULL DEFAULT 0;
