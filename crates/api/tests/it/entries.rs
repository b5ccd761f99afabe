//! What a person enters: `PATCH /v2/containers/{id}` with a pickup and a last free day, a
//! contradiction refused naming its attribute, the entries listed with who and when, and a
//! clearing that lets the sources' value show again.

use serde_json::{Value, json};

use crate::helpers::TestApp;

fn patch(attributes: Value) -> String {
    json!({"data": {"type": "container", "attributes": attributes}}).to_string()
}

/// The carrier's 315: MRSU4371639 discharged at Manzanillo on 2022-11-21 07:24Z.
async fn discharged_at_manzanillo(app: &TestApp, key: &str) {
    let text = std::fs::read_to_string(format!(
        "{}/../../fixtures/x12/315/004010_315_singleline_hamsud-krpus-mxzlo.edi",
        env!("CARGO_MANIFEST_DIR")
    ))
    .unwrap();
    let r = app
        .send(
            app.client
                .post(app.url("/v2/ingest/x12"))
                .header("Authorization", format!("Token {key}"))
                .header("Content-Type", "application/edi-x12")
                .body(text),
        )
        .await;
    assert_eq!(r.status, 200, "{}", r.text);
}

#[tokio::test]
async fn a_person_s_pickup_and_last_free_day_win_until_cleared_and_are_audited() {
    let app = TestApp::spawn().await;
    let (account, key) = app.account().await;
    let id = app
        .track_directly(account.id, "MRSU4371639", "MAEU", "KRPUS", "MXZLO")
        .await;
    discharged_at_manzanillo(&app, &key).await;
    let path = format!("/v2/containers/{id}");

    // a pickup before the discharge contradicts the journey: refused, nothing changes
    let r = app
        .patch(&path, &key, &patch(json!({"pod_full_out_at": "2022-11-20T10:00:00Z", "pickup_lfd": "2022-11-25T00:00:00Z"})))
        .await;
    assert_eq!(r.status, 422, "{}", r.text);
    let e = &r.json()["errors"][0];
    assert_eq!(
        e["source"]["pointer"], "/data/attributes/pod_full_out_at",
        "{e}"
    );
    assert!(
        e["detail"]
            .as_str()
            .unwrap()
            .contains("before the discharge"),
        "{e}"
    );
    let c = app.get(&path, Some(&key)).await.json();
    assert_eq!(c["data"]["attributes"]["pickup_lfd"], Value::Null);
    let bad = app
        .patch(&path, &key, &patch(json!({"delivered_at": "yesterday"})))
        .await;
    assert_eq!(bad.status, 422, "{}", bad.text);

    // the pickup and the last free day a person knows
    let r = app
        .patch(&path, &key, &patch(json!({"pod_full_out_at": "2022-11-22T15:00:00Z", "pickup_lfd": "2022-11-25T06:00:00Z"})))
        .await;
    assert_eq!(r.status, 200, "{}", r.text);
    let a = &r.json()["data"]["attributes"];
    assert_eq!(a["pod_full_out_at"], "2022-11-22T15:00:00Z", "{a}");
    assert_eq!(a["pickup_lfd"], "2022-11-25T06:00:00Z");
    assert_eq!(a["current_status"], "picked_up");
    // the same transport event a source's report makes, said by user_input
    let events = app
        .get(&format!("{path}/transport_events"), Some(&key))
        .await
        .json();
    let out = events["data"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["attributes"]["event"] == "container.transport.full_out")
        .expect("a full_out event");
    assert_eq!(out["attributes"]["data_source"], "user_input");

    // who entered what, newest first
    let list = app.get(&format!("{path}/entries"), Some(&key)).await;
    assert_eq!(list.status, 200, "{}", list.text);
    let list = list.json();
    let rows = list["data"].as_array().unwrap();
    assert_eq!(rows.len(), 2, "{list}");
    let lfd = rows
        .iter()
        .find(|r| r["attributes"]["attribute"] == "pickup_lfd")
        .unwrap();
    assert_eq!(lfd["type"], "container_entry");
    assert_eq!(lfd["attributes"]["before"], Value::Null);
    assert_eq!(lfd["attributes"]["after"], "2022-11-25T06:00:00Z");
    // named by the key's hint (a key's label shows too when it has one), never its secret
    let by = lfd["attributes"]["entered_by"].as_str().unwrap();
    assert!(by.starts_with("API key "), "{by}");
    assert!(by.contains(&format!("{}…", &key[..10])), "{by}");
    assert!(!by.contains(&key[..]), "{by}");

    // cleared: what the sources said shows again (none said a pickup)
    let r = app
        .patch(&path, &key, &patch(json!({"pod_full_out_at": null})))
        .await;
    assert_eq!(r.status, 200, "{}", r.text);
    let a = &r.json()["data"]["attributes"];
    assert_eq!(a["pod_full_out_at"], Value::Null, "{a}");
    assert_eq!(a["pickup_lfd"], "2022-11-25T06:00:00Z", "the LFD stays");
    let list = app.get(&format!("{path}/entries"), Some(&key)).await.json();
    let newest = &list["data"][0]["attributes"];
    assert_eq!(newest["attribute"], "pod_full_out_at");
    assert_eq!(newest["before"], "2022-11-22T15:00:00Z");
    assert_eq!(newest["after"], Value::Null);
    // nothing named is refused; another account's container is not found
    let r = app.patch(&path, &key, &patch(json!({}))).await;
    assert_eq!(r.status, 422, "{}", r.text);
    let (_, other) = app.account().await;
    let r = app
        .patch(&path, &other, &patch(json!({"pickup_lfd": null})))
        .await;
    assert_eq!(r.status, 404, "{}", r.text);
}

/// A dispatcher's list: `PATCH /v2/containers` with a list enters on several boxes at once,
/// all or none: one contradiction or one unknown id anywhere changes nothing.
#[tokio::test]
async fn a_list_of_entries_is_checked_whole_before_anything_is_written() {
    let app = TestApp::spawn().await;
    let (account, key) = app.account().await;
    let discharged = app
        .track_directly(account.id, "MRSU4371639", "MAEU", "KRPUS", "MXZLO")
        .await;
    let afloat = app
        .track_directly(account.id, "TRHU4561225", "MAEU", "KRPUS", "MXZLO")
        .await;
    discharged_at_manzanillo(&app, &key).await;
    let many = |items: Value| json!({"data": items}).to_string();
    let lfd_of = |id: uuid::Uuid| {
        let app = &app;
        let key = key.clone();
        async move {
            app.get(&format!("/v2/containers/{id}"), Some(&key))
                .await
                .json()["data"]["attributes"]["pickup_lfd"]
                .clone()
        }
    };

    // the second item contradicts its journey: a 422 pointing into it, and the first is not written
    let body = many(json!([
        {"type": "container", "id": afloat, "attributes": {"pickup_lfd": "2022-12-01T06:00:00Z"}},
        {"type": "container", "id": discharged, "attributes": {"pod_full_out_at": "2022-11-20T10:00:00Z"}},
    ]));
    let r = app.patch("/v2/containers", &key, &body).await;
    assert_eq!(r.status, 422, "{}", r.text);
    let e = &r.json()["errors"][0];
    assert_eq!(
        e["source"]["pointer"], "/data/1/attributes/pod_full_out_at",
        "{e}"
    );
    assert_eq!(lfd_of(afloat).await, Value::Null);

    // an id that is not the account's: 404, nothing written
    let body = many(json!([
        {"type": "container", "id": afloat, "attributes": {"pickup_lfd": "2022-12-01T06:00:00Z"}},
        {"type": "container", "id": uuid::Uuid::now_v7(), "attributes": {"ref_numbers": ["PO-1"]}},
    ]));
    let r = app.patch("/v2/containers", &key, &body).await;
    assert_eq!(r.status, 404, "{}", r.text);
    assert_eq!(lfd_of(afloat).await, Value::Null);
    assert!(
        app.get(&format!("/v2/containers/{afloat}/entries"), Some(&key))
            .await
            .json()["data"]
            .as_array()
            .unwrap()
            .is_empty()
    );

    // an item that names nothing
    let body = many(json!([{"type": "container", "id": afloat, "attributes": {}}]));
    let r = app.patch("/v2/containers", &key, &body).await;
    assert_eq!(r.status, 422, "{}", r.text);
    assert_eq!(
        r.json()["errors"][0]["source"]["pointer"],
        "/data/0/attributes"
    );

    // both right: each box answered, in order, with what was entered
    let body = many(json!([
        {"type": "container", "id": afloat, "attributes": {"pickup_lfd": "2022-12-01T06:00:00Z", "ref_numbers": ["PO-9"]}},
        {"type": "container", "id": discharged, "attributes": {"pod_full_out_at": "2022-11-22T15:00:00Z"}},
    ]));
    let r = app.patch("/v2/containers", &key, &body).await;
    assert_eq!(r.status, 200, "{}", r.text);
    let data = r.json()["data"].clone();
    assert_eq!(data[0]["id"], afloat.to_string());
    assert_eq!(data[0]["attributes"]["pickup_lfd"], "2022-12-01T06:00:00Z");
    assert_eq!(data[0]["attributes"]["ref_numbers"], json!(["PO-9"]));
    assert_eq!(
        data[1]["attributes"]["pod_full_out_at"],
        "2022-11-22T15:00:00Z"
    );
    assert_eq!(data[1]["attributes"]["current_status"], "picked_up");
    let entries = app
        .get(&format!("/v2/containers/{discharged}/entries"), Some(&key))
        .await
        .json();
    assert_eq!(
        entries["data"][0]["attributes"]["attribute"],
        "pod_full_out_at"
    );
}
