//! Release gates from the sources' own codes: a carrier's X12 315 holds customs, then releases
//! customs and the line; the container shows each gate with its source and wording, the list
//! filters on them, and `container.release.changed` goes to the webhooks that name it only.

use serde_json::{Value, json};

use crate::helpers::TestApp;

const MT: &str = "application/vnd.api+json";

/// The Hamburg Süd 315 with status `code`, sent at `hhmm` on its group's date.
fn status_315(code: &str, hhmm: &str) -> String {
    std::fs::read_to_string(format!(
        "{}/../../fixtures/x12/315/004010_315_singleline_hamsud-krpus-mxzlo.edi",
        env!("CARGO_MANIFEST_DIR")
    ))
    .unwrap()
    .replace("B4***UV*", &format!("B4***{code}*"))
    .replace("*0751*720857*", &format!("*{hhmm}*720857*"))
}

async fn ingest(app: &TestApp, key: &str, body: &str) {
    let r = app
        .send(
            app.client
                .post(app.url("/v2/ingest/x12"))
                .header("Authorization", format!("Token {key}"))
                .header("Content-Type", "application/edi-x12")
                .body(body.to_string()),
        )
        .await;
    assert_eq!(r.status, 200, "{}", r.text);
}

async fn ids(app: &TestApp, key: &str, query: &str) -> Vec<String> {
    let r = app.get(&format!("/v2/containers?{query}"), Some(key)).await;
    assert_eq!(r.status, 200, "{}", r.text);
    r.json()["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["id"].as_str().unwrap().to_string())
        .collect()
}

#[tokio::test]
async fn a_carrier_s_release_codes_move_the_gates_and_tell_the_webhooks_that_ask() {
    let (db, database) = crate::helpers::fresh_db().await;
    let policy = boxtrack_app::ctx::Policy {
        allow_private_webhook_urls: true,
        ..Default::default()
    };
    let mut app = TestApp::spawn_policy(db.clone(), boxtrack_http::Limiter::memory(), policy).await;
    app.keep(database);
    let (account, key) = app.account().await;
    let id = app
        .track_directly(account.id, "MRSU4371639", "MAEU", "KRPUS", "MXZLO")
        .await
        .to_string();
    let (named, seen) = crate::journeys::receiver().await;
    let (default, unseen) = crate::journeys::receiver().await;
    for (url, events) in [
        (named, json!(["container.release.changed"])),
        (default, Value::Null),
    ] {
        let mut a = json!({"url": url});
        if !events.is_null() {
            a["events"] = events;
        }
        let body = json!({"data": {"type": "webhook", "attributes": a}}).to_string();
        let r = app.post("/v2/webhooks", &key, MT, &body).await;
        assert_eq!(r.status, 201, "{}", r.text);
    }

    // customs holds the box for an exam
    ingest(&app, &key, &status_315("PA", "0800")).await;
    let c = app
        .get(&format!("/v2/containers/{id}"), Some(&key))
        .await
        .json();
    let a = &c["data"]["attributes"];
    let customs = &a["release_gates"]["customs"];
    assert_eq!(customs["status"], "held", "{a}");
    assert_eq!(customs["source"], "shipping_line");
    assert_eq!(
        customs["wording"],
        "PA U.S. Customs Hold, Intensive Examination"
    );
    assert_eq!(customs["at"], "2022-11-21T07:24:00Z");
    assert_eq!(a["release_gates"]["line"]["status"], "unknown");
    // the reference's shape is untouched: the carrier's word is not a terminal hold
    assert_eq!(a["holds_at_pod_terminal"], json!([]));
    assert_eq!(
        ids(&app, &key, "filter[held]=customs").await,
        vec![id.clone()]
    );
    assert!(ids(&app, &key, "filter[held]=line").await.is_empty());
    assert!(ids(&app, &key, "filter[released]=customs").await.is_empty());
    let bad = app
        .get("/v2/containers?filter[held]=freight", Some(&key))
        .await;
    assert_eq!(bad.status, 400, "{}", bad.text);

    // a later message releases customs and the line; an older one changes nothing
    ingest(&app, &key, &status_315("CU", "0900")).await;
    ingest(&app, &key, &status_315("PA", "0700")).await;
    let c = app
        .get(&format!("/v2/containers/{id}"), Some(&key))
        .await
        .json();
    let gates = &c["data"]["attributes"]["release_gates"];
    assert_eq!(gates["customs"]["status"], "released", "{gates}");
    assert_eq!(gates["line"]["status"], "released");
    assert_eq!(gates["line"]["wording"], "CU Carrier and Customs Release");
    assert_eq!(gates["customs"]["words"].as_array().unwrap().len(), 1);
    assert_eq!(
        ids(&app, &key, "filter[released]=customs,line").await,
        vec![id.clone()]
    );
    assert!(
        ids(&app, &key, "filter[released]=customs,terminal")
            .await
            .is_empty()
    );
    assert!(
        ids(&app, &key, "filter[held]=customs,line")
            .await
            .is_empty()
    );

    crate::journeys::deliver_all(&app.db).await;
    let got: Vec<Value> = seen
        .lock()
        .await
        .iter()
        .map(|b| serde_json::from_slice(b).unwrap())
        .collect();
    let mut told: Vec<(String, String, String)> = got
        .iter()
        .filter(|d| d["data"]["attributes"]["event"] == "container.release.changed")
        .map(|d| {
            let change = d["included"]
                .as_array()
                .unwrap()
                .iter()
                .find(|i| i["type"] == "container_release_event")
                .expect("the change is included");
            let a = &change["attributes"];
            (
                a["gate"].as_str().unwrap().to_string(),
                a["previous_status"].as_str().unwrap().to_string(),
                a["status"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    told.sort();
    assert_eq!(
        told,
        vec![
            ("customs".into(), "held".into(), "released".into()),
            ("customs".into(), "unknown".into(), "held".into()),
            ("line".into(), "unknown".into(), "released".into()),
        ]
    );
    assert!(
        unseen
            .lock()
            .await
            .iter()
            .map(|b| serde_json::from_slice::<Value>(b).unwrap())
            .all(|d| d["data"]["attributes"]["event"] != "container.release.changed"),
        "a webhook that does not name it is not told"
    );
}

/// A hold the terminal lifted while the rail ramp still reports it stays, and the container's
/// field sources name both: the terminal's newest list and the rail's behind it.
#[tokio::test]
async fn a_hold_one_source_lifted_shows_both_sources() {
    use boxtrack_core::tracking::{DataSource, Fact, Hold, Observation};
    let app = TestApp::spawn().await;
    let (account, key) = app.account().await;
    let id = app
        .track_directly(account.id, "MRSU4371639", "MAEU", "KRPUS", "USLGB")
        .await;
    let list = |source, observed_us, holds: Vec<Hold>| Observation {
        observed_us,
        source,
        fact: Fact::Holds { holds },
        precision: Default::default(),
        upstream_id: None,
    };
    let customs = Hold {
        name: "customs".into(),
        status: "hold".into(),
        description: Some("IN BOND".into()),
    };
    let batch = [
        list(DataSource::Rail, 1_800_000_000_000_000, vec![customs]),
        list(DataSource::Terminal, 1_800_000_060_000_000, vec![]),
    ];
    boxtrack_store::tracking::apply(&app.db, account.id, id, &batch)
        .await
        .unwrap();
    let c = app
        .get(&format!("/v2/containers/{id}"), Some(&key))
        .await
        .json();
    let a = &c["data"]["attributes"];
    assert_eq!(a["holds_at_pod_terminal"][0]["name"], "customs", "{a}");
    let sources = app
        .get(&format!("/v2/containers/{id}/field_sources"), Some(&key))
        .await
        .json();
    let rows = sources["data"].as_array().unwrap();
    let holds = rows
        .iter()
        .find(|s| s["id"] == "holds_at_pod_terminal")
        .expect("the holds' sources");
    assert_eq!(holds["attributes"]["data_source"], "terminal", "{holds}");
    let also = &holds["attributes"]["also_reported_by"];
    assert_eq!(also.as_array().map(Vec::len), Some(1), "{holds}");
    assert_eq!(also[0]["reported_by"], "rail");
    assert_eq!(also[0]["reported_at"], "2027-01-15T08:00:00Z");
    // the rail's report is kept as a raw event of its own
    let raw = also[0]["raw_event_id"].as_str().expect("its raw event");
    assert_ne!(Some(raw), holds["attributes"]["raw_event_id"].as_str());
    assert!(
        rows.iter()
            .filter(|s| s["id"] != "holds_at_pod_terminal")
            .all(|s| s["attributes"]["also_reported_by"] == json!([])),
        "{sources}"
    );
}
