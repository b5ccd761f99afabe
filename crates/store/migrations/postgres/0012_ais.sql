-- What vessels broadcast over AIS: the latest position and static data per MMSI.
CREATE TABLE ais_vessels (
    mmsi          BIGINT PRIMARY KEY NOT NULL,
    imo           TEXT,
    name          TEXT,
    callsign      TEXT,
    ship_type     INTEGER,
    destination   TEXT,
    eta_us        BIGINT,
    draught_m     DOUBLE PRECISION,
    latitude      DOUBLE PRECISION,
    longitude     DOUBLE PRECISION,
    speed_knots   DOUBLE PRECISION,
    course        DOUBLE PRECISION,
    heading       INTEGER,
    nav_status    INTEGER,
    position_us   BIGINT,
    static_us     BIGINT
);
CREATE INDEX ais_vessels_imo ON ais_vessels (imo);
