//! Parties (an account's customers) and what they do for tracking: the customer named on a
//! tracking request shows on its shipment and filters shipments and containers.

use serde_json::{Value, json};

use crate::helpers::{TestApp, assert_error};

const MT: &str = "application/vnd.api+json";

fn party(name: &str) -> String {
    json!({"data": {"type": "party", "attributes": {"company_name": name}}}).to_string()
}

fn request_for(number: &str, customer: Value) -> String {
    json!({"data": {"type": "tracking_request",
        "attributes": {"request_number": number, "request_type": "bill_of_lading", "scac": "TEST"},
        "relationships": {"customer": {"data": customer}}}})
    .to_string()
}

#[tokio::test]
async fn customers_name_tracking_requests_and_filter_shipments_and_containers() {
    let app = TestApp::spawn().await;
    let (_, key) = app.account().await;
    let (_, other_key) = app.account().await;

    let acme = app
        .post("/v2/parties", &key, MT, &party(" Acme Imports "))
        .await;
    assert_eq!(acme.status, 201, "{}", acme.text);
    let acme = acme.json()["data"].clone();
    assert_eq!(acme["type"], "party");
    assert_eq!(acme["attributes"]["company_name"], "Acme Imports");
    let acme_id = acme["id"].as_str().unwrap().to_string();
    let globex = app
        .post("/v2/parties", &key, MT, &party("Globex"))
        .await
        .json();
    let globex_id = globex["data"]["id"].as_str().unwrap().to_string();

    // names are unique in the account, ignoring case; blank names are refused
    let dup = assert_error(
        &app.post("/v2/parties", &key, MT, &party("ACME imports"))
            .await,
        422,
    );
    assert_eq!(dup["code"], "duplicate");
    assert_error(&app.post("/v2/parties", &key, MT, &party("  ")).await, 422);
    // another account may use the same name, and cannot see these
    assert_eq!(
        app.post("/v2/parties", &other_key, MT, &party("Acme Imports"))
            .await
            .status,
        201
    );
    assert_error(
        &app.get(&format!("/v2/parties/{acme_id}"), Some(&other_key))
            .await,
        404,
    );
    let list = app.get("/v2/parties", Some(&key)).await.json();
    assert_eq!(list["meta"]["total"], 2);

    // tracking requests for each customer; a foreign or malformed customer is refused
    let foreign = app.get("/v2/parties", Some(&other_key)).await.json()["data"][0]["id"].clone();
    let r = app
        .post(
            "/v2/tracking_requests",
            &key,
            MT,
            &request_for("TEST-SCN-IMPORT", json!({"type": "party", "id": foreign})),
        )
        .await;
    let e = assert_error(&r, 422);
    assert_eq!(e["source"]["pointer"], "/data/relationships/customer/data");
    assert_error(
        &app.post(
            "/v2/tracking_requests",
            &key,
            MT,
            &request_for(
                "TEST-SCN-IMPORT",
                json!({"type": "shipment", "id": acme_id}),
            ),
        )
        .await,
        422,
    );
    let r = app
        .post(
            "/v2/tracking_requests",
            &key,
            MT,
            &request_for("TEST-SCN-IMPORT", json!({"type": "party", "id": acme_id})),
        )
        .await;
    assert_eq!(r.status, 201, "{}", r.text);
    let tr = r.json();
    assert_eq!(
        tr["data"]["relationships"]["customer"]["data"]["id"],
        acme_id
    );
    let r = app
        .post(
            "/v2/tracking_requests",
            &key,
            MT,
            &request_for("TEST-SCN-HOLDS", json!({"type": "party", "id": globex_id})),
        )
        .await;
    assert_eq!(r.status, 201, "{}", r.text);
    app.tick_at(boxtrack_store::now_us()).await;

    let with_customer = app
        .get(
            &format!(
                "/v2/tracking_requests/{}?include=customer",
                tr["data"]["id"].as_str().unwrap()
            ),
            Some(&key),
        )
        .await
        .json();
    assert_eq!(with_customer["included"][0]["id"], acme_id);

    let shipments = app
        .get(
            &format!("/v2/shipments?filter[customer_id]={acme_id}"),
            Some(&key),
        )
        .await
        .json();
    assert_eq!(shipments["meta"]["total"], 1, "{shipments}");
    let s = &shipments["data"][0];
    assert_eq!(s["attributes"]["customer_name"], "Acme Imports");
    assert_eq!(s["relationships"]["customer"]["data"]["id"], acme_id);
    assert_eq!(
        app.get("/v2/shipments", Some(&key)).await.json()["meta"]["total"],
        2
    );
    let by_name = app
        .get("/v2/shipments?filter[customer_name]=glob", Some(&key))
        .await
        .json();
    assert_eq!(by_name["meta"]["total"], 1);
    assert_eq!(by_name["data"][0]["attributes"]["customer_name"], "Globex");
    assert_error(
        &app.get("/v2/shipments?filter[customer_id]=nope", Some(&key))
            .await,
        400,
    );

    let containers = app
        .get(
            &format!("/v2/containers?filter[customer_id]={globex_id}"),
            Some(&key),
        )
        .await
        .json();
    let all = app.get("/v2/containers", Some(&key)).await.json();
    assert!(containers["meta"]["total"].as_u64().unwrap() >= 1);
    assert!(containers["meta"]["total"].as_u64().unwrap() < all["meta"]["total"].as_u64().unwrap());
    assert_eq!(
        app.get("/v2/containers?filter[customer_name]=ACME", Some(&key))
            .await
            .json()["meta"]["total"],
        1
    );

    // a container read with its shipment shows the shipment's customer
    let acme_containers = app
        .get(
            &format!("/v2/containers?filter[customer_id]={acme_id}"),
            Some(&key),
        )
        .await
        .json();
    let acme_container = acme_containers["data"][0]["id"]
        .as_str()
        .unwrap()
        .to_string();
    let one_path = format!("/v2/containers/{acme_container}?include=shipment");
    let included_customer = || async {
        let doc = app.get(&one_path, Some(&key)).await.json();
        let shipment = doc["included"]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["type"] == "shipment")
            .cloned()
            .unwrap();
        (
            shipment["attributes"]["customer_name"].clone(),
            shipment["relationships"]["customer"]["data"]["id"].clone(),
        )
    };
    assert_eq!(
        included_customer().await,
        (json!("Acme Imports"), json!(acme_id))
    );

    // renaming follows through to the shipments
    let renamed = app
        .patch(
            &format!("/v2/parties/{acme_id}"),
            &key,
            &party("Acme Global"),
        )
        .await;
    assert_eq!(renamed.status, 200, "{}", renamed.text);
    assert_error(
        &app.patch(&format!("/v2/parties/{acme_id}"), &key, &party("globex"))
            .await,
        422,
    );
    let s = app
        .get(
            &format!("/v2/shipments?filter[customer_id]={acme_id}"),
            Some(&key),
        )
        .await
        .json();
    assert_eq!(s["data"][0]["attributes"]["customer_name"], "Acme Global");
    assert_eq!(
        included_customer().await,
        (json!("Acme Global"), json!(acme_id))
    );
}
