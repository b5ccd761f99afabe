//! What a source or a user wrote reaches the console's pages as text, never as markup: a
//! customer, a reference number, a search, a hold's description, a yard location and a
//! vessel that are pieces of HTML show escaped on the containers table and on the
//! container's page.

use boxtrack_core::tracking::{DataSource, EventFact, Fact, Hold, Milestone, Observation, Place};
use boxtrack_store::tracking;

use super::{account_with_user, cookie_of, html_as, sign_in, spawn};

/// A customer's name that would run a script if it reached a page as markup.
const CUSTOMER: &str = r#"<script>alert(1)</script>"'"#;
/// A reference number that would too.
const REFERENCE: &str = r#"<img src=x onerror=alert(2)>"'"#;
/// What a terminal said of a hold.
const HOLD: &str = r#"<b onclick="alert(3)">customs</b>'"#;
/// A vessel's name as a source reported it.
const VESSEL: &str = r#"</td><script>alert(4)</script>"#;

/// `s` as it must appear in the page: escaped (maud leaves `'` as it is, which is safe in
/// text and in its double-quoted attributes).
fn escaped(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// Every byte of `s` percent-encoded, for a query string.
fn percent_encoded(s: &str) -> String {
    s.bytes().map(|b| format!("%{b:02X}")).collect()
}

/// Asserts that none of `hostile` is in `html` as it was written, and every one is escaped.
fn all_escaped(html: &str, hostile: &[&str]) {
    for h in hostile {
        assert!(!html.contains(h), "{h} is in the page as markup: {html}");
        assert!(html.contains(&escaped(h)), "{h} is not in the page: {html}");
    }
}

/// Tracks container `number` for `account` under the customer `customer` with the reference
/// `reference`, as the worker would once its carrier answered; returns the container's id.
async fn track_for_customer(
    app: &super::App,
    account: uuid::Uuid,
    number: &str,
    customer: &str,
    reference: &str,
) -> uuid::Uuid {
    let party = boxtrack_store::parties::create(&app.db, account, customer)
        .await
        .unwrap();
    let extras = tracking::RequestExtras {
        customer_id: Some(party.id),
        ..Default::default()
    };
    super::track_with(app, account, number, vec![reference.into()], extras).await;
    super::container_id(app, account, number).await
}

#[tokio::test]
async fn hostile_names_show_escaped_on_the_containers_table_and_the_container_page() {
    let app = spawn().await;
    let account = account_with_user(&app, "Escape Co", "escape@example.com").await;
    let id = track_for_customer(&app, account, "MSCU1234566", CUSTOMER, REFERENCE).await;
    let t = boxtrack_store::now_us();
    let obs = |source: DataSource, fact: Fact| Observation {
        observed_us: t,
        source,
        fact,
        precision: Default::default(),
        upstream_id: None,
    };
    tracking::apply(
        &app.db,
        account,
        id,
        &[
            obs(
                DataSource::Terminal,
                Fact::Holds {
                    holds: vec![Hold {
                        name: HOLD.into(),
                        status: "hold".into(),
                        description: Some(HOLD.into()),
                    }],
                },
            ),
            obs(
                DataSource::Terminal,
                Fact::YardLocation {
                    location: Some(CUSTOMER.into()),
                },
            ),
            obs(
                DataSource::ShippingLine,
                Fact::Event(EventFact {
                    milestone: Milestone::VesselDeparted,
                    estimated: false,
                    at_us: Some(t),
                    place: Place::Origin,
                    locode: Some("CNSHA".into()),
                    timezone: Some("Asia/Shanghai".into()),
                    terminal: None,
                    vessel_name: Some(VESSEL.into()),
                    vessel_imo: None,
                    voyage: None,
                }),
            ),
        ],
    )
    .await
    .unwrap();
    let (session, _) = cookie_of(
        &sign_in(&app, "escape@example.com", "correct horse").await,
        "btk_console",
    )
    .unwrap();

    // the table: the customer and the reference under the number, the vessel in its column
    let table = html_as(&app, "/console/containers", &session).await;
    assert!(table.contains("1 containers; page 1."), "{table}");
    all_escaped(&table, &[CUSTOMER, REFERENCE, VESSEL]);
    // what was typed into the search comes back in its field as a value, not as markup
    let searched = html_as(
        &app,
        &format!("/console/containers?q={}", percent_encoded(CUSTOMER)),
        &session,
    )
    .await;
    assert!(
        searched.contains(&format!(
            r#"name="q" type="text" value="{}""#,
            escaped(CUSTOMER)
        )),
        "{searched}"
    );
    assert!(!searched.contains(CUSTOMER), "{searched}");

    // the container's page: the hold as the terminal said it, the yard location in the card,
    // the vessel in the card and the timeline
    let page = html_as(&app, &format!("/console/containers/{id}"), &session).await;
    assert!(page.contains("Container MSCU1234566"), "{page}");
    all_escaped(&page, &[HOLD, CUSTOMER, VESSEL]);
    assert!(
        page.contains(&format!("<td>{}</td>", escaped(HOLD))),
        "the hold's description is a cell of text: {page}"
    );
}
