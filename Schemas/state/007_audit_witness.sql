-- Audit witnesses: compute servers that countersign the audit log's head, so a rewrite of the
-- log inside the escrow home is detected against a copy held outside it. Version 7.

-- The registered compute servers the host sends its signed audit head to. The witness's Ed25519
-- public key is pinned on first use (NULL until then); a later answer signed by another key is
-- not trusted.
CREATE TABLE AuditWitness (
    serverId    TEXT PRIMARY KEY NOT NULL REFERENCES Server (id) ON DELETE CASCADE,
    witnessKey  TEXT,                            -- hex, pinned on first use
    addedAt     TEXT NOT NULL
);

-- The newest head each witness countersigned, as it answered (kept when the witness is removed:
-- it still proves what the log held).
CREATE TABLE WitnessedHead (
    serverId     TEXT PRIMARY KEY NOT NULL,
    seq          INTEGER NOT NULL,                -- the entry the head names
    hash         TEXT NOT NULL,                   -- that entry's hash
    witnessedAt  TEXT NOT NULL,                   -- ISO 8601 UTC, the witness's clock
    proof        TEXT NOT NULL                    -- hex of the serialized WitnessedHead message (docs/PROTOCOL.md)
);
