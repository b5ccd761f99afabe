//! The console's one layout, in [maud](https://maud.lambda.xyz) templates: the document frame
//! every page has (doctype, head with the title `X · boxtrack`, the icon, the console's
//! stylesheet and a page's own stylesheets and scripts) and the navigation of a signed-in page,
//! with the current page named but not linked and the signed-in user's email.
//!
//! Every value spliced into a template is escaped by maud, and pages compose as `Markup`, never
//! as strings. `PreEscaped` is for markup the service makes itself and has already escaped (an
//! SVG it draws, JSON in a `<script type="application/json">`), rare, and each use says on the
//! line above why it is safe; the rule is that user and source data (numbers, references,
//! names, what a source or a receiver said) is never `PreEscaped`. The console has no such use
//! today.

use maud::{DOCTYPE, Markup, html};

/// The console's stylesheet, on every page of the frame.
const CONSOLE_CSS: &str = "/console/assets/console.css";

/// A page of the signed-in navigation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Place {
    /// What needs action (`/console/action`).
    Action,
    /// The account and its keys (`/console`); the one page with the sign-out button.
    Account,
    /// The shipments table.
    Shipments,
    /// The containers table.
    Containers,
    /// Tracking requests.
    TrackingRequests,
    /// The import pages: listed only while one of them is shown.
    Import,
    /// The webhook list.
    Webhooks,
    /// The account's charges (its exposure).
    Charges,
    /// The health of the sources.
    Sources,
    /// The API reference: a page of its own, without this header, so never the current one.
    Reference,
    /// A page under another (a container, a webhook): every place is a link.
    Elsewhere,
}

/// Who is signed in, as a page's header shows them (from the session:
/// `From<&Session>` is in `common`).
#[derive(Debug, Clone, Copy)]
pub(crate) struct User<'a> {
    /// Their email.
    pub(crate) email: &'a str,
    /// The session's form token, which the sign-out button sends.
    pub(crate) csrf: &'a str,
}

/// The places of the navigation, in order: each with its words and address (`None`: listed
/// only when it is the current page).
const PLACES: [(Place, &str, Option<&str>); 10] = [
    (Place::Action, "Needs action", Some("/console/action")),
    (Place::Account, "Account", Some("/console")),
    (Place::Shipments, "Shipments", Some("/console/shipments")),
    (Place::Containers, "Containers", Some("/console/containers")),
    (
        Place::TrackingRequests,
        "Tracking requests",
        Some("/console/tracking_requests"),
    ),
    (Place::Import, "Import", None),
    (Place::Charges, "Charges", Some("/console/charges")),
    (Place::Webhooks, "Webhooks", Some("/console/webhooks")),
    (Place::Sources, "Sources", Some("/console/sources")),
    (
        Place::Reference,
        "API reference",
        Some("/console/reference"),
    ),
];

/// What every page's head starts with: the character set, the viewport, the title
/// (`title · boxtrack`) and the icon.
pub(crate) fn head_start(title: &str) -> Markup {
    html! {
        meta charset="utf-8";
        meta name="viewport" content="width=device-width, initial-scale=1";
        title { (title) " · boxtrack" }
        link rel="icon" href="/console/assets/favicon.svg" type="image/svg+xml";
    }
}

/// The whole document: `body` in the frame, with the console's stylesheet, then `styles`, in
/// the head and `scripts` (paths of this service's own files) at the end of the body.
pub(crate) fn document(title: &str, styles: &[&str], scripts: &[&str], body: Markup) -> Markup {
    html! {
        (DOCTYPE)
        html lang="en" {
            head {
                (head_start(title))
                link rel="stylesheet" href=(CONSOLE_CSS);
                @for href in styles {
                    link rel="stylesheet" href=(href);
                }
            }
            body {
                (body)
                @for src in scripts {
                    script src=(src) {}
                }
            }
        }
    }
}

/// The header of a signed-in page: the navigation with `here` named but not linked, and the
/// signed-in user's email (on the account page, with the sign-out button).
pub(crate) fn header(here: Place, user: User<'_>) -> Markup {
    let shown = PLACES
        .iter()
        .filter(|(place, _, href)| href.is_some() || *place == here);
    html! {
        header {
            p {
                strong { "boxtrack" }
                " console"
                @for (place, words, href) in shown {
                    " · "
                    @match href {
                        Some(href) if *place != here => {
                            a href=(href) { (words) }
                        }
                        _ => {
                            (words)
                        }
                    }
                }
            }
            @if here == Place::Account {
                form method="post" action="/console/sign-out" {
                    input type="hidden" name="csrf" value=(user.csrf);
                    span { (user.email) }
                    " "
                    button type="submit" { "Sign out" }
                }
            } @else {
                p { (user.email) }
            }
        }
    }
}

/// A signed-in page's body: its header for `user`, then `main` as the page's main content.
pub(crate) fn signed_in<'a>(here: Place, user: impl Into<User<'a>>, main: Markup) -> Markup {
    html! {
        (header(here, user.into()))
        main { (main) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn user(email: &str) -> User<'_> {
        User {
            email,
            csrf: "token\"",
        }
    }

    #[test]
    fn the_navigation_names_the_current_page_without_a_link() {
        let s = user("<b>ops</b>@example.com");
        let html = header(Place::Shipments, s).into_string();
        assert!(
            html.contains(
                r#"<a href="/console">Account</a> · Shipments · <a href="/console/containers">"#
            ),
            "{html}"
        );
        assert!(!html.contains(r#"href="/console/shipments""#), "{html}");
        assert!(!html.contains("Import"), "{html}");
        assert!(
            html.contains("<p>&lt;b&gt;ops&lt;/b&gt;@example.com</p>"),
            "{html}"
        );
        assert!(!html.contains("Sign out"), "{html}");
        // the import page is listed only while shown; every place is a link elsewhere
        let import = header(Place::Import, s).into_string();
        assert!(import.contains(r#"Tracking requests</a> · Import · <a href="/console/charges">"#));
        let elsewhere = header(Place::Elsewhere, s).into_string();
        assert_eq!(elsewhere.matches("<a href=").count(), 9, "{elsewhere}");
        // the account page signs out, with the session's form token
        let account = header(Place::Account, s).into_string();
        assert!(
            account.contains(r#"<input type="hidden" name="csrf" value="token&quot;"><span>&lt;b&gt;ops&lt;/b&gt;@example.com</span> <button type="submit">Sign out</button>"#),
            "{account}"
        );
    }

    #[test]
    fn the_frame_escapes_the_title_and_loads_what_a_page_asks() {
        let html = document(
            "<Shipments>",
            &["/embed/map.css"],
            &["/console/assets/live.js"],
            html! { p { "body" } },
        )
        .into_string();
        assert!(
            html.starts_with("<!DOCTYPE html><html lang=\"en\"><head>"),
            "{html}"
        );
        assert!(
            html.contains("<title>&lt;Shipments&gt; · boxtrack</title>"),
            "{html}"
        );
        assert!(html.contains(r#"<link rel="stylesheet" href="/console/assets/console.css"><link rel="stylesheet" href="/embed/map.css"></head>"#), "{html}");
        assert!(
            html.ends_with(
                r#"<body><p>body</p><script src="/console/assets/live.js"></script></body></html>"#
            ),
            "{html}"
        );
    }
}
