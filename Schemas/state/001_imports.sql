-- The escrow's own state, version 1. This file is never opened by the guarded connection that
-- runs developers' access SQL.

-- One row per import the individual ran: what came in, when, and what changed.
CREATE TABLE Import (
    id           INTEGER PRIMARY KEY,
    kind         TEXT NOT NULL CHECK (kind IN ('contacts', 'locations', 'photos')),
    source       TEXT NOT NULL,               -- the file or folder imported
    startedAt    TEXT NOT NULL,               -- ISO 8601 UTC
    durationMs   REAL NOT NULL,
    records      INTEGER NOT NULL,            -- records read from the source
    added        INTEGER NOT NULL,            -- rows inserted
    updated      INTEGER NOT NULL,            -- rows changed
    unchanged    INTEGER NOT NULL             -- rows already present (re-import)
);
