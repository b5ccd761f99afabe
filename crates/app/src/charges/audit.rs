//! An invoice audit (`POST /v2/charges/audits`, and the console's upload): the invoice
//! checked against 46 CFR 541.6's minimum contents and 541.7's thirty days, and line by line
//! against the charge the account's tariffs compute for the box — a box as a quote names it,
//! or a tracked container's own history. The rule is `boxtrack_core::charges::audit`.

use boxtrack_core::charges::audit::{self as rule, Computed, Finding, Invoice};
use boxtrack_core::charges::money::Money;
use boxtrack_core::charges::tariff::Kind;
use boxtrack_core::csv::records;
use boxtrack_core::paging::Page;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use uuid::Uuid;

use super::container::{ShippedBy, quote_of};
use super::quote::{BoxAtPort, ChargeOut, MissingOut, Pricer, QuoteIn};
use crate::AppError;
use crate::containers;
use crate::containers::{ContainerFilter, ListContainers};
use crate::ctx::Ctx;
use crate::fields::Text;

/// What an audit is asked: the box (as a quote names it, or a tracked container) and the
/// invoice.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
pub struct AuditIn {
    /// A tracked container of the account, priced from its own history (the box's fields
    /// below are then not needed).
    #[serde(default)]
    pub container_id: Option<Uuid>,
    /// The line's SCAC (without `container_id`).
    #[serde(default)]
    pub scac: Option<String>,
    /// The port of discharge, a UN/LOCODE (without `container_id`).
    #[serde(default)]
    pub port: Option<String>,
    /// Its terminal, equipment, events and holds, as a quote's (`as_of` defaults to noon UTC
    /// of the invoice date, else now).
    #[serde(flatten)]
    pub at: BoxAtPort,
    /// The invoice.
    #[serde(flatten)]
    pub invoice: Invoice,
}

/// What was billed, as the invoice says it.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct Billed {
    /// The kind billed.
    pub kind: Option<String>,
    /// The total the invoice states.
    pub total: Option<String>,
    /// What its lines add up to.
    pub lines_total: String,
    /// How many days it bills.
    pub days: u32,
}

/// An audit's answer.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct AuditOut {
    /// Every finding, each with the rule it breaks (a dispute can quote them).
    pub findings: Vec<Finding>,
    /// No item 46 CFR 541.6 requires is missing (when one is, 541.5 says the billed party
    /// need not pay the charge).
    pub contents_complete: bool,
    /// The charge the tariff computes for the billed kind (null: not computed; see
    /// `missing`).
    pub computed: Option<ChargeOut>,
    /// The charge as billed.
    pub billed: Billed,
    /// The kinds the tariffs could not price, and why.
    pub missing: Vec<MissingOut>,
}

/// The box the invoice is about, as a quote asks for it.
async fn box_of(ctx: &Ctx, account_id: Uuid, a: &AuditIn) -> Result<QuoteIn, AppError> {
    let as_of = a.at.as_of.or_else(|| {
        a.invoice.invoice_date.as_deref().and_then(|d| {
            format!("{}T12:00:00Z", d.get(..10).unwrap_or(d))
                .parse()
                .ok()
        })
    });
    if let Some(id) = a.container_id {
        let shown = containers::show(&ctx.db, account_id, id, false)
            .await?
            .ok_or(AppError::NotFound("container"))?;
        let shipment = shown.shipment.ok_or(AppError::NotFound("container"))?;
        let of = ShippedBy {
            scac: &shipment.scac,
            route: &shipment.route,
        };
        let as_of_us = as_of.map_or_else(|| ctx.now_us(), |t| t.as_microsecond());
        return quote_of(&shown.container.state, &of, as_of_us).ok_or_else(|| {
            AppError::Rejected(vec![(
                "/container_id".into(),
                "the container's port of discharge is not known yet".into(),
            )])
        });
    }
    let need = |v: &Option<String>, field: &str| {
        v.clone().filter(|s| !s.trim().is_empty()).ok_or_else(|| {
            AppError::Rejected(vec![(
                field.to_string(),
                format!("{} is needed without container_id", &field[1..]),
            )])
        })
    };
    Ok(QuoteIn {
        scac: need(&a.scac, "/scac")?,
        port: need(&a.port, "/port")?,
        at: BoxAtPort {
            as_of,
            ..a.at.clone()
        },
    })
}

/// The invoice audited for the account: its contents, then its lines against the charge of
/// its kind by the tariffs the account reads.
pub async fn audit(ctx: &Ctx, account_id: Uuid, a: &AuditIn) -> Result<AuditOut, AppError> {
    let inv = &a.invoice;
    let kind = inv.kind.as_deref().map(str::trim).map(|k| {
        Kind::ALL
            .into_iter()
            .find(|x| x.as_str().eq_ignore_ascii_case(k))
            .ok_or_else(|| {
                AppError::Rejected(vec![(
                    "/kind".into(),
                    "kind must be demurrage, storage, detention or combined".into(),
                )])
            })
    });
    let kind = kind.transpose()?;
    let mut q = box_of(ctx, account_id, a).await?;
    // storage is the terminal's: the invoice's issuer names it when the box does not
    if kind == Some(Kind::Storage) && q.at.facility.is_none() {
        q.at.facility = inv.issuer.clone();
    }
    let mut findings = rule::contents(inv);
    let contents_complete = !findings.iter().any(|f| f.rule.starts_with("541.6("));
    let mut priced = Pricer::new(ctx, account_id).price(&q, 0).await?;
    let chosen = kind.and_then(|k| {
        let i = priced
            .charges
            .iter()
            .position(|c| c.out.kind == k.as_str())?;
        Some(priced.charges.swap_remove(i))
    });
    match (&chosen, kind) {
        (Some(c), _) => {
            if let Some(counted) = &c.counted {
                findings.extend(rule::against(
                    inv,
                    Computed {
                        counted,
                        free_days: c.free_days,
                        currency: &c.out.currency,
                    },
                ));
            }
        }
        (None, Some(k)) => findings.push(Finding {
            line: None,
            date: None,
            rule: "no tariff".into(),
            detail: format!(
                "no {} tariff the account reads matches this box: the lines could not be checked",
                k.as_str()
            ),
        }),
        (None, None) => {}
    }
    let lines_total = inv
        .lines
        .iter()
        .filter_map(|l| {
            l.amount
                .as_deref()
                .and_then(|a| Money::parse(a.trim()).ok())
        })
        .fold(Money::ZERO, Money::plus);
    Ok(AuditOut {
        findings,
        contents_complete,
        computed: chosen.map(|c| c.out),
        billed: Billed {
            kind: kind.map(|k| k.as_str().to_string()),
            total: inv.total.clone(),
            lines_total: lines_total.to_string(),
            days: u32::try_from(inv.lines.len()).unwrap_or(u32::MAX),
        },
        missing: priced.missing,
    })
}

/// The columns an invoice's CSV may have: the attributes of `POST /v2/charges/audits` (the
/// billed party as `billed_party_name` and `billed_party_basis`, `statements` separated by
/// `|`), one row per day charged with its `date`, `rate` and `amount`; the invoice's own
/// values may stand on any row (the first given is taken).
pub const CSV_COLUMNS: [&str; 33] = [
    "container_id",
    "scac",
    "port",
    "facility",
    "equipment_type",
    "equipment_length",
    "discharged_at",
    "available_at",
    "full_out_at",
    "empty_returned_at",
    "as_of",
    "invoice_number",
    "invoice_date",
    "due_date",
    "issuer",
    "billed_party_name",
    "billed_party_basis",
    "bill_of_lading_number",
    "container_number",
    "port_of_discharge",
    "kind",
    "currency",
    "tariff_rule",
    "free_time_days",
    "free_time_start",
    "free_time_end",
    "container_availability_date",
    "total",
    "contact",
    "dispute_process",
    "dispute_timeframe",
    "statements",
    "date",
];

fn refused(field: &str, detail: String) -> AppError {
    AppError::Rejected(vec![(format!("/{field}"), detail)])
}

/// An audit's question read from an invoice's CSV (a header row of [`CSV_COLUMNS`] names, and
/// `rate` and `amount`; unknown columns are refused, naming them).
pub fn from_csv(text: &str) -> Result<AuditIn, AppError> {
    let recs = records(text);
    let Some((header, rows)) = recs.split_first() else {
        return Err(refused("csv", "the file is empty".into()));
    };
    let names: Vec<String> = header
        .iter()
        .map(|h| h.trim().to_ascii_lowercase().replace([' ', '-'], "_"))
        .collect();
    if let Some(odd) = names
        .iter()
        .find(|n| !CSV_COLUMNS.contains(&n.as_str()) && !["rate", "amount"].contains(&n.as_str()))
    {
        return Err(refused(
            "csv",
            format!("{odd:?} is not a column of an invoice (see the page for the names)"),
        ));
    }
    let rows: Vec<&Vec<String>> = rows
        .iter()
        .filter(|r| r.iter().any(|c| !c.trim().is_empty()))
        .collect();
    let cell = |r: &Vec<String>, name: &str| -> Option<String> {
        let i = names.iter().position(|n| n == name)?;
        r.get(i)
            .map(|v| v.trim().to_string())
            .filter(|v| !v.is_empty())
    };
    let first = |name: &str| rows.iter().find_map(|r| cell(r, name));
    let time = |name: &str| -> Result<Option<jiff::Timestamp>, AppError> {
        first(name)
            .map(|v| {
                v.parse()
                    .map_err(|_| refused(name, format!("{v:?} is not an ISO 8601 time in UTC")))
            })
            .transpose()
    };
    let number = |name: &str| -> Result<Option<u32>, AppError> {
        first(name)
            .map(|v| {
                v.parse()
                    .map_err(|_| refused(name, format!("{v:?} is not a whole number")))
            })
            .transpose()
    };
    let container_id = first("container_id")
        .map(|v| {
            v.parse()
                .map_err(|_| refused("container_id", format!("{v:?} is not an id")))
        })
        .transpose()?;
    let lines = rows
        .iter()
        .filter(|r| cell(r, "date").is_some())
        .map(|r| rule::InvoiceLine {
            container_number: cell(r, "container_number"),
            date: cell(r, "date"),
            rate: cell(r, "rate"),
            amount: cell(r, "amount"),
        })
        .collect();
    Ok(AuditIn {
        container_id,
        scac: first("scac"),
        port: first("port"),
        at: BoxAtPort {
            facility: first("facility"),
            equipment_type: first("equipment_type"),
            equipment_length: number("equipment_length")?,
            discharged_at: time("discharged_at")?,
            available_at: time("available_at")?,
            full_out_at: time("full_out_at")?,
            empty_returned_at: time("empty_returned_at")?,
            holds: Vec::new(),
            as_of: time("as_of")?,
        },
        invoice: Invoice {
            invoice_number: first("invoice_number"),
            invoice_date: first("invoice_date"),
            due_date: first("due_date"),
            issuer: first("issuer"),
            billed_party: rule::BilledParty {
                name: first("billed_party_name"),
                basis: first("billed_party_basis"),
            },
            bill_of_lading_number: first("bill_of_lading_number"),
            container_number: first("container_number"),
            port_of_discharge: first("port_of_discharge"),
            kind: first("kind"),
            currency: first("currency"),
            tariff_rule: first("tariff_rule"),
            free_time_days: number("free_time_days")?,
            free_time_start: first("free_time_start"),
            free_time_end: first("free_time_end"),
            container_availability_date: first("container_availability_date"),
            lines,
            total: first("total"),
            contact: first("contact"),
            dispute_process: first("dispute_process"),
            dispute_timeframe: first("dispute_timeframe"),
            statements: first("statements")
                .map(|s| {
                    s.split('|')
                        .map(|x| x.trim().to_string())
                        .filter(|x| !x.is_empty())
                        .collect()
                })
                .unwrap_or_default(),
        },
    })
}

/// An invoice's CSV audited for the account (the console's upload): without `container_id`
/// or the box's `scac` and `port`, the account's tracked container of the invoice's
/// `container_number` is the box.
pub async fn audit_csv(ctx: &Ctx, account_id: Uuid, text: &str) -> Result<AuditOut, AppError> {
    let mut asked = from_csv(text)?;
    if asked.container_id.is_none()
        && asked.scac.is_none()
        && let Some(number) = asked.invoice.container_number.clone()
    {
        let list = ListContainers {
            filter: ContainerFilter {
                number: Some(Text(number.to_ascii_uppercase())),
                ..Default::default()
            },
            ..Default::default()
        };
        let page = Page::first(1);
        let found = containers::list(&ctx.db, account_id, &list, &page).await?;
        asked.container_id = found.listed.rows.first().map(|c| c.id);
    }
    audit(ctx, account_id, &asked).await
}
