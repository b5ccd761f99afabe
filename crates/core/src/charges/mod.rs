//! Charges: demurrage, detention and storage day by day, and the last free day computed, as
//! the interface's charges specification defines them. Pure: a tariff
//! and a calendar are data, the counting rule a function of them, the box's dates and its
//! holds.

pub mod audit;
pub mod calendar;
pub mod count;
pub mod money;
pub mod tariff;

#[cfg(test)]
mod tests;

pub use calendar::{Calendar, CalendarDoc};
pub use count::{Coming, Counted, Facility, HoldSpan, Span, coming, count};
pub use money::Money;
pub use tariff::{Kind, Tariff, TariffDoc};
