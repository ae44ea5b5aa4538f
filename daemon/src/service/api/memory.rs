//! The `/api/memory*` routes of the spec's table. Every handler runs its store work on the
//! blocking pool (the store lock may wait up to 2 s) and answers JSON; writes are refused with
//! 403 in privacy mode, 409 while another process holds the store, 413 over a cap. `GET
//! /api/memory` names the store's generation (also as its `ETag`), and a bulk edit that sends it
//! back (`If-Match`, or `base`) is refused with 409 `stale` if anything was written since (400
//! `bad_input` if it names a generation the store never issued).

use std::sync::Arc;

use axum::Json;
use axum::extract::State;
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use localm_core::manage::{self, Added, Ctx, Force, ManageError};
use localm_core::record::{Kind, Record, Source};
use localm_core::store::Committed;
use localm_core::store::archive::Archived;
use localm_core::store::corrections::Correction;
use serde::{Deserialize, Serialize};

use super::body::{JsonBody, PathId};
use super::error::ApiError;
use crate::service::passes::{PassFailure, Trigger};
use crate::service::state::Shared;

type Reply = Result<Response, ApiError>;

/// Run store work off the async thread.
async fn blocking<T: Send + 'static>(
    f: impl FnOnce() -> Result<T, ApiError> + Send + 'static,
) -> Result<T, ApiError> {
    tokio::task::spawn_blocking(f)
        .await
        .map_err(ApiError::internal)?
}

/// Refuse a write in privacy mode (the API is stricter than the terminal: every write).
fn writable(s: &Shared, what: &str) -> Result<localm_core::settings::Mode, ApiError> {
    let mode = s.config().mode;
    if mode.allows_writes() {
        Ok(mode)
    } else {
        Err(ApiError::privacy(what))
    }
}

/// Run one of the user's operations on the blocking pool, in the mode in force; refused with 403
/// in privacy mode. Returns the committed value.
async fn write<T: Send + 'static>(
    s: &Arc<Shared>,
    what: &str,
    op: impl FnOnce(&Ctx) -> Result<Committed<T>, ManageError> + Send + 'static,
) -> Result<T, ApiError> {
    Ok(committed(s, what, op).await?.value)
}

/// `write`, answering the whole commit (the value and the generation it left the store at).
async fn committed<T: Send + 'static>(
    s: &Arc<Shared>,
    what: &str,
    op: impl FnOnce(&Ctx) -> Result<Committed<T>, ManageError> + Send + 'static,
) -> Result<Committed<T>, ApiError> {
    let mode = writable(s, what)?;
    // A write may wait ~2 s for the store lock on a blocking thread; only a few at once, so the
    // pool keeps threads for reads.
    let _permit = s.writers.acquire().await.map_err(ApiError::internal)?;
    let shared = Arc::clone(s);
    blocking(move || Ok(op(&shared.ctx(mode))?)).await
}

/// `GET /api/memory`'s answer.
#[derive(Debug, Serialize)]
pub struct Listed {
    pub records: Vec<Record>,
    pub count: usize,
    /// Whether writes are allowed in the mode in force.
    pub writable: bool,
    pub mode: &'static str,
    /// Lines of the store that did not parse (moved aside by the next write).
    pub corrupt_lines: usize,
    /// The store's generation these records are: send it back with a bulk edit (`base`, or
    /// `If-Match`) to have it refused if anything was written since.
    pub generation: u64,
}

/// `{"record": …}`, and whether it was there already (append).
#[derive(Debug, Serialize)]
pub struct OneRecord {
    pub record: Record,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub existing: Option<bool>,
}

/// `GET /api/memory`: the records and whether writes are allowed.
pub async fn list(State(s): State<Arc<Shared>>) -> Reply {
    let mode = s.config().mode;
    let shared = Arc::clone(&s);
    let snap = blocking(move || Ok(shared.store.read()?)).await?;
    let generation = snap.generation;
    let mut resp = Json(Listed {
        count: snap.records.len(),
        records: snap.records,
        writable: mode.allows_writes(),
        mode: mode.as_str(),
        corrupt_lines: snap.corrupt.iter().map(|c| c.lines).sum(),
        generation,
    })
    .into_response();
    if let Ok(v) = HeaderValue::from_str(&format!("\"{generation}\"")) {
        resp.headers_mut().insert(header::ETAG, v);
    }
    Ok(resp)
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BulkEdit {
    text: String,
    /// The generation the text was made from (`GET /api/memory`'s `generation`).
    #[serde(default)]
    base: Option<u64>,
    /// Store new lines that hold a secret (refused with 400 `secret` otherwise; lines naming a
    /// fact already stored are kept as they are).
    #[serde(default)]
    force: bool,
}

/// The generation a bulk edit was made from: `If-Match` (`"7"`, `7` or `W/"7"`; `*` is no
/// check) or the body's `base`; both must agree when both are sent.
fn base_of(headers: &HeaderMap, body: Option<u64>) -> Result<Option<u64>, ApiError> {
    let Some(value) = headers.get(header::IF_MATCH) else {
        return Ok(body);
    };
    let bad = || {
        ApiError::bad_input(
            "If-Match must be the generation GET /api/memory names (its ETag), such as \"7\"",
        )
    };
    let text = value.to_str().map_err(|_| bad())?.trim();
    if text == "*" {
        return Ok(body);
    }
    let text = text.strip_prefix("W/").unwrap_or(text);
    let text = text
        .strip_prefix('"')
        .and_then(|t| t.strip_suffix('"'))
        .unwrap_or(text);
    let header: u64 = text.parse().map_err(|_| bad())?;
    match body {
        Some(b) if b != header => Err(ApiError::bad_input(format!(
            "If-Match names generation {header} but base is {b}; send one of them"
        ))),
        _ => Ok(Some(header)),
    }
}

/// `PUT /api/memory`: one fact a line; matching lines keep their record, new lines are added,
/// omitted records are deleted from the live store and archived (`/api/memory/forgotten`). With
/// a base generation it is refused (409 `stale`, nothing changed) if anything was written since;
/// without one it replaces whatever is there now, as it always did.
pub async fn replace(
    State(s): State<Arc<Shared>>,
    headers: HeaderMap,
    JsonBody(body): JsonBody<BulkEdit>,
) -> Reply {
    let base = base_of(&headers, body.base)?;
    let done = committed(&s, "a bulk edit", move |ctx| {
        let force = Force {
            secrets: body.force,
        };
        manage::replace_all_with(ctx, &body.text, base, force)
    })
    .await?;
    #[derive(Serialize)]
    struct Replaced {
        kept: usize,
        added: Vec<Record>,
        deleted: Vec<Record>,
        /// The generation the store is after this edit: the base for the next one.
        generation: u64,
    }
    let r = done.value;
    Ok(Json(Replaced {
        kept: r.kept.len(),
        added: r.added,
        deleted: r.deleted,
        generation: done.generation,
    })
    .into_response())
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Append {
    text: String,
    #[serde(default)]
    kind: Option<Kind>,
    #[serde(default)]
    importance: Option<f32>,
    /// Store it even if it holds a secret (refused with 400 `secret` otherwise).
    #[serde(default)]
    force: bool,
}

/// `POST /api/memory/append`: 201 with the new record, or 200 with the one already there.
pub async fn append(State(s): State<Arc<Shared>>, JsonBody(body): JsonBody<Append>) -> Reply {
    let added = write(&s, "adding a fact", move |ctx| {
        manage::add_with(
            ctx,
            Source::User,
            &body.text,
            body.kind.unwrap_or(Kind::Semantic),
            body.importance,
            Force {
                secrets: body.force,
            },
        )
    })
    .await?;
    let (status, record, existing) = match added {
        Added::New(r) => (StatusCode::CREATED, r, false),
        Added::Existing(r) => (StatusCode::OK, r, true),
    };
    let body = OneRecord {
        record,
        existing: Some(existing),
    };
    Ok((status, Json(body)).into_response())
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Patch {
    #[serde(default)]
    text: Option<String>,
    #[serde(default)]
    importance: Option<f32>,
    /// Store new text that holds a secret (refused with 400 `secret` otherwise, as append and
    /// a bulk edit refuse it).
    #[serde(default)]
    force: bool,
}

/// `PATCH /api/memory/{id}`: edit one record's text or importance. New text is the user's: it
/// holds for good (no `valid_until`).
pub async fn patch(
    State(s): State<Arc<Shared>>,
    PathId(id): PathId,
    JsonBody(body): JsonBody<Patch>,
) -> Reply {
    let record = write(&s, "editing a fact", move |ctx| {
        let force = Force {
            secrets: body.force,
        };
        manage::patch_with(ctx, &id, body.text.as_deref(), body.importance, force)
    })
    .await?;
    Ok(Json(OneRecord {
        record,
        existing: None,
    })
    .into_response())
}

/// `DELETE /api/memory/{id}`: delete one record (not archived).
pub async fn delete(State(s): State<Arc<Shared>>, PathId(id): PathId) -> Reply {
    let deleted = write(&s, "deleting a fact", move |ctx| manage::forget(ctx, &id)).await?;
    #[derive(Serialize)]
    struct Deleted {
        deleted: Record,
    }
    Ok(Json(Deleted { deleted }).into_response())
}

/// `GET /api/memory/forgotten`: the archive.
pub async fn forgotten(State(s): State<Arc<Shared>>) -> Reply {
    let shared = Arc::clone(&s);
    let snap = blocking(move || Ok(shared.store.read()?)).await?;
    #[derive(Serialize)]
    struct Forgotten {
        forgotten: Vec<Archived>,
    }
    Ok(Json(Forgotten {
        forgotten: snap.archive,
    })
    .into_response())
}

/// `POST /api/memory/forgotten/{id}/restore`.
pub async fn restore(State(s): State<Arc<Shared>>, PathId(id): PathId) -> Reply {
    let record = write(&s, "restoring a fact", move |ctx| manage::restore(ctx, &id)).await?;
    Ok(Json(OneRecord {
        record,
        existing: None,
    })
    .into_response())
}

/// `GET /api/memory/corrections`: the pending proposals (none in privacy mode: listing prunes
/// the proposal file, which is a write).
pub async fn corrections(State(s): State<Arc<Shared>>) -> Reply {
    let mode = s.config().mode;
    // Listing prunes the proposal file (a write, under the lock): it counts as a writer.
    let _permit = s.writers.acquire().await.map_err(ApiError::internal)?;
    let shared = Arc::clone(&s);
    let pending = blocking(move || Ok(manage::corrections(&shared.ctx(mode))?.value)).await?;
    #[derive(Serialize)]
    struct Pending {
        corrections: Vec<Correction>,
    }
    Ok(Json(Pending {
        corrections: pending,
    })
    .into_response())
}

/// A correction resolved, and the record it changed (accept).
#[derive(Debug, Serialize)]
pub struct Resolved {
    pub correction: Correction,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub record: Option<Record>,
}

/// `POST /api/memory/corrections/{id}/accept`: archive the old value, apply the change.
pub async fn accept(State(s): State<Arc<Shared>>, PathId(id): PathId) -> Reply {
    let (correction, record) = write(&s, "accepting a correction", move |ctx| {
        manage::accept(ctx, &id)
    })
    .await?;
    Ok(Json(Resolved { correction, record }).into_response())
}

/// `POST /api/memory/corrections/{id}/reject`: keep the fact; never propose this again.
pub async fn reject(State(s): State<Arc<Shared>>, PathId(id): PathId) -> Reply {
    let correction = write(&s, "rejecting a correction", move |ctx| {
        manage::reject(ctx, &id)
    })
    .await?;
    Ok(Json(Resolved {
        correction,
        record: None,
    })
    .into_response())
}

/// `POST /api/memory/consolidate`: one pass now (after any pass already running), in a
/// supervised child process. Answers the pass report.
pub async fn consolidate(State(s): State<Arc<Shared>>) -> Reply {
    let mode = writable(&s, "consolidation")?;
    match s.passes.run(&s.data_dir, mode, Trigger::Api).await {
        Ok(outcome) => Ok(Json(outcome.report).into_response()),
        Err(e @ PassFailure::Killed { .. }) | Err(e @ PassFailure::Spawn { .. }) => {
            Err(ApiError::new(
                StatusCode::INTERNAL_SERVER_ERROR,
                "pass_failed",
                e.to_string(),
            ))
        }
        Err(PassFailure::Failed(why)) => Err(ApiError::new(
            StatusCode::INTERNAL_SERVER_ERROR,
            "pass_failed",
            format!("consolidation failed, nothing was changed: {why}"),
        )),
    }
}
