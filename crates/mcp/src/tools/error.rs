//! [`ToolError`]: why a tool did not answer, explained to the model (the text of an
//! `isError` result). A refusal says what to change; a failure to read says what could not be
//! read and to try again.

use boxtrack_app::AppError;

/// Why a tool did not answer.
#[derive(Debug, thiserror::Error)]
pub enum ToolError {
    /// The call cannot be answered as asked (an invalid argument, an unknown id, a feature the
    /// account lacks, a plan's limit): the sentence says what to do instead.
    #[error("{0}")]
    Refused(String),
    /// The store failed while the tool read or wrote something: what, what was being done
    /// to it ("read", "made", "changed", "run"), and why.
    #[error("The {what} could not be {done} ({cause}); try again shortly.")]
    Unavailable {
        /// What it was ("container", "list").
        what: &'static str,
        /// What was being done to it.
        done: &'static str,
        /// The failure.
        cause: Box<dyn std::error::Error + Send + Sync>,
    },
}

impl ToolError {
    /// The failure of reading `what`, for `map_err`.
    pub fn reading<E>(what: &'static str) -> impl Fn(E) -> ToolError + Copy
    where
        E: std::error::Error + Send + Sync + 'static,
    {
        ToolError::failing(what, "read")
    }

    /// The failure of doing `done` ("made", "changed", "run") to `what`, for `map_err`.
    pub fn failing<E>(what: &'static str, done: &'static str) -> impl Fn(E) -> ToolError + Copy
    where
        E: std::error::Error + Send + Sync + 'static,
    {
        move |cause| ToolError::Unavailable {
            what,
            done,
            cause: Box::new(cause),
        }
    }
}

impl From<String> for ToolError {
    fn from(why: String) -> ToolError {
        ToolError::Refused(why)
    }
}

impl From<&str> for ToolError {
    fn from(why: &str) -> ToolError {
        ToolError::Refused(why.to_string())
    }
}

impl ToolError {
    /// A use case's failure to answer, a store failure naming `what` was being read, for
    /// `map_err`.
    pub fn from_app(what: &'static str) -> impl Fn(AppError) -> ToolError + Copy {
        move |e| match e {
            AppError::Store(cause) => ToolError::reading(what)(cause),
            AppError::NotFound(what) => ToolError::Refused(format!("Couldn't find {what}")),
            e @ AppError::Rejected(_) => ToolError::Refused(e.to_string()),
            AppError::PlanLimit(limit) => ToolError::Refused(format!(
                "The plan tracks at most {limit} active containers at once: stop tracking another shipment first, or change the plan."
            )),
            AppError::Invalid { detail, .. }
            | AppError::Refused { detail, .. }
            | AppError::Upstream(detail)
            | AppError::Unprocessable { detail, .. } => ToolError::Refused(detail),
        }
    }
}

impl From<AppError> for ToolError {
    fn from(e: AppError) -> ToolError {
        ToolError::from_app("list")(e)
    }
}
