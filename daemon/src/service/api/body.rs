//! The JSON body extractor: any content type, a clear 400 for malformed JSON or wrong types, and
//! 413 for a body over the limit — always in the API's error shape.

use axum::body::Bytes;
use axum::extract::{FromRequest, Request};
use axum::http::StatusCode;
use serde::de::DeserializeOwned;

use super::error::ApiError;

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
