//! The `/api/memory*` routes of the spec's table. Every handler runs its store work on the
//! blocking pool (the store lock may wait up to 2 s) and answers JSON; writes are refused with
//! 403 in privacy mode, 409 while another process holds the store, 413 over a cap.

use std::sync::Arc;

use axum::Json;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use localm_core::manage::{self, Added, Ctx, ManageError};
use localm_core::record::Kind;
use localm_core::store::Committed;
use serde::Deserialize;
use serde_json::{Value, json};

use super::body::JsonBody;
use super::error::ApiError;
use super::exact;
use super::state::Shared;
use crate::passes::{PassFailure, Trigger};

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
    let shared = Arc::clone(s);
    blocking(move || Ok(op(&shared.ctx(mode))?.value)).await
}

/// `GET /api/memory`: the records and whether writes are allowed.
pub async fn list(State(s): State<Arc<Shared>>) -> Reply {
    let mode = s.config().mode;
    let shared = Arc::clone(&s);
    let snap = blocking(move || Ok(shared.store.read()?)).await?;
    Ok(Json(json!({
        "records": exact(&snap.records),
        "count": snap.records.len(),
        "writable": mode.allows_writes(),
        "mode": mode.as_str(),
        "corrupt_lines": snap.corrupt.len(),
    }))
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
    Ok(Json(json!({
        "kept": r.kept.len(),
        "added": exact(&r.added),
        "deleted": exact(&r.deleted),
    }))
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
    Ok(match added {
        Added::New(r) => (
            StatusCode::CREATED,
            Json(json!({"record": exact(&r), "existing": false})),
        ),
        Added::Existing(r) => (
            StatusCode::OK,
            Json(json!({"record": exact(&r), "existing": true})),
        ),
    }
    .into_response())
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
    Path(id): Path<String>,
    JsonBody(body): JsonBody<Patch>,
) -> Reply {
    let record = write(&s, "editing a fact", move |ctx| {
        manage::patch(ctx, &id, body.text.as_deref(), body.importance)
    })
    .await?;
    Ok(Json(json!({"record": exact(&record)})).into_response())
}

/// `DELETE /api/memory/{id}`: delete one record (not archived).
pub async fn delete(State(s): State<Arc<Shared>>, Path(id): Path<String>) -> Reply {
    let deleted = write(&s, "deleting a fact", move |ctx| manage::forget(ctx, &id)).await?;
    Ok(Json(json!({"deleted": exact(&deleted)})).into_response())
}

/// `GET /api/memory/forgotten`: the archive.
pub async fn forgotten(State(s): State<Arc<Shared>>) -> Reply {
    let shared = Arc::clone(&s);
    let snap = blocking(move || Ok(shared.store.read()?)).await?;
    Ok(Json(json!({"forgotten": exact(&snap.archive)})).into_response())
}

/// `POST /api/memory/forgotten/{id}/restore`.
pub async fn restore(State(s): State<Arc<Shared>>, Path(id): Path<String>) -> Reply {
    let record = write(&s, "restoring a fact", move |ctx| manage::restore(ctx, &id)).await?;
    Ok(Json(json!({"record": exact(&record)})).into_response())
}

/// `GET /api/memory/corrections`: the pending proposals (none in privacy mode: listing prunes
/// the proposal file, which is a write).
pub async fn corrections(State(s): State<Arc<Shared>>) -> Reply {
    let mode = s.config().mode;
    let shared = Arc::clone(&s);
    let pending = blocking(move || Ok(manage::corrections(&shared.ctx(mode))?.value)).await?;
    Ok(Json(json!({"corrections": exact(&pending)})).into_response())
}

/// `POST /api/memory/corrections/{id}/accept`: archive the old value, apply the change.
pub async fn accept(State(s): State<Arc<Shared>>, Path(id): Path<String>) -> Reply {
    let (correction, record) = write(&s, "accepting a correction", move |ctx| {
        manage::accept(ctx, &id)
    })
    .await?;
    Ok(Json(json!({"correction": exact(&correction), "record": exact(&record)})).into_response())
}

/// `POST /api/memory/corrections/{id}/reject`: keep the fact; never propose this again.
pub async fn reject(State(s): State<Arc<Shared>>, Path(id): Path<String>) -> Reply {
    let correction = write(&s, "rejecting a correction", move |ctx| {
        manage::reject(ctx, &id)
    })
    .await?;
    Ok(Json(json!({"correction": exact(&correction)})).into_response())
}

/// `POST /api/memory/consolidate`: one pass now (after any pass already running), in a
/// supervised child process. Answers the pass report.
pub async fn consolidate(State(s): State<Arc<Shared>>) -> Reply {
    let mode = writable(&s, "consolidation")?;
    match s.passes.run(&s.data_dir, mode, Trigger::Api).await {
        Ok(outcome) => Ok(Json::<Value>(outcome.report).into_response()),
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
