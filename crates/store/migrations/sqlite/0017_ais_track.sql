-- Where each vessel has been: AIS positions kept at most one per 10 minutes per vessel, for
-- the path sailed on a container's map (GET /v2/containers/{id}/map_geojson).
CREATE TABLE ais_track (
    mmsi        INTEGER NOT NULL,
    position_us INTEGER NOT NULL,
    latitude    REAL NOT NULL,
    longitude   REAL NOT NULL,
    PRIMARY KEY (mmsi, position_us)
) STRICT, WITHOUT ROWID;
