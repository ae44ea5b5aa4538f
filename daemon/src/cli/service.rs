//! `localm service install | uninstall | status`: the systemd user unit (Linux) or the
//! LaunchAgent (macOS) that runs `localm daemon` at login, rendered from the shipped files with
//! an installed binary (never one in a cargo build folder, which `cargo clean` deletes), the data
//! dir, and the daemon flags given to `install`.

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{Context as _, bail};
use clap::{Args, Subcommand, ValueEnum};

use super::output::print;
use crate::exit::{Code, coded};

const UNIT: &str = include_str!("../../../systemd/localm-memory.service");
const PLIST: &str = include_str!("../../../launchd/dev.localm.memory.plist");
const UNIT_NAME: &str = "localm-memory.service";
const AGENT_LABEL: &str = "dev.localm.memory";
const UNIT_EXEC: &str = "ExecStart=%h/.cargo/bin/localm daemon";
const UNIT_DATA: &str = "ReadWritePaths=-%h/.local/share/localm";

#[derive(Debug, Subcommand)]
pub enum ServiceCommand {
    /// Write the service file for this platform and start it (at login, restarted on failure).
    /// Installing again replaces the file and restarts the service with it.
    Install(InstallArgs),
    /// Stop the service, disable it and remove its file (the data dir is kept).
    Uninstall,
    /// Whether the service file is installed, the binary it runs, and whether it is running.
    Status,
}

#[derive(Debug, Args)]
pub struct InstallArgs {
    /// Pass `--listen ADDR` to the daemon (see `localm daemon --help`).
    #[arg(long, value_name = "ADDR")]
    pub listen: Option<SocketAddr>,
    /// Pass `--chat-upstream URL` to the daemon (see `localm daemon --help`).
    #[arg(long, value_name = "URL", value_parser = super::parse_upstream)]
    pub chat_upstream: Option<String>,
    /// The localm binary the service runs [default: this one]. It must not be inside a cargo
    /// build folder: `cargo install --path daemon --locked` puts one in ~/.cargo/bin.
    #[arg(long, value_name = "FILE")]
    pub exe: Option<PathBuf>,
    /// Write the file only; do not enable or start it.
    #[arg(long)]
    pub no_enable: bool,
    /// Print the file instead of writing it.
    #[arg(long)]
    pub print: bool,
    /// Render for this service manager [default: this system's]; the other one only with
    /// --print.
    #[arg(long, value_enum, value_name = "MANAGER")]
    pub platform: Option<Platform>,
}

/// The service manager a file is rendered for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Platform {
    Systemd,
    Launchd,
}

impl Platform {
    fn native() -> Platform {
        if cfg!(target_os = "macos") {
            Platform::Launchd
        } else {
            Platform::Systemd
        }
    }
}

/// What the daemon in the service file is started with.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Launch {
    pub exe: PathBuf,
    pub data_dir: PathBuf,
    pub listen: Option<SocketAddr>,
    pub chat_upstream: Option<String>,
}

impl Launch {
    /// `daemon` and its flags, after the executable.
    fn daemon_args(&self) -> Vec<String> {
        let mut args = vec!["daemon".to_string()];
        if let Some(addr) = self.listen {
            args.extend(["--listen".into(), addr.to_string()]);
        }
        if let Some(url) = &self.chat_upstream {
            args.extend(["--chat-upstream".into(), url.clone()]);
        }
        args
    }

    /// Refuse a word a service file cannot hold: a line break (or another control character)
    /// in the data dir or the binary's path would end the unit's line and start another.
    fn check(&self) -> Result<(), String> {
        let words = [
            self.exe.display().to_string(),
            self.data_dir.display().to_string(),
        ];
        match words
            .into_iter()
            .chain(self.daemon_args())
            .find(|w| w.chars().any(char::is_control))
        {
            Some(w) => Err(format!(
                "{w:?} holds a line break or another control character, which a service file \
                 cannot hold; use a data dir (and binary path) without one"
            )),
            None => Ok(()),
        }
    }
}

pub fn run(cmd: ServiceCommand, data_dir: Option<&Path>) -> anyhow::Result<()> {
    let data_dir = crate::paths::data_dir(data_dir.map(Path::to_path_buf))?;
    let data_dir = std::path::absolute(&data_dir)
        .with_context(|| format!("cannot resolve {}", data_dir.display()))?;
    match cmd {
        ServiceCommand::Install(args) => install(args, data_dir),
        ServiceCommand::Uninstall => uninstall(),
        ServiceCommand::Status => status(),
    }
}

fn install(args: InstallArgs, data_dir: PathBuf) -> anyhow::Result<()> {
    let platform = args.platform.unwrap_or_else(Platform::native);
    if platform != Platform::native() && !args.print {
        return Err(coded(
            Code::Usage,
            format!(
                "--platform {platform:?} is not this system's service manager; it is only for --print"
            ),
        ));
    }
    let exe = match args.exe {
        Some(p) => p,
        None => std::env::current_exe().context("cannot find the localm executable")?,
    };
    let exe = std::fs::canonicalize(&exe)
        .with_context(|| format!("cannot find the executable {}", exe.display()))?;
    if !exe.is_file() {
        return Err(coded(
            Code::Usage,
            format!("{} is not a file", exe.display()),
        ));
    }
    if let Some(build) = build_folder(&exe) {
        let why = format!(
            "{} is inside the cargo build folder {}: `cargo clean` or a rebuild would break the service. \
             Install the binary first (`cargo install --path daemon --locked` puts it in ~/.cargo/bin) \
             and run that one's `localm service install`, or pass --exe FILE",
            exe.display(),
            build.display()
        );
        if !args.print {
            return Err(coded(Code::Usage, why));
        }
        eprintln!("warning: {why}");
    }
    let launch = Launch {
        exe,
        data_dir,
        listen: args.listen,
        chat_upstream: args.chat_upstream,
    };
    launch.check().map_err(|why| coded(Code::Usage, why))?;
    let home = dirs::home_dir().context("HOME is not set")?;
    let text = match platform {
        Platform::Systemd => unit(&launch),
        Platform::Launchd => plist(&launch, &home),
    };
    if args.print {
        print(&text);
        return Ok(());
    }
    let path = file_path(platform)?;
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    }
    // The unit makes only the data dir writable: it must exist before the first start.
    localm_core::fsutil::create_private_dir(&launch.data_dir)
        .with_context(|| format!("cannot create the data dir {}", launch.data_dir.display()))?;
    if platform == Platform::Launchd {
        let logs = log_dir(&home);
        localm_core::fsutil::create_private_dir(&logs)
            .with_context(|| format!("cannot create {}", logs.display()))?;
    }
    std::fs::write(&path, &text).with_context(|| format!("cannot write {}", path.display()))?;
    print(&format!("wrote {}\n", path.display()));
    if args.no_enable {
        return Ok(());
    }
    run_steps(&install_steps(platform, &path), &path)?;
    print("started: localm daemon now runs at login and restarts on failure\n");
    Ok(())
}

fn uninstall() -> anyhow::Result<()> {
    let platform = Platform::native();
    let path = file_path(platform)?;
    if !path.exists() {
        print(&format!(
            "not installed: {} does not exist; nothing to do\n",
            path.display()
        ));
        return Ok(());
    }
    let (before, after) = uninstall_steps(platform, &path);
    run_steps(&before, &path)?;
    std::fs::remove_file(&path).with_context(|| format!("cannot remove {}", path.display()))?;
    print(&format!("removed {}\n", path.display()));
    run_steps(&after, &path)?;
    print("the data dir is kept; `localm memory clear` erases memory\n");
    Ok(())
}

fn status() -> anyhow::Result<()> {
    let platform = Platform::native();
    let path = file_path(platform)?;
    let Ok(text) = std::fs::read_to_string(&path) else {
        print(&format!(
            "not installed ({} does not exist); `localm service install` installs it\n",
            path.display()
        ));
        return Ok(());
    };
    print(&format!("installed: {}\n", path.display()));
    match runs(platform, &text) {
        Some(exe) if Path::new(&exe).is_file() => print(&format!("runs:      {exe}\n")),
        Some(exe) => print(&format!(
            "runs:      {exe} (MISSING: reinstall with `localm service install`)\n"
        )),
        None => print("runs:      (no executable found in the file)\n"),
    }
    let (program, args) = match platform {
        Platform::Systemd => (
            "systemctl",
            vec!["--user".to_string(), "is-active".into(), UNIT_NAME.into()],
        ),
        Platform::Launchd => ("launchctl", vec!["print".to_string(), agent_target()]),
    };
    let state = match Command::new(program).args(&args).output() {
        Ok(out) => match platform {
            Platform::Systemd => String::from_utf8_lossy(&out.stdout).trim().to_string(),
            Platform::Launchd if out.status.success() => {
                let text = String::from_utf8_lossy(&out.stdout);
                text.lines()
                    .map(str::trim)
                    .find_map(|l| l.strip_prefix("state = "))
                    .unwrap_or("loaded")
                    .to_string()
            }
            Platform::Launchd => "not loaded".into(),
        },
        Err(e) => format!("unknown (cannot run {program}: {e})"),
    };
    let state = if state.is_empty() { "unknown" } else { &state };
    print(&format!("state:     {state}\n"));
    Ok(())
}

/// The build folder `exe` lies in, if it is one cargo made: the folder holding the binary has
/// cargo's `.fingerprint`, or a path component is `target` followed by `debug` or `release`.
pub fn build_folder(exe: &Path) -> Option<PathBuf> {
    let dir = exe.parent()?;
    if dir.join(".fingerprint").is_dir() {
        return Some(dir.to_path_buf());
    }
    let parts: Vec<_> = dir.components().collect();
    parts.windows(2).enumerate().find_map(|(i, w)| {
        let (a, b) = (w[0].as_os_str(), w[1].as_os_str());
        (a == "target" && (b == "debug" || b == "release"))
            .then(|| parts[..=i].iter().collect::<PathBuf>())
    })
}

fn file_path(platform: Platform) -> anyhow::Result<PathBuf> {
    Ok(match platform {
        Platform::Systemd => dirs::config_dir()
            .context("no config dir: HOME is not set")?
            .join("systemd")
            .join("user")
            .join(UNIT_NAME),
        Platform::Launchd => dirs::home_dir()
            .context("HOME is not set")?
            .join("Library")
            .join("LaunchAgents")
            .join(format!("{AGENT_LABEL}.plist")),
    })
}

/// Where the LaunchAgent's output goes: kept across reboots, shown by Console.app.
pub fn log_dir(home: &Path) -> PathBuf {
    home.join("Library").join("Logs").join("localm")
}

fn agent_target() -> String {
    // SAFETY: getuid(2) cannot fail and touches no memory.
    let uid = unsafe { libc::getuid() };
    format!("gui/{uid}/{AGENT_LABEL}")
}

fn agent_domain() -> String {
    // SAFETY: getuid(2) cannot fail and touches no memory.
    let uid = unsafe { libc::getuid() };
    format!("gui/{uid}")
}

/// A command of an install or uninstall, and whether its failure stops the rest.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Step {
    pub argv: Vec<String>,
    /// Unloading what is not loaded fails harmlessly.
    pub may_fail: bool,
}

fn step(argv: &[&str], may_fail: bool) -> Step {
    Step {
        argv: argv.iter().map(|s| (*s).to_string()).collect(),
        may_fail,
    }
}

/// What `install` runs after writing `path`. Both managers replace a service already running
/// with the new file: systemd restarts the unit; launchd has the old agent unloaded first
/// (`bootstrap` of a loaded label fails).
pub fn install_steps(platform: Platform, path: &Path) -> Vec<Step> {
    match platform {
        Platform::Systemd => vec![
            step(&["systemctl", "--user", "daemon-reload"], false),
            step(&["systemctl", "--user", "enable", UNIT_NAME], false),
            step(&["systemctl", "--user", "restart", UNIT_NAME], false),
        ],
        Platform::Launchd => vec![
            step(&["launchctl", "bootout", &agent_target()], true),
            step(
                &[
                    "launchctl",
                    "bootstrap",
                    &agent_domain(),
                    &path.display().to_string(),
                ],
                false,
            ),
        ],
    }
}

/// What `uninstall` runs before and after removing the file.
pub fn uninstall_steps(platform: Platform, _path: &Path) -> (Vec<Step>, Vec<Step>) {
    match platform {
        Platform::Systemd => (
            vec![step(
                &["systemctl", "--user", "disable", "--now", UNIT_NAME],
                true,
            )],
            vec![step(&["systemctl", "--user", "daemon-reload"], true)],
        ),
        Platform::Launchd => (
            vec![step(&["launchctl", "bootout", &agent_target()], true)],
            vec![],
        ),
    }
}

fn run_steps(steps: &[Step], path: &Path) -> anyhow::Result<()> {
    for s in steps {
        let cmdline = s.argv.join(" ");
        let outcome = Command::new(&s.argv[0]).args(&s.argv[1..]).status();
        let failure = match outcome {
            Ok(st) if st.success() => continue,
            Ok(st) => format!("`{cmdline}` failed ({st})"),
            Err(e) => format!("cannot run `{cmdline}`: {e}"),
        };
        if s.may_fail {
            eprintln!("note: {failure} (not loaded?); going on");
            continue;
        }
        bail!(
            "{failure}; the file is at {}, finish by hand",
            path.display()
        );
    }
    Ok(())
}

/// The shipped unit with `launch`'s binary, flags and data dir.
pub fn unit(launch: &Launch) -> String {
    let mut exec = format!(
        "ExecStart={}",
        systemd_word(&launch.exe.display().to_string())
    );
    for a in launch.daemon_args() {
        exec.push(' ');
        exec.push_str(&systemd_word(&a));
    }
    let dir = launch.data_dir.display().to_string();
    UNIT.replace(UNIT_EXEC, &exec)
        .replace(
            UNIT_DATA,
            &format!("ReadWritePaths={}", systemd_word(&format!("-{dir}"))),
        )
        .replace(
            "[Service]\n",
            &format!(
                "[Service]\nEnvironment={}\n",
                systemd_word(&format!("LOCALM_DATA_DIR={dir}")).replace("$$", "$")
            ),
        )
}

/// The shipped LaunchAgent with `launch`'s binary, flags and data dir, logging under `home`.
pub fn plist(launch: &Launch, home: &Path) -> String {
    let mut words = vec![launch.exe.display().to_string()];
    words.extend(launch.daemon_args());
    let args = words
        .iter()
        .map(|w| format!("<string>{}</string>", xml(w)))
        .collect::<Vec<_>>()
        .join("\n    ");
    let logs = log_dir(home).join("daemon.log");
    PLIST
        .replace(
            "<string>/usr/local/bin/localm</string>\n    <string>daemon</string>",
            &args,
        )
        .replace(
            "<string>HOME/Library/Logs/localm/daemon.log</string>",
            &format!("<string>{}</string>", xml(&logs.display().to_string())),
        )
        .replace(
            "  <key>RunAtLoad</key>",
            &format!(
                "  <key>EnvironmentVariables</key>\n  <dict>\n    <key>LOCALM_DATA_DIR</key>\n    <string>{}</string>\n  </dict>\n  <key>RunAtLoad</key>",
                xml(&launch.data_dir.display().to_string())
            ),
        )
}

/// One word of a unit's command line: `%` and `$` doubled (systemd expands them), quoted when it
/// holds a space, a quote or a backslash.
fn systemd_word(s: &str) -> String {
    let s = s.replace('%', "%%").replace('$', "$$");
    if s.is_empty() || s.contains(|c: char| c.is_whitespace() || c == '"' || c == '\\' || c == '\'')
    {
        format!("\"{}\"", s.replace('\\', "\\\\").replace('"', "\\\""))
    } else {
        s
    }
}

fn xml(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

/// The executable a service file runs.
fn runs(platform: Platform, text: &str) -> Option<String> {
    match platform {
        Platform::Systemd => {
            let line = text.lines().find_map(|l| l.strip_prefix("ExecStart="))?;
            let word = if let Some(rest) = line.strip_prefix('"') {
                rest.split('"').next()?.to_string()
            } else {
                line.split_whitespace().next()?.to_string()
            };
            Some(word.replace("%%", "%").replace("$$", "$"))
        }
        Platform::Launchd => {
            let after = text.split("<key>ProgramArguments</key>").nth(1)?;
            let first = after.split("<string>").nth(1)?.split("</string>").next()?;
            Some(
                first
                    .replace("&lt;", "<")
                    .replace("&gt;", ">")
                    .replace("&amp;", "&"),
            )
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn launch(listen: bool) -> Launch {
        Launch {
            exe: PathBuf::from("/opt/l/localm"),
            data_dir: PathBuf::from("/data/my memory"),
            listen: listen.then(|| "127.0.0.1:8765".parse().unwrap()),
            chat_upstream: listen.then(|| "http://127.0.0.1:8080/v1?a=50%".to_string()),
        }
    }

    #[test]
    fn the_unit_runs_the_binary_with_the_flags_and_the_data_dir() {
        let u = unit(&launch(true));
        assert!(
            u.contains(
                "\nExecStart=/opt/l/localm daemon --listen 127.0.0.1:8765 --chat-upstream http://127.0.0.1:8080/v1?a=50%%\n"
            ),
            "{u}"
        );
        assert!(
            u.contains("[Service]\nEnvironment=\"LOCALM_DATA_DIR=/data/my memory\"\n"),
            "{u}"
        );
        assert!(u.contains("\nReadWritePaths=\"-/data/my memory\"\n"), "{u}");
        assert!(!u.contains("%h/.cargo"), "{u}");
        for line in [
            "ProtectSystem=strict",
            "PrivateDevices=yes",
            "RestrictAddressFamilies=AF_UNIX AF_INET AF_INET6",
            "UMask=0077",
            "LockPersonality=yes",
            "MemoryHigh=",
            "RuntimeDirectory=localm",
        ] {
            assert!(u.contains(&format!("\n{line}")), "{line} missing:\n{u}");
        }
        assert_eq!(
            runs(Platform::Systemd, &u).as_deref(),
            Some("/opt/l/localm")
        );
        let plain = unit(&launch(false));
        assert!(
            plain.contains("\nExecStart=/opt/l/localm daemon\n"),
            "{plain}"
        );
    }

    #[test]
    fn the_agent_runs_the_binary_with_the_flags_and_logs_under_library_logs() {
        let p = plist(&launch(true), Path::new("/Users/me"));
        assert!(
            p.contains(
                "<array>\n    <string>/opt/l/localm</string>\n    <string>daemon</string>\n    <string>--listen</string>\n    <string>127.0.0.1:8765</string>\n    <string>--chat-upstream</string>\n    <string>http://127.0.0.1:8080/v1?a=50%</string>\n  </array>"
            ),
            "{p}"
        );
        assert!(
            p.contains("<string>/Users/me/Library/Logs/localm/daemon.log</string>"),
            "{p}"
        );
        assert!(!p.contains("/tmp"), "{p}");
        assert!(!p.contains("HOME/"), "{p}");
        assert!(p.contains("<key>LOCALM_DATA_DIR</key>\n    <string>/data/my memory</string>"));
        assert_eq!(
            runs(Platform::Launchd, &p).as_deref(),
            Some("/opt/l/localm")
        );
        let plain = plist(&launch(false), Path::new("/Users/me"));
        assert!(
            plain.contains(
                "<array>\n    <string>/opt/l/localm</string>\n    <string>daemon</string>\n  </array>"
            ),
            "{plain}"
        );
    }

    #[test]
    fn reinstalling_replaces_a_running_service() {
        let path = Path::new("/Users/me/Library/LaunchAgents/dev.localm.memory.plist");
        let steps = install_steps(Platform::Launchd, path);
        assert_eq!(steps[0].argv[..2], ["launchctl", "bootout"]);
        assert!(
            steps[0].may_fail,
            "unloading an agent not loaded must not stop the install"
        );
        assert_eq!(steps[1].argv[..2], ["launchctl", "bootstrap"]);
        assert!(!steps[1].may_fail);
        let steps = install_steps(Platform::Systemd, path);
        let last = steps.last().unwrap();
        assert_eq!(last.argv, ["systemctl", "--user", "restart", UNIT_NAME]);
    }

    #[test]
    fn a_binary_in_a_build_folder_is_recognised() {
        let t = tempfile::tempdir().unwrap();
        let custom = t.path().join("tgt").join("debug");
        std::fs::create_dir_all(custom.join(".fingerprint")).unwrap();
        assert_eq!(build_folder(&custom.join("localm")), Some(custom.clone()));
        assert_eq!(
            build_folder(Path::new("/src/localm/target/release/localm")),
            Some(PathBuf::from("/src/localm/target"))
        );
        assert_eq!(build_folder(Path::new("/home/me/.cargo/bin/localm")), None);
        assert_eq!(build_folder(Path::new("/usr/bin/localm")), None);
    }

    /// A newline in the data dir cannot add lines to the unit (#33): it is refused.
    #[test]
    fn a_line_break_in_a_word_is_refused() {
        let mut l = launch(false);
        assert_eq!(l.check(), Ok(()));
        l.data_dir = PathBuf::from("/data/x\nExecStartPre=/bin/evil");
        let e = l.check().unwrap_err();
        assert!(e.contains("line break"), "{e}");
        // One line, words one space apart (the message once had a run of 18).
        assert!(!e.contains("  ") && !e.contains('\n'), "{e:?}");
        l.data_dir = PathBuf::from("/data/x");
        l.exe = PathBuf::from("/opt/l\r/localm");
        assert!(l.check().is_err());
    }

    #[test]
    fn unit_words_are_escaped() {
        assert_eq!(systemd_word("/a/b"), "/a/b");
        assert_eq!(systemd_word("/a b/c"), "\"/a b/c\"");
        assert_eq!(systemd_word("50%$"), "50%%$$");
        assert_eq!(systemd_word("a\"b"), "\"a\\\"b\"");
    }
}
