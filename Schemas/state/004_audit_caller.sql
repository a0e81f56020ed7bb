-- The process that asked for a run (the daemon reads it from its socket). Version 4.
-- NULL for runs made in-process (embedded escrow, CLI). Part of the entry's hash when present.
ALTER TABLE AuditEntry ADD COLUMN caller TEXT;
