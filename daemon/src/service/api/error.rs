//! API errors: one JSON shape, `{"error": {"code", "message"}}`, with the statuses the spec names
//! (400 bad input, 403 privacy, 404 unknown, 409 busy or stale, 413 over a cap).

use axum::Json;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use localm_core::fact_text::TextError;
use localm_core::manage::ManageError;
use localm_core::printable::visible;
use localm_core::store::StoreError;
use localm_core::store::lock::LockError;
use serde_json::json;

/// An error answer. Nothing was changed when one is returned.
#[derive(Debug)]
pub struct ApiError {
    pub status: StatusCode,
    pub code: &'static str,
    pub message: String,
}

impl ApiError {
    /// The message is made one plain line: it may quote the request (an unknown field's name,
    /// an id), so control and invisible characters are shown escaped, never sent raw.
    pub fn new(status: StatusCode, code: &'static str, message: impl Into<String>) -> ApiError {
        let message = message.into();
        ApiError {
            status,
            code,
            message: visible(&message).into_owned(),
        }
    }

    pub fn bad_input(message: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::BAD_REQUEST, "bad_input", message)
    }

    pub fn privacy(what: &str) -> ApiError {
        ApiError::new(
            StatusCode::FORBIDDEN,
            "privacy",
            format!(
                "{what} is refused in privacy mode (memory writes nothing); switch to log or full mode"
            ),
        )
    }

    pub fn internal(err: impl std::fmt::Display) -> ApiError {
        ApiError::new(
            StatusCode::INTERNAL_SERVER_ERROR,
            "internal",
            err.to_string(),
        )
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let body = json!({"error": {"code": self.code, "message": self.message}});
        (self.status, Json(body)).into_response()
    }
}

impl From<StoreError> for ApiError {
    fn from(e: StoreError) -> ApiError {
        match e {
            StoreError::Lock(LockError::Busy { .. }) => ApiError::new(
                StatusCode::CONFLICT,
                "busy",
                format!("{e}; nothing was changed, retry when it finishes"),
            ),
            other => ApiError::internal(other),
        }
    }
}

impl From<ManageError> for ApiError {
    fn from(e: ManageError) -> ApiError {
        use StatusCode as S;
        let mut message = e.to_string();
        let (status, code) = match e {
            ManageError::Secret(_) | ManageError::LineSecret { .. } => {
                message.push_str(". Send \"force\": true to store it anyway");
                (S::BAD_REQUEST, "secret")
            }
            ManageError::ProposalSecret { .. } => (S::BAD_REQUEST, "secret"),
            ManageError::Store(s) => return s.into(),
            ManageError::Privacy(_) => (S::FORBIDDEN, "privacy"),
            ManageError::Full
            | ManageError::BulkTooLarge { .. }
            | ManageError::BulkTooManyLines { .. }
            | ManageError::Text(TextError::TooLong { .. })
            | ManageError::Line {
                source: TextError::TooLong { .. },
                ..
            } => (S::PAYLOAD_TOO_LARGE, "over_cap"),
            ManageError::Text(_)
            | ManageError::Line { .. }
            | ManageError::BadImportance(_)
            | ManageError::NothingToChange
            | ManageError::UnknownBase { .. }
            | ManageError::Ambiguous { .. } => (S::BAD_REQUEST, "bad_input"),
            ManageError::Duplicate { .. } => (S::CONFLICT, "duplicate"),
            ManageError::NotFound { .. } => (S::NOT_FOUND, "not_found"),
            ManageError::Stale { .. } | ManageError::Changed { .. } => (S::CONFLICT, "stale"),
        };
        ApiError::new(status, code, message)
    }
}
