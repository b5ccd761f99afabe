//! Rendered reads (`GET /v2/containers/{id}`, `GET /v2/shipments/{id}` and the lists
//! `GET /v2/containers`, `GET /v2/shipments`) kept by this process, and served again while
//! nothing they are rendered from has changed. With read replicas, a list page's first read
//! goes to a replica and is not kept; a page read again is rendered from the primary and kept
//! ([`ReadCache::respond_offloading`]).
//!
//! An entry is the response body of one request (account, the account's revision, path and
//! query as sent), stored under the account's [`Version`] read *before* it was rendered, and
//! served only while [`Changes::version`] still answers that version: any change to the
//! account's shipments, containers, transport events, tracking requests, parties or the account
//! itself, committed by any process, retires every entry of that account (see
//! `boxtrack_store::changes` for how each backend tells, and the bound on PostgreSQL). Nothing
//! in a cached response depends on the time it is read. The cache holds at most its budget of
//! body bytes (`--read-cache-mib`, 0 turns it off); past that, the oldest entries go first.

use std::collections::hash_map::DefaultHasher;
use std::collections::{HashMap, VecDeque};
use std::hash::{Hash, Hasher};
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};

use crate::rendered::{Changes, Version};
use axum::body::Bytes;
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use boxtrack_app::model::Account;
use uuid::Uuid;

use boxtrack_http::error::ApiResult;
use boxtrack_http::jsonapi::{JsonApi, MEDIA_TYPE};

const SHARDS: usize = 16;
/// What an entry costs beyond its body (key, map slot, queue slot), for the budget.
const OVERHEAD: usize = 160;

#[derive(Debug, Clone, PartialEq, Eq, Hash)]
struct Key {
    account: Uuid,
    account_rev: i64,
    path: Box<str>,
}

#[derive(Debug)]
struct Entry {
    /// `None`: a mark left by a read that a replica answered (an empty body, never served).
    version: Option<Version>,
    body: Bytes,
    /// Which store of its key this is (the queue's slot for it carries the same stamp).
    stamp: u64,
}

#[derive(Debug, Default)]
struct Shard {
    map: HashMap<Key, Entry>,
    /// Entries in the order they were stored, as key and stamp; a slot whose entry is gone
    /// or was stored again since is skipped (and compacted away when they pile up).
    order: VecDeque<(Key, u64)>,
    bytes: usize,
    stamps: u64,
}

impl Shard {
    fn remove(&mut self, key: &Key) {
        if let Some(e) = self.map.remove(key) {
            self.bytes -= e.body.len() + OVERHEAD;
        }
    }

    fn insert(&mut self, key: Key, version: Option<Version>, body: Bytes, budget: usize) {
        let size = body.len() + OVERHEAD;
        self.remove(&key);
        while self.bytes + size > budget {
            let Some((old, stamp)) = self.order.pop_front() else {
                break;
            };
            if self.map.get(&old).is_some_and(|e| e.stamp == stamp) {
                self.remove(&old);
            }
        }
        self.stamps += 1;
        let stamp = self.stamps;
        self.order.push_back((key.clone(), stamp));
        self.bytes += size;
        self.map.insert(
            key,
            Entry {
                version,
                body,
                stamp,
            },
        );
        if self.order.len() > 2 * self.map.len() + 64 {
            let map = &self.map;
            self.order
                .retain(|(k, stamp)| map.get(k).is_some_and(|e| e.stamp == *stamp));
        }
    }
}

/// The read cache of one process.
#[derive(Debug)]
pub struct ReadCache {
    changes: Changes,
    /// Body bytes per shard.
    shard_budget: usize,
    shards: Vec<Mutex<Shard>>,
    hits: AtomicU64,
    misses: AtomicU64,
}

impl ReadCache {
    /// A cache of at most `budget` bytes on the change feed `changes` (a budget of 0, or a feed
    /// without versions, stores nothing).
    pub fn new(changes: Changes, budget: usize) -> ReadCache {
        ReadCache {
            changes,
            shard_budget: budget / SHARDS,
            shards: (0..SHARDS).map(|_| Mutex::default()).collect(),
            hits: AtomicU64::new(0),
            misses: AtomicU64::new(0),
        }
    }

    /// A cache that stores nothing.
    pub fn off() -> ReadCache {
        ReadCache::new(Changes::off(), 0)
    }

    /// The change feed the cache follows.
    pub fn changes(&self) -> &Changes {
        &self.changes
    }

    /// Requests answered from the cache, and requests rendered, since the process started.
    pub fn counts(&self) -> (u64, u64) {
        (
            self.hits.load(Ordering::Relaxed),
            self.misses.load(Ordering::Relaxed),
        )
    }

    /// The body cached for `path` (path and query) in `account`, rendering and storing it with
    /// `render` when there is none that is current. Only successful responses are stored.
    pub async fn respond<F>(&self, account: &Account, path: &str, render: F) -> ApiResult<Response>
    where
        F: Future<Output = ApiResult<JsonApi>>,
    {
        self.respond_offloading(account, path, false, |_| render)
            .await
    }

    /// [`ReadCache::respond`] for a read that a replica could answer (`offload`): a current
    /// body is served as always; a path asked before (its body out of date, or a mark left by
    /// its first read) is rendered by `render(false)`, from the primary, and stored; a path
    /// not asked before is rendered by `render(true)`, from a replica, and only marked. A page
    /// read once costs the primary nothing, a page read again is served from memory until its
    /// account changes; a replica's render is never stored, because the change feed follows
    /// the primary and a replica behind it would leave a stale page under a current version.
    /// Without `offload`, every render is `render(false)` and stored.
    pub async fn respond_offloading<F, Fut>(
        &self,
        account: &Account,
        path: &str,
        offload: bool,
        render: F,
    ) -> ApiResult<Response>
    where
        F: FnOnce(bool) -> Fut,
        Fut: Future<Output = ApiResult<JsonApi>>,
    {
        let version = if self.shard_budget == 0 {
            None
        } else {
            self.changes.version(account.id)
        };
        let Some(version) = version else {
            return render(offload).await.map(IntoResponse::into_response);
        };
        let key = Key {
            account: account.id,
            account_rev: account.updated_us,
            path: path.into(),
        };
        let shard = &self.shards[shard_of(&key)];
        let asked_before = {
            let mut s = shard.lock().unwrap_or_else(|p| p.into_inner());
            match s.map.get(&key) {
                Some(e) if e.version == Some(version) => {
                    let body = e.body.clone();
                    drop(s);
                    self.hits.fetch_add(1, Ordering::Relaxed);
                    return Ok(body_response(body));
                }
                // out of date: it stays until the new render replaces it, so that a read
                // of the same path meanwhile knows it was asked before
                Some(_) => true,
                None => {
                    if offload {
                        s.insert(key.clone(), None, Bytes::new(), self.shard_budget);
                    }
                    false
                }
            }
        };
        self.misses.fetch_add(1, Ordering::Relaxed);
        if offload && !asked_before {
            return render(true).await.map(IntoResponse::into_response);
        }
        let mut text = render(false).await?.into_text();
        // the serializer's buffer grows by doubling: keep only the body's bytes
        text.shrink_to_fit();
        let body = Bytes::from(text);
        if body.len() + OVERHEAD <= self.shard_budget {
            shard.lock().unwrap_or_else(|p| p.into_inner()).insert(
                key,
                Some(version),
                body.clone(),
                self.shard_budget,
            );
        }
        Ok(body_response(body))
    }
}

fn shard_of(key: &Key) -> usize {
    let mut h = DefaultHasher::new();
    key.hash(&mut h);
    (h.finish() as usize) % SHARDS
}

/// A `200` JSON:API response with a body rendered before.
fn body_response(body: Bytes) -> Response {
    let mut res = (StatusCode::OK, body).into_response();
    res.headers_mut()
        .insert(header::CONTENT_TYPE, HeaderValue::from_static(MEDIA_TYPE));
    res
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    use boxtrack_http::error::ApiError;
    use boxtrack_http::keycache::testing::account;

    async fn body(res: Response) -> String {
        let b = axum::body::to_bytes(res.into_body(), usize::MAX).await;
        String::from_utf8(b.map(|b| b.to_vec()).unwrap_or_default()).unwrap_or_default()
    }

    #[tokio::test]
    async fn an_entry_is_served_until_its_account_changes() {
        let changes = Changes::manual();
        let cache = ReadCache::new(changes.clone(), 1 << 20);
        let a = account();
        let render = |n: u32| async move { Ok(JsonApi::Tree(json!({ "n": n }))) };
        assert_eq!(
            body(cache.respond(&a, "/x", render(1)).await.unwrap()).await,
            r#"{"n":1}"#
        );
        assert_eq!(
            body(cache.respond(&a, "/x", render(2)).await.unwrap()).await,
            r#"{"n":1}"#
        );
        assert_eq!(cache.counts(), (1, 1));
        changes.touch(Uuid::from_u128(8));
        assert_eq!(
            body(cache.respond(&a, "/x", render(3)).await.unwrap()).await,
            r#"{"n":1}"#
        );
        changes.touch(a.id);
        assert_eq!(
            body(cache.respond(&a, "/x", render(4)).await.unwrap()).await,
            r#"{"n":4}"#
        );
        // another path, another entry
        assert_eq!(
            body(cache.respond(&a, "/y", render(5)).await.unwrap()).await,
            r#"{"n":5}"#
        );
    }

    #[tokio::test]
    async fn with_a_replica_a_page_read_again_is_rendered_from_the_primary_and_kept() {
        let changes = Changes::manual();
        let cache = ReadCache::new(changes.clone(), 1 << 20);
        let a = account();
        // what rendered it: "replica" or "primary"
        let read = |n: u32| {
            let cache = &cache;
            let a = &a;
            async move {
                let r = cache
                    .respond_offloading(a, "/list", true, |offload| async move {
                        let from = if offload { "replica" } else { "primary" };
                        Ok(JsonApi::Tree(json!({ "from": from, "n": n })))
                    })
                    .await;
                body(r.unwrap_or_else(|_| panic!("rendered"))).await
            }
        };
        assert_eq!(read(1).await, r#"{"from":"replica","n":1}"#);
        assert_eq!(read(2).await, r#"{"from":"primary","n":2}"#);
        assert_eq!(read(3).await, r#"{"from":"primary","n":2}"#);
        assert_eq!(cache.counts(), (1, 2));
        // changed: a page asked before goes to the primary again, and is kept
        changes.touch(a.id);
        assert_eq!(read(4).await, r#"{"from":"primary","n":4}"#);
        assert_eq!(read(5).await, r#"{"from":"primary","n":4}"#);
        // a mark is never served, and never served as a body to a read that cannot offload
        let fresh = cache
            .respond_offloading(&a, "/other", true, |_| async {
                Ok(JsonApi::Tree(json!(6)))
            })
            .await;
        assert_eq!(
            body(fresh.unwrap_or_else(|_| panic!("rendered"))).await,
            "6"
        );
        let again = cache
            .respond(&a, "/other", async { Ok(JsonApi::Tree(json!(7))) })
            .await;
        assert_eq!(
            body(again.unwrap_or_else(|_| panic!("rendered"))).await,
            "7"
        );
        // without a version (no feed), every read goes where it may, and nothing is kept
        let off = ReadCache::off();
        for _ in 0..2 {
            let r = off
                .respond_offloading(&a, "/list", true, |offload| async move {
                    Ok(JsonApi::Tree(json!(offload)))
                })
                .await;
            assert_eq!(body(r.unwrap_or_else(|_| panic!("rendered"))).await, "true");
        }
    }

    #[tokio::test]
    async fn the_budget_holds_and_the_oldest_go_first() {
        let changes = Changes::manual();
        // one shard's budget fits two of these entries
        let cache = ReadCache::new(changes, SHARDS * (2 * (OVERHEAD + 20)));
        let a = account();
        for i in 0..200 {
            let path = format!("/p{i}");
            let r = cache
                .respond(&a, &path, async {
                    Ok(JsonApi::Tree(json!({ "pad": "0123456" })))
                })
                .await;
            assert!(r.is_ok());
        }
        for s in &cache.shards {
            let s = s.lock().unwrap_or_else(|p| p.into_inner());
            assert!(s.bytes <= cache.shard_budget);
            assert!(s.map.len() <= 2);
            let counted: usize = s.map.values().map(|e| e.body.len() + OVERHEAD).sum();
            assert_eq!(counted, s.bytes);
            assert!(s.order.len() <= 2 * s.map.len() + 64);
        }
    }

    #[tokio::test]
    async fn errors_are_not_stored_and_an_off_cache_renders_every_time() {
        let cache = ReadCache::off();
        let a = account();
        let r = cache
            .respond(&a, "/x", async { Ok(JsonApi::Tree(json!(1))) })
            .await;
        assert!(r.is_ok());
        assert_eq!(cache.counts(), (0, 0));
        let changes = Changes::manual();
        let cache = ReadCache::new(changes, 1 << 20);
        let r = cache
            .respond(&a, "/x", async { Err(ApiError::not_found("container")) })
            .await;
        assert!(r.is_err());
        let r = cache
            .respond(&a, "/x", async { Ok(JsonApi::Tree(json!(2))) })
            .await;
        assert_eq!(body(r.unwrap_or_else(|_| panic!("rendered"))).await, "2");
    }
}
