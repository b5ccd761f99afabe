//! The records app's answers carry, as the front ends name them: an account, a session, a
//! container or shipment row and its events, a page of rows, the list orders and the
//! conditions a list can add. They are plain data; the store fills them, and this module is
//! the one place a front end reaches them (a front end never calls the store).

pub use boxtrack_store::accounts::Account;
pub use boxtrack_store::list::{Keyed, Listed};
pub use boxtrack_store::reads::{
    ContainerRef, ContainerRow, DateCond, DateField, ListSort, RawEventRow, ShipmentRow, TextCond,
    TextField, TransportEventRow,
};
pub use boxtrack_store::sessions::Session;
pub use boxtrack_store::tracking::TrackingRequestRow;
pub use boxtrack_store::webhooks::WebhookRow;
