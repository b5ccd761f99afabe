//! The OAuth 2.1 authorization server for MCP clients, driven like a client and a browser
//! would: metadata, registration, the sign-in page, PKCE, tokens bound to /mcp, rotation.

use base64::Engine;
use serde_json::{Value, json};
use sha2::Digest;

use crate::harness::TestApp;

fn hidden(html: &str, name: &str) -> String {
    let marker = format!("name=\"{name}\" value=\"");
    let i = html
        .find(&marker)
        .unwrap_or_else(|| panic!("{name} missing in {html}"))
        + marker.len();
    html[i..].split('"').next().unwrap().replace("&amp;", "&")
}

fn pkce() -> (String, String) {
    let verifier = "a".repeat(20) + &boxtrack_core::oauth::new_secret();
    let challenge = base64::engine::general_purpose::URL_SAFE_NO_PAD
        .encode(sha2::Sha256::digest(verifier.as_bytes()));
    (verifier, challenge)
}

#[tokio::test]
async fn sign_in_consent_pkce_tokens_and_rotation() {
    let app = TestApp::spawn().await;
    let (account, _) = app.account().await;
    let hash = boxtrack_core::oauth::hash_password("a long enough password").unwrap();
    boxtrack_store::oauth::create_user(&app.db, account.id, "Ops@Example.com", &hash)
        .await
        .unwrap();
    let browser = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap();
    let base = app.url("");
    let resource = format!("{base}/mcp");

    // discovery: 401 → protected resource metadata → authorization server metadata
    let r = browser
        .post(format!("{base}/mcp"))
        .header("Content-Type", "application/json")
        .body("{}")
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 401);
    let www = r.headers()["www-authenticate"]
        .to_str()
        .unwrap()
        .to_string();
    let prm_url = www
        .split("resource_metadata=\"")
        .nth(1)
        .unwrap()
        .trim_end_matches('"')
        .to_string();
    let prm: Value = browser
        .get(&prm_url)
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(prm["resource"], resource);
    let root: Value = browser
        .get(format!("{base}/.well-known/oauth-protected-resource"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(root, prm);
    let asm: Value = browser
        .get(format!("{base}/.well-known/oauth-authorization-server"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(asm["code_challenge_methods_supported"], json!(["S256"]));

    // dynamic registration: http:// only on loopback
    let bad = browser
        .post(asm["registration_endpoint"].as_str().unwrap())
        .json(&json!({"redirect_uris": ["http://evil.example/cb"]}))
        .send()
        .await
        .unwrap();
    assert_eq!(bad.status(), 400);
    let redirect_uri = "http://127.0.0.1:9/callback";
    let reg: Value = browser
        .post(asm["registration_endpoint"].as_str().unwrap())
        .json(&json!({"redirect_uris": [redirect_uri], "client_name": "Test Assistant"}))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let client_id = reg["client_id"].as_str().unwrap().to_string();

    let (verifier, challenge) = pkce();
    let authorize = |method: &str, ch: &str| {
        format!(
            "{}?response_type=code&client_id={client_id}&redirect_uri={}&code_challenge={ch}&code_challenge_method={method}&state=xyz&resource={}",
            asm["authorization_endpoint"].as_str().unwrap(),
            urlencode(redirect_uri),
            urlencode(&resource)
        )
    };
    // plain PKCE is refused (back to the client with an error)
    let r = browser.get(authorize("plain", "abc")).send().await.unwrap();
    assert_eq!(r.status(), 303);
    assert!(
        r.headers()["location"]
            .to_str()
            .unwrap()
            .contains("error=invalid_request")
    );
    // an unregistered redirect URI is never redirected to
    let r = browser
        .get(authorize("S256", &challenge).replace("9%2Fcallback", "9%2Fother"))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 400);

    // the page: accessible form, CSRF token in a cookie and a field, security headers
    let r = browser
        .get(authorize("S256", &challenge))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    let headers = r.headers().clone();
    assert!(
        headers["content-security-policy"]
            .to_str()
            .unwrap()
            .contains("frame-ancestors 'none'")
    );
    assert_eq!(headers["x-frame-options"], "DENY");
    let cookie = headers["set-cookie"]
        .to_str()
        .unwrap()
        .split(';')
        .next()
        .unwrap()
        .to_string();
    let html = r.text().await.unwrap();
    assert!(
        html.contains("<label for=\"email\">")
            && html.contains("<label for=\"password\">")
            && html.contains("Test Assistant")
    );
    assert!(!html.contains("<script"));
    let form = |csrf: &str, email: &str, password: &str, decision: &str| {
        vec![
            ("csrf".to_string(), csrf.to_string()),
            ("client_id".to_string(), hidden(&html, "client_id")),
            ("redirect_uri".to_string(), hidden(&html, "redirect_uri")),
            ("state".to_string(), hidden(&html, "state")),
            (
                "code_challenge".to_string(),
                hidden(&html, "code_challenge"),
            ),
            ("resource".to_string(), hidden(&html, "resource")),
            ("email".to_string(), email.to_string()),
            ("password".to_string(), password.to_string()),
            ("decision".to_string(), decision.to_string()),
        ]
    };
    let csrf = hidden(&html, "csrf");
    let post = |fields: Vec<(String, String)>, with_cookie: bool| {
        let mut r = browser
            .post(format!("{base}/oauth/authorize"))
            .form(&fields);
        if with_cookie {
            r = r.header("Cookie", cookie.clone());
        }
        r.send()
    };
    // without the CSRF cookie: refused
    assert_eq!(
        post(
            form(&csrf, "ops@example.com", "a long enough password", "allow"),
            false
        )
        .await
        .unwrap()
        .status(),
        403
    );
    // wrong password: the page again, the error next to the password field
    let r = post(form(&csrf, "ops@example.com", "wrong", "allow"), true)
        .await
        .unwrap();
    assert_eq!(r.status(), 400);
    let again = r.text().await.unwrap();
    assert!(
        again.contains("aria-describedby=\"password-error\"")
            && again.contains("id=\"password-error\""),
        "{again}"
    );
    // deny
    let r = post(
        form(&csrf, "ops@example.com", "a long enough password", "deny"),
        true,
    )
    .await
    .unwrap();
    assert!(
        r.headers()["location"]
            .to_str()
            .unwrap()
            .contains("error=access_denied")
    );
    // allow
    let r = post(
        form(&csrf, "OPS@example.com", "a long enough password", "allow"),
        true,
    )
    .await
    .unwrap();
    assert_eq!(r.status(), 303);
    let location = url::Url::parse(r.headers()["location"].to_str().unwrap()).unwrap();
    assert!(location.as_str().starts_with(redirect_uri));
    let q: std::collections::HashMap<String, String> =
        location.query_pairs().into_owned().collect();
    assert_eq!(q["state"], "xyz");
    let code = q["code"].clone();

    let token_url = asm["token_endpoint"].as_str().unwrap().to_string();
    let exchange = |code: &str, verifier: &str| {
        browser
            .post(&token_url)
            .form(&[
                ("grant_type", "authorization_code"),
                ("code", code),
                ("redirect_uri", redirect_uri),
                ("client_id", client_id.as_str()),
                ("code_verifier", verifier),
                ("resource", resource.as_str()),
            ])
            .send()
    };
    // a wrong verifier burns nothing but fails; the code is single use
    let wrong = exchange(&code, &("b".repeat(43))).await.unwrap();
    assert_eq!(wrong.status(), 400);
    let code2 = {
        // the failed attempt used the code: sign in again for a fresh one
        let r = post(
            form(&csrf, "ops@example.com", "a long enough password", "allow"),
            true,
        )
        .await
        .unwrap();
        let l = url::Url::parse(r.headers()["location"].to_str().unwrap()).unwrap();
        l.query_pairs()
            .find(|(k, _)| k == "code")
            .unwrap()
            .1
            .to_string()
    };
    let tokens: Value = exchange(&code2, &verifier)
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(tokens["token_type"], "Bearer", "{tokens}");
    let reuse = exchange(&code2, &verifier).await.unwrap();
    assert_eq!(reuse.status(), 400);
    assert_eq!(
        reuse.json::<Value>().await.unwrap()["error"],
        "invalid_grant"
    );

    // the bearer token works on /mcp, and only there
    let mcp = |token: &str| {
        browser.post(format!("{base}/mcp"))
            .header("Authorization", format!("Bearer {token}"))
            .header("Content-Type", "application/json")
            .body(json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "list_containers", "arguments": {}}}).to_string())
            .send()
    };
    let access = tokens["access_token"].as_str().unwrap().to_string();
    let ok = mcp(&access).await.unwrap();
    assert_eq!(ok.status(), 200);
    assert_eq!(
        ok.json::<Value>().await.unwrap()["result"]["isError"],
        false
    );

    // refresh rotates; reusing the old refresh token revokes the family
    let refresh = |t: &str| {
        browser
            .post(&token_url)
            .form(&[
                ("grant_type", "refresh_token"),
                ("refresh_token", t),
                ("client_id", client_id.as_str()),
            ])
            .send()
    };
    let old_refresh = tokens["refresh_token"].as_str().unwrap().to_string();
    let rotated: Value = refresh(&old_refresh).await.unwrap().json().await.unwrap();
    let new_access = rotated["access_token"].as_str().unwrap().to_string();
    assert_eq!(mcp(&new_access).await.unwrap().status(), 200);
    let replay = refresh(&old_refresh).await.unwrap();
    assert_eq!(replay.status(), 400);
    assert_eq!(
        mcp(&new_access).await.unwrap().status(),
        401,
        "the family is revoked after reuse"
    );
    assert_eq!(mcp(&access).await.unwrap().status(), 401);
    let newest = refresh(rotated["refresh_token"].as_str().unwrap())
        .await
        .unwrap();
    assert_eq!(newest.status(), 400);
}

fn urlencode(s: &str) -> String {
    url::form_urlencoded::byte_serialize(s.as_bytes()).collect()
}

#[tokio::test]
async fn registrations_sign_ins_and_token_requests_are_limited() {
    use boxtrack_core::ratelimit::{
        REGISTRATIONS_PER_MINUTE, SIGN_IN_ATTEMPTS_PER_MINUTE, TOKEN_REQUESTS_PER_MINUTE,
    };
    let app = TestApp::spawn().await;
    let (account, _) = app.account().await;
    let hash = boxtrack_core::oauth::hash_password("a long enough password").unwrap();
    boxtrack_store::oauth::create_user(&app.db, account.id, "ops@example.com", &hash)
        .await
        .unwrap();
    let browser = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap();
    let base = app.url("");
    let redirect_uri = "http://127.0.0.1:9/callback";

    // registrations: per peer address
    let register = || {
        browser
            .post(format!("{base}/oauth/register"))
            .json(&json!({"redirect_uris": [redirect_uri]}))
            .send()
    };
    let mut client_ids = Vec::new();
    for _ in 0..REGISTRATIONS_PER_MINUTE {
        let r = register().await.unwrap();
        assert_eq!(r.status(), 201);
        client_ids.push(
            r.json::<Value>().await.unwrap()["client_id"]
                .as_str()
                .unwrap()
                .to_string(),
        );
    }
    let r = register().await.unwrap();
    assert_eq!(r.status(), 429);
    assert!(r.headers().contains_key("retry-after"));
    assert_eq!(
        r.json::<Value>().await.unwrap()["error"],
        "temporarily_unavailable"
    );

    // sign-in attempts: per email, counted before the password is checked
    let (_, challenge) = pkce();
    let page = browser
        .get(format!(
            "{base}/oauth/authorize?response_type=code&client_id={}&redirect_uri={}&code_challenge={challenge}&code_challenge_method=S256&state=s",
            client_ids[0],
            urlencode(redirect_uri)
        ))
        .send()
        .await
        .unwrap();
    assert_eq!(page.status(), 200);
    let cookie = page.headers()["set-cookie"]
        .to_str()
        .unwrap()
        .split(';')
        .next()
        .unwrap()
        .to_string();
    let html = page.text().await.unwrap();
    let sign_in = |email: &str, password: &str| {
        let fields = [
            ("csrf", hidden(&html, "csrf")),
            ("client_id", hidden(&html, "client_id")),
            ("redirect_uri", hidden(&html, "redirect_uri")),
            ("state", hidden(&html, "state")),
            ("code_challenge", hidden(&html, "code_challenge")),
            ("resource", hidden(&html, "resource")),
            ("email", email.to_string()),
            ("password", password.to_string()),
            ("decision", "allow".to_string()),
        ];
        browser
            .post(format!("{base}/oauth/authorize"))
            .header("Cookie", cookie.clone())
            .form(&fields)
            .send()
    };
    for _ in 0..SIGN_IN_ATTEMPTS_PER_MINUTE {
        assert_eq!(
            sign_in("ops@example.com", "guess").await.unwrap().status(),
            400
        );
    }
    let r = sign_in("OPS@example.com", "a long enough password")
        .await
        .unwrap();
    assert_eq!(
        r.status(),
        429,
        "the right password no longer helps this minute"
    );
    assert!(r.headers().contains_key("retry-after"));
    assert!(!r.headers().contains_key("location"), "no code");
    assert!(
        r.text()
            .await
            .unwrap()
            .contains("Too many sign-in attempts")
    );
    // another email is not held back
    assert_eq!(
        sign_in("other@example.com", "guess")
            .await
            .unwrap()
            .status(),
        400
    );
    // the console's sign-ins count in the same window (one per email for both: the console
    // counts `Attempt::SignIn` on the same limiter, its suite checks that side)
    for _ in 0..SIGN_IN_ATTEMPTS_PER_MINUTE {
        let d = app
            .front
            .limiter
            .attempt(boxtrack_core::ratelimit::Attempt::SignIn(
                "console@example.com",
            ))
            .await
            .unwrap();
        assert!(d.allowed);
    }
    assert_eq!(
        sign_in("console@example.com", "guess")
            .await
            .unwrap()
            .status(),
        429
    );

    // token requests: per client id
    let token = |client_id: &str| {
        browser
            .post(format!("{base}/oauth/token"))
            .form(&[
                ("grant_type", "authorization_code"),
                ("code", "not-a-code"),
                ("redirect_uri", redirect_uri),
                ("client_id", client_id),
                ("code_verifier", &"v".repeat(43)),
            ])
            .send()
    };
    for _ in 0..TOKEN_REQUESTS_PER_MINUTE {
        assert_eq!(token(&client_ids[0]).await.unwrap().status(), 400);
    }
    let r = token(&client_ids[0]).await.unwrap();
    assert_eq!(r.status(), 429);
    assert!(r.headers().contains_key("retry-after"));
    assert_eq!(
        r.json::<Value>().await.unwrap()["error"],
        "temporarily_unavailable"
    );
    assert_eq!(token(&client_ids[1]).await.unwrap().status(), 400);
}
