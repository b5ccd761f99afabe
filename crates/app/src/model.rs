//! The records app's answers carry, as the front ends name them: an account, a session, a
//! container or shipment row and its events, a page of rows, the list orders and the
//! conditions a list can add, and the database handle a front end passes back to a use case
//! (`ctx.db`, or `ctx.read_db(account)` for a read that may come from a replica).
//!
//! They are plain data (their JSON columns decoded into the core's types: no database type
//! reaches a front end) that the store fills and `boxtrack-views` renders (views sits below
//! app, so the records are defined where both reach them); this module is the one place a
//! front end reaches them, and a front end never calls the store. What a use case answers is
//! `app`'s own: a page ([`crate::containers::ContainerPage`]), a container shown with
//! everything a front end shows of it ([`crate::detail::ContainerDetail`]), a provenance, a quote,
//! each made of these records and nothing generic over how the store reads them; the one
//! exception is the REST fast path ([`crate::prerendered`]).

pub use boxtrack_store::Db;
pub use boxtrack_store::accounts::Account;
pub use boxtrack_store::custom_fields::FieldRow;
pub use boxtrack_store::documents::DocumentRow;
pub use boxtrack_store::keys::ApiKeyRecord;
pub use boxtrack_store::list::{Keyed, Listed};
pub use boxtrack_store::notifications::NotificationRow;
pub use boxtrack_store::parties::PartyRow;
pub use boxtrack_store::publishable::PublishableKeyRecord;
pub use boxtrack_store::reads::{
    ContainerRef, ContainerRow, DateCond, DateField, EventOrder, ListSort, RawEventRow, SearchHit,
    ShipmentRow, TextCond, TextField, TransportEventRow,
};
pub use boxtrack_store::sessions::Session;
pub use boxtrack_store::tracking::TrackingRequestRow;
pub use boxtrack_store::webhooks::WebhookRow;
