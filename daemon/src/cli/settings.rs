//! `localm settings [get KEY | set KEY VALUE]`: read and change settings.json, with the keys and
//! values checked. A running daemon picks a change up at once (it watches the file).

use clap::Subcommand;
use localm_core::settings::{KEYS, Settings};
use serde_json::json;

use super::Context;
use super::output::{self, print};
use crate::exit::{Code, coded};

#[derive(Debug, Subcommand)]
pub enum SettingsCommand {
    /// Print one setting's value.
    Get { key: String },
    /// Change one setting.
    Set { key: String, value: String },
}

pub fn run(ctx: &Context, cmd: Option<SettingsCommand>, as_json: bool) -> anyhow::Result<()> {
    let mut settings = Settings::load(&ctx.data_dir)?;
    match cmd {
        None => {
            let mut rows = Vec::new();
            let mut obj = serde_json::Map::new();
            for (key, about) in KEYS {
                let value = settings.get(key)?;
                obj.insert(key.to_string(), json!(value));
                rows.push(vec![key.to_string(), value, about.to_string()]);
            }
            if as_json {
                output::json(&obj);
            } else {
                print(&output::table(&["KEY", "VALUE", "WHAT"], &rows));
            }
        }
        Some(SettingsCommand::Get { key }) => {
            let value = settings
                .get(&key)
                .map_err(|e| coded(Code::Usage, e.to_string()))?;
            print(&format!("{value}\n"));
        }
        Some(SettingsCommand::Set { key, mut value }) => {
            // Model paths are stored absolute: the daemon does not run from this folder.
            if key.ends_with("_model") && !matches!(value.as_str(), "" | "default") {
                let p = std::path::Path::new(&value);
                if p.is_relative() {
                    value = std::env::current_dir()?.join(p).display().to_string();
                }
            }
            settings
                .set(&key, &value)
                .map_err(|e| coded(Code::Usage, e.to_string()))?;
            settings.save(&ctx.data_dir)?;
            print(&format!("{key} = {}\n", settings.get(&key)?));
            if key == "mode"
                && let Some(env) = &ctx.env.mode
                && !env.trim().is_empty()
            {
                eprintln!("localm: note: LOCALM_MODE={env} is set and overrides this setting here");
            }
        }
    }
    Ok(())
}
