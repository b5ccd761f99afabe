-- Charges (demurrage, detention, storage): the tariffs and calendars they are counted with.
-- An account's own, and the public ones the operator loads (no account: every account reads
-- them; an account's own beats a public one). Each keeps its document as written (JSON) with
-- the columns a selection filters on.
CREATE TABLE tariffs (
    id          UUID PRIMARY KEY NOT NULL,
    account_id  UUID NOT NULL REFERENCES accounts(id),
    kind        TEXT NOT NULL,
    issuer      TEXT NOT NULL,
    valid_from  TEXT NOT NULL,
    doc         TEXT NOT NULL,
    created_us  BIGINT NOT NULL
);
CREATE INDEX tariffs_account ON tariffs (account_id, created_us DESC, id DESC);
CREATE INDEX tariffs_select ON tariffs (account_id, kind, issuer);
CREATE TABLE public_tariffs (
    id          UUID PRIMARY KEY NOT NULL,
    kind        TEXT NOT NULL,
    issuer      TEXT NOT NULL,
    valid_from  TEXT NOT NULL,
    doc         TEXT NOT NULL,
    created_us  BIGINT NOT NULL
);
CREATE INDEX public_tariffs_select ON public_tariffs (kind, issuer);
CREATE TABLE calendars (
    id          UUID PRIMARY KEY NOT NULL,
    account_id  UUID NOT NULL REFERENCES accounts(id),
    port        TEXT NOT NULL,
    facility    TEXT NOT NULL,
    doc         TEXT NOT NULL,
    created_us  BIGINT NOT NULL
);
CREATE INDEX calendars_account ON calendars (account_id, created_us DESC, id DESC);
CREATE UNIQUE INDEX calendars_place ON calendars (account_id, port, facility);
CREATE TABLE public_calendars (
    id          UUID PRIMARY KEY NOT NULL,
    port        TEXT NOT NULL,
    facility    TEXT NOT NULL,
    doc         TEXT NOT NULL,
    created_us  BIGINT NOT NULL
);
CREATE UNIQUE INDEX public_calendars_place ON public_calendars (port, facility);
