//! How the caller signed in (a leaf: the tools and the server both read it).

/// How the caller signed in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Credential {
    /// An API key, by id (`Authorization: Token`, or `boxtrack mcp --stdio --api-key`).
    ApiKey(uuid::Uuid),
    /// A user, through OAuth (`Authorization: Bearer`).
    User(uuid::Uuid),
    /// No credential: the account the operator opened `/mcp` to (`mcp_open_account`).
    Open,
}
