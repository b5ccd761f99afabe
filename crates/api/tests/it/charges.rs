//! Charges over REST: an account's tariffs and calendars, refused documents, and the quote of
//! the specification's worked example.

use serde_json::{Value, json};

use crate::helpers::{TestApp, assert_error};

const MT: &str = "application/vnd.api+json";

fn tariff_doc() -> Value {
    json!({
        "name": "Maersk US import demurrage, dry", "issuer": "MAEU", "kind": "demurrage",
        "ports": ["USLAX", "USLGB"], "equipment": [{"type": "dry", "lengths": [20, 40, 45]}],
        "valid_from": "2026-01-01", "valid_to": null, "currency": "USD",
        "free_time": {"days": 4, "count": "working", "from": "discharged", "starts": "next_day"},
        "charges": {"count": "calendar"},
        "tiers": [{"from_day": 1, "to_day": 4, "rate": "150.00"}, {"from_day": 5, "to_day": null, "rate": "180.00"}],
        "excuse": {"closures": true, "holds": ["customs"]},
        "source": {"url": "https://example.com/tariff", "retrieved": "2026-11-30"}
    })
}

fn doc(kind: &str, attributes: Value) -> String {
    json!({"data": {"type": kind, "attributes": attributes}}).to_string()
}

fn quote_for(out_gate: &str) -> String {
    doc(
        "charge_quote",
        json!({"scac": "MAEU", "port": "USLAX", "equipment_type": "dry", "equipment_length": 40,
               "discharged_at": "2026-03-05T18:00:00Z", "full_out_at": out_gate,
               "as_of": "2026-04-01T00:00:00Z"}),
    )
}

#[tokio::test]
async fn the_worked_example_quotes_to_the_cent_by_the_accounts_tariff_and_calendar() {
    let app = TestApp::spawn().await;
    let (_, key) = app.account().await;
    let (_, other) = app.account().await;

    let made = app
        .post("/v2/tariffs", &key, MT, &doc("tariff", tariff_doc()))
        .await;
    assert_eq!(made.status, 201, "{}", made.text);
    let t = made.json()["data"].clone();
    assert_eq!(t["type"], "tariff");
    assert_eq!(t["attributes"]["tiers"][1]["rate"], "180.00");
    assert_eq!(t["attributes"]["public"], false);
    assert_eq!(t["attributes"]["stale"], false);
    let id = t["id"].as_str().unwrap().to_string();
    let cal = json!({"port": "USLAX", "weekend": ["sat", "sun"], "holidays": ["2026-03-09"]});
    let made = app
        .post("/v2/calendars", &key, MT, &doc("calendar", cal.clone()))
        .await;
    assert_eq!(made.status, 201, "{}", made.text);
    // one calendar per place
    assert_error(
        &app.post("/v2/calendars", &key, MT, &doc("calendar", cal))
            .await,
        422,
    );

    let q = app
        .post(
            "/v2/charges/quote",
            &key,
            MT,
            &quote_for("2026-03-13T20:00:00Z"),
        )
        .await;
    assert_eq!(q.status, 200, "{}", q.text);
    let a = q.json()["data"]["attributes"].clone();
    let dem = &a["charges"][0];
    assert_eq!(dem["kind"], "demurrage");
    assert_eq!(dem["tariff_id"], id.as_str());
    assert_eq!(dem["free_time_start"], "2026-03-06");
    assert_eq!(dem["last_free_day"], "2026-03-12");
    assert_eq!(dem["ended_on"], "2026-03-13");
    assert_eq!(dem["chargeable_days"], 1);
    assert_eq!(dem["amount"], "150.00");
    let missing: Vec<&str> = a["missing"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["kind"].as_str().unwrap())
        .collect();
    assert_eq!(missing, ["storage", "detention", "combined"]);
    let q = app
        .post(
            "/v2/charges/quote",
            &key,
            MT,
            &quote_for("2026-03-18T20:00:00Z"),
        )
        .await;
    let dem = q.json()["data"]["attributes"]["charges"][0].clone();
    assert_eq!(dem["amount"], "960.00");
    assert_eq!(
        dem["days"][4],
        json!({"date": "2026-03-17", "day": 5, "rate": "180.00"})
    );

    // another account reads none of it: its quote has no tariff, and the holiday is not its
    assert_error(
        &app.get(&format!("/v2/tariffs/{id}"), Some(&other)).await,
        404,
    );
    assert_error(&app.delete(&format!("/v2/tariffs/{id}"), &other).await, 404);
    let theirs = app
        .post(
            "/v2/charges/quote",
            &other,
            MT,
            &quote_for("2026-03-13T20:00:00Z"),
        )
        .await;
    assert_eq!(theirs.json()["data"]["attributes"]["charges"], json!([]));
    let listed = app.get("/v2/tariffs", Some(&other)).await.json();
    assert_eq!(listed["data"], json!([]));

    // the owner lists, reads and deletes its own
    let listed = app.get("/v2/tariffs", Some(&key)).await.json();
    assert_eq!(listed["data"][0]["id"], id.as_str());
    assert_eq!(
        app.get(&format!("/v2/tariffs/{id}"), Some(&key))
            .await
            .status,
        200
    );
    assert_eq!(
        app.delete(&format!("/v2/tariffs/{id}"), &key).await.status,
        204
    );
    assert_error(
        &app.get(&format!("/v2/tariffs/{id}"), Some(&key)).await,
        404,
    );
}

#[tokio::test]
async fn a_tariff_that_breaks_a_rule_is_refused_naming_each_field_and_nothing_is_stored() {
    let app = TestApp::spawn().await;
    let (_, key) = app.account().await;
    let mut bad = tariff_doc();
    bad["tiers"][1]["from_day"] = json!(6);
    bad["tiers"][0]["rate"] = json!("150.001");
    bad["ports"] = json!(["USLAX", "LA"]);
    let r = app.post("/v2/tariffs", &key, MT, &doc("tariff", bad)).await;
    assert_eq!(r.status, 422, "{}", r.text);
    let pointers: Vec<String> = r.json()["errors"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            e["source"]["pointer"]
                .as_str()
                .unwrap_or_default()
                .to_string()
        })
        .collect();
    assert_eq!(
        pointers,
        [
            "/data/attributes/ports/1",
            "/data/attributes/tiers/0/rate",
            "/data/attributes/tiers/1/from_day"
        ]
    );
    // a tariff whose validity ended is kept and shown stale
    let mut old = tariff_doc();
    old["valid_from"] = json!("2024-01-01");
    old["valid_to"] = json!("2025-01-01");
    let r = app.post("/v2/tariffs", &key, MT, &doc("tariff", old)).await;
    assert_eq!(r.status, 201, "{}", r.text);
    assert_eq!(r.json()["data"]["attributes"]["stale"], true);
    let old_id = r.json()["data"]["id"].as_str().unwrap().to_string();
    assert_eq!(
        app.delete(&format!("/v2/tariffs/{old_id}"), &key)
            .await
            .status,
        204
    );
    let mut unknown = tariff_doc();
    unknown["kind"] = json!("parking");
    let r = app
        .post("/v2/tariffs", &key, MT, &doc("tariff", unknown))
        .await;
    assert!(matches!(r.status, 400 | 422), "{}", r.text);
    assert_eq!(
        app.get("/v2/tariffs", Some(&key)).await.json()["data"],
        json!([])
    );
    // dates more than ten years apart are refused (charges are counted day by day)
    let far = doc(
        "charge_quote",
        json!({"scac": "MAEU", "port": "USLAX", "discharged_at": "2026-03-05T18:00:00Z",
               "as_of": "2099-01-01T00:00:00Z"}),
    );
    let r = assert_error(&app.post("/v2/charges/quote", &key, MT, &far).await, 422);
    assert_eq!(r["source"]["pointer"], "/data/attributes/as_of");
    // a quote for a port boxtrack does not know names the field
    let q = doc("charge_quote", json!({"scac": "MAEU", "port": "XXXXX"}));
    let r = assert_error(&app.post("/v2/charges/quote", &key, MT, &q).await, 422);
    assert_eq!(r["source"]["pointer"], "/data/attributes/port");
}

#[tokio::test]
async fn a_public_tariff_serves_every_account_until_the_accounts_own_beats_it() {
    let app = TestApp::spawn().await;
    let (_, key) = app.account().await;
    let mut public = tariff_doc();
    public["name"] = json!("public flat rate");
    public["tiers"] = json!([{"from_day": 1, "to_day": null, "rate": "100.00"}]);
    let public: boxtrack_core::charges::TariffDoc = serde_json::from_value(public).unwrap();
    let ctx = boxtrack_app::Ctx::new(app.db.clone());
    let stored = boxtrack_app::charges::add_tariff(&ctx, None, public)
        .await
        .unwrap();
    // no calendar: Saturday and Sunday are the weekend, no holidays; LFD Wed 03-11
    let q = app
        .post(
            "/v2/charges/quote",
            &key,
            MT,
            &quote_for("2026-03-13T20:00:00Z"),
        )
        .await;
    let dem = q.json()["data"]["attributes"]["charges"][0].clone();
    assert_eq!(dem["tariff_id"], stored.id.to_string());
    assert_eq!(dem["last_free_day"], "2026-03-11");
    assert_eq!(dem["amount"], "200.00");
    let listed = app
        .get("/v2/tariffs?filter[public]=true", Some(&key))
        .await
        .json();
    assert_eq!(listed["data"][0]["attributes"]["public"], true, "{listed}");
    assert_eq!(
        app.get(&format!("/v2/tariffs/{}", stored.id), Some(&key))
            .await
            .status,
        200
    );
    // a public tariff is the operator's: an account cannot delete it
    assert_error(
        &app.delete(&format!("/v2/tariffs/{}", stored.id), &key)
            .await,
        404,
    );
    let own = app
        .post("/v2/tariffs", &key, MT, &doc("tariff", tariff_doc()))
        .await;
    let own_id = own.json()["data"]["id"].as_str().unwrap().to_string();
    let q = app
        .post(
            "/v2/charges/quote",
            &key,
            MT,
            &quote_for("2026-03-13T20:00:00Z"),
        )
        .await;
    let dem = q.json()["data"]["attributes"]["charges"][0].clone();
    assert_eq!(dem["tariff_id"], own_id.as_str());
}

fn at(s: &str) -> i64 {
    s.parse::<jiff::Timestamp>().unwrap().as_microsecond()
}

/// What a source says of the box at `when`.
fn said(when: &str, fact: boxtrack_core::tracking::Fact) -> boxtrack_core::tracking::Observation {
    boxtrack_core::tracking::Observation {
        observed_us: at(when),
        source: boxtrack_core::tracking::DataSource::Terminal,
        fact,
        precision: Default::default(),
        upstream_id: None,
    }
}

fn happened(
    m: boxtrack_core::tracking::Milestone,
    when: &str,
) -> boxtrack_core::tracking::Observation {
    use boxtrack_core::tracking::{EventFact, Fact, Place};
    said(
        when,
        Fact::Event(EventFact {
            milestone: m,
            estimated: false,
            at_us: Some(at(when)),
            place: Place::Pod,
            locode: Some("USLAX".into()),
            timezone: None,
            terminal: None,
            vessel_name: None,
            vessel_imo: None,
            voyage: None,
        }),
    )
}

#[tokio::test]
async fn a_tracked_box_is_priced_from_its_own_history_beside_the_reported_last_free_day() {
    use boxtrack_core::tracking::{Equipment, Fact, Hold, LfdKind, Milestone};
    let app = TestApp::spawn().await;
    let (account, key) = app.account().await;
    let (_, other) = app.account().await;
    for (kind, d) in [
        ("tariff", tariff_doc()),
        (
            "calendar",
            json!({"port": "USLAX", "weekend": ["sat", "sun"], "holidays": ["2026-03-09"]}),
        ),
    ] {
        let made = app
            .post(&format!("/v2/{kind}s"), &key, MT, &doc(kind, d))
            .await;
        assert_eq!(made.status, 201, "{}", made.text);
    }
    let gone = app
        .track_directly(account.id, "MSKU1234565", "MAEU", "CNSHA", "USLAX")
        .await;
    let staying = app
        .track_directly(account.id, "MSKU7654328", "MAEU", "CNSHA", "USLAX")
        .await;
    let customs = |status: &str| Hold {
        name: "customs".into(),
        status: status.into(),
        description: None,
    };
    // discharged Thursday 5 March; a customs hold in force the whole of Tuesday 10 March
    // (local midnight to midnight, PDT); the line says the last free day is 11 March
    let history = |out_gate: Option<&str>| {
        let mut h = vec![
            said(
                "2026-03-01T00:00:00Z",
                Fact::Equipment(Equipment {
                    equipment_type: Some("dry".into()),
                    equipment_length: Some(40),
                    ..Default::default()
                }),
            ),
            happened(Milestone::VesselDischarged, "2026-03-05T18:00:00Z"),
            said(
                "2026-03-10T07:00:00Z",
                Fact::Holds {
                    holds: vec![customs("hold")],
                },
            ),
            said("2026-03-11T07:00:00Z", Fact::Holds { holds: vec![] }),
            said(
                "2026-03-11T08:00:00Z",
                Fact::Lfd {
                    which: LfdKind::Line,
                    at_us: Some(at("2026-03-11T12:00:00Z")),
                },
            ),
        ];
        if let Some(t) = out_gate {
            h.push(happened(Milestone::FullOut, t));
        }
        h
    };
    for (id, out_gate) in [(gone, Some("2026-03-18T20:00:00Z")), (staying, None)] {
        boxtrack_store::tracking::apply(&app.db, account.id, id, &history(out_gate))
            .await
            .unwrap();
    }

    let r = app
        .get(&format!("/v2/containers/{gone}/charges"), Some(&key))
        .await;
    assert_eq!(r.status, 200, "{}", r.text);
    let a = r.json()["data"]["attributes"].clone();
    assert_eq!(r.json()["data"]["type"], "container_charges");
    assert_eq!(a["priced_as"]["port"], "USLAX");
    assert_eq!(a["priced_as"]["equipment_length"], 40);
    assert_eq!(a["priced_as"]["holds"][0]["name"], "customs");
    let dem = &a["charges"][0];
    assert_eq!(dem["kind"], "demurrage");
    // Fri 6 (1), Mon 9 a holiday, Tue 10 excused by the hold, 11 (2), 12 (3), 13 (4)
    assert_eq!(dem["last_free_day"], "2026-03-13");
    assert_eq!(
        dem["excused"],
        json!([{"date": "2026-03-10", "reason": "hold: customs"}])
    );
    // 14…18 March: 4 × 150 + 180
    assert_eq!(dem["chargeable_days"], 5);
    assert_eq!(dem["amount"], "780.00");
    assert_eq!(
        dem["reported_last_free_day"],
        json!({"source": "line", "date": "2026-03-11"})
    );
    assert_eq!(dem["last_free_day_difference_days"], 2);
    assert_eq!(dem["coming"], json!([]), "a box that left accrues no more");
    let kinds: Vec<&str> = a["missing"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["kind"].as_str().unwrap())
        .collect();
    assert_eq!(kinds, ["storage", "detention", "combined"]);

    // still there: counted to now, and each of the next 7 days adds the second tier's rate
    let a = app
        .get(&format!("/v2/containers/{staying}/charges"), Some(&key))
        .await
        .json()["data"]["attributes"]
        .clone();
    let dem = &a["charges"][0];
    assert!(dem["ended_on"].is_null());
    let coming = dem["coming"].as_array().unwrap();
    assert_eq!(coming.len(), 7);
    assert!(coming.iter().all(|d| d["adds"] == "180.00"), "{coming:?}");
    let amount: f64 = dem["amount"].as_str().unwrap().parse().unwrap();
    let last: f64 = coming[6]["total"].as_str().unwrap().parse().unwrap();
    assert_eq!(last, amount + 7.0 * 180.0);

    // the exposure reads the boxes trimmed to what charges need (hold spans, equipment,
    // times, last free days): it sums what each box's own charges say
    let amount = |a: &Value| -> i64 {
        let s = a["charges"][0]["amount"].as_str().unwrap().replace('.', "");
        s.parse().unwrap()
    };
    let staying_now = || async {
        amount(
            &app.get(&format!("/v2/containers/{staying}/charges"), Some(&key))
                .await
                .json()["data"]["attributes"],
        )
    };
    let before = staying_now().await;
    let summed = app.get("/v2/charges/summary", Some(&key)).await.json();
    let after = staying_now().await;
    let accrued: i64 = summed["data"]["attributes"]["totals"][0]["accrued"]
        .as_str()
        .unwrap()
        .replace('.', "")
        .parse()
        .unwrap();
    assert!(
        [78_000 + before, 78_000 + after].contains(&accrued),
        "{summed}"
    );
    assert_eq!(summed["data"]["attributes"]["accruing_count"], 1);

    // an invoice for the box that left, audited from its own history: the days and rates
    // billed are the tariff's
    let lines: Vec<Value> = [
        ("2026-03-14", "150.00"),
        ("2026-03-15", "150.00"),
        ("2026-03-16", "150.00"),
        ("2026-03-17", "150.00"),
        ("2026-03-18", "180.00"),
    ]
    .iter()
    .map(|(d, r)| json!({"date": d, "rate": r, "amount": r}))
    .collect();
    let audit = doc(
        "charge_audit",
        json!({"container_id": gone, "kind": "demurrage", "invoice_date": "2026-03-20",
               "free_time_start": "2026-03-06", "free_time_end": "2026-03-13",
               "free_time_days": 4, "lines": lines, "total": "780.00"}),
    );
    let r = app.post("/v2/charges/audits", &key, MT, &audit).await;
    assert_eq!(r.status, 200, "{}", r.text);
    let a = r.json()["data"]["attributes"].clone();
    assert_eq!(a["computed"]["amount"], "780.00", "{a}");
    assert!(
        a["findings"]
            .as_array()
            .unwrap()
            .iter()
            .all(|f| f["rule"].as_str().unwrap().starts_with("541.6(")),
        "only missing contents: {a}"
    );

    // another account's box is not found, nor is a box that does not exist
    assert_error(
        &app.get(&format!("/v2/containers/{gone}/charges"), Some(&other))
            .await,
        404,
    );
    assert_error(
        &app.get(
            &format!("/v2/containers/{}/charges", uuid::Uuid::now_v7()),
            Some(&key),
        )
        .await,
        404,
    );
}

/// An account with a tariff of two free calendar days from the day after discharge, then
/// 100.00 a day, and four boxes at USLAX discharged at noon there 2, 1, 0 and 5 days before
/// today: the first's free time ends today, the second's tomorrow, the third's in two days,
/// the fourth has 3 days charged. The account, its key and the boxes' ids.
async fn four_boxes(app: &TestApp) -> (boxtrack_store::accounts::Account, String, Vec<String>) {
    use boxtrack_core::tracking::Milestone;
    let (account, key) = app.account().await;
    let mut t = tariff_doc();
    t["free_time"] =
        json!({"days": 2, "count": "calendar", "from": "discharged", "starts": "next_day"});
    t["tiers"] = json!([{"from_day": 1, "to_day": null, "rate": "100.00"}]);
    t["equipment"] = json!(["*"]);
    let made = app.post("/v2/tariffs", &key, MT, &doc("tariff", t)).await;
    assert_eq!(made.status, 201, "{}", made.text);
    let zone = jiff::tz::TimeZone::get("America/Los_Angeles").unwrap();
    let today = jiff::Timestamp::now().to_zoned(zone.clone()).date();
    let noon_before = |k: i32| {
        today
            .checked_sub(jiff::ToSpan::days(k))
            .unwrap()
            .at(12, 0, 0, 0)
            .to_zoned(zone.clone())
            .unwrap()
            .timestamp()
            .to_string()
    };
    let numbers = ["MSKU1234565", "MSKU7654328", "MSKU2000005", "MSKU3000000"];
    let mut ids = Vec::new();
    for (n, k) in numbers.iter().zip([2, 1, 0, 5]) {
        let id = app
            .track_directly(account.id, n, "MAEU", "CNSHA", "USLAX")
            .await;
        boxtrack_store::tracking::apply(
            &app.db,
            account.id,
            id,
            &[happened(Milestone::VesselDischarged, &noon_before(k))],
        )
        .await
        .unwrap();
        ids.push(id.to_string());
    }
    (account, key, ids)
}

#[tokio::test]
async fn the_exposure_sums_the_accounts_boxes_and_names_the_free_times_ending() {
    let app = TestApp::spawn().await;
    let (account, key, ids) = four_boxes(&app).await;
    let r = app.get("/v2/charges/summary", Some(&key)).await;
    assert_eq!(r.status, 200, "{}", r.text);
    let s = r.json()["data"].clone();
    assert_eq!(s["type"], "charge_summary");
    assert_eq!(s["id"], account.id.to_string());
    let a = &s["attributes"];
    assert_eq!(a["boxes"], 4);
    assert_eq!(a["priced"], 4);
    // 3 days charged; tomorrow the accruing box adds 100, the box whose free time ends
    // today adds 100 too
    assert_eq!(
        a["totals"],
        json!([{"currency": "USD", "boxes": 4, "accrued": "300.00", "tomorrow_adds": "200.00"}])
    );
    assert_eq!(a["by_kind"][0]["key"], "demurrage");
    assert_eq!(a["by_kind"][0]["accrued"], "300.00");
    assert_eq!(a["by_terminal"][0]["key"], Value::Null);
    let named = |horizon: &str| -> Vec<String> {
        a[horizon]["boxes"]
            .as_array()
            .unwrap()
            .iter()
            .map(|b| b["container_id"].as_str().unwrap().to_string())
            .collect()
    };
    assert_eq!(named("free_time_ends_today"), [ids[0].clone()]);
    assert_eq!(named("free_time_ends_tomorrow"), [ids[1].clone()]);
    assert_eq!(named("free_time_ends_within_3_days"), [ids[2].clone()]);
    assert_eq!(a["accruing_count"], 1);
    assert_eq!(a["accruing"][0]["container_id"], ids[3].as_str());
    assert_eq!(a["accruing"][0]["accrued"], "300.00");

    // another account has no exposure
    let (_, other) = app.account().await;
    let o = app.get("/v2/charges/summary", Some(&other)).await.json();
    assert_eq!(o["data"]["attributes"]["boxes"], 0);
    assert_eq!(o["data"]["attributes"]["totals"], json!([]));
}

#[tokio::test]
async fn the_charge_webhooks_go_once_per_box_and_kind_to_the_webhooks_that_name_them() {
    let (db, database) = crate::helpers::fresh_db().await;
    let policy = boxtrack_app::ctx::Policy {
        allow_private_webhook_urls: true,
        ..Default::default()
    };
    let mut app = TestApp::spawn_policy(db.clone(), boxtrack_http::Limiter::memory(), policy).await;
    app.keep(database);
    let (_, key, ids) = four_boxes(&app).await;
    let ctx = boxtrack_app::Ctx::new(app.db.clone());
    let pass = || boxtrack_app::charges::notices::pass(&ctx, boxtrack_store::now_us());
    assert_eq!(pass().await.unwrap(), 0, "no webhook names them");
    // one webhook names them, one takes the reference's events by default
    let (named, seen) = crate::journeys::receiver().await;
    let (default, unseen) = crate::journeys::receiver().await;
    for (url, events) in [
        (
            named,
            json!([
                "container.charges.free_time_ending",
                "container.charges.accruing"
            ]),
        ),
        (default, Value::Null),
    ] {
        let mut a = json!({"url": url});
        if !events.is_null() {
            a["events"] = events;
        }
        let r = app.post("/v2/webhooks", &key, MT, &doc("webhook", a)).await;
        assert_eq!(r.status, 201, "{}", r.text);
    }
    // the free times ending today and tomorrow, and the box accruing
    assert_eq!(pass().await.unwrap(), 3);
    assert_eq!(pass().await.unwrap(), 0, "once per box and kind");
    crate::journeys::deliver_all(&app.db).await;
    assert!(
        unseen.lock().await.is_empty(),
        "a webhook that does not name them"
    );
    let got: Vec<Value> = seen
        .lock()
        .await
        .iter()
        .map(|b| serde_json::from_slice(b).unwrap())
        .collect();
    let about = |event: &str| -> Vec<(String, Value)> {
        let mut out: Vec<(String, Value)> = got
            .iter()
            .filter(|d| d["data"]["attributes"]["event"] == event)
            .map(|d| {
                let included = d["included"].as_array().unwrap();
                let container = included.iter().find(|i| i["type"] == "container").unwrap();
                let change = included
                    .iter()
                    .find(|i| i["type"] == "container_charges_event")
                    .unwrap();
                (
                    container["id"].as_str().unwrap().to_string(),
                    change["attributes"]["change"].clone(),
                )
            })
            .collect();
        out.sort_by(|a, b| a.0.cmp(&b.0));
        out
    };
    let ending: Vec<String> = about("container.charges.free_time_ending")
        .into_iter()
        .map(|(id, _)| id)
        .collect();
    let mut want = vec![ids[0].clone(), ids[1].clone()];
    want.sort();
    assert_eq!(ending, want);
    let accruing = about("container.charges.accruing");
    assert_eq!(accruing.len(), 1);
    assert_eq!(accruing[0].0, ids[3]);
    let change = &accruing[0].1;
    assert_eq!(change["kind"], "demurrage");
    assert_eq!(change["accrued"], "300.00");
    assert_eq!(change["first_rate"], "100.00");
    assert_eq!(change["tomorrow_adds"], "100.00");
}

#[tokio::test]
async fn a_sandbox_journey_is_priced_on_its_virtual_clock() {
    let app = TestApp::spawn().await;
    let (account, key) = app.account().await;
    let started = boxtrack_store::now_us();
    app.track_sandbox(&key, "TEST-SCN-IMPORT").await;
    // 600 real seconds later the journey's clock (an hour a second) is 600 hours on: the
    // box was discharged at Los Angeles and released there
    let later = started + 600_000_000;
    app.tick_at(later).await;
    let list = app.get("/v2/containers", Some(&key)).await.json();
    let c = &list["data"][0];
    let cid: uuid::Uuid = c["id"].as_str().unwrap().parse().unwrap();
    let shipment = c["relationships"]["shipment"]["data"]["id"]
        .as_str()
        .unwrap();
    let s = app
        .get(&format!("/v2/shipments/{shipment}"), Some(&key))
        .await
        .json();
    let scac = s["data"]["attributes"]["shipping_line_scac"]
        .as_str()
        .unwrap();
    let mut t = tariff_doc();
    t["issuer"] = json!(scac);
    t["equipment"] = json!(["*"]);
    t["free_time"] =
        json!({"days": 4, "count": "calendar", "from": "discharged", "starts": "next_day"});
    let made = app.post("/v2/tariffs", &key, MT, &doc("tariff", t)).await;
    assert_eq!(made.status, 201, "{}", made.text);

    let ctx = boxtrack_app::Ctx::new(app.db.clone()).with_fixed_now(later);
    let priced = boxtrack_app::charges::container::of_container(&ctx, account.id, cid)
        .await
        .unwrap()
        .unwrap();
    // counted as of the journey's clock, weeks past the wall clock
    let as_of = priced.as_of.as_microsecond();
    assert!(as_of > later + 20 * 86_400_000_000, "{as_of} vs {later}");
    let discharged = priced.priced_as.at.discharged_at.expect("discharged");
    assert!(discharged.as_microsecond() < as_of);
    let dem = &priced.charges[0];
    assert_eq!(dem.charge.kind, "demurrage");
    assert!(dem.charge.last_free_day.is_some(), "{dem:?}");
}

#[tokio::test]
async fn an_invoice_is_audited_against_541_6_and_the_tariff_line_by_line() {
    let app = TestApp::spawn().await;
    let (_, key) = app.account().await;
    for (kind, d) in [
        ("tariff", tariff_doc()),
        (
            "calendar",
            json!({"port": "USLAX", "weekend": ["sat", "sun"], "holidays": ["2026-03-09"]}),
        ),
    ] {
        let made = app
            .post(&format!("/v2/{kind}s"), &key, MT, &doc(kind, d))
            .await;
        assert_eq!(made.status, 201, "{}", made.text);
    }
    // the served example: a free day billed, free time said to end a day early, and three
    // items 541.6 asks for missing
    let bodies: Value =
        serde_json::from_str(include_str!("../../src/examples/bodies.json")).unwrap();
    let body = bodies["charges: audit"].to_string();
    let r = app.post("/v2/charges/audits", &key, MT, &body).await;
    assert_eq!(r.status, 200, "{}", r.text);
    let a = r.json()["data"]["attributes"].clone();
    assert_eq!(r.json()["data"]["type"], "charge_audit");
    let rules: Vec<(Value, String)> = a["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| (f["line"].clone(), f["rule"].as_str().unwrap().to_string()))
        .collect();
    assert_eq!(
        rules,
        [
            (
                Value::Null,
                "541.6(b)(6) container availability date".to_string()
            ),
            (Value::Null, "541.6(d)(3) dispute timeframe".to_string()),
            (Value::Null, "541.6(e)(2) performance statement".to_string()),
            (Value::Null, "541.6(b)(5) free time end".to_string()),
            (json!(0), "free day".to_string()),
        ],
        "{a}"
    );
    assert_eq!(a["contents_complete"], false);
    assert_eq!(a["computed"]["amount"], "960.00");
    assert_eq!(a["billed"]["lines_total"], "1110.00");
    assert_eq!(a["billed"]["days"], 7);
    let free_day = &a["findings"][4];
    assert_eq!(free_day["date"], "2026-03-12");
    assert!(
        free_day["detail"].as_str().unwrap().contains("2026-03-12"),
        "{free_day}"
    );

    // without a box: refused, naming the field; an unknown kind likewise
    let mut bare = bodies["charges: audit"].clone();
    bare["data"]["attributes"]
        .as_object_mut()
        .unwrap()
        .remove("scac");
    let refused = assert_error(
        &app.post("/v2/charges/audits", &key, MT, &bare.to_string())
            .await,
        422,
    );
    assert_eq!(
        refused["source"]["pointer"], "/data/attributes/scac",
        "{refused}"
    );
    let mut odd = bodies["charges: audit"].clone();
    odd["data"]["attributes"]["kind"] = json!("parking");
    assert_error(
        &app.post("/v2/charges/audits", &key, MT, &odd.to_string())
            .await,
        422,
    );
    // another account's container is not found
    let mut theirs = bodies["charges: audit"].clone();
    theirs["data"]["attributes"]["container_id"] = json!(uuid::Uuid::now_v7());
    assert_error(
        &app.post("/v2/charges/audits", &key, MT, &theirs.to_string())
            .await,
        404,
    );
}

#[tokio::test]
async fn a_sandbox_journey_s_charge_webhook_goes_on_its_virtual_clock() {
    let app = TestApp::spawn().await;
    let (account, key) = app.account().await;
    let started = boxtrack_store::now_us();
    app.track_sandbox(&key, "TEST-SCN-IMPORT").await;
    // no free time: the day of discharge is the first charged
    let mut t = tariff_doc();
    t["issuer"] = json!(boxtrack_core::carriers::SANDBOX_SCAC);
    t["ports"] = json!(["*"]);
    t["equipment"] = json!(["*"]);
    t["free_time"] =
        json!({"days": 0, "count": "calendar", "from": "discharged", "starts": "same_day"});
    let made = app.post("/v2/tariffs", &key, MT, &doc("tariff", t)).await;
    assert_eq!(made.status, 201, "{}", made.text);
    let hook = json!({"url": "https://hooks.example.com/charges", "events": ["container.charges.accruing"]});
    let made = app
        .post("/v2/webhooks", &key, MT, &doc("webhook", hook))
        .await;
    assert_eq!(made.status, 201, "{}", made.text);
    // 510 real seconds on, the journey's clock (an hour a second) is 510 hours on: the box was
    // discharged at 494 hours and leaves at 525, so its demurrage accrues
    let later = started + 510_000_000;
    app.tick_at(later).await;
    let ctx = boxtrack_app::Ctx::new(app.db.clone());
    let pass = || boxtrack_app::charges::notices::pass(&ctx, later);
    // on the wall clock it would not be discharged yet: the journey's own clock decides
    assert_eq!(pass().await.unwrap(), 1);
    assert_eq!(pass().await.unwrap(), 0, "once per box and kind");
    let log = boxtrack_store::events::after(&app.db, account.id, 0, 10_000)
        .await
        .unwrap();
    let sent: Vec<&str> = log
        .iter()
        .map(|e| e.event.as_str())
        .filter(|e| e.starts_with("container.charges."))
        .collect();
    assert_eq!(sent, ["container.charges.accruing"]);
}
