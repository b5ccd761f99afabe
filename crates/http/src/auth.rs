//! Who a request acts for: the [`Caller`] an API key names, the `Authorization: Token <key>`
//! header read, and entitlement checks. The REST service's guard (`boxtrack-api`) checks the key
//! and the rate limit and puts the `Caller` on the request.

use axum::extract::FromRequestParts;
use axum::http::HeaderValue;
use axum::http::request::Parts;
use boxtrack_core::apikey::ApiKey;
use boxtrack_core::plan::Entitlement;

use boxtrack_app::model::Account;
use uuid::Uuid;

use crate::error::{ApiError, ApiResult};

/// The authenticated caller of a `/v2` request.
#[derive(Debug, Clone)]
pub struct Caller {
    /// The API key used.
    pub key_id: Uuid,
    /// The key's account (shared with the key cache: a clone is a reference count).
    pub account: std::sync::Arc<Account>,
}

impl Caller {
    /// 403 naming the entitlement unless the account has it.
    pub fn require(&self, e: Entitlement) -> ApiResult<()> {
        if self.account.has(e) {
            Ok(())
        } else {
            Err(ApiError::forbidden(format!(
                "{} feature is not enabled for this account (entitlement `{}`)",
                e.title(),
                e.as_str()
            ))
            .with_code("entitlement_required"))
        }
    }
}

impl<S: Send + Sync> FromRequestParts<S> for Caller {
    type Rejection = ApiError;
    async fn from_request_parts(parts: &mut Parts, _: &S) -> ApiResult<Caller> {
        parts
            .extensions
            .get::<Caller>()
            .cloned()
            .ok_or_else(|| ApiError::unauthorized("Invalid or missing API token."))
    }
}

/// The API key an `Authorization` header carries (`Token <key>`, the scheme in any case), or the
/// 401 saying what is wrong with it.
pub fn parse_authorization(value: Option<&HeaderValue>) -> ApiResult<ApiKey> {
    let Some(value) = value else {
        return Err(ApiError::unauthorized(
            "Invalid or missing API token. Send the header Authorization: Token <API key>.",
        ));
    };
    let value = value
        .to_str()
        .map_err(|_| ApiError::unauthorized("The Authorization header is not readable text."))?;
    let (scheme, token) = value.trim().split_once(' ').unwrap_or((value.trim(), ""));
    if !scheme.eq_ignore_ascii_case("token") {
        return Err(ApiError::unauthorized(refused_scheme(scheme)));
    }
    ApiKey::parse(token.trim())
        .map_err(|e| ApiError::unauthorized(format!("Malformed API key: {e}.")))
}

/// Why the `Authorization` scheme `scheme` is refused, naming it only when it is a scheme's
/// word (`Bearer`, `Basic`): anything else may be the credential itself, sent without the
/// word `Token`, and a credential is never written back.
fn refused_scheme(scheme: &str) -> String {
    let a_word = !scheme.is_empty()
        && scheme.len() <= 16
        && scheme.bytes().all(|b| b.is_ascii_alphabetic() || b == b'-');
    if a_word {
        format!(
            "Authorization scheme {scheme:?} is not accepted; send Authorization: Token <API key>."
        )
    } else {
        "The Authorization header does not start with a scheme (an API key sent without the word \"Token\"?); send Authorization: Token <API key>.".to_string()
    }
}

/// The key id and account an `Authorization` value names (`Token <API key>`), or `None` when it is
/// missing, malformed, unknown or revoked. Used by the MCP endpoint, which answers 401 itself.
pub async fn account_for(
    ctx: &boxtrack_app::Ctx,
    authorization: &str,
) -> ApiResult<Option<(Uuid, Account)>> {
    let Ok(value) = HeaderValue::from_str(authorization) else {
        return Ok(None);
    };
    let Ok(key) = parse_authorization(Some(&value)) else {
        return Ok(None);
    };
    Ok(boxtrack_app::keys::authenticate(ctx, &key).await?)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn authorization_header_forms() {
        let key = ApiKey::generate();
        let ok = HeaderValue::from_str(&format!("Token {}", key.expose())).unwrap();
        assert_eq!(parse_authorization(Some(&ok)).unwrap(), key);
        let lower = HeaderValue::from_str(&format!("token  {}", key.expose())).unwrap();
        assert!(parse_authorization(Some(&lower)).is_ok());
        let bearer = HeaderValue::from_str(&format!("Bearer {}", key.expose())).unwrap();
        assert!(parse_authorization(Some(&bearer)).is_err());
        assert!(parse_authorization(None).is_err());
        let junk = HeaderValue::from_static("Token nope");
        assert!(parse_authorization(Some(&junk)).is_err());
    }

    #[test]
    fn a_key_sent_without_its_scheme_is_not_written_back() {
        let key = ApiKey::generate();
        let bare = HeaderValue::from_str(key.expose()).unwrap();
        let e = parse_authorization(Some(&bare)).unwrap_err();
        let said = format!("{e:?}");
        assert!(!said.contains(&key.expose()[4..]), "{said}");
        assert!(said.contains("without the word"), "{said}");
        let odd = HeaderValue::from_static("s3cr3t_value rest");
        let said = format!("{:?}", parse_authorization(Some(&odd)).unwrap_err());
        assert!(!said.contains("s3cr3t"), "{said}");
        let bearer = HeaderValue::from_static("Bearer abc");
        let said = format!("{:?}", parse_authorization(Some(&bearer)).unwrap_err());
        assert!(said.contains("Bearer"), "{said}");
    }
}
