//! The OAuth 2.1 authorization server's use cases (the MCP endpoint's sign-in): registering a
//! public client, signing a user in and issuing a code, exchanging the code (PKCE) and
//! refreshing with rotation and reuse detection, and the account an access token stands for.
//! The HTTP shapes (forms, redirects, the RFC 6749 error body) stay with the front end.

use boxtrack_core::oauth as core;
use boxtrack_store::accounts::{self, Account};
use boxtrack_store::{StoreError, oauth as store};
use uuid::Uuid;

pub use boxtrack_store::oauth::{Client, User};

use crate::AppError;
use crate::ctx::Ctx;

/// How long a code lives: a minute.
pub const CODE_TTL_US: i64 = 60_000_000;
/// How long an access token lives: an hour.
pub const ACCESS_TTL_US: i64 = 3_600_000_000;
/// How long a refresh token lives: 30 days.
pub const REFRESH_TTL_US: i64 = 30 * 86_400_000_000;

/// A registered client by its id.
pub async fn client(ctx: &Ctx, client_id: &str) -> Result<Option<Client>, AppError> {
    Ok(store::get_client(&ctx.db, client_id).await?)
}

/// Registers a public client named `name` with its redirect URIs; its new id and when it was
/// issued (Unix seconds).
pub async fn register(ctx: &Ctx, name: &str, uris: &[String]) -> Result<(String, i64), AppError> {
    let client_id = format!("btc_{}", Uuid::now_v7().simple());
    store::register_client(&ctx.db, &client_id, name, uris).await?;
    Ok((client_id, ctx.now_us() / 1_000_000))
}

/// The user whose email and password these are, or `None` (an unknown email and a wrong
/// password are one answer).
pub async fn sign_in(ctx: &Ctx, email: &str, password: &str) -> Result<Option<User>, AppError> {
    Ok(store::get_user(&ctx.db, email)
        .await?
        .filter(|u| core::verify_password(password, &u.password_hash)))
}

/// An account's user by id.
pub async fn user(ctx: &Ctx, account_id: Uuid, id: Uuid) -> Result<Option<User>, AppError> {
    Ok(store::user_by_id(&ctx.db, account_id, id).await?)
}

/// What an authorization request asked for, checked: the client, where to send the code, the
/// PKCE challenge and the resource.
#[derive(Debug, Clone)]
pub struct Grant {
    /// The client.
    pub client_id: String,
    /// Where the code goes.
    pub redirect_uri: String,
    /// The PKCE S256 challenge.
    pub code_challenge: String,
    /// The canonical resource the tokens are for.
    pub resource: String,
}

/// A new code for `user` under `grant`, alive [`CODE_TTL_US`]: the secret to hand back.
pub async fn issue_code(ctx: &Ctx, user: &User, grant: &Grant) -> Result<String, AppError> {
    let code = core::new_secret();
    store::store_code(
        &ctx.db,
        &core::digest(&code),
        &store::Code {
            client_id: grant.client_id.clone(),
            user_id: user.id,
            account_id: user.account_id,
            redirect_uri: grant.redirect_uri.clone(),
            code_challenge: grant.code_challenge.clone(),
            resource: grant.resource.clone(),
            expires_us: ctx.now_us() + CODE_TTL_US,
        },
    )
    .await?;
    Ok(code)
}

/// A new access and refresh token pair.
#[derive(Debug, Clone)]
pub struct Issued {
    /// The access token (secret).
    pub access_token: String,
    /// The refresh token (secret).
    pub refresh_token: String,
    /// The access token's lifetime in seconds.
    pub expires_in: i64,
}

/// Why a token request is refused, in RFC 6749's words.
#[derive(Debug, thiserror::Error)]
pub enum Refusal {
    /// `invalid_grant`: the code or refresh token is not good, and why.
    #[error("{0}")]
    InvalidGrant(&'static str),
    /// `invalid_target`: the resource differs from the authorization request.
    #[error("{0}")]
    InvalidTarget(&'static str),
    /// The store failed.
    #[error(transparent)]
    Failed(#[from] AppError),
}

impl From<StoreError> for Refusal {
    fn from(e: StoreError) -> Refusal {
        Refusal::Failed(AppError::Store(e))
    }
}

/// What a code exchange sends: the code, the client and redirect URI it was given to, the
/// PKCE verifier and (when sent) the resource.
#[derive(Debug, Clone)]
pub struct Exchange<'a> {
    /// The code.
    pub code: &'a str,
    /// The client.
    pub client_id: &'a str,
    /// The redirect URI of the authorization request.
    pub redirect_uri: &'a str,
    /// The PKCE verifier.
    pub code_verifier: &'a str,
    /// The resource, when the request names one.
    pub resource: Option<&'a str>,
}

/// `grant_type=authorization_code`: the code (used once, alive a minute), for the client and
/// redirect URI it was given to, with the PKCE verifier of its challenge and (when sent) its
/// resource; new tokens of a new grant.
pub async fn exchange_code(ctx: &Ctx, x: &Exchange<'_>) -> Result<Issued, Refusal> {
    let now = ctx.now_us();
    let code = store::take_code(&ctx.db, &core::digest(x.code), now)
        .await?
        .ok_or(Refusal::InvalidGrant(
            "the code is unknown or was used already",
        ))?;
    if code.expires_us < now {
        return Err(Refusal::InvalidGrant("the code expired"));
    }
    if code.client_id != x.client_id || code.redirect_uri != x.redirect_uri {
        return Err(Refusal::InvalidGrant(
            "client_id or redirect_uri differs from the authorization request",
        ));
    }
    if !core::pkce_s256_matches(x.code_verifier, &code.code_challenge) {
        return Err(Refusal::InvalidGrant(
            "the PKCE code_verifier does not match",
        ));
    }
    if let Some(r) = x.resource
        && core::canonical_resource(r).as_deref() != Some(code.resource.as_str())
    {
        return Err(Refusal::InvalidTarget(
            "resource differs from the authorization request",
        ));
    }
    let family = Uuid::now_v7();
    Ok(issue(
        ctx,
        &code.client_id,
        code.user_id,
        code.account_id,
        &code.resource,
        family,
    )
    .await?)
}

/// `grant_type=refresh_token`: a live refresh token of this client, used once; new tokens of
/// the same grant. A token used twice revokes every token of its grant (a stolen token is
/// worth nothing once its owner refreshes).
pub async fn refresh(ctx: &Ctx, refresh_token: &str, client_id: &str) -> Result<Issued, Refusal> {
    let now = ctx.now_us();
    let hash = core::digest(refresh_token);
    let t = store::get_token(&ctx.db, &hash)
        .await?
        .filter(|t| t.kind == "refresh")
        .ok_or(Refusal::InvalidGrant("unknown refresh token"))?;
    if t.client_id != client_id {
        return Err(Refusal::InvalidGrant(
            "the refresh token belongs to another client",
        ));
    }
    if t.revoked_us.is_some() || t.expires_us < now {
        return Err(Refusal::InvalidGrant(
            "the refresh token expired or was revoked",
        ));
    }
    if store::use_refresh(&ctx.db, &hash, now).await? {
        return Ok(issue(
            ctx,
            &t.client_id,
            t.user_id,
            t.account_id,
            &t.resource,
            t.family,
        )
        .await?);
    }
    // reuse of a rotated token: revoke everything issued from this grant
    store::revoke_family(&ctx.db, t.family, now).await?;
    tracing::warn!(client = %t.client_id, "refresh token reused; its token family is revoked");
    Err(Refusal::InvalidGrant(
        "the refresh token was used already; every token of this grant is revoked",
    ))
}

/// Stores a new token pair of the grant `family`.
async fn issue(
    ctx: &Ctx,
    client_id: &str,
    user_id: Uuid,
    account_id: Uuid,
    resource: &str,
    family: Uuid,
) -> Result<Issued, AppError> {
    let access = core::new_secret();
    let refresh = core::new_secret();
    let now = ctx.now_us();
    store::store_pair(
        &ctx.db,
        &core::digest(&access),
        &core::digest(&refresh),
        &store::Token {
            kind: String::new(),
            client_id: client_id.to_string(),
            user_id,
            account_id,
            resource: resource.to_string(),
            family,
            expires_us: 0,
            used_us: None,
            revoked_us: None,
        },
        now + ACCESS_TTL_US,
        now + REFRESH_TTL_US,
    )
    .await?;
    Ok(Issued {
        access_token: access,
        refresh_token: refresh,
        expires_in: ACCESS_TTL_US / 1_000_000,
    })
}

/// The account an OAuth access token stands for, and its user, when the token is live and
/// valid for `resource`.
pub async fn account_for_bearer(
    ctx: &Ctx,
    token: &str,
    resource: &str,
) -> Result<Option<(Account, Uuid)>, AppError> {
    let Some(t) = store::get_token(&ctx.db, &core::digest(token)).await? else {
        return Ok(None);
    };
    if t.kind != "access"
        || t.revoked_us.is_some()
        || t.expires_us < ctx.now_us()
        || t.resource != resource
    {
        return Ok(None);
    }
    Ok(accounts::get(&ctx.db, t.account_id)
        .await?
        .map(|a| (a, t.user_id)))
}
