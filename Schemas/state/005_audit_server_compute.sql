-- How long the compute server spent running the function, as it reported (milliseconds).
-- Version 5. NULL for runs on the device and for entries written before. Part of the entry's
-- hash when present, so older entries still verify; with serverLatencyMs it splits a remote run
-- into compute and transfer.
ALTER TABLE AuditEntry ADD COLUMN serverComputeMs REAL;
