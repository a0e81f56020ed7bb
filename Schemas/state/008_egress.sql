-- Version 8: egress transparency (docs/EGRESS.md).

-- Every outbound request a compute function made, recorded with its run's audit entry, in the
-- same transaction. Domain-level facts only: never a path, a query or a body. Part of the entry's
-- hash (docs/AUDIT.md), so an edited, added or deleted request is detected like an edited entry.
CREATE TABLE EgressRequest (
    auditSeq   INTEGER NOT NULL,            -- the run's AuditEntry.seq
    position   INTEGER NOT NULL,            -- 0, 1, 2, … in the order the function sent them
    time       INTEGER NOT NULL,            -- whole seconds since 1970, UTC
    host       TEXT NOT NULL,               -- normalized host name or IP address
    domain     TEXT NOT NULL,               -- registrable domain (eTLD+1), or the host itself
    method     TEXT NOT NULL,
    bytesOut   INTEGER NOT NULL,            -- URL, header fields and body
    bytesIn    INTEGER NOT NULL,            -- response body
    status     INTEGER,                     -- NULL: no response (blocked, unreachable)
    blocked    INTEGER NOT NULL,            -- 1: refused because the individual blocks the domain
    tracker    TEXT,                        -- the tracker-list domain it falls under, NULL if none
    sentData   INTEGER NOT NULL,            -- 1: a value of the data read appears in URL or body
    PRIMARY KEY (auditSeq, position)
) WITHOUT ROWID;
CREATE INDEX EgressRequest_domain ON EgressRequest (domain);
CREATE INDEX EgressRequest_time ON EgressRequest (time);

-- What the individual asked the escrow to do with a domain and every name under it: block its
-- requests, ignore them (not recorded), or count it as a tracker (their own list, besides
-- EasyList and EasyPrivacy).
CREATE TABLE EgressFilter (
    domain   TEXT PRIMARY KEY NOT NULL,
    action   TEXT NOT NULL CHECK (action IN ('block', 'ignore', 'tracker')),
    addedAt  TEXT NOT NULL
);

-- Retention: the newest entry deleted so far, so the chain still verifies from there on. Its
-- hash is the `prevHash` of the oldest kept entry, which that entry's own hash covers.
CREATE TABLE AuditCheckpoint (
    id         INTEGER PRIMARY KEY CHECK (id = 1),
    seq        INTEGER NOT NULL,           -- the last deleted entry
    hash       TEXT NOT NULL,              -- its hash
    time       TEXT NOT NULL,              -- its time
    deletedAt  TEXT NOT NULL               -- when the retention setting deleted it
);
CREATE TRIGGER AuditCheckpoint_forward_only BEFORE UPDATE ON AuditCheckpoint
WHEN NEW.seq < OLD.seq
BEGIN SELECT RAISE(ABORT, 'the audit checkpoint only moves forward'); END;
CREATE TRIGGER AuditCheckpoint_kept BEFORE DELETE ON AuditCheckpoint
BEGIN SELECT RAISE(ABORT, 'the audit checkpoint cannot be deleted'); END;

-- Entries stay append-only, except that those up to the checkpoint may be deleted.
DROP TRIGGER AuditEntry_append_only_delete;
CREATE TRIGGER AuditEntry_delete_through_checkpoint BEFORE DELETE ON AuditEntry
WHEN OLD.seq > COALESCE((SELECT seq FROM AuditCheckpoint WHERE id = 1), 0)
BEGIN SELECT RAISE(ABORT, 'the audit log is append-only: only entries up to the retention checkpoint may be deleted'); END;

CREATE TRIGGER EgressRequest_append_only_update BEFORE UPDATE ON EgressRequest
BEGIN SELECT RAISE(ABORT, 'recorded requests are append-only'); END;
CREATE TRIGGER EgressRequest_delete_through_checkpoint BEFORE DELETE ON EgressRequest
WHEN OLD.auditSeq > COALESCE((SELECT seq FROM AuditCheckpoint WHERE id = 1), 0)
BEGIN SELECT RAISE(ABORT, 'recorded requests are append-only: only those up to the retention checkpoint may be deleted'); END;
