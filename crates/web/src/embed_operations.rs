//! The routes of the embeddable map and widget (`/embed/…`), each declared with its
//! documentation.

use boxtrack_http::doc::{self, Doc};
use boxtrack_http::front::Mount;
use boxtrack_http::schema::{Param, Schema};

use crate::widget::Track;

/// An embed's file: compiled into the binary, readable from any origin.
fn asset(summary: &str, media: &str) -> Doc {
    let schema = if media.ends_with("json") {
        doc::object()
    } else {
        doc::schema_of::<String>()
    };
    Doc::new("Embeds", summary)
        .about("Compiled into the binary; readable from any origin. See docs/embedding.md.")
        .answer("200", Doc::media_answer(summary, media, schema))
        .no_key()
}

/// An answer the publishable key opens: its parameters and the errors it may meet.
fn keyed(summary: &str, description: &str, params: Vec<Param>) -> Doc {
    Doc::new("Embeds", summary)
        .about(description)
        .params(params)
        .errors(&[400, 401, 403, 404, 429])
        .with("security", doc::security("Publishable"))
}

/// A CORS preflight.
fn preflight() -> Doc {
    Doc::new("Embeds", "CORS preflight")
        .about("Allows `GET` with an `Authorization` header from the asking origin; the key's origins are checked on the request itself.")
        .answer("204", Doc::empty_answer("Preflight answered"))
        .no_key()
}

/// The embeds' routes, each declared with its documentation.
pub fn routes() -> Mount {
    use crate::embed;
    Mount::default()
        .public_get("/embed/map.js", embed::map_js, || {
            asset("The embeddable map's script", "text/javascript")
        })
        .public_get("/embed/map.css", embed::map_css, || {
            asset("The embeddable map's stylesheet", "text/css")
        })
        .public_get("/embed/widget.js", embed::widget_js, || {
            asset("The tracking widget's script", "text/javascript")
        })
        .public_get("/embed/widget.css", embed::widget_css, || {
            asset("The tracking widget's stylesheet", "text/css")
        })
        .public_get("/embed/land-110m.geojson", embed::land, || {
            asset("The map's base map (Natural Earth 1:110m land)", "application/geo+json")
        })
        .public_get("/embed/licenses.txt", embed::licenses, || {
            asset("Licences of the embeds' libraries and data", "text/plain")
        })
        .public_get("/embed/v1/map_geojson", embed::map_geojson, || {
            keyed(
                "A container's journey for the embeddable map",
                "What `GET /v2/containers/{id}/map_geojson` answers, for a publishable key (`Authorization: Token btp_…`) of the container's account with the `widget` entitlement, from one of the key's allowed origins. The container must be on the given shipment. Answers carry CORS headers for the asking origin.",
                vec![
                    Param::query("shipment_id", Schema::string().format("uuid"), "").required(),
                    Param::query("container_id", Schema::string().format("uuid"), "").required(),
                ],
            )
            .answer(
                "200",
                Doc::media_answer(
                    "A GeoJSON FeatureCollection (ports, the path sailed, the vessel, the legs ahead)",
                    "application/geo+json",
                    Schema::record(&[
                        ("type", Schema::string().words(&["FeatureCollection"])),
                        ("features", Schema::array(Schema::object())),
                    ]),
                ),
            )
        })
        .public_routed(
            "options",
            "/embed/v1/map_geojson",
            axum::routing::options(embed::preflight),
            preflight,
        )
        .public_get("/embed/v1/track", embed::track, || {
            keyed(
                "What the tracking widget shows for a number",
                "The account's shipments and containers whose bill of lading, container or reference number is exactly `number` (case aside; no partial matches), at most 10 shipments, with status, milestones, ETA and last free day. Same credential and origin rules as the map.",
                vec![
                    Param::query(
                        "number",
                        Schema::string()
                            .min_length(3)
                            .max_length(40)
                            .pattern("^[A-Za-z0-9./_-]+$"),
                        "",
                    )
                    .required(),
                ],
            )
            .answer(
                "200",
                Doc::json_answer(
                    "What was found (`data` is empty when nothing was)",
                    doc::schema_of::<Track>(),
                ),
            )
        })
        .public_routed(
            "options",
            "/embed/v1/track",
            axum::routing::options(embed::preflight),
            preflight,
        )
}
