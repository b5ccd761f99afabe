//! The console's "What you know": a person enters a last free day on a container page, the page
//! says who entered it, and a pickup before the discharge is refused with nothing changed.

use super::{account_with_user, cookie_of, field, html_as, post_form, sign_in, spawn};

#[tokio::test]
async fn a_person_enters_what_they_know_and_the_page_says_who() {
    let app = spawn().await;
    let account = account_with_user(&app, "Dispatch Co", "dispatch@example.com").await;
    let id = super::charges::discharged(&app, account, "MSKU1234565", 2).await;
    let (session, _) = cookie_of(
        &sign_in(&app, "dispatch@example.com", "correct horse").await,
        "btk_console",
    )
    .unwrap();
    let path = format!("/console/containers/{id}");
    let page = html_as(&app, &path, &session).await;
    assert!(
        page.contains(r#"<h2 id="entered">What you know</h2>"#),
        "{page}"
    );
    let csrf = field(&page, r#"name="csrf" value=""#);
    let action = format!("{path}/entries");
    let lfd = boxtrack_core::time::format_local_with(
        boxtrack_core::time::now_us() + 72 * 3_600_000_000,
        Some("America/Los_Angeles"),
        "%Y-%m-%dT10:00",
    );
    let r = post_form(
        &app,
        &action,
        &session,
        &[
            ("csrf", csrf.as_str()),
            ("pickup_lfd", lfd.as_str()),
            ("zone", "America/Los_Angeles"),
        ],
    )
    .await;
    assert_eq!(r.status(), 303);
    let page = html_as(&app, &path, &session).await;
    assert!(page.contains("entered by dispatch@example.com"), "{page}");
    // a pickup before the discharge: refused, said in words, nothing recorded
    let r = post_form(
        &app,
        &action,
        &session,
        &[
            ("csrf", csrf.as_str()),
            ("pod_full_out_at", "2000-01-01T00:00"),
        ],
    )
    .await;
    assert_eq!(r.status(), 422);
    assert!(r.text().await.unwrap().contains("before the discharge"));
    let page = html_as(&app, &path, &session).await;
    assert_eq!(
        page.matches("entered by dispatch@example.com").count(),
        1,
        "{page}"
    );
}
