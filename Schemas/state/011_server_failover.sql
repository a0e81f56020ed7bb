-- Version 11: a compute server with several addresses, failed over (docs/COMPUTE-SERVER.md).

-- What each address of a compute server came to lately, kept only while it is failing: a row is
-- written when a call or connection to the address fails and deleted when the address works
-- again. An address whose retryAt lies ahead is skipped (tried only when every other address of
-- its server failed too). No personal data: addresses, times, counts and the escrow's own error text.
CREATE TABLE ServerAddressState (
    serverId   TEXT NOT NULL,      -- Server.id
    address    TEXT NOT NULL,      -- one of its "host:port" addresses
    failures   INTEGER NOT NULL,   -- failures in a row
    failedAt   TEXT NOT NULL,      -- ISO 8601 UTC of the latest
    retryAt    TEXT NOT NULL,      -- skipped until then (ISO 8601 UTC)
    lastError  TEXT NOT NULL,      -- why the latest failed
    PRIMARY KEY (serverId, address)
) WITHOUT ROWID;

-- Every address a remote run tried, in order, and what came of it: a JSON array of
-- {"address", "outcome", "error"} (outcome: answered, unreachable, not-sent, declined, unanswered);
-- NULL for a run on the device. Covered by the entry's hash when present (docs/AUDIT.md).
ALTER TABLE AuditEntry ADD COLUMN attempts TEXT;
