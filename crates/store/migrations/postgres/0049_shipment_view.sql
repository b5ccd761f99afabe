-- What a shipment's resource shows of its route and merged voyage state, as text, written
-- beside the state by the merge that writes it (`store::rendered`), as `container_views` is
-- for containers: a read shows it without parsing the route and the state again. No row
-- where no merge has written one, or where the writer had no renderer; a text by another
-- version of the renderer is not used either.
CREATE TABLE shipment_views (
    shipment_id UUID PRIMARY KEY NOT NULL REFERENCES shipments(id) ON DELETE CASCADE,
    account_id  UUID NOT NULL,
    view        TEXT NOT NULL
);
