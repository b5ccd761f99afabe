//! Charges in the console: a box's page says what it owes and what each coming day adds, the
//! containers table shows and filters what accrues, and the account's exposure has a page.

use boxtrack_core::charges::TariffDoc;
use boxtrack_core::tracking::{DataSource, EventFact, Fact, Milestone, Observation, Place, Route};
use boxtrack_store::tracking;

use super::{account_with_user, cookie_of, field, html_as, post_form, sign_in, spawn};

const DAY: i64 = 86_400_000_000;

/// Tracks `number` (MAEU, discharged at Los Angeles `days_ago` days ago) for `account`; its id.
pub(super) async fn discharged(
    app: &super::App,
    account: uuid::Uuid,
    number: &str,
    days_ago: i64,
) -> uuid::Uuid {
    let request = boxtrack_core::requests::validate(&boxtrack_core::requests::NewRequest {
        request_number: Some(number.into()),
        request_type: Some("container".into()),
        scac: Some("MAEU".into()),
        ..Default::default()
    })
    .unwrap();
    let tr = tracking::create_request(
        &app.db,
        account,
        boxtrack_core::plan::Plan::Standard,
        &request,
        &Default::default(),
    )
    .await
    .unwrap();
    let now = boxtrack_store::now_us();
    let claimed = tracking::claim_due(&app.db, now + 1_000_000, 60_000_000, 100)
        .await
        .unwrap();
    let row = claimed.into_iter().find(|r| r.id == tr.id).unwrap();
    let at = now - days_ago * DAY;
    tracking::finish(
        &app.db,
        &row,
        tracking::Outcome::Created {
            scac: "MAEU".into(),
            bill_of_lading_number: format!("MAEU{}", &number[4..]),
            route: Box::new(Route {
                pod_locode: Some("USLAX".into()),
                pod_timezone: Some("America/Los_Angeles".into()),
                ..Default::default()
            }),
            containers: vec![tracking::NewContainer {
                number: number.into(),
                observations: vec![Observation {
                    observed_us: at,
                    source: DataSource::Terminal,
                    fact: Fact::Event(EventFact {
                        milestone: Milestone::VesselDischarged,
                        estimated: false,
                        at_us: Some(at),
                        place: Place::Pod,
                        locode: Some("USLAX".into()),
                        timezone: None,
                        terminal: None,
                        vessel_name: None,
                        vessel_imo: None,
                        voyage: None,
                    }),
                    precision: Default::default(),
                    upstream_id: None,
                }],
            }],
            scenario: None,
        },
    )
    .await
    .unwrap();
    super::container_id(app, account, number).await
}

#[tokio::test]
async fn the_console_says_what_boxes_owe_and_what_accrues() {
    let app = spawn().await;
    let account = account_with_user(&app, "Charges Co", "charges@example.com").await;
    // three free calendar days from the day after discharge, then 125.00 a day
    let doc: TariffDoc = serde_json::from_value(serde_json::json!({
        "name": "Test demurrage", "issuer": "MAEU", "kind": "demurrage", "ports": ["USLAX"],
        "equipment": ["*"], "valid_from": "2020-01-01", "valid_to": null, "currency": "USD",
        "free_time": {"days": 3, "count": "calendar", "from": "discharged", "starts": "next_day"},
        "charges": {"count": "calendar"},
        "tiers": [{"from_day": 1, "to_day": null, "rate": "125.00"}],
        "source": {"url": "https://example.com/t", "retrieved": "2026-12-01"}
    }))
    .unwrap();
    let ctx = boxtrack_app::Ctx::new(app.db.clone());
    boxtrack_app::charges::add_tariff(&ctx, Some(account), doc)
        .await
        .unwrap();
    let late = discharged(&app, account, "MSKU1234565", 10).await;
    let fresh = discharged(&app, account, "MSKU7654328", 1).await;
    let (session, _) = cookie_of(
        &sign_in(&app, "charges@example.com", "correct horse").await,
        "btk_console",
    )
    .unwrap();

    // the late box's page: what it owes and what tomorrow adds
    let page = html_as(&app, &format!("/console/containers/{late}"), &session).await;
    assert!(page.contains(r#"<h2 id="charges">Charges</h2>"#), "{page}");
    assert!(page.contains("Demurrage · MAEU"), "{page}");
    assert!(page.contains("What each coming day adds"), "{page}");
    assert!(page.contains("<td class=\"num\">125.00</td>"), "{page}");
    // the fresh one owes nothing yet
    let page = html_as(&app, &format!("/console/containers/{fresh}"), &session).await;
    assert!(page.contains("<strong>USD 0.00</strong>"), "{page}");

    // the table shows what accrues, and filters on it
    let table = html_as(&app, "/console/containers", &session).await;
    assert!(table.contains("+125.00 tomorrow"), "{table}");
    assert!(table.contains("MSKU7654328"), "{table}");
    let accruing = html_as(&app, "/console/containers?accruing=1", &session).await;
    assert!(accruing.contains("MSKU1234565"), "{accruing}");
    assert!(!accruing.contains("MSKU7654328"), "{accruing}");

    // the exposure page
    let exposure = html_as(&app, "/console/charges", &session).await;
    assert!(exposure.contains("<h1>Charges</h1>"), "{exposure}");
    assert!(exposure.contains("Accruing (1)"), "{exposure}");
    assert!(exposure.contains("tomorrow adds USD 125.00"), "{exposure}");

    // an invoice audited from the console: the box is the tracked container of its number
    let form = html_as(&app, "/console/charges/audit", &session).await;
    let csrf = field(&form, r#"name="csrf" value=""#);
    // the days as the tariff counts them: the last free day, the first charged, today
    let priced = boxtrack_app::charges::container::of_container(&ctx, account, late)
        .await
        .unwrap()
        .unwrap();
    let dem = &priced.charges[0].charge;
    let (free, first, today) = (
        dem.last_free_day.clone().unwrap(),
        dem.days[0].date.clone(),
        dem.days.last().unwrap().date.clone(),
    );
    // the invoice bills the last free day too
    let csv = format!(
        "container_number,kind,invoice_date,date,rate,amount,total\nMSKU1234565,demurrage,{today},{free},125.00,125.00,250.00\n,,,{first},125.00,125.00,\n"
    );
    let r = post_form(
        &app,
        "/console/charges/audit",
        &session,
        &[("csrf", csrf.as_str()), ("csv", csv.as_str())],
    )
    .await;
    assert_eq!(r.status(), 200);
    let page = r.text().await.unwrap();
    assert!(
        page.contains("Items 46 CFR 541.6 requires are missing"),
        "{page}"
    );
    assert!(page.contains("<td>free day</td>"), "{page}");
    assert!(page.contains("541.6(a)(1) bill of lading number"), "{page}");
    // a CSV with a column no invoice has is refused, naming it
    let r = post_form(
        &app,
        "/console/charges/audit",
        &session,
        &[("csrf", csrf.as_str()), ("csv", "colour\nred\n")],
    )
    .await;
    assert_eq!(r.status(), 400);
    assert!(r.text().await.unwrap().contains("colour"));
}
