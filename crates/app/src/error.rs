//! What a use case can answer instead of its output.

use boxtrack_store::StoreError;

/// Why a use case did not run to its output.
#[derive(Debug, thiserror::Error)]
pub enum AppError {
    /// An input value that means nothing: the parameter (as the REST query names it,
    /// `filter[pickup_lfd][start]`) and a sentence that says what it takes.
    #[error("{detail}")]
    Invalid {
        /// The parameter, in the JSON:API query's spelling.
        param: String,
        /// What is wrong, naming the parameter.
        detail: String,
    },
    /// A value of the thing to make or change that the rules refuse: the field (`url`), a
    /// short code (`invalid`, `blank`) and a sentence saying why.
    #[error("{detail}")]
    Unprocessable {
        /// The field, as the resource's attributes name it.
        field: &'static str,
        /// What kind of problem (`invalid`, `blank`, `reserved`, `too_long`).
        code: &'static str,
        /// Why, in a sentence.
        detail: String,
    },
    /// A document the rules refuse (a tariff, a calendar): each problem's field, as a JSON
    /// pointer below the resource's attributes (`/tiers/1/rate`), and why. Nothing was stored.
    #[error("{}", .0.iter().map(|(f, d)| format!("{f}: {d}")).collect::<Vec<_>>().join("; "))]
    Rejected(Vec<(String, String)>),
    /// The account has no such thing (a resource named by its id): what it is called.
    #[error("{0} not found")]
    NotFound(&'static str),
    /// The request is well formed but the state of things refuses it (a container without an
    /// upstream to refresh from): a short code (`no_upstream`) and a sentence saying why.
    #[error("{detail}")]
    Refused {
        /// What kind of refusal.
        code: &'static str,
        /// Why, in a sentence.
        detail: String,
    },
    /// The account's plan tracks no more active containers at once: its limit.
    #[error("the plan tracks at most {0} active containers at once")]
    PlanLimit(u32),
    /// An upstream (a shipping line, a terminal) could not be read; nothing changed.
    #[error("{0}")]
    Upstream(String),
    /// The store failed (unavailable, or a bug).
    #[error(transparent)]
    Store(#[from] StoreError),
}

impl AppError {
    /// Whether the thing asked for is not there (named by the use case, or found missing by
    /// the store while changing it).
    pub fn is_not_found(&self) -> bool {
        matches!(
            self,
            AppError::NotFound(_) | AppError::Store(StoreError::NotFound(_))
        )
    }

    /// A refused value of `field`.
    pub fn unprocessable(
        field: &'static str,
        code: &'static str,
        detail: impl Into<String>,
    ) -> AppError {
        AppError::Unprocessable {
            field,
            code,
            detail: detail.into(),
        }
    }

    /// An invalid value of `param`, with `why` ("must be true or false") after its name.
    pub fn invalid(param: impl Into<String>, why: &str) -> AppError {
        let param = param.into();
        let detail = if why.starts_with("must") {
            format!("{param} {why}")
        } else {
            format!("{param}: {why}")
        };
        AppError::Invalid { param, detail }
    }
}
