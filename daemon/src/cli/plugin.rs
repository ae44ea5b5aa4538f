//! `localm plugin install|enable|disable|list`: the switch for the memory plugin's chat hooks
//! (recall, automatic consolidation) and the `/api/memory*` routes. Kept in settings.json.

use clap::Subcommand;
use localm_core::settings::Settings;
use localm_core::settings::plugins;
use serde_json::json;

use super::Context;
use super::output::{self, print};
use crate::exit::{Code, coded};

#[derive(Debug, Subcommand)]
pub enum PluginCommand {
    /// Install and enable a plugin (the one there is: memory).
    Install { name: String },
    /// Turn an installed plugin on.
    Enable { name: String },
    /// Turn a plugin off (the terminal commands keep working).
    Disable { name: String },
    /// The plugins and their state.
    List {
        #[arg(long)]
        json: bool,
    },
}

pub fn run(ctx: &Context, cmd: PluginCommand) -> anyhow::Result<()> {
    let mut settings = Settings::load(&ctx.data_dir)?;
    let (name, verb, changed) = match &cmd {
        PluginCommand::List { json: as_json } => return list(&settings, *as_json),
        PluginCommand::Install { name } => (
            name,
            "installed and enabled",
            plugins::install(&mut settings, name),
        ),
        PluginCommand::Enable { name } => (name, "enabled", plugins::enable(&mut settings, name)),
        PluginCommand::Disable { name } => {
            (name, "disabled", plugins::disable(&mut settings, name))
        }
    };
    let changed = changed.map_err(|e| coded(Code::Usage, e.to_string()))?;
    if changed {
        settings.save(&ctx.data_dir)?;
        print(&format!("plugin {name} {verb}\n"));
    } else {
        print(&format!("plugin {name} was already {verb}\n"));
    }
    Ok(())
}

fn list(settings: &Settings, as_json: bool) -> anyhow::Result<()> {
    let all = plugins::list(settings);
    if as_json {
        let v: Vec<_> = all
            .iter()
            .map(|(n, s)| json!({"name": n, "installed": s.installed, "enabled": s.enabled}))
            .collect();
        output::json(&json!({"plugins": v}));
        return Ok(());
    }
    let rows: Vec<Vec<String>> = all
        .iter()
        .map(|(n, s)| {
            vec![
                n.to_string(),
                yes_no(s.installed).into(),
                yes_no(s.enabled).into(),
            ]
        })
        .collect();
    print(&output::table(&["PLUGIN", "INSTALLED", "ENABLED"], &rows));
    Ok(())
}

fn yes_no(b: bool) -> &'static str {
    if b { "yes" } else { "no" }
}
