-- Version 10: compute modules, WebAssembly an app brings (docs/MODULES.md).

-- The size in bytes of the module a flow runs; NULL for a function built into the escrow. A flow
-- that runs a module binds the module's SHA-256 as its functionDigest (and its manifest's id and
-- version as functionId and functionVersion), so any change to the module is another flow.
ALTER TABLE Flow ADD COLUMN moduleBytes INTEGER;

-- The SHA-256 of the module a run ran, NULL for a built-in function. Covered by the entry's hash
-- when present (docs/AUDIT.md).
ALTER TABLE AuditEntry ADD COLUMN moduleSHA256 TEXT;
