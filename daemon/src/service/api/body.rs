//! The request extractors: the JSON body (any content type, a clear 400 for malformed JSON or
//! wrong types, 413 for a body over the limit, 408 for one that did not arrive within the body
//! deadline) and the id in a path (400 when it does not decode,
//! as `%FF` does not) — always in the API's error shape, never axum's plain-text rejections.

use axum::body::Bytes;
use axum::extract::{FromRequest, FromRequestParts, Path, Request};
use axum::http::StatusCode;
use axum::http::request::Parts;
use serde::de::DeserializeOwned;

use super::error::ApiError;
use crate::service::listener::BodyTimedOut;

/// The largest body any route reads. A bulk edit's 64,000 characters fit even fully escaped.
pub const MAX_BODY: usize = 1 << 20;

/// A JSON request body of type `T`. `curl -d` (form content type) is accepted too.
pub struct JsonBody<T>(pub T);

impl<S: Send + Sync, T: DeserializeOwned> FromRequest<S> for JsonBody<T> {
    type Rejection = ApiError;

    async fn from_request(req: Request, state: &S) -> Result<Self, Self::Rejection> {
        let bytes = Bytes::from_request(req, state).await.map_err(|e| {
            if e.status() == StatusCode::PAYLOAD_TOO_LARGE {
                ApiError::new(
                    StatusCode::PAYLOAD_TOO_LARGE,
                    "body_too_large",
                    format!("the request body is over {MAX_BODY} bytes"),
                )
            } else if let Some(late) = BodyTimedOut::in_chain(&e) {
                ApiError::new(StatusCode::REQUEST_TIMEOUT, "timeout", late.to_string())
            } else {
                ApiError::bad_input(format!("cannot read the request body: {e}"))
            }
        })?;
        if bytes.iter().all(u8::is_ascii_whitespace) {
            return Err(ApiError::bad_input("the request body is empty; send JSON"));
        }
        serde_json::from_slice(&bytes).map(JsonBody).map_err(|e| {
            ApiError::bad_input(format!(
                "the request body is not valid JSON for this route: {e}"
            ))
        })
    }
}

/// The `{id}` of a route's path, percent-decoded.
pub struct PathId(pub String);

impl<S: Send + Sync> FromRequestParts<S> for PathId {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, Self::Rejection> {
        match Path::<String>::from_request_parts(parts, state).await {
            Ok(Path(id)) => Ok(PathId(id)),
            Err(e) if e.status().is_client_error() => Err(ApiError::bad_input(format!(
                "the id in the path is not valid: {}",
                e.body_text()
            ))),
            Err(e) => Err(ApiError::internal(e.body_text())),
        }
    }
}
