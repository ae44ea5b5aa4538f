//! The page's settings routes, outside the memory plugin's switch (the page installs and enables
//! the plugin): `GET /api/settings`, `PATCH /api/settings` (the memory switches; the mode stays
//! the terminal's), `POST /api/plugins/{name}/{install|enable|disable}`. Each change goes through
//! the same `Settings::set`, `plugins::*` and atomic `Settings::save` as `localm settings` and
//! `localm plugin`, one at a time, and the daemon reloads at once. Allowed in privacy mode: they
//! are the user's configuration, not memory writes.

use std::sync::Arc;

use axum::Json;
use axum::extract::{Path, State};
use axum::response::{IntoResponse, Response};
use localm_core::settings::{Settings, plugins};
use serde::Serialize;
use serde_json::{Map, Value};

use super::body::JsonBody;
use super::error::ApiError;
use crate::service::state::Shared;

/// The switches the page may change.
pub const PAGE_KEYS: &[&str] = &[
    "memory_enabled",
    "memory_auto_consolidate",
    "memory_recall_in_privacy",
    "memory_recall_in_privacy_chat",
];

/// One settings change at a time in this daemon (read, change, save, reload).
static CHANGING: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());

/// `GET /api/settings`'s answer.
#[derive(Debug, Serialize)]
pub struct Shown {
    /// The mode in force.
    pub mode: &'static str,
    /// The mode settings.json names (`--mode` and `LOCALM_MODE` override it).
    pub mode_in_file: &'static str,
    pub memory_enabled: bool,
    pub memory_auto_consolidate: bool,
    pub memory_recall_in_privacy: bool,
    pub memory_recall_in_privacy_chat: bool,
    pub plugins: Vec<PluginShown>,
}

/// One plugin's switches.
#[derive(Debug, Serialize)]
pub struct PluginShown {
    pub name: &'static str,
    pub installed: bool,
    pub enabled: bool,
}

/// `GET /api/settings`: the settings in force.
pub async fn show(State(s): State<Arc<Shared>>) -> Json<Shown> {
    Json(shown(&s))
}

fn shown(s: &Shared) -> Shown {
    let config = s.config();
    let st = &config.settings;
    Shown {
        mode: config.mode.as_str(),
        mode_in_file: st.mode.as_str(),
        memory_enabled: st.memory_enabled,
        memory_auto_consolidate: st.memory_auto_consolidate,
        memory_recall_in_privacy: st.memory_recall_in_privacy,
        memory_recall_in_privacy_chat: st.memory_recall_in_privacy_chat,
        plugins: plugins::list(st)
            .into_iter()
            .map(|(name, p)| PluginShown {
                name,
                installed: p.installed,
                enabled: p.enabled,
            })
            .collect(),
    }
}

/// `PATCH /api/settings`: `{"memory_enabled": false, …}` with any of [`PAGE_KEYS`]; another key
/// or a value that is not true/false is refused with 400 and nothing changes.
pub async fn change(
    State(s): State<Arc<Shared>>,
    JsonBody(body): JsonBody<Map<String, Value>>,
) -> Result<Response, ApiError> {
    let mut wanted = Vec::new();
    for (key, value) in &body {
        if !PAGE_KEYS.contains(&key.as_str()) {
            return Err(ApiError::bad_input(format!(
                "{key:?} cannot be changed here: the page changes {} (the mode: `localm settings set mode MODE`)",
                PAGE_KEYS.join(", ")
            )));
        }
        let Some(on) = value.as_bool() else {
            return Err(ApiError::bad_input(format!("{key} must be true or false")));
        };
        wanted.push((key.clone(), on));
    }
    update(&s, move |settings| {
        for (key, on) in &wanted {
            settings
                .set(key, if *on { "true" } else { "false" })
                .map_err(|e| ApiError::bad_input(e.to_string()))?;
        }
        Ok(())
    })
    .await
}

/// `POST /api/plugins/{name}/{action}`: install (and enable), enable or disable a plugin.
pub async fn plugin(
    State(s): State<Arc<Shared>>,
    Path((name, action)): Path<(String, String)>,
) -> Result<Response, ApiError> {
    let op: fn(&mut Settings, &str) -> Result<bool, plugins::PluginError> = match action.as_str() {
        "install" => plugins::install,
        "enable" => plugins::enable,
        "disable" => plugins::disable,
        other => {
            return Err(ApiError::new(
                axum::http::StatusCode::NOT_FOUND,
                "not_found",
                format!("no plugin action {other:?}: install, enable or disable"),
            ));
        }
    };
    update(&s, move |settings| {
        op(settings, &name)
            .map(|_| ())
            .map_err(|e| ApiError::bad_input(e.to_string()))
    })
    .await
}

/// Load settings.json, change it, save it atomically, reload the daemon; answer the new settings.
async fn update(
    s: &Arc<Shared>,
    change: impl FnOnce(&mut Settings) -> Result<(), ApiError> + Send + 'static,
) -> Result<Response, ApiError> {
    let _one = CHANGING.lock().await;
    let shared = Arc::clone(s);
    tokio::task::spawn_blocking(move || {
        let mut settings =
            Settings::load(&shared.data_dir).map_err(|e| ApiError::internal(e.to_string()))?;
        change(&mut settings)?;
        settings
            .save(&shared.data_dir)
            .map_err(|e| ApiError::internal(format!("cannot save settings.json: {e}")))?;
        shared
            .reload()
            .map_err(|e| ApiError::internal(format!("{e:#}")))?;
        Ok(Json(shown(&shared)).into_response())
    })
    .await
    .map_err(ApiError::internal)?
}
