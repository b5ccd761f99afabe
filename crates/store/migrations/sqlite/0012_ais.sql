-- What vessels broadcast over AIS: the latest position and static data per MMSI.
CREATE TABLE ais_vessels (
    mmsi          INTEGER PRIMARY KEY NOT NULL,
    imo           TEXT,
    name          TEXT,
    callsign      TEXT,
    ship_type     INTEGER,
    destination   TEXT,
    eta_us        INTEGER,
    draught_m     REAL,
    latitude      REAL,
    longitude     REAL,
    speed_knots   REAL,
    course        REAL,
    heading       INTEGER,
    nav_status    INTEGER,
    position_us   INTEGER,
    static_us     INTEGER
) STRICT;
CREATE INDEX ais_vessels_imo ON ais_vessels (imo);
