-- The program that asked for a flow through the daemon (read from the app's process). Version 6.
-- A decision is bound to it: the path is part of the flow's key (another program claiming the
-- same app id asks for a new flow), the digest is the executable the current decision was made
-- for (an update of the program at that path turns an approval back to pending, saying why).
-- NULL for flows asked in-process (embedded escrow, CLI), whose keys are as before.
ALTER TABLE Flow ADD COLUMN programPath TEXT;
ALTER TABLE Flow ADD COLUMN programDigest TEXT;
