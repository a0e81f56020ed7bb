-- Version 9: location accuracy in the approval and the audit (docs/LOCATION.md).

-- What the app asked for ('exact', 'city', 'region', 'country', '<N>m', '<N>km'), NULL when it
-- asked for nothing; part of the flow's identity, so another ask is another flow.
ALTER TABLE Flow ADD COLUMN requestedAccuracy TEXT;
-- What the individual chose, NULL when they have not chosen (then what the app asked applies,
-- else exact). The coarser of the two applies to every run.
ALTER TABLE Flow ADD COLUMN locationAccuracy TEXT;

-- What a run's access saw of the location, when it read any: the accuracy applied, the outer
-- radius of the mask at the individual's latest location (meters; NULL for exact and for
-- city/region/country), the number of people the masked area is estimated to hold (for a city,
-- region or country: its population), and how many times the function ran (1, or k when the area
-- held fewer than k people and k−1 runs on dummy inputs hid the real one). Covered by the entry's
-- hash when present (docs/AUDIT.md).
ALTER TABLE AuditEntry ADD COLUMN locationAccuracy TEXT;
ALTER TABLE AuditEntry ADD COLUMN locationRadius REAL;
ALTER TABLE AuditEntry ADD COLUMN locationK INTEGER;
ALTER TABLE AuditEntry ADD COLUMN locationRuns INTEGER;
