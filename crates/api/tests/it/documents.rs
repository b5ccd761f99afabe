//! Documents: the direct-upload handshake as the reference's clients perform it, then
//! reading, typing, downloading and deleting.

use serde_json::{Value, json};

use crate::helpers::{TestApp, assert_error};

const MT: &str = "application/vnd.api+json";
const FILE: &[u8] = b"%PDF-1.4\n% boxtrack test: arrival notice\n%%EOF\n";
/// base64(MD5(FILE)), computed outside boxtrack (Python's hashlib).
const FILE_MD5: &str = "BJ/EpuoMC9B/xCA4UmFIeA==";

async fn announce(app: &TestApp, key: &str, blob: Value) -> crate::helpers::Resp {
    app.post(
        "/rails/active_storage/direct_uploads",
        key,
        "application/json",
        &json!({ "blob": blob }).to_string(),
    )
    .await
}

async fn put(app: &TestApp, url: &str, bytes: &[u8], headers: &Value) -> u16 {
    let mut req = app.client.put(url).body(bytes.to_vec());
    for (k, v) in headers.as_object().unwrap() {
        req = req.header(k.as_str(), v.as_str().unwrap());
    }
    app.send(req).await.status
}

fn create_body(name: &str, signed_id: &str) -> String {
    json!({"data": {"type": "document", "attributes": {"name": name, "attached_document": signed_id}}})
        .to_string()
}

#[tokio::test]
async fn upload_attach_read_download_and_delete_a_document() {
    let app = TestApp::spawn().await;
    let (_, key) = app.account().await;
    let (_, other_key) = app.account().await;

    // a tracked container, to be linked by its number in the document's name
    app.track_sandbox(&key, "TEST-SCN-IMPORT").await;
    let c = app.get("/v2/containers", Some(&key)).await.json();
    let container_id = c["data"][0]["id"].as_str().unwrap().to_string();
    let number = c["data"][0]["attributes"]["number"]
        .as_str()
        .unwrap()
        .to_string();

    // step 1 refuses a bad announcement field by field, and a file over 25 MiB
    let bad = announce(
        &app,
        &key,
        json!({"filename": "", "byte_size": 0, "checksum": "nope"}),
    )
    .await;
    assert_error(&bad, 422);
    let e = bad.json();
    let pointers: Vec<&str> = e["errors"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x["source"]["pointer"].as_str().unwrap())
        .collect();
    assert_eq!(
        pointers,
        ["/blob/filename", "/blob/byte_size", "/blob/checksum"]
    );
    assert_error(
        &announce(
            &app,
            &key,
            json!({"filename": "big.pdf", "byte_size": 26_214_401, "checksum": FILE_MD5}),
        )
        .await,
        422,
    );

    let ok = announce(
        &app,
        &key,
        json!({"filename": "an.pdf", "content_type": "application/pdf", "byte_size": FILE.len(), "checksum": FILE_MD5}),
    )
    .await;
    assert_eq!(ok.status, 200, "{}", ok.text);
    let blob = ok.json();
    let signed_id = blob["signed_id"].as_str().unwrap().to_string();
    let url = blob["direct_upload"]["url"].as_str().unwrap().to_string();
    let headers = blob["direct_upload"]["headers"].clone();
    assert_eq!(headers["Content-MD5"], FILE_MD5);
    assert_eq!(blob["byte_size"], FILE.len());

    // not uploaded yet: the signed id attaches nothing
    assert_error(
        &app.post("/v2/documents", &key, MT, &create_body("x", &signed_id))
            .await,
        422,
    );
    // step 2: other bytes of the same length are refused and nothing is stored
    let mut wrong = FILE.to_vec();
    wrong[10] ^= 1;
    assert_eq!(put(&app, &url, &wrong, &headers).await, 422);
    assert_error(
        &app.post("/v2/documents", &key, MT, &create_body("x", &signed_id))
            .await,
        422,
    );
    // the right bytes, with no credentials but the URL
    assert_eq!(put(&app, &url, FILE, &headers).await, 204);
    assert_eq!(put(&app, &url, FILE, &headers).await, 404);

    // another account cannot attach this upload
    assert_error(
        &app.post(
            "/v2/documents",
            &other_key,
            MT,
            &create_body("x", &signed_id),
        )
        .await,
        422,
    );

    // step 3
    let name = format!("Arrival notice {number}");
    let created = app
        .post("/v2/documents", &key, MT, &create_body(&name, &signed_id))
        .await;
    assert_eq!(created.status, 201, "{}", created.text);
    let doc = created.json();
    let id = doc["data"]["id"].as_str().unwrap().to_string();
    let a = &doc["data"]["attributes"];
    assert_eq!(a["name"], name);
    assert_eq!(a["document_type"], "arrival_notice");
    assert_eq!(a["file_name"], "an.pdf");
    assert_eq!(a["file_content_type"], "application/pdf");
    assert_eq!(a["file_size_bytes"], FILE.len());
    assert_eq!(
        doc["data"]["relationships"]["cargos"]["data"][0]["id"],
        container_id
    );

    // the same file again is a duplicate naming the existing document
    let dup = app
        .post("/v2/documents", &key, MT, &create_body("again", &signed_id))
        .await;
    let e = assert_error(&dup, 409);
    assert_eq!(e["code"], "duplicate_document");
    assert_eq!(e["title"], "Duplicate document");
    assert_eq!(e["meta"]["existing_document_id"], id);

    // reading, filtering, including
    let list = app
        .get("/v2/documents?include=cargos", Some(&key))
        .await
        .json();
    assert_eq!(list["meta"]["total"], 1);
    assert_eq!(list["included"][0]["id"], container_id);
    let count = |q: &str| {
        let app = &app;
        let key = key.clone();
        let q = q.to_string();
        async move {
            app.get(&format!("/v2/documents?{q}"), Some(&key))
                .await
                .json()["meta"]["total"]
                .as_u64()
                .unwrap()
        }
    };
    assert_eq!(count("filter[filename]=ARRIVAL").await, 1);
    assert_eq!(count("filter[filename]=an.pdf").await, 1);
    assert_eq!(count("filter[filename]=invoice").await, 0);
    assert_eq!(
        count("filter[document_types]=arrival_notice,other").await,
        1
    );
    assert_eq!(count("filter[document_types]=bill_of_lading").await, 0);
    assert_error(
        &app.get("/v2/documents?filter[document_types]=nonsense", Some(&key))
            .await,
        400,
    );
    assert_error(
        &app.get("/v2/documents?include=nonsense", Some(&key)).await,
        400,
    );
    let other = app.get("/v2/documents", Some(&other_key)).await.json();
    assert_eq!(other["meta"]["total"], 0);
    assert_error(
        &app.get(&format!("/v2/documents/{id}"), Some(&other_key))
            .await,
        404,
    );
    let types = app.get("/v2/documents/types", Some(&key)).await.json();
    assert!(
        types["document_types"]
            .as_array()
            .unwrap()
            .iter()
            .any(|t| t["code"] == "bill_of_lading" && t["label"] == "Bill of Lading")
    );

    // typing by hand
    let patch = |t: Value| {
        json!({"data": {"type": "document", "attributes": {"document_type_manual": t}}}).to_string()
    };
    assert_error(
        &app.patch(&format!("/v2/documents/{id}"), &key, &patch(json!("nope")))
            .await,
        422,
    );
    let p = app
        .patch(
            &format!("/v2/documents/{id}"),
            &key,
            &patch(json!("bill_of_lading")),
        )
        .await;
    assert_eq!(p.status, 200, "{}", p.text);
    assert_eq!(
        p.json()["data"]["attributes"]["document_type_manual"],
        "bill_of_lading"
    );
    assert_eq!(count("filter[document_types]=bill_of_lading").await, 1);
    let cleared = app
        .patch(&format!("/v2/documents/{id}"), &key, &patch(Value::Null))
        .await
        .json();
    assert!(cleared["data"]["attributes"]["document_type_manual"].is_null());

    // download through a URL that needs no credentials
    let dl = app
        .get(&format!("/v2/documents/{id}/download_url"), Some(&key))
        .await
        .json();
    let dl_url = dl["download_url"].as_str().unwrap().to_string();
    let res = app.client.get(&dl_url).send().await.unwrap();
    assert_eq!(res.status(), 200);
    assert_eq!(res.headers()["content-type"], "application/pdf");
    assert!(
        res.headers()["content-disposition"]
            .to_str()
            .unwrap()
            .contains("an.pdf")
    );
    assert_eq!(res.bytes().await.unwrap().as_ref(), FILE);
    assert_eq!(
        app.client
            .get(format!("{}x", dl_url))
            .send()
            .await
            .unwrap()
            .status(),
        404
    );

    // re-classifying keeps the manual type; re-linking finds what the name names now
    let r = app
        .post(&format!("/v2/documents/{id}/reclassify"), &key, MT, "")
        .await;
    assert_eq!(r.status, 202, "{}", r.text);
    assert_eq!(r.json()["status"], "accepted");
    let r = app
        .post(&format!("/v2/documents/{id}/relink"), &key, MT, "")
        .await;
    assert_eq!(r.status, 202, "{}", r.text);
    let d = app
        .get(&format!("/v2/documents/{id}"), Some(&key))
        .await
        .json();
    assert_eq!(d["data"]["attributes"]["document_type"], "arrival_notice");
    assert_eq!(
        d["data"]["relationships"]["cargos"]["data"][0]["id"],
        container_id
    );
    assert_error(
        &app.post(&format!("/v2/documents/{id}/relink"), &other_key, MT, "")
            .await,
        404,
    );

    // deleting: gone from reads and downloads
    let del = app.delete(&format!("/v2/documents/{id}"), &key).await;
    assert_eq!(del.status, 204);
    assert_error(
        &app.get(&format!("/v2/documents/{id}"), Some(&key)).await,
        404,
    );
    assert_eq!(app.client.get(&dl_url).send().await.unwrap().status(), 404);
    assert_error(&app.delete(&format!("/v2/documents/{id}"), &key).await, 404);
    assert_eq!(count("").await, 0);
}

fn email(message_id: &str, subject: &str) -> String {
    format!(
        "From: Ops Desk <ops@forwarder.example>\r\n\
To: docs@boxtrack.example\r\n\
Subject: {subject}\r\n\
Date: Tue, 24 Nov 2026 09:30:00 +0100\r\n\
Message-ID: <{message_id}>\r\n\
MIME-Version: 1.0\r\n\
Content-Type: multipart/mixed; boundary=\"b1\"\r\n\
\r\n\
--b1\r\n\
Content-Type: text/plain; charset=utf-8\r\n\
\r\n\
Arrival notice attached.\r\n\
--b1\r\n\
Content-Type: application/pdf\r\n\
Content-Disposition: attachment; filename=\"arrival notice.pdf\"\r\n\
Content-Transfer-Encoding: base64\r\n\
\r\n\
JVBERi0xLjQKJSBhcnJpdmFsIG5vdGljZQolJUVPRgo=\r\n\
--b1--\r\n"
    )
}

#[tokio::test]
async fn e_mailed_attachments_become_linked_documents_once() {
    let app = TestApp::spawn().await;
    let (_, key) = app.account().await;
    let (_, other_key) = app.account().await;
    app.track_sandbox(&key, "TEST-SCN-IMPORT").await;
    let c = app.get("/v2/containers", Some(&key)).await.json();
    let container_id = c["data"][0]["id"].as_str().unwrap().to_string();
    let number = c["data"][0]["attributes"]["number"]
        .as_str()
        .unwrap()
        .to_string();
    let message = email("m1@forwarder.example", &format!("AN for {number}"));

    assert_error(
        &app.post("/v2/email_submissions", &key, "text/plain", &message)
            .await,
        415,
    );
    let bad = assert_error(
        &app.post(
            "/v2/email_submissions",
            &key,
            "message/rfc822",
            "Subject: x\r\n\r\nno sender",
        )
        .await,
        422,
    );
    assert_eq!(bad["code"], "invalid_email");

    let sent = app
        .post("/v2/email_submissions", &key, "message/rfc822", &message)
        .await;
    assert_eq!(sent.status, 201, "{}", sent.text);
    let doc = sent.json();
    let id = doc["data"]["id"].as_str().unwrap().to_string();
    let a = &doc["data"]["attributes"];
    assert_eq!(a["subject"], format!("AN for {number}"));
    assert_eq!(a["from"], json!(["ops@forwarder.example"]));
    assert_eq!(a["sent_at"], "2026-11-24T08:30:00Z");
    assert_eq!(a["message_id"], "m1@forwarder.example");
    assert_eq!(a["documents_count"], 1);
    let d = &doc["included"][0];
    assert_eq!(d["type"], "document");
    assert_eq!(d["attributes"]["source"], "email");
    assert_eq!(d["attributes"]["document_type"], "arrival_notice");
    assert_eq!(d["attributes"]["file_name"], "arrival notice.pdf");
    assert_eq!(d["relationships"]["cargos"]["data"][0]["id"], container_id);
    assert_eq!(d["relationships"]["email_submission"]["data"]["id"], id);

    // the same message again (a mail server's retry) records nothing new
    let again = app
        .post("/v2/email_submissions", &key, "message/rfc822", &message)
        .await;
    assert_eq!(again.status, 200, "{}", again.text);
    assert_eq!(again.json()["data"]["id"], id);
    // another message with the same file keeps the file once
    let other = app
        .post(
            "/v2/email_submissions",
            &key,
            "message/rfc822",
            &email("m2@forwarder.example", "fwd"),
        )
        .await;
    assert_eq!(other.status, 201, "{}", other.text);
    assert_eq!(other.json()["data"]["attributes"]["documents_count"], 0);

    let list = app.get("/v2/email_submissions", Some(&key)).await.json();
    assert_eq!(list["meta"]["total"], 2);
    let one = app
        .get(&format!("/v2/email_submissions/{id}"), Some(&key))
        .await
        .json();
    assert_eq!(one["included"].as_array().unwrap().len(), 1);
    assert_eq!(
        app.get("/v2/documents", Some(&key)).await.json()["meta"]["total"],
        1
    );
    // the file itself downloads as sent
    let document_id = d["id"].as_str().unwrap();
    let url = app
        .get(
            &format!("/v2/documents/{document_id}/download_url"),
            Some(&key),
        )
        .await
        .json()["download_url"]
        .as_str()
        .unwrap()
        .to_string();
    let bytes = app
        .client
        .get(url)
        .send()
        .await
        .unwrap()
        .bytes()
        .await
        .unwrap();
    assert_eq!(bytes.as_ref(), b"%PDF-1.4\n% arrival notice\n%%EOF\n");
    assert_error(
        &app.get(&format!("/v2/email_submissions/{id}"), Some(&other_key))
            .await,
        404,
    );
    assert_eq!(
        app.get("/v2/email_submissions", Some(&other_key))
            .await
            .json()["meta"]["total"],
        0
    );
}

/// An image, as a client would upload it (its MD5 computed outside boxtrack, with Python).
const IMAGE: &[u8] = b"\x89PNG\r\n\x1a\nboxtrack test image";
const IMAGE_MD5: &str = "UR8/rznVj9Lqt1kuS8uJ8Q==";

/// Uploads and attaches a file; returns the document id.
async fn document(app: &TestApp, key: &str, file: (&str, &str, &[u8], &str)) -> String {
    let (filename, content_type, bytes, md5) = file;
    let blob = announce(
        app,
        key,
        json!({"filename": filename, "content_type": content_type, "byte_size": bytes.len(), "checksum": md5}),
    )
    .await
    .json();
    let url = blob["direct_upload"]["url"].as_str().unwrap().to_string();
    assert_eq!(
        put(app, &url, bytes, &blob["direct_upload"]["headers"]).await,
        204
    );
    let created = app
        .post(
            "/v2/documents",
            key,
            MT,
            &create_body(filename, blob["signed_id"].as_str().unwrap()),
        )
        .await;
    assert_eq!(created.status, 201, "{}", created.text);
    created.json()["data"]["id"].as_str().unwrap().to_string()
}

/// The reference's rotation, extraction and schema operations answer in its error shape:
/// what boxtrack does not do is 501 and says what to do instead; what is wrong is 422; what
/// is not the account's is 404.
#[tokio::test]
async fn rotation_extraction_and_schemas_answer_what_boxtrack_does_not_do() {
    let app = TestApp::spawn().await;
    let (_, key) = app.account().await;
    let (_, other_key) = app.account().await;
    let pdf = document(
        &app,
        &key,
        ("notice.pdf", "application/pdf", FILE, FILE_MD5),
    )
    .await;
    let png = document(&app, &key, ("photo.png", "image/png", IMAGE, IMAGE_MD5)).await;
    let rotate = |id: &str, degrees: Value| {
        let (app, key, id) = (&app, key.clone(), id.to_string());
        async move {
            app.post(
                &format!("/v2/documents/{id}/rotate"),
                &key,
                "application/json",
                &json!({ "degrees": degrees }).to_string(),
            )
            .await
        }
    };
    let e = assert_error(&rotate(&png, json!(45)).await, 422);
    assert_eq!(e["detail"], "degrees must be one of: 90, 180, 270");
    let e = assert_error(&rotate(&pdf, json!(90)).await, 422);
    assert_eq!(e["code"], "not_rotatable");
    let e = assert_error(&rotate(&png, json!(90)).await, 501);
    assert!(e["detail"].as_str().unwrap().contains("as uploaded"));
    let e = assert_error(
        &app.post(&format!("/v2/documents/{pdf}/reextract"), &key, MT, "")
            .await,
        501,
    );
    assert!(e["detail"].as_str().unwrap().contains("does not extract"));
    // another account's documents are not found, whatever is asked
    assert_error(
        &app.post(
            &format!("/v2/documents/{png}/rotate"),
            &other_key,
            "application/json",
            r#"{"degrees": 90}"#,
        )
        .await,
        404,
    );
    assert_error(
        &app.post(
            &format!("/v2/documents/{pdf}/reextract"),
            &other_key,
            MT,
            "",
        )
        .await,
        404,
    );
    let e = assert_error(
        &app.get(
            "/v2/document_schemas/commercial_invoice@2026-03-23",
            Some(&key),
        )
        .await,
        404,
    );
    assert_eq!(
        e["detail"],
        "Couldn't find DocumentSchema with 'id'=commercial_invoice@2026-03-23"
    );
    // nothing changed
    let doc = app
        .get(&format!("/v2/documents/{png}"), Some(&key))
        .await
        .json();
    assert_eq!(doc["data"]["attributes"]["file_size_bytes"], IMAGE.len());
}

#[tokio::test]
async fn bodies_over_the_limit_are_a_json_api_413_and_store_nothing() {
    let app = TestApp::spawn().await;
    let (_, key) = app.account().await;
    let ok = announce(
        &app,
        &key,
        json!({"filename": "an.pdf", "content_type": "application/pdf", "byte_size": FILE.len(), "checksum": FILE_MD5}),
    )
    .await;
    let blob = ok.json();
    let url = blob["direct_upload"]["url"].as_str().unwrap().to_string();
    let headers = blob["direct_upload"]["headers"].clone();
    // one byte over the 25 MiB an upload may have
    let big = vec![b'x'; 25 * 1024 * 1024 + 1];
    let r = app.send(app.client.put(&url).body(big.clone())).await;
    let e = assert_error(&r, 413);
    assert_eq!(e["code"], "payload_too_large");
    // the upload still waits for its bytes
    assert_eq!(put(&app, &url, FILE, &headers).await, 204);
    // an e-mail over 40 MiB, the same way
    let mail = vec![b'x'; 40 * 1024 * 1024 + 1];
    let r = app
        .send(
            app.client
                .post(app.url("/v2/email_submissions"))
                .header("Authorization", format!("Token {key}"))
                .header("Content-Type", "message/rfc822")
                .body(mail),
        )
        .await;
    assert_error(&r, 413);
    // an upstream file over the HTTP layer's limit: a JSON:API error too
    for (path, media) in [
        ("/v2/ingest/x12", "application/edi-x12"),
        ("/v2/ingest/edifact", "application/edifact"),
    ] {
        let r = app
            .send(
                app.client
                    .post(app.url(path))
                    .header("Authorization", format!("Token {key}"))
                    .header("Content-Type", media)
                    .body(vec![b'x'; 16 * 1024 * 1024 + 1]),
            )
            .await;
        let e = assert_error(&r, 413);
        assert_eq!(e["code"], "payload_too_large", "{path}");
    }
}
