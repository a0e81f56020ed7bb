-- Dataflows, the individual's decisions, and the audit log. Version 2 of the escrow's own state.

-- One row per distinct dataflow: app, purpose, normalized access SQL, compute function (id,
-- version, code digest), parameters and destination. Any change to one of them is a new row.
CREATE TABLE Flow (
    id              TEXT PRIMARY KEY NOT NULL,   -- short id shown to people (8+ hex characters of key)
    key             TEXT NOT NULL UNIQUE,        -- SHA-256 (hex) of the flow's canonical identity
    app             TEXT NOT NULL,
    purpose         TEXT NOT NULL,
    accessSQL       TEXT NOT NULL,               -- as the app first sent it
    normalizedSQL   TEXT NOT NULL,               -- comments and whitespace removed
    functionId      TEXT NOT NULL,
    functionVersion INTEGER NOT NULL,
    functionDigest  TEXT NOT NULL,
    parameters      TEXT NOT NULL DEFAULT '{}',  -- JSON object of the app's non-personal inputs
    destination     TEXT NOT NULL,               -- 'device' or 'server:ID'
    reads           TEXT NOT NULL,               -- JSON array of "Table.column" (lineage)
    status          TEXT NOT NULL CHECK (status = 'pending' OR status = 'approved' OR status = 'denied' OR status = 'revoked'),
    approval        TEXT CHECK (approval IS NULL OR approval = 'once' OR approval = 'always' OR approval = 'until'),
    approvedUntil   TEXT,                        -- ISO 8601 UTC, for approval = 'until'
    reason          TEXT,                        -- the individual's reason for a denial
    createdAt       TEXT NOT NULL,
    decidedAt       TEXT
);
CREATE INDEX Flow_status ON Flow (status, app);

-- Every decision the individual made, in order (the Flow row holds the current one).
CREATE TABLE Decision (
    seq        INTEGER PRIMARY KEY,
    flowId     TEXT NOT NULL REFERENCES Flow (id),
    time       TEXT NOT NULL,
    decision   TEXT NOT NULL,                    -- 'approve once', 'approve always', 'approve until …', 'deny', 'revoke', 'once used', 'expired'
    reason     TEXT
);

-- The audit log: one entry per run attempt, hash-chained. `hash` is SHA-256 over the canonical
-- encoding of the entry (every column but `hash`, `prevHash` included), so editing, deleting,
-- reordering or truncating entries is detectable (see `escrow audit verify`).
CREATE TABLE AuditEntry (
    seq             INTEGER PRIMARY KEY,         -- 1, 2, 3, … without gaps
    time            TEXT NOT NULL,
    flowId          TEXT,                        -- NULL when the request could not be identified
    app             TEXT NOT NULL,
    purpose         TEXT NOT NULL,
    functionId      TEXT NOT NULL,
    outcome         TEXT NOT NULL CHECK (outcome = 'ok' OR outcome = 'pending' OR outcome = 'denied' OR outcome = 'revoked' OR outcome = 'failed'),
    reason          TEXT,
    reads           TEXT NOT NULL,               -- JSON array of "Table.column"
    rowsRead        INTEGER NOT NULL,
    bytesToCompute  INTEGER NOT NULL,
    destination     TEXT NOT NULL,
    bytesSent       INTEGER NOT NULL,            -- to a compute server
    bytesReceived   INTEGER NOT NULL,            -- from a compute server
    serverLatencyMs REAL,
    durationMs      REAL NOT NULL,
    outputSHA256    TEXT,                        -- of the output returned to the app
    prevHash        TEXT NOT NULL,
    hash            TEXT NOT NULL
);
CREATE INDEX AuditEntry_flow ON AuditEntry (flowId);

-- The newest entry, written in the same transaction as the entry: a log cut short is detected.
CREATE TABLE AuditHead (
    id    INTEGER PRIMARY KEY CHECK (id = 1),
    seq   INTEGER NOT NULL,
    hash  TEXT NOT NULL
);

-- The escrow never changes or removes an entry.
CREATE TRIGGER AuditEntry_append_only_update BEFORE UPDATE ON AuditEntry
BEGIN SELECT RAISE(ABORT, 'the audit log is append-only'); END;
CREATE TRIGGER AuditEntry_append_only_delete BEFORE DELETE ON AuditEntry
BEGIN SELECT RAISE(ABORT, 'the audit log is append-only'); END;

-- Settings of this escrow home (name → value).
CREATE TABLE Setting (
    name   TEXT PRIMARY KEY NOT NULL,
    value  TEXT NOT NULL
);
