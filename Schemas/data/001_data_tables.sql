-- Escrow data tables, version 1.
--
-- Translated from Apple's frameworks as in "Controlling Dataflows with a Bolt-on Data Escrow",
-- section 4.3: column names follow the Apple property names, so access() SQL written against
-- CNContact / CLLocation / PHAsset reads the same here.
--
-- Representation rules (the same in every table):
--   * Timestamps are TEXT in ISO 8601, UTC, fixed width with milliseconds:
--     '2024-05-01T12:34:56.000Z'. They sort chronologically as text and work with SQLite's
--     date functions: strftime('%Y-%m', creationDate).
--   * Dates without a time (birthday) are 'YYYY-MM-DD', or '--MM-DD' when the year is unknown.
--   * Multi-valued fields are JSON arrays (use json_each to read them row by row).
--   * Booleans are INTEGER 0/1 declared BOOLEAN.
--   * CHECK constraints list allowed values with OR, not IN (…): SQLite evaluates an IN list in a
--     CHECK by building a temporary table for every row, which tripled the cost of an import.

-- CNContact merged with CNGroup (groups) and CNContainer (containerId).
CREATE TABLE Contact (
    id                TEXT PRIMARY KEY NOT NULL,   -- CNContact.identifier (vCard UID, or derived from the card)
    containerId       TEXT NOT NULL,               -- CNContainer.identifier: the account/source the card came from
    groups            TEXT NOT NULL DEFAULT '[]',  -- CNGroup names, JSON array of strings (vCard CATEGORIES)
    contactType       TEXT NOT NULL DEFAULT 'person' CHECK (contactType = 'person' OR contactType = 'organization'),
    namePrefix        TEXT,
    givenName         TEXT,
    middleName        TEXT,
    familyName        TEXT,
    nameSuffix        TEXT,
    nickname          TEXT,
    organizationName  TEXT,
    departmentName    TEXT,
    jobTitle          TEXT,
    phoneNumbers      TEXT NOT NULL DEFAULT '[]',  -- JSON array of {"label": …, "value": …}
    emailAddresses    TEXT NOT NULL DEFAULT '[]',  -- JSON array of {"label": …, "value": …}
    postalAddresses   TEXT NOT NULL DEFAULT '[]',  -- JSON array of {"label", "street", "city", "state", "postalCode", "country"}
    urlAddresses      TEXT NOT NULL DEFAULT '[]',  -- JSON array of {"label": …, "value": …}
    birthday          TEXT,                        -- 'YYYY-MM-DD' or '--MM-DD'
    note              TEXT
) WITHOUT ROWID;

-- CLLocation.
CREATE TABLE Location (
    id                 INTEGER PRIMARY KEY,
    timestamp          TEXT,                       -- ISO 8601 UTC; NULL only for a waypoint without a time
    latitude           REAL NOT NULL CHECK (latitude BETWEEN -90 AND 90),
    longitude          REAL NOT NULL CHECK (longitude BETWEEN -180 AND 180),
    altitude           REAL,                       -- meters above sea level
    horizontalAccuracy REAL,                       -- meters
    verticalAccuracy   REAL,                       -- meters
    speed              REAL,                       -- meters per second
    course             REAL,                       -- degrees from true north
    floor              INTEGER,
    source             TEXT NOT NULL               -- 'gpx:trkpt', 'gpx:rtept', 'gpx:wpt', 'geojson', 'csv'
);
-- Re-importing the same point (same time and coordinates) never duplicates it.
CREATE UNIQUE INDEX Location_point ON Location (ifnull(timestamp, ''), latitude, longitude);
CREATE INDEX Location_timestamp ON Location (timestamp);

-- PHAsset. The asset column holds the asset id; the escrow turns it into the file's bytes before
-- compute() sees it.
CREATE TABLE Photos (
    id                INTEGER PRIMARY KEY,
    asset             TEXT NOT NULL UNIQUE,        -- asset id: SHA-256 of the content, hex
    mediaType         TEXT NOT NULL CHECK (mediaType = 'image' OR mediaType = 'video' OR mediaType = 'audio'),
    format            TEXT NOT NULL,               -- 'jpeg', 'png', 'heic', 'mp4', 'mov', 'm4a', 'mp3'
    creationDate      TEXT,                        -- ISO 8601 UTC: EXIF/container date, else file time
    modificationDate  TEXT,                        -- ISO 8601 UTC: file modification time
    pixelWidth        INTEGER,
    pixelHeight       INTEGER,
    duration          REAL,                        -- seconds (video, audio)
    latitude          REAL,                        -- EXIF GPS
    longitude         REAL,
    isFavorite        BOOLEAN NOT NULL DEFAULT 0,
    byteSize          INTEGER NOT NULL,
    originalFilename  TEXT NOT NULL,
    -- The asset id is the content hash: the same value, named for what it is, stored once.
    contentHash       TEXT GENERATED ALWAYS AS (asset) VIRTUAL
);
-- No index on creationDate: sorting a library of thousands of rows costs well under a
-- millisecond per query, while maintaining a second index doubled the cost of every import.
