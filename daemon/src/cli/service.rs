//! `localm service install`: write the systemd user unit (Linux) or the LaunchAgent (macOS) for
//! `localm daemon`, pointing at this executable, and enable it.

use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{Context as _, bail};
use clap::Subcommand;

use super::output::print;

const UNIT: &str = include_str!("../../../systemd/localm-memory.service");
const PLIST: &str = include_str!("../../../launchd/dev.localm.memory.plist");
const UNIT_NAME: &str = "localm-memory.service";
const AGENT_LABEL: &str = "dev.localm.memory";

#[derive(Debug, Subcommand)]
pub enum ServiceCommand {
    /// Write the service file for this platform and enable it (start at login, restart on failure).
    Install {
        /// Write the file only; do not enable or start it.
        #[arg(long)]
        no_enable: bool,
        /// Print the file instead of writing it.
        #[arg(long)]
        print: bool,
    },
}

pub fn run(cmd: ServiceCommand, data_dir: Option<&Path>) -> anyhow::Result<()> {
    let ServiceCommand::Install {
        no_enable,
        print: only_print,
    } = cmd;
    let exe = std::env::current_exe().context("cannot find the localm executable")?;
    let (path, text) = if cfg!(target_os = "macos") {
        (agent_path()?, plist(&exe, data_dir))
    } else {
        (unit_path()?, unit(&exe, data_dir))
    };
    if only_print {
        print(&text);
        return Ok(());
    }
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    }
    std::fs::write(&path, &text).with_context(|| format!("cannot write {}", path.display()))?;
    print(&format!("wrote {}\n", path.display()));
    if no_enable {
        return Ok(());
    }
    let steps: Vec<Vec<String>> = if cfg!(target_os = "macos") {
        // SAFETY: getuid(2) cannot fail and touches no memory.
        let uid = unsafe { libc::getuid() };
        vec![vec![
            "launchctl".into(),
            "bootstrap".into(),
            format!("gui/{uid}"),
            path.display().to_string(),
        ]]
    } else {
        vec![
            vec!["systemctl".into(), "--user".into(), "daemon-reload".into()],
            vec![
                "systemctl".into(),
                "--user".into(),
                "enable".into(),
                "--now".into(),
                UNIT_NAME.into(),
            ],
        ]
    };
    for step in &steps {
        let status = Command::new(&step[0]).args(&step[1..]).status();
        match status {
            Ok(s) if s.success() => {}
            Ok(s) => bail!(
                "`{}` failed ({s}); the file is written, enable it by hand",
                step.join(" ")
            ),
            Err(e) => bail!(
                "cannot run `{}`: {e}; the file is written at {}, enable it by hand",
                step.join(" "),
                path.display()
            ),
        }
    }
    print("enabled and started: localm daemon now runs at login and restarts on failure\n");
    Ok(())
}

fn unit_path() -> anyhow::Result<PathBuf> {
    let base = dirs::config_dir().context("no config dir: HOME is not set")?;
    Ok(base.join("systemd").join("user").join(UNIT_NAME))
}

fn agent_path() -> anyhow::Result<PathBuf> {
    let home = dirs::home_dir().context("HOME is not set")?;
    Ok(home
        .join("Library")
        .join("LaunchAgents")
        .join(format!("{AGENT_LABEL}.plist")))
}

/// The shipped unit, running `exe`, with the data dir when one was given.
pub fn unit(exe: &Path, data_dir: Option<&Path>) -> String {
    let mut text = UNIT.replace(
        "ExecStart=%h/.cargo/bin/localm daemon",
        &format!("ExecStart={} daemon", exe.display()),
    );
    if let Some(dir) = data_dir {
        text = text.replace(
            "[Service]\n",
            &format!("[Service]\nEnvironment=LOCALM_DATA_DIR={}\n", dir.display()),
        );
    }
    text
}

/// The shipped LaunchAgent, running `exe`, with the data dir when one was given.
pub fn plist(exe: &Path, data_dir: Option<&Path>) -> String {
    let mut text = PLIST.replace(
        "<string>/usr/local/bin/localm</string>",
        &format!("<string>{}</string>", exe.display()),
    );
    if let Some(dir) = data_dir {
        text = text.replace(
            "  <key>RunAtLoad</key>",
            &format!(
                "  <key>EnvironmentVariables</key>\n  <dict>\n    <key>LOCALM_DATA_DIR</key>\n    <string>{}</string>\n  </dict>\n  <key>RunAtLoad</key>",
                dir.display()
            ),
        );
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_unit_runs_this_executable_with_the_data_dir() {
        let u = unit(Path::new("/opt/l/localm"), Some(Path::new("/data")));
        assert!(u.contains("ExecStart=/opt/l/localm daemon\n"), "{u}");
        assert!(
            u.contains("[Service]\nEnvironment=LOCALM_DATA_DIR=/data\n"),
            "{u}"
        );
        assert!(u.contains("Restart=on-failure"));
        let p = plist(Path::new("/opt/l/localm"), Some(Path::new("/data")));
        assert!(p.contains("<string>/opt/l/localm</string>"), "{p}");
        assert!(p.contains("<string>/data</string>"), "{p}");
        assert!(!unit(Path::new("/x"), None).contains("Environment="));
    }
}
