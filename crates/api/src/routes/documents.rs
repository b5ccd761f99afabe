//! Documents: the ActiveStorage direct-upload handshake (`POST
//! /rails/active_storage/direct_uploads`, then `PUT` the bytes to the URL it returns), `POST
//! /v2/documents` with the `signed_id`, reading, typing, deleting and downloading them.

use axum::Json;
use axum::extract::{OriginalUri, RawQuery, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use boxtrack_app::documents::{self, Created, DocumentRow, Filter, NewDocument};
use boxtrack_app::{containers, shipments};
use boxtrack_core::documents as rules;
use boxtrack_views::tracking as resources;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::state::AppState;
use crate::state::Routes;
use boxtrack_http::auth::Caller;
use boxtrack_http::doc::{self, Doc, Q, body, list_of, single, typed_params};
use boxtrack_http::error::{ApiError, ApiResult};
use boxtrack_http::extract::IdPath;
use boxtrack_http::jsonapi::{Body, JsonApi, QueryParams, base_url, list_response};
use boxtrack_views::documents::document;

const INCLUDES: &[&str] = &["shipments", "cargos"];

fn document_not_found() -> ApiError {
    ApiError::not_found("Document")
}

/// The `document` resource object.
pub fn to_resource(d: &DocumentRow) -> Value {
    document(d).to_value()
}

async fn included(
    state: &AppState,
    caller: &Caller,
    docs: &[DocumentRow],
    includes: &[String],
) -> ApiResult<Vec<Value>> {
    let mut out: Vec<Value> = Vec::new();
    let account = caller.account.id;
    let want = |name: &str| includes.iter().any(|i| i == name);
    // one query per relation for the whole page, then the documents' order
    if want("shipments") {
        let ids: Vec<uuid::Uuid> = docs.iter().flat_map(|d| d.shipment_ids.clone()).collect();
        let (shipments, containers) =
            shipments::with_containers(&state.ctx.db, account, &ids).await?;
        for id in &ids {
            if let Some(s) = shipments.get(id) {
                let cs = containers.get(id).map(Vec::as_slice).unwrap_or_default();
                out.push(resources::shipment(s, cs));
            }
        }
    }
    if want("cargos") {
        let ids: Vec<uuid::Uuid> = docs.iter().flat_map(|d| d.container_ids.clone()).collect();
        let (containers, shipments) =
            containers::with_shipments(&state.ctx.db, account, &ids).await?;
        for id in &ids {
            if let Some(c) = containers.get(id) {
                let s = shipments.get(&c.shipment_id);
                out.push(resources::container(c, s, &caller.account));
            }
        }
    }
    let mut seen = std::collections::HashSet::new();
    out.retain(|r| seen.insert((r["type"].to_string(), r["id"].to_string())));
    Ok(out)
}

/// The document.
#[derive(Deserialize, JsonSchema)]
struct CreateAttrs {
    /// Its name.
    #[schemars(required, extend("type" = "string"))]
    name: Option<String>,
    /// The `signed_id` of the direct upload.
    #[schemars(required, extend("type" = "string"))]
    attached_document: Option<String>,
}

/// A document to create.
#[derive(Deserialize, JsonSchema)]
struct CreateData {
    /// `document`.
    #[serde(rename = "type")]
    #[schemars(required, extend("const" = "document"))]
    kind: Option<String>,
    /// The document.
    attributes: CreateAttrs,
}

/// Body of `POST /v2/documents`.
#[derive(Deserialize, JsonSchema)]
pub struct CreateDoc {
    data: CreateData,
}

/// `POST /v2/documents`: a document for an uploaded file (`attached_document` = the
/// `signed_id` of the direct upload), typed and linked from its name.
pub async fn create(
    State(state): State<AppState>,
    caller: Caller,
    Body(doc): Body<CreateDoc>,
) -> ApiResult<Response> {
    if doc.data.kind.as_deref() != Some("document") {
        return Err(ApiError::unprocessable(
            "/data/type",
            "invalid_type",
            "type must be \"document\"",
        ));
    }
    let attrs = doc.data.attributes;
    let given = attrs.name.as_deref().unwrap_or_default();
    let name = given.trim();
    // the length as given, then trimmed
    if name.is_empty() || given.chars().count() > 255 {
        return Err(ApiError::unprocessable(
            "/data/attributes/name",
            "invalid",
            "name must be 1 to 255 characters",
        ));
    }
    let signed = attrs.attached_document.unwrap_or_default();
    let blob = documents::uploaded(&state.ctx, caller.account.id, &rules::digest(signed.trim()))
        .await?
        .ok_or_else(|| {
            ApiError::unprocessable(
                "/data/attributes/attached_document",
                "invalid",
                "attached_document must be the signed_id of a direct upload whose bytes have arrived (PUT to its direct_upload.url first)",
            )
        })?;
    let numbers = rules::reference_numbers(&[name, &blob.filename]);
    let (shipment_ids, container_ids) =
        documents::linked(&state.ctx, caller.account.id, &numbers).await?;
    let created = documents::create(
        &state.ctx,
        &blob,
        NewDocument {
            name,
            document_type: rules::classify(name, &blob.filename),
            shipment_ids,
            container_ids,
        },
    )
    .await?;
    match created {
        Created::New(d) => {
            let mut res = JsonApi::single(to_resource(&d), vec![]).into_response();
            *res.status_mut() = StatusCode::CREATED;
            Ok(res)
        }
        Created::Duplicate { id, name } => Err(ApiError::new(
            StatusCode::CONFLICT,
            format!("The account already has this file as document {name:?}."),
        )
        .with_title("Duplicate document")
        .with_code("duplicate_document")
        .with_meta(
            serde_json::to_value(Existing {
                existing_document_id: id,
                existing_document_name: name,
            })
            .unwrap_or_default(),
        )),
    }
}

/// `GET /v2/documents`.
pub async fn list(
    State(state): State<AppState>,
    caller: Caller,
    headers: HeaderMap,
    OriginalUri(uri): OriginalUri,
    RawQuery(raw): RawQuery,
) -> ApiResult<JsonApi> {
    let q = QueryParams::parse(raw.as_deref());
    let page = q.page()?;
    let includes = q.includes("document", INCLUDES)?;
    let mut filter = Filter {
        filename: q
            .get("filter[filename]")
            .map(str::to_string)
            .filter(|s| !s.is_empty()),
        types: Vec::new(),
        linked_to: None,
    };
    if let Some(t) = q.get("filter[document_types]") {
        // as written: comma-separated codes, no spaces, no empty items
        for code in t.split(',') {
            if !rules::is_type(code) {
                return Err(ApiError::bad_parameter(
                    "filter[document_types]",
                    format!("{code:?} is not a document type (GET /v2/documents/types lists them)"),
                ));
            }
            filter.types.push(code.to_string());
        }
    }
    let listed = documents::list(&state.ctx, caller.account.id, &filter, &page).await?;
    let inc = included(&state, &caller, &listed.rows, &includes).await?;
    Ok(list_response(
        state.config.public_url.as_deref(),
        &headers,
        uri.path(),
        &q,
        page,
        &listed,
        listed.rows.iter().map(to_resource).collect(),
        inc,
    ))
}

/// `GET /v2/documents/types`.
pub async fn types(_caller: Caller) -> Json<DocumentTypes> {
    Json(DocumentTypes {
        document_types: rules::TYPES
            .iter()
            .map(|(code, label)| DocumentType { code, label })
            .collect(),
    })
}

/// The document types (`GET /v2/documents/types`).
#[derive(Serialize, JsonSchema)]
pub struct DocumentTypes {
    /// Every type.
    pub document_types: Vec<DocumentType>,
}

/// A document type.
#[derive(Serialize, JsonSchema)]
pub struct DocumentType {
    /// Its code (`bill_of_lading`, `arrival_notice`, …).
    pub code: &'static str,
    /// Its label.
    pub label: &'static str,
}

/// The document a duplicate upload would have made, in the 409's `meta`.
#[derive(Serialize)]
struct Existing {
    existing_document_id: uuid::Uuid,
    existing_document_name: String,
}

/// The reference's answer to an action done (or, in boxtrack, already done) on a document.
#[derive(Serialize, JsonSchema)]
pub struct Accepted {
    /// `accepted`.
    #[schemars(extend("const" = "accepted"))]
    pub status: &'static str,
}

/// `{"status": "accepted"}`.
const ACCEPTED: Accepted = Accepted { status: "accepted" };

/// A document's download address.
#[derive(Serialize, JsonSchema)]
pub struct DownloadUrl {
    /// Serves the file without credentials for 10 minutes.
    #[schemars(extend("format" = "uri"))]
    pub download_url: String,
}

/// `GET /v2/documents/{id}`.
pub async fn show(
    State(state): State<AppState>,
    caller: Caller,
    IdPath(id): IdPath,
    RawQuery(raw): RawQuery,
) -> ApiResult<JsonApi> {
    let includes = QueryParams::parse(raw.as_deref()).includes("document", INCLUDES)?;
    let d = documents::get(&state.ctx, caller.account.id, id)
        .await?
        .ok_or_else(document_not_found)?;
    let inc = included(&state, &caller, std::slice::from_ref(&d), &includes).await?;
    Ok(JsonApi::single(to_resource(&d), inc))
}

/// What to change.
#[derive(Deserialize, JsonSchema)]
struct PatchAttrs {
    /// The document type a person sets (absent: unchanged; `null`: cleared).
    #[serde(default, deserialize_with = "present")]
    #[schemars(extend("type" = ["string", "null"]))]
    document_type_manual: Option<Option<String>>,
}

/// A field that is present, `null` included (`Some(None)`), as opposed to absent (`None`).
fn present<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<Option<String>>, D::Error> {
    Option::<String>::deserialize(d).map(Some)
}

/// The change.
#[derive(Deserialize, JsonSchema)]
struct PatchData {
    /// `document`.
    #[serde(rename = "type")]
    #[schemars(extend("const" = "document"))]
    kind: Option<String>,
    /// What to change.
    attributes: PatchAttrs,
}

/// Body of `PATCH /v2/documents/{id}`.
#[derive(Deserialize, JsonSchema)]
pub struct PatchDoc {
    data: PatchData,
}

/// `PATCH /v2/documents/{id}`: sets or clears (`null`) the user's document type.
pub async fn update(
    State(state): State<AppState>,
    caller: Caller,
    IdPath(id): IdPath,
    Body(doc): Body<PatchDoc>,
) -> ApiResult<JsonApi> {
    if doc.data.kind.as_deref().is_some_and(|k| k != "document") {
        return Err(ApiError::unprocessable(
            "/data/type",
            "invalid_type",
            "type must be \"document\"",
        ));
    }
    let current = documents::get(&state.ctx, caller.account.id, id)
        .await?
        .ok_or_else(document_not_found)?;
    let Some(manual) = doc.data.attributes.document_type_manual else {
        return Ok(JsonApi::single(to_resource(&current), vec![]));
    };
    if let Some(t) = &manual
        && !rules::is_type(t)
    {
        return Err(ApiError::unprocessable(
            "/data/attributes/document_type_manual",
            "invalid",
            format!("{t:?} is not a document type (GET /v2/documents/types lists them)"),
        ));
    }
    let d = documents::set_manual_type(&state.ctx, caller.account.id, id, manual.as_deref())
        .await?
        .ok_or_else(document_not_found)?;
    Ok(JsonApi::single(to_resource(&d), vec![]))
}

/// `DELETE /v2/documents/{id}`: the document disappears and its file is dropped.
pub async fn delete(
    State(state): State<AppState>,
    caller: Caller,
    IdPath(id): IdPath,
) -> ApiResult<StatusCode> {
    if documents::delete(&state.ctx, caller.account.id, id).await? {
        Ok(StatusCode::NO_CONTENT)
    } else {
        Err(document_not_found())
    }
}

/// `POST /v2/documents/{id}/reclassify`: the type again from the name and file name (the
/// user's `document_type_manual` stays). Done before answering; 202 as in the reference.
pub async fn reclassify(
    State(state): State<AppState>,
    caller: Caller,
    IdPath(id): IdPath,
) -> ApiResult<(StatusCode, Json<Accepted>)> {
    let d = documents::get(&state.ctx, caller.account.id, id)
        .await?
        .ok_or_else(document_not_found)?;
    let t = rules::classify(&d.name, &d.file_name);
    documents::reclassify_and_link(&state.ctx, caller.account.id, id, Some(t), None).await?;
    Ok((StatusCode::ACCEPTED, Json(ACCEPTED)))
}

/// `POST /v2/documents/{id}/relink`: the links again, to the account's shipments and
/// containers whose numbers the name and file name hold now (shipments tracked since the
/// upload included). Done before answering; 202 as in the reference.
pub async fn relink(
    State(state): State<AppState>,
    caller: Caller,
    IdPath(id): IdPath,
) -> ApiResult<(StatusCode, Json<Accepted>)> {
    let d = documents::get(&state.ctx, caller.account.id, id)
        .await?
        .ok_or_else(document_not_found)?;
    let numbers = rules::reference_numbers(&[&d.name, &d.file_name]);
    let (s, c) = documents::linked(&state.ctx, caller.account.id, &numbers).await?;
    documents::reclassify_and_link(&state.ctx, caller.account.id, id, None, Some((&s, &c))).await?;
    Ok((StatusCode::ACCEPTED, Json(ACCEPTED)))
}

/// Body of `POST /v2/documents/{id}/rotate` (plain JSON, as in the reference).
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RotateBody {
    /// Clockwise, in degrees: 90, 180 or 270.
    #[schemars(required, extend("enum" = [90, 180, 270]))]
    degrees: Option<i64>,
}

/// `POST /v2/documents/{id}/rotate`: the reference rotates stored images; boxtrack keeps every
/// file exactly as it was uploaded, so a valid rotation of an image is 501 (a non-image is
/// 422 as in the reference, an unknown document 404).
pub async fn rotate(
    State(state): State<AppState>,
    caller: Caller,
    IdPath(id): IdPath,
    Body(b): Body<RotateBody>,
) -> ApiResult<(StatusCode, Json<Accepted>)> {
    let d = documents::get(&state.ctx, caller.account.id, id)
        .await?
        .ok_or_else(document_not_found)?;
    if !matches!(b.degrees, Some(90 | 180 | 270)) {
        return Err(ApiError::unprocessable(
            "/degrees",
            "invalid",
            "degrees must be one of: 90, 180, 270",
        ));
    }
    if !d.file_content_type.starts_with("image/") {
        return Err(ApiError::unprocessable(
            "/degrees",
            "not_rotatable",
            format!(
                "Only images can be rotated; this document is {}",
                d.file_content_type
            ),
        ));
    }
    Err(ApiError::new(
        StatusCode::NOT_IMPLEMENTED,
        "boxtrack keeps documents exactly as uploaded and does not rotate images; rotate the image before uploading it",
    ))
}

/// `POST /v2/documents/{id}/reextract`: boxtrack does not extract data from documents (it
/// classifies and links them by their names), so this is 501 for a document of the account
/// and 404 otherwise.
pub async fn reextract(
    State(state): State<AppState>,
    caller: Caller,
    IdPath(id): IdPath,
) -> ApiResult<(StatusCode, Json<Value>)> {
    documents::get(&state.ctx, caller.account.id, id)
        .await?
        .ok_or_else(document_not_found)?;
    Err(ApiError::new(
        StatusCode::NOT_IMPLEMENTED,
        "boxtrack does not extract data from documents; it classifies and links them by name (POST /v2/documents/{id}/reclassify, /relink)",
    ))
}

/// `GET /v2/document_schemas/{id}`: the extraction schemas of the reference; boxtrack has
/// none, so every id is 404 in the reference's words.
pub async fn document_schema(
    _caller: Caller,
    axum::extract::Path(id): axum::extract::Path<String>,
) -> ApiResult<Json<Value>> {
    let shown: String = id.chars().take(100).collect();
    Err(ApiError::new(
        StatusCode::NOT_FOUND,
        format!("Couldn't find DocumentSchema with 'id'={shown}"),
    ))
}

/// `GET /v2/documents/{id}/download_url`: a URL that serves the file without credentials
/// for 10 minutes.
pub async fn download_url(
    State(state): State<AppState>,
    caller: Caller,
    IdPath(id): IdPath,
    headers: HeaderMap,
) -> ApiResult<Json<DownloadUrl>> {
    let token = documents::download_token(&state.ctx, caller.account.id, id)
        .await?
        .ok_or_else(document_not_found)?;
    let base = base_url(state.config.public_url.as_deref(), &headers);
    Ok(Json(DownloadUrl {
        download_url: format!("{base}/v2/downloads/{token}"),
    }))
}

/// This module's operations, each declared with its route and handler.
pub fn routes() -> Routes {
    Routes::default()
        .get("/v2/documents", list, || {
            Doc::new("Documents", "List documents")
                .about("The account's documents, newest first.")
                .paged()
                .include(INCLUDES)
                .params(typed_params(&[
                    (
                        "filter[filename]",
                        Q::Text,
                        "Part of the name or file name (case-insensitive)",
                    ),
                    (
                        "filter[document_types]",
                        Q::ListOf(rules::TYPES.iter().map(|(code, _)| *code).collect()),
                        "Comma-separated document types (GET /v2/documents/types)",
                    ),
                ]))
                .errors(&[400, 401, 429])
                .ok("A page of documents", list_of("Document"))
                .reference_id("get-documents")
        })
        .post("/v2/documents", create, || {
            Doc::new("Documents", "Create a document")
                .about("Step 3: a document for an uploaded file (`attached_document` = its `signed_id`). Its type comes from its name and file name, and it is linked to the account's shipments and containers whose bill of lading, booking or container numbers appear in them. 409 `duplicate_document` (with `meta.existing_document_id`) when the account already has the same file.")
                .body::<CreateDoc>()
                .errors(&[400, 401, 409, 415, 422, 429])
                .answer("201", body("The document", single("Document")))
                .reference_id("post-documents")
        })
        .get("/v2/documents/types", types, || {
            Doc::new("Documents", "List document types")
                .about("Every document type with its label.")
                .errors(&[401, 429])
                .answer("200", Doc::json_of::<DocumentTypes>("The types"))
                    .reference_id("get-documents-types")
        })
        .get("/v2/documents/{id}", show, || {
            Doc::new("Documents", "Get a document")
                .about("One document of the account.")
                .id("Document")
                .include(INCLUDES)
                .errors(&[400, 401, 404, 429])
                .ok("The document", single("Document"))
                .reference_id("get-documents-id")
        })
        .patch("/v2/documents/{id}", update, || {
            Doc::new("Documents", "Update a document")
                .about("Sets (or with null clears) `document_type_manual`, one of GET /v2/documents/types.")
                .id("Document")
                .body::<PatchDoc>()
                .errors(&[400, 401, 404, 415, 422, 429])
                .ok("The document", single("Document"))
                .reference_id("patch-documents-id")
        })
        .delete("/v2/documents/{id}", delete, || {
            Doc::new("Documents", "Delete a document")
                .about("The document disappears from every read and its file is dropped.")
                .id("Document")
                .errors(&[401, 404, 429])
                .answer("204", Doc::empty_answer("Deleted"))
                .reference_id("delete-documents-id")
        })
        .merge_into(document_actions)
}

/// The operations on one document beyond reading and writing it: reclassify, rotate,
/// re-extract, relink, its download address, and the schemas the reference names.
fn document_actions(routes: Routes) -> Routes {
    routes
        .post("/v2/documents/{id}/reclassify", reclassify, || {
            Doc::new("Documents", "Re-classify a document")
                .about("The type again from the name and file name (`document_type_manual` stays). Done before the answer, which is 202 `{\"status\": \"accepted\"}` as in the reference.")
                .id("Document")
                .errors(&[401, 404, 429])
                .answer("202", Doc::json_of::<Accepted>("Accepted"))
                    .reference_id("post-documents-id-reclassify")
        })
        .post("/v2/documents/{id}/rotate", rotate, || {
            Doc::new("Documents", "Rotate a document")
                .about("Not done by boxtrack, which keeps every file exactly as uploaded: a valid rotation of an image is 501; `degrees` other than 90, 180 or 270, or a document that is not an image, is 422; an unknown document 404.")
                .id("Document")
                .body::<RotateBody>()
                .errors(&[400, 401, 404, 415, 422, 429, 501])
                .answer("202", Doc::json_of::<Accepted>("Never answered by boxtrack (the reference's answer)"))
                    .reference_id("post-documents-id-rotate")
        })
        .post("/v2/documents/{id}/reextract", reextract, || {
            Doc::new("Documents", "Re-extract a document")
                .about("boxtrack does not extract data from documents (it classifies and links them by name): 501 for a document of the account, 404 otherwise.")
                .id("Document")
                .errors(&[401, 404, 429, 501])
                .answer("202", Doc::json_of::<Accepted>("Never answered by boxtrack (the reference's answer)"))
                    .reference_id("post-documents-id-reextract")
        })
        .get("/v2/document_schemas/{id}", document_schema, || {
            Doc::new("Documents", "Get a document schema")
                .about("The reference's extraction schemas (`commercial_invoice@2026-03-23`); boxtrack extracts nothing and has none, so every id is 404.")
                .path_text("id", "Schema id in full-version format, e.g. `commercial_invoice@2026-03-23`")
                .errors(&[401, 404, 429])
                .answer("200", Doc::json_answer("Never answered by boxtrack", doc::object()))
                .reference_id("get-document_schemas-id")
        })
        .post("/v2/documents/{id}/relink", relink, || {
            Doc::new("Documents", "Re-link a document")
                .about("The links again, to the account's shipments and containers whose numbers the name and file name hold (shipments tracked since the upload included). 202 `{\"status\": \"accepted\"}`.")
                .id("Document")
                .errors(&[401, 404, 429])
                .answer("202", Doc::json_of::<Accepted>("Accepted"))
                    .reference_id("post-documents-id-relink")
        })
        .get("/v2/documents/{id}/download_url", download_url, || {
            Doc::new("Documents", "Get a download URL")
                .about("A URL that serves the file without credentials for 10 minutes.")
                .id("Document")
                .errors(&[401, 404, 429])
                .answer("200", Doc::json_of::<DownloadUrl>("The URL"))
                    .reference_id("get-documents-id-download_url")
        })
}
