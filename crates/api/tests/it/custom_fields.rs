//! Custom fields: definitions with options, values on shipments, containers and tracking
//! requests, checked against their definition, through both paths.

use serde_json::{Value, json};

use crate::helpers::{TestApp, assert_error};

const MT: &str = "application/vnd.api+json";

fn definition(attrs: Value) -> String {
    json!({"data": {"type": "custom_field_definition", "attributes": attrs}}).to_string()
}

fn field(slug: &str, value: Value) -> String {
    json!({"data": {"type": "custom_field", "attributes": {"api_slug": slug, "value": value}}})
        .to_string()
}

#[tokio::test]
async fn definitions_options_and_values_through_both_paths() {
    let app = TestApp::spawn().await;
    let (_, key) = app.account().await;
    let (_, other_key) = app.account().await;
    let tr = app.track_sandbox(&key, "TEST-SCN-IMPORT").await;
    let request_id = tr["data"]["id"].as_str().unwrap().to_string();
    let shipment_id = app.get("/v2/shipments", Some(&key)).await.json()["data"][0]["id"]
        .as_str()
        .unwrap()
        .to_string();
    let container_id = app.get("/v2/containers", Some(&key)).await.json()["data"][0]["id"]
        .as_str()
        .unwrap()
        .to_string();

    // definitions: checked attribute by attribute, slugs unique per entity type
    let po = app
        .post(
            "/v2/custom_field_definitions",
            &key,
            MT,
            &definition(json!({
            "entity_type": "Shipment", "api_slug": "po_number", "display_name": "PO number",
            "data_type": "short_text", "validation": {"max_length": 12}})),
        )
        .await;
    assert_eq!(po.status, 201, "{}", po.text);
    let po_id = po.json()["data"]["id"].as_str().unwrap().to_string();
    let e = assert_error(
        &app.post("/v2/custom_field_definitions", &key, MT, &definition(json!({
            "entity_type": "Shipment", "api_slug": "po_number", "display_name": "Again", "data_type": "number"})))
            .await,
        422,
    );
    assert_eq!(e["code"], "duplicate");
    for (bad, pointer) in [
        (
            json!({"entity_type": "Vessel", "api_slug": "x", "display_name": "X", "data_type": "number"}),
            "/data/attributes/entity_type",
        ),
        (
            json!({"entity_type": "Shipment", "api_slug": "Bad Slug", "display_name": "X", "data_type": "number"}),
            "/data/attributes/api_slug",
        ),
        (
            json!({"entity_type": "Shipment", "api_slug": "x", "display_name": "X", "data_type": "text"}),
            "/data/attributes/data_type",
        ),
        (
            json!({"entity_type": "Shipment", "api_slug": "x", "display_name": "X", "data_type": "number", "validation": {"max_length": 3}}),
            "/data/attributes/validation",
        ),
    ] {
        let e = assert_error(
            &app.post("/v2/custom_field_definitions", &key, MT, &definition(bad))
                .await,
            422,
        );
        assert_eq!(e["source"]["pointer"], pointer);
    }
    let temp = app
        .post("/v2/custom_field_definitions", &key, MT, &definition(json!({
            "entity_type": "Container", "api_slug": "temperature_band", "display_name": "Temperature band", "data_type": "enum_multi"})))
        .await
        .json();
    let temp_id = temp["data"]["id"].as_str().unwrap().to_string();
    let urgent = app
        .post("/v2/custom_field_definitions", &key, MT, &definition(json!({
            "entity_type": "TrackingRequest", "api_slug": "urgent", "display_name": "Urgent", "data_type": "boolean"})))
        .await;
    assert_eq!(urgent.status, 201, "{}", urgent.text);

    // options, for enum definitions only
    let opt = |label: &str, value: &str, position: i64| {
        json!({"data": {"type": "custom_field_option", "attributes": {"label": label, "value": value, "position": position}}}).to_string()
    };
    for (l, v, p) in [("Frozen", "frozen", 2), ("Chilled", "chilled", 1)] {
        let r = app
            .post(
                &format!("/v2/custom_field_definitions/{temp_id}/options"),
                &key,
                MT,
                &opt(l, v, p),
            )
            .await;
        assert_eq!(r.status, 201, "{}", r.text);
    }
    assert_error(
        &app.post(
            &format!("/v2/custom_field_definitions/{temp_id}/options"),
            &key,
            MT,
            &opt("Again", "frozen", 3),
        )
        .await,
        422,
    );
    assert_error(
        &app.post(
            &format!("/v2/custom_field_definitions/{po_id}/options"),
            &key,
            MT,
            &opt("A", "a", 1),
        )
        .await,
        422,
    );
    let options = app
        .get(
            &format!("/v2/custom_field_definitions/{temp_id}/options"),
            Some(&key),
        )
        .await
        .json();
    let values: Vec<&str> = options["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|o| o["attributes"]["value"].as_str().unwrap())
        .collect();
    assert_eq!(values, ["chilled", "frozen"]);

    // values through the entity path, checked against the definition
    let path = format!("/v2/shipments/{shipment_id}/custom_fields");
    let e = assert_error(
        &app.post(
            &path,
            &key,
            MT,
            &field("po_number", json!("TOO-LONG-FOR-THE-RULE")),
        )
        .await,
        422,
    );
    assert_eq!(e["source"]["pointer"], "/data/attributes/value");
    assert_error(
        &app.post(
            &path,
            &key,
            MT,
            &field("temperature_band", json!(["frozen"])),
        )
        .await,
        422,
    );
    let set = app
        .post(&path, &key, MT, &field("po_number", json!("PO-77")))
        .await;
    assert_eq!(set.status, 201, "{}", set.text);
    assert_eq!(
        set.json()["data"]["relationships"]["entity"]["data"]["id"],
        shipment_id
    );
    assert_error(
        &app.post(&path, &key, MT, &field("po_number", json!("PO-78")))
            .await,
        422,
    );
    let patched = app
        .patch(
            &format!("{path}/po_number"),
            &key,
            &field("po_number", json!("PO-78")),
        )
        .await;
    assert_eq!(patched.status, 200, "{}", patched.text);
    assert_eq!(patched.json()["data"]["attributes"]["value"], "PO-78");

    // and through /v2/custom_fields with relationships.entity
    let body = json!({"data": {"type": "custom_field", "attributes": {"api_slug": "temperature_band", "value": ["frozen", "chilled", "frozen"]},
        "relationships": {"entity": {"data": {"type": "container", "id": container_id}}}}});
    let c = app
        .post("/v2/custom_fields", &key, MT, &body.to_string())
        .await;
    assert_eq!(c.status, 201, "{}", c.text);
    let c = c.json();
    assert_eq!(
        c["data"]["attributes"]["value"],
        json!(["frozen", "chilled"])
    );
    assert_eq!(c["data"]["attributes"]["display_value"], "Frozen, Chilled");
    let field_id = c["data"]["id"].as_str().unwrap().to_string();
    let r = app
        .post(
            &format!("/v2/tracking_requests/{request_id}/custom_fields"),
            &key,
            MT,
            &field("urgent", json!(true)),
        )
        .await;
    assert_eq!(r.status, 201, "{}", r.text);
    assert_eq!(r.json()["data"]["attributes"]["display_value"], "Yes");
    // another account's entity, or a definition of another entity type, is refused
    let foreign = body.to_string();
    assert_error(
        &app.post("/v2/custom_fields", &other_key, MT, &foreign)
            .await,
        422,
    );
    assert_error(
        &app.post(
            &format!("/v2/containers/{container_id}/custom_fields"),
            &key,
            MT,
            &field("po_number", json!("X")),
        )
        .await,
        422,
    );
    assert_error(
        &app.get(
            &format!("/v2/shipments/{shipment_id}/custom_fields"),
            Some(&other_key),
        )
        .await,
        404,
    );

    // lists and filters
    let all = app.get("/v2/custom_fields", Some(&key)).await.json();
    assert_eq!(all["meta"]["total"], 3);
    let on_shipment = app
        .get(
            &format!("/v2/custom_fields?filter[entity_id]={shipment_id}"),
            Some(&key),
        )
        .await
        .json();
    assert_eq!(on_shipment["meta"]["total"], 1);
    assert_eq!(
        app.get(
            "/v2/custom_fields?filter[entity_type]=container",
            Some(&key)
        )
        .await
        .json()["meta"]["total"],
        1
    );
    assert_eq!(
        app.get(
            "/v2/custom_field_definitions?filter[entity_type]=Shipment",
            Some(&key)
        )
        .await
        .json()["meta"]["total"],
        1
    );
    assert_eq!(
        app.get(
            "/v2/custom_field_definitions?filter[display_name]=temp",
            Some(&key)
        )
        .await
        .json()["meta"]["total"],
        1
    );
    assert_eq!(
        app.get("/v2/custom_field_definitions", Some(&other_key))
            .await
            .json()["meta"]["total"],
        0
    );
    let nested = app
        .get(
            &format!("/v2/shipments/{shipment_id}/custom_fields"),
            Some(&key),
        )
        .await
        .json();
    assert_eq!(nested["data"][0]["attributes"]["api_slug"], "po_number");

    // a definition names its account, its template (none) and its values: by link, and
    // listed with include=fields; include=options adds the options
    let plain = app
        .get(&format!("/v2/custom_field_definitions/{po_id}"), Some(&key))
        .await
        .json();
    let d = &plain["data"];
    assert!(d["attributes"]["template_id"].is_null(), "{d}");
    assert_eq!(d["relationships"]["account"]["data"]["type"], "account");
    assert_eq!(
        d["relationships"]["fields"]["links"]["related"],
        format!("/v2/custom_fields?filter[definition_id]={po_id}")
    );
    assert!(d["relationships"]["fields"].get("data").is_none(), "{d}");
    let po_values = app
        .get(
            &format!("/v2/custom_fields?filter[definition_id]={po_id}"),
            Some(&key),
        )
        .await
        .json();
    let with = app
        .get(
            &format!("/v2/custom_field_definitions/{po_id}?include=fields"),
            Some(&key),
        )
        .await
        .json();
    let ids = |v: &Value| -> Vec<String> {
        v.as_array()
            .unwrap()
            .iter()
            .map(|x| x["id"].as_str().unwrap().to_string())
            .collect()
    };
    assert_eq!(
        ids(&with["data"]["relationships"]["fields"]["data"]),
        ids(&po_values["data"]),
        "{with}"
    );
    assert_eq!(ids(&with["included"]), ids(&po_values["data"]));
    assert!(!ids(&po_values["data"]).is_empty());
    let listed = app
        .get(
            "/v2/custom_field_definitions?include=options,fields",
            Some(&key),
        )
        .await
        .json();
    let temp_def = listed["data"]
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["id"] == temp_id.as_str())
        .unwrap();
    for o in ids(&temp_def["relationships"]["options"]["data"]) {
        assert!(
            listed["included"]
                .as_array()
                .unwrap()
                .iter()
                .any(|i| i["type"] == "custom_field_option" && i["id"] == o.as_str()),
            "{listed}"
        );
    }
    let with_account = app
        .get(
            &format!("/v2/custom_field_definitions/{po_id}?include=account"),
            Some(&key),
        )
        .await
        .json();
    assert_eq!(
        with_account["included"][0]["id"],
        d["relationships"]["account"]["data"]["id"]
    );
    let e = assert_error(
        &app.get(
            &format!("/v2/custom_field_definitions/{po_id}?include=entity"),
            Some(&key),
        )
        .await,
        400,
    );
    assert_eq!(e["source"]["parameter"], "include");

    // clearing, deleting a value, deleting a definition with its values
    let cleared = app
        .patch(
            &format!("/v2/custom_fields/{field_id}"),
            &key,
            &field("temperature_band", Value::Null),
        )
        .await
        .json();
    assert!(cleared["data"]["attributes"]["value"].is_null());
    assert_eq!(
        app.delete(&format!("{path}/po_number"), &key).await.status,
        204
    );
    assert_error(&app.delete(&format!("{path}/po_number"), &key).await, 404);
    let gone = app
        .delete(&format!("/v2/custom_field_definitions/{temp_id}"), &key)
        .await;
    assert_eq!(gone.status, 200, "{}", gone.text);
    assert_error(
        &app.get(&format!("/v2/custom_fields/{field_id}"), Some(&key))
            .await,
        404,
    );
    assert_eq!(
        app.get("/v2/custom_fields", Some(&key)).await.json()["meta"]["total"],
        1
    );
    // the slug and types are fixed; names change
    assert_error(
        &app.patch(
            &format!("/v2/custom_field_definitions/{po_id}"),
            &key,
            &definition(json!({"data_type": "number"})),
        )
        .await,
        422,
    );
    let renamed = app
        .patch(
            &format!("/v2/custom_field_definitions/{po_id}"),
            &key,
            &definition(json!({"display_name": "Purchase order"})),
        )
        .await;
    assert_eq!(renamed.status, 200, "{}", renamed.text);
    assert_eq!(
        renamed.json()["data"]["attributes"]["display_name"],
        "Purchase order"
    );

    // values given with a tracking request land on the shipment and containers it creates
    let seal = app
        .post("/v2/custom_field_definitions", &key, MT, &definition(json!({
            "entity_type": "Container", "api_slug": "seal", "display_name": "Seal", "data_type": "short_text"})))
        .await;
    assert_eq!(seal.status, 201, "{}", seal.text);
    let request = |initial: Value| {
        json!({"data": {"type": "tracking_request", "attributes": {
            "request_number": "TEST-SCN-HOLDS", "request_type": "bill_of_lading", "scac": "TEST",
            "initial_custom_fields": initial}}})
        .to_string()
    };
    let before = app.get("/v2/tracking_requests", Some(&key)).await.json()["meta"]["total"].clone();
    let e = assert_error(
        &app.post(
            "/v2/tracking_requests",
            &key,
            MT,
            &request(
                json!({"shipment": [{"api_slug": "po_number", "value": "WAY-TOO-LONG-FOR-IT"}]}),
            ),
        )
        .await,
        422,
    );
    assert_eq!(
        e["source"]["pointer"],
        "/data/attributes/initial_custom_fields/shipment/0/value"
    );
    assert_error(
        &app.post(
            "/v2/tracking_requests",
            &key,
            MT,
            &request(json!({"shipment": [{"api_slug": "seal", "value": "X"}]})),
        )
        .await,
        422,
    );
    assert_eq!(
        app.get("/v2/tracking_requests", Some(&key)).await.json()["meta"]["total"],
        before
    );
    let r = app
        .post(
            "/v2/tracking_requests",
            &key,
            MT,
            &request(json!({
            "shipment": [{"api_slug": "po_number", "value": "PO-9"}],
            "containers": [{"api_slug": "seal", "value": "SL-1"}]})),
        )
        .await;
    assert_eq!(r.status, 201, "{}", r.text);
    app.tick_at(boxtrack_store::now_us()).await;
    let shipment = app
        .get("/v2/shipments?number=TEST-SCN-HOLDS", Some(&key))
        .await
        .json();
    let sid = shipment["data"][0]["id"].as_str().unwrap().to_string();
    let on_it = app
        .get(&format!("/v2/shipments/{sid}/custom_fields"), Some(&key))
        .await
        .json();
    assert_eq!(on_it["data"][0]["attributes"]["value"], "PO-9", "{on_it}");
    let seals = app
        .get(
            "/v2/custom_fields?filter[entity_type]=container",
            Some(&key),
        )
        .await
        .json();
    let containers = shipment["data"][0]["relationships"]["containers"]["data"]
        .as_array()
        .unwrap()
        .len();
    assert!(containers >= 1);
    assert_eq!(seals["meta"]["total"], containers, "{seals}");
}

/// Each custom-field operation of the reference on its success path (the reference gate
/// checks every answer against the reference's schema): values on containers and tracking
/// requests, a definition and an option read, changed and deleted, a value read and deleted.
#[tokio::test]
async fn every_reference_custom_field_operation_on_its_success_path() {
    let app = TestApp::spawn().await;
    let (_, key) = app.account().await;
    let tr = app.track_sandbox(&key, "TEST-SCN-IMPORT").await;
    let request_id = tr["data"]["id"].as_str().unwrap().to_string();
    let container_id = app.get("/v2/containers", Some(&key)).await.json()["data"][0]["id"]
        .as_str()
        .unwrap()
        .to_string();
    let define = |entity: &str, slug: &str, data_type: &str| {
        let (app, key) = (&app, key.clone());
        let body = definition(
            json!({"entity_type": entity, "api_slug": slug, "display_name": slug, "data_type": data_type}),
        );
        async move {
            let r = app
                .post("/v2/custom_field_definitions", &key, MT, &body)
                .await;
            assert_eq!(r.status, 201, "{}", r.text);
            r.json()["data"]["id"].as_str().unwrap().to_string()
        }
    };
    define("Container", "seal_checked", "boolean").await;
    define("TrackingRequest", "desk", "short_text").await;
    let band = define("Container", "band", "enum").await;

    // a definition and its option
    let r = app
        .get(&format!("/v2/custom_field_definitions/{band}"), Some(&key))
        .await;
    assert_eq!(r.status, 200, "{}", r.text);
    let option = app
        .post(
            &format!("/v2/custom_field_definitions/{band}/options"),
            &key,
            MT,
            &json!({"data": {"type": "custom_field_option", "attributes": {"label": "Frozen", "value": "frozen", "position": 1}}}).to_string(),
        )
        .await;
    assert_eq!(option.status, 201, "{}", option.text);
    let option_id = option.json()["data"]["id"].as_str().unwrap().to_string();
    // the options list pages like every other list (the SDKs send page[size] to every list)
    let second = app
        .post(
            &format!("/v2/custom_field_definitions/{band}/options"),
            &key,
            MT,
            &json!({"data": {"type": "custom_field_option", "attributes": {"label": "Chilled", "value": "chilled", "position": 2}}}).to_string(),
        )
        .await;
    assert_eq!(second.status, 201, "{}", second.text);
    let options = format!("/v2/custom_field_definitions/{band}/options");
    let r = app
        .get(&format!("{options}?page[size]=1"), Some(&key))
        .await;
    assert_eq!(r.status, 200, "{}", r.text);
    let page = r.json();
    assert_eq!(page["data"].as_array().map(Vec::len), Some(1), "{page}");
    assert_eq!(page["data"][0]["attributes"]["value"], "frozen");
    assert_eq!(page["meta"]["total"], 2);
    let next = page["links"]["next"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    assert!(next.contains("page[number]=2"), "{page}");
    let r = app.get(&next, Some(&key)).await.json();
    assert_eq!(r["data"][0]["attributes"]["value"], "chilled", "{r}");
    assert!(r["links"]["next"].is_null(), "{r}");
    let r = app
        .get(&format!("{options}?page[size]=0"), Some(&key))
        .await;
    assert_eq!(assert_error(&r, 400)["source"]["parameter"], "page[size]");
    let option_path = format!("/v2/custom_field_definitions/{band}/options/{option_id}");
    assert_eq!(app.get(&option_path, Some(&key)).await.status, 200);
    let r = app
        .patch(
            &option_path,
            &key,
            &json!({"data": {"type": "custom_field_option", "attributes": {"label": "Deep frozen"}}}).to_string(),
        )
        .await;
    assert_eq!(r.status, 200, "{}", r.text);
    assert_eq!(r.json()["data"]["attributes"]["label"], "Deep frozen");
    assert_eq!(app.delete(&option_path, &key).await.status, 200);

    // values on a container and on a tracking request, through their nested paths
    for (base, slug, value, changed) in [
        (
            format!("/v2/containers/{container_id}/custom_fields"),
            "seal_checked",
            json!(true),
            json!(false),
        ),
        (
            format!("/v2/tracking_requests/{request_id}/custom_fields"),
            "desk",
            json!("Rotterdam"),
            json!("Newark"),
        ),
    ] {
        let r = app.post(&base, &key, MT, &field(slug, value)).await;
        assert_eq!(r.status, 201, "{}", r.text);
        let r = app.get(&base, Some(&key)).await;
        assert_eq!(r.status, 200, "{}", r.text);
        let r = app
            .patch(
                &format!("{base}/{slug}"),
                &key,
                &field(slug, changed.clone()),
            )
            .await;
        assert_eq!(r.status, 200, "{}", r.text);
        assert_eq!(r.json()["data"]["attributes"]["value"], changed);
        assert_eq!(
            app.delete(&format!("{base}/{slug}"), &key).await.status,
            204
        );
    }

    // a value by its id
    let r = app
        .post(
            &format!("/v2/containers/{container_id}/custom_fields"),
            &key,
            MT,
            &field("seal_checked", json!(true)),
        )
        .await;
    let value_id = r.json()["data"]["id"].as_str().unwrap().to_string();
    assert_eq!(
        app.get(&format!("/v2/custom_fields/{value_id}"), Some(&key))
            .await
            .status,
        200
    );
    assert_eq!(
        app.delete(&format!("/v2/custom_fields/{value_id}"), &key)
            .await
            .status,
        200
    );

    // and a party by its id
    let party = app
        .post(
            "/v2/parties",
            &key,
            MT,
            &json!({"data": {"type": "party", "attributes": {"company_name": "Acme"}}}).to_string(),
        )
        .await
        .json();
    let party_id = party["data"]["id"].as_str().unwrap();
    assert_eq!(
        app.get(&format!("/v2/parties/{party_id}"), Some(&key))
            .await
            .status,
        200
    );
}
