-- Compute servers this escrow may send data to. Version 3 of the escrow's own state.
CREATE TABLE Server (
    id          TEXT PRIMARY KEY NOT NULL,   -- the server id apps name (`--server ID`)
    addresses   TEXT NOT NULL,               -- JSON array of "host:port", tried in order
    caFile      TEXT NOT NULL,               -- the escrow CA the server's certificate must chain to (a copy in the home)
    serverName  TEXT NOT NULL,               -- the name the server's certificate must carry
    addedAt     TEXT NOT NULL
);
