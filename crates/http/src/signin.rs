//! Signing in with an email and password, as the console's sign-in form and MCP's OAuth
//! authorization page both do: the attempt counted first, per email, in one window (so the
//! two forms share it), then the password checked.

use boxtrack_app::AppError;
use boxtrack_app::oauth::{self, User};
use boxtrack_core::ratelimit::Attempt;

use crate::error::ApiError;
use crate::front::Front;

/// What a sign-in came to.
#[derive(Debug)]
pub enum SignIn {
    /// The user the email and password sign in.
    User(User),
    /// Too many attempts for this email: it may try again in this many seconds.
    TooMany(u64),
    /// The email or password is not right.
    Wrong,
}

/// Why a sign-in could not be decided.
#[derive(Debug, thiserror::Error)]
pub enum SignInFailed {
    /// The rate limiter could not count the attempt.
    #[error("the rate limiter cannot be reached")]
    Limiter(ApiError),
    /// The user could not be read.
    #[error(transparent)]
    App(#[from] AppError),
}

impl Front {
    /// Signs in with `email` (trimmed) and `password`; each attempt is counted before the
    /// password is checked, and one refused for too many attempts is counted in the metrics.
    pub async fn sign_in(&self, email: &str, password: &str) -> Result<SignIn, SignInFailed> {
        let email = email.trim();
        let decision = self
            .limiter
            .attempt(Attempt::SignIn(email))
            .await
            .map_err(SignInFailed::Limiter)?;
        if !decision.allowed {
            self.metrics.record_rate_limited("sign_in");
            return Ok(SignIn::TooMany(decision.retry_after_secs()));
        }
        Ok(match oauth::sign_in(&self.ctx, email, password).await? {
            Some(user) => SignIn::User(user),
            None => SignIn::Wrong,
        })
    }
}
