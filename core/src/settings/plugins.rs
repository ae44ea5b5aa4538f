//! Plugins: which known plugins are installed and enabled, kept in `settings.json` under
//! `plugins`. Installing enables; enabling or disabling needs an installed plugin.

use serde::{Deserialize, Serialize};

use super::Settings;

/// The plugins localm knows about.
pub const KNOWN_PLUGINS: &[&str] = &["memory"];

/// One plugin's switches as stored in `settings.json`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct PluginState {
    #[serde(default)]
    pub installed: bool,
    #[serde(default)]
    pub enabled: bool,
}

/// Why a plugin command was refused. Settings were not changed when one is returned.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PluginError {
    #[error("unknown plugin {name:?}: known plugins are {known}")]
    Unknown { name: String, known: String },
    #[error("the {name} plugin is not installed; run `localm plugin install {name}` first")]
    NotInstalled { name: &'static str },
}

/// The known plugin called `name` (ignoring case and surrounding spaces).
fn known(name: &str) -> Result<&'static str, PluginError> {
    KNOWN_PLUGINS
        .iter()
        .copied()
        .find(|k| k.eq_ignore_ascii_case(name.trim()))
        .ok_or_else(|| PluginError::Unknown {
            name: name.to_string(),
            known: KNOWN_PLUGINS.join(", "),
        })
}

fn state(settings: &Settings, name: &str) -> PluginState {
    settings.plugins.get(name).copied().unwrap_or_default()
}

/// Set `name`'s state to `want`; whether that changed anything.
fn put(settings: &mut Settings, name: &'static str, want: PluginState) -> bool {
    if state(settings, name) == want {
        return false;
    }
    settings.plugins.insert(name.to_string(), want);
    true
}

/// Install and enable `name`. Returns whether anything changed.
pub fn install(settings: &mut Settings, name: &str) -> Result<bool, PluginError> {
    let name = known(name)?;
    Ok(put(
        settings,
        name,
        PluginState {
            installed: true,
            enabled: true,
        },
    ))
}

/// Enable an installed plugin. Returns whether anything changed.
pub fn enable(settings: &mut Settings, name: &str) -> Result<bool, PluginError> {
    switch(settings, name, true)
}

/// Disable an installed plugin (it stays installed). Returns whether anything changed.
pub fn disable(settings: &mut Settings, name: &str) -> Result<bool, PluginError> {
    switch(settings, name, false)
}

fn switch(settings: &mut Settings, name: &str, enabled: bool) -> Result<bool, PluginError> {
    let name = known(name)?;
    let now = state(settings, name);
    if !now.installed {
        return Err(PluginError::NotInstalled { name });
    }
    Ok(put(settings, name, PluginState { enabled, ..now }))
}

/// Every known plugin with its state (not installed when absent from the file).
pub fn list(settings: &Settings) -> Vec<(&'static str, PluginState)> {
    KNOWN_PLUGINS
        .iter()
        .map(|name| (*name, state(settings, name)))
        .collect()
}

impl Settings {
    /// Whether the memory plugin is installed and enabled.
    pub fn memory_plugin_enabled(&self) -> bool {
        let s = state(self, "memory");
        s.installed && s.enabled
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const OFF: PluginState = PluginState {
        installed: false,
        enabled: false,
    };
    const ON: PluginState = PluginState {
        installed: true,
        enabled: true,
    };
    const DISABLED: PluginState = PluginState {
        installed: true,
        enabled: false,
    };

    #[test]
    fn install_enables_and_reports_change() {
        let mut s = Settings::default();
        assert_eq!(list(&s), vec![("memory", OFF)]);
        assert!(!s.memory_plugin_enabled());
        assert_eq!(install(&mut s, "memory"), Ok(true));
        assert_eq!(install(&mut s, "memory"), Ok(false));
        assert_eq!(list(&s), vec![("memory", ON)]);
        assert!(s.memory_plugin_enabled());
    }

    #[test]
    fn enable_and_disable_need_an_installed_plugin() {
        let mut s = Settings::default();
        for op in [enable, disable] {
            let err = op(&mut s, "memory").unwrap_err();
            assert_eq!(err, PluginError::NotInstalled { name: "memory" });
            assert!(
                err.to_string()
                    .contains("run `localm plugin install memory` first"),
                "{err}"
            );
        }
        assert!(s.plugins.is_empty(), "a refusal changes nothing");
        install(&mut s, "memory").unwrap();
        assert_eq!(disable(&mut s, "memory"), Ok(true));
        assert_eq!(disable(&mut s, "memory"), Ok(false));
        assert_eq!(list(&s), vec![("memory", DISABLED)]);
        assert!(!s.memory_plugin_enabled());
        assert_eq!(enable(&mut s, "memory"), Ok(true));
        assert!(s.memory_plugin_enabled());
    }

    #[test]
    fn unknown_plugins_are_refused_listing_the_known_ones() {
        let mut s = Settings::default();
        for op in [install, enable, disable] {
            let err = op(&mut s, "weather").unwrap_err();
            assert!(matches!(err, PluginError::Unknown { ref name, .. } if name == "weather"));
            assert_eq!(
                err.to_string(),
                "unknown plugin \"weather\": known plugins are memory"
            );
        }
        assert!(s.plugins.is_empty());
    }

    #[test]
    fn plugins_round_trip_in_settings_json_and_are_omitted_when_empty() {
        let s = Settings::default();
        let v = serde_json::to_value(&s).unwrap();
        assert!(v.get("plugins").is_none(), "{v}");
        let mut s: Settings =
            serde_json::from_str(r#"{"theme":"dark","plugins":{"memory":{"installed":true}}}"#)
                .unwrap();
        assert_eq!(list(&s), vec![("memory", DISABLED)]);
        enable(&mut s, "memory").unwrap();
        let v = serde_json::to_value(&s).unwrap();
        assert_eq!(
            v["plugins"],
            serde_json::json!({"memory": {"installed": true, "enabled": true}})
        );
        assert_eq!(v["theme"], "dark");
        assert!(v.get("extra").is_none());
        let back: Settings = serde_json::from_value(v).unwrap();
        assert_eq!(back, s);
    }
}
