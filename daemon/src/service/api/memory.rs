//! The `/api/memory*` routes of the spec's table. Every handler runs its store work on the
//! blocking pool (the store lock may wait up to 2 s) and answers JSON; writes are refused with
//! 403 in privacy mode, 409 while another process holds the store, 413 over a cap.

use std::sync::Arc;

use axum::Json;
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use localm_core::manage::{self, Added, Ctx, ManageError};
use localm_core::record::{Kind, Record};
use localm_core::store::Committed;
use localm_core::store::archive::Archived;
use localm_core::store::corrections::Correction;
use serde::{Deserialize, Serialize};

use super::body::{JsonBody, PathId};
use super::error::ApiError;
use crate::service::children::{PassFailure, Trigger};
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
    let mode = writable(s, what)?;
    // A write may wait ~2 s for the store lock on a blocking thread; only a few at once, so the
    // pool keeps threads for reads.
    let _permit = s.writers.acquire().await.map_err(ApiError::internal)?;
    let shared = Arc::clone(s);
    blocking(move || Ok(op(&shared.ctx(mode))?.value)).await
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
    Ok(Json(Listed {
        count: snap.records.len(),
        records: snap.records,
        writable: mode.allows_writes(),
        mode: mode.as_str(),
        corrupt_lines: snap.corrupt.iter().map(|c| c.lines).sum(),
    })
    .into_response())
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BulkEdit {
    text: String,
}

/// `PUT /api/memory`: one fact a line; matching lines keep their record, new lines are added,
/// omitted records are deleted.
pub async fn replace(State(s): State<Arc<Shared>>, JsonBody(body): JsonBody<BulkEdit>) -> Reply {
    let r = write(&s, "a bulk edit", move |ctx| {
        manage::replace_all(ctx, &body.text)
    })
    .await?;
    #[derive(Serialize)]
    struct Replaced {
        kept: usize,
        added: Vec<Record>,
        deleted: Vec<Record>,
    }
    Ok(Json(Replaced {
        kept: r.kept.len(),
        added: r.added,
        deleted: r.deleted,
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
}

/// `POST /api/memory/append`: 201 with the new record, or 200 with the one already there.
pub async fn append(State(s): State<Arc<Shared>>, JsonBody(body): JsonBody<Append>) -> Reply {
    let added = write(&s, "adding a fact", move |ctx| {
        manage::add(
            ctx,
            &body.text,
            body.kind.unwrap_or(Kind::Semantic),
            body.importance,
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
}

/// `PATCH /api/memory/{id}`: edit one record's text or importance.
pub async fn patch(
    State(s): State<Arc<Shared>>,
    PathId(id): PathId,
    JsonBody(body): JsonBody<Patch>,
) -> Reply {
    let record = write(&s, "editing a fact", move |ctx| {
        manage::patch(ctx, &id, body.text.as_deref(), body.importance)
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
    match s.children.run(&s.data_dir, mode, Trigger::Api).await {
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
