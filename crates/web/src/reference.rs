//! The API reference in the portal: `GET /console/reference`, the served OpenAPI document
//! rendered by Redoc, which is vendored (`assets/vendor/redoc`, refreshed by
//! `scripts/vendor-web.sh`) and compiled into the binary, so the page works offline.

use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use boxtrack_http::doc::Doc;
use boxtrack_http::front::Mount;
use boxtrack_http::html::secure_html;
use maud::{DOCTYPE, html};

use crate::common;
use crate::layout::head_start;

/// Redoc's standalone bundle, as vendored.
const REDOC_JS: &[u8] = include_bytes!("../assets/vendor/redoc/redoc.standalone.js");
/// The page's own script: starts Redoc on the served document.
const REFERENCE_JS: &[u8] = include_bytes!("../assets/reference.js");
/// The container page's script: draws the route map.
const CONTAINER_JS: &[u8] = include_bytes!("../assets/container.js");
/// The import pages' script (`imports.rs`).
const IMPORT_JS: &[u8] = include_bytes!("../assets/import.js");
/// Keeps the console's pages current (`live.rs`).
const LIVE_JS: &[u8] = include_bytes!("../assets/live.js");
/// The console's icon.
const FAVICON: &[u8] = include_bytes!("../assets/favicon.svg");
const CONSOLE_CSS: &[u8] = include_bytes!("../assets/console.css");
/// Redoc's licence and the licences of what its bundle contains.
const REDOC_LICENSES: &str = concat!(
    include_str!("../assets/vendor/redoc/VERSION"),
    "\n",
    include_str!("../assets/vendor/redoc/LICENSE"),
    "\n",
    include_str!("../assets/vendor/redoc/THIRD-PARTY-LICENSES.txt")
);

/// Redoc styles with inline styles and runs its search in a worker made from a blob; nothing
/// else is allowed, and nothing leaves the service.
const CSP: &str = "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; font-src 'self' data:; connect-src 'self'; worker-src blob:; frame-ancestors 'none'; base-uri 'none'; form-action 'none'";

/// `GET /console/reference`: public, so without the signed-in navigation, and without the
/// console's stylesheet (Redoc styles itself); the frame's head otherwise.
pub async fn page() -> Response {
    let font = "font-family:system-ui,sans-serif";
    let html = html! {
        (DOCTYPE)
        html lang="en" {
            head { (head_start("API reference")) }
            body style="margin:0" {
                nav style={ (font) ";padding:.5rem 1rem;border-bottom:1px solid #ccc" } {
                    a href="/console" { "boxtrack console" }
                    " · API reference · "
                    a href="/v2/openapi.json" { "openapi.json" }
                    " · "
                    a href="/console/assets/redoc-licenses.txt" { "licences" }
                }
                main id="reference" {
                    p style={ (font) ";padding:1rem" } {
                        "Loading the reference… (it needs JavaScript; the same document is at "
                        a href="/docs" { "/docs" }
                        " without it)"
                    }
                }
                script src="/console/assets/redoc.standalone.js" {}
                script src="/console/assets/reference.js" {}
            }
        }
    };
    let mut resp = (StatusCode::OK, html.into_string()).into_response();
    secure_html(&mut resp, CSP);
    resp
}

fn asset(body: &'static [u8], content_type: &'static str) -> Response {
    common::asset(body, content_type, false)
}

/// `GET /console/assets/redoc.standalone.js`.
pub async fn redoc_js() -> Response {
    asset(REDOC_JS, "text/javascript; charset=utf-8")
}

/// `GET /console/assets/reference.js`.
pub async fn reference_js() -> Response {
    asset(REFERENCE_JS, "text/javascript; charset=utf-8")
}

/// `GET /console/assets/redoc-licenses.txt`.
pub async fn licenses() -> Response {
    asset(REDOC_LICENSES.as_bytes(), "text/plain; charset=utf-8")
}

/// `GET /console/assets/favicon.svg`.
pub async fn favicon() -> Response {
    asset(FAVICON, "image/svg+xml")
}

/// `GET /console/assets/console.css`.
pub async fn console_css() -> Response {
    asset(CONSOLE_CSS, "text/css; charset=utf-8")
}

/// `GET /console/assets/container.js`.
pub async fn container_js() -> Response {
    asset(CONTAINER_JS, "text/javascript; charset=utf-8")
}

/// `GET /console/assets/live.js`.
pub async fn live_js() -> Response {
    asset(LIVE_JS, "text/javascript; charset=utf-8")
}

/// `GET /console/assets/import.js`.
pub async fn import_js() -> Response {
    asset(IMPORT_JS, "text/javascript; charset=utf-8")
}

/// This page's routes, each declared with its documentation.
pub(crate) fn routes() -> Mount {
    use crate::pagedoc::{asset, html, page};

    Mount::default()
        .public_get("/console/assets/import.js", self::import_js, || Doc::from_value(asset("The import pages' script", "text/javascript")))
        .public_get("/console/assets/live.js", self::live_js, || Doc::from_value(asset(
                "The script that keeps console pages current",
                "text/javascript",
            )))
        .public_get("/console/reference", self::page, || Doc::from_value(page(
                "The API reference",
                "This document rendered by Redoc (vendored into the binary): every operation with its fields, types, enums and descriptions, and which credential it takes.",
                ("200", html("The reference page")),
                vec![],
                None,
            )))
        .public_get("/console/assets/redoc.standalone.js", self::redoc_js, || Doc::from_value(asset("Redoc's standalone bundle (MIT)", "text/javascript")))
        .public_get("/console/assets/reference.js", self::reference_js, || Doc::from_value(asset("The reference page's script", "text/javascript")))
        .public_get("/console/assets/container.js", self::container_js, || Doc::from_value(asset("The container page's script", "text/javascript")))
        .public_get("/console/assets/console.css", self::console_css, || Doc::from_value(asset("The console's stylesheet (light, and dark when the system asks)", "text/css")))
        .public_get("/console/assets/favicon.svg", self::favicon, || Doc::from_value(asset("The console's icon", "image/svg+xml")))
        .public_get("/console/assets/redoc-licenses.txt", self::licenses, || Doc::from_value(asset(
                "Redoc's licence and those of what its bundle contains",
                "text/plain",
            )))
}
