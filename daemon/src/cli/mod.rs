//! The command line: the clap definitions (no side effects) and dispatch to one file per group.

pub mod consolidate;
pub mod job;
pub mod manual;
pub mod memory;
pub mod open;
pub mod output;
pub mod plugin;
pub mod recall;
pub mod service;
pub mod settings;
pub mod setup;
pub mod status;
pub mod token;

use std::net::SocketAddr;
use std::path::PathBuf;

use clap::{Args, CommandFactory, Parser, Subcommand, ValueEnum};
use localm_core::settings::{Mode, Settings};

use crate::config::{Config, Env, Overrides};
use crate::exit::{Code, coded};
use crate::paths;

/// localm memory: durable, private memory for a local LLM chat app.
///
/// Remembers a small set of facts about you and one-line summaries of past sessions, in a plain
/// JSONL store on this machine. Nothing leaves the machine.
#[derive(Debug, Parser)]
#[command(
    name = "localm",
    version,
    propagate_version = true,
    max_term_width = 100
)]
pub struct Cli {
    #[command(flatten)]
    pub global: Global,
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Args)]
pub struct Global {
    /// Data dir [default: the platform data dir, e.g. ~/.local/share/localm]
    #[arg(long, global = true, env = "LOCALM_DATA_DIR", value_name = "DIR")]
    pub data_dir: Option<PathBuf>,
    /// Session mode for this command: privacy writes nothing; log and full let memory grow.
    /// Overrides LOCALM_MODE and settings.json.
    #[arg(long, global = true, value_enum, value_name = "MODE")]
    pub mode: Option<ModeArg>,
}

#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum ModeArg {
    Privacy,
    Log,
    Full,
}

impl From<ModeArg> for Mode {
    fn from(m: ModeArg) -> Mode {
        match m {
            ModeArg::Privacy => Mode::Privacy,
            ModeArg::Log => Mode::Log,
            ModeArg::Full => Mode::Full,
        }
    }
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Run the memory service: watch session logs, consolidate, run jobs, serve the socket.
    #[command(after_help = "Environment:\n  \
        LOCALM_MEMORY_AUTO_INTERVAL      seconds between automatic passes, at most one per interval [900]\n  \
        LOCALM_MEMORY_BACKFILL_INTERVAL  seconds between embedding sweeps [3600]\n  \
        LOCALM_MODE                      the mode, over settings.json (--mode overrides both)\n  \
        LOCALM_CHAT_IDLE                 seconds before an idle chat worker is stopped [300]\n  \
        LOCALM_CHAT_UPSTREAM_KEY         bearer token sent to the chat upstream\n  \
        RUST_LOG                         log filter, over -v\n\n\
        Signals: SIGTERM/SIGINT stop cleanly (exit 0); SIGHUP reloads settings.json and jobs.json.")]
    Daemon(DaemonArgs),
    /// Where things stand: mode, plugin, daemon, models, records, last pass, next job.
    Status {
        #[arg(long)]
        json: bool,
    },
    /// Show settings.json, or get or set one key.
    Settings {
        #[command(subcommand)]
        cmd: Option<settings::SettingsCommand>,
        /// Print every setting as JSON.
        #[arg(long)]
        json: bool,
    },
    /// Open the memory page in the browser, logged in.
    ///
    /// Prints a one-time login link (valid once, for 60 s) from the running daemon, which must
    /// have a loopback listener (`localm daemon --listen 127.0.0.1:PORT`), and opens it where
    /// there is a desktop.
    Open {
        /// Only print the link.
        #[arg(long)]
        no_browser: bool,
    },
    /// Manage the memory store directly (works with or without the daemon).
    #[command(subcommand)]
    Memory(memory::MemoryCommand),
    /// The memory plugin: the chat recall and consolidation hooks and the /api/memory routes.
    #[command(subcommand)]
    Plugin(plugin::PluginCommand),
    /// Scheduled jobs (run by the daemon).
    #[command(subcommand)]
    Job(job::JobCommand),
    /// Run the daemon as a systemd user service or a launchd agent.
    #[command(subcommand)]
    Service(service::ServiceCommand),
    /// The loopback listener's bearer token (<data dir>/api-token): show it, or rotate it.
    #[command(subcommand)]
    Token(token::TokenCommand),
    /// Install the embedding model for semantic recall (bge-small-en-v1.5, or
    /// multilingual-e5-small with --multilingual), then embed the existing facts.
    SetupEmbeddings {
        /// Install from a local sentence-transformers folder instead of downloading.
        #[arg(long, value_name = "DIR")]
        from: Option<PathBuf>,
        /// Download multilingual-e5-small (about 100 languages, and recall across them)
        /// instead of the English bge-small-en-v1.5.
        #[arg(long, conflicts_with = "from")]
        multilingual: bool,
    },
    /// Install the language model consolidation runs on (a GGUF), downloaded or copied.
    SetupModel {
        /// Install from a local GGUF file instead of downloading.
        #[arg(long, value_name = "FILE")]
        from: Option<PathBuf>,
    },
    /// Serve memory as MCP tools on stdio, for an MCP host (e.g. an editor or a desktop chat
    /// app): memory_recall, and memory_append with --memory-write. Both are refused while the
    /// mode is privacy.
    Mcp(McpArgs),
    /// The chat worker the daemon starts: holds the chat model and serves replies over
    /// stdin/stdout (internal).
    #[command(hide = true)]
    ChatWorker {
        #[arg(long, value_name = "FILE")]
        model: PathBuf,
        #[arg(long)]
        threads: Option<usize>,
    },
    /// Print shell completions for SHELL to stdout.
    Completions {
        #[arg(value_enum)]
        shell: clap_complete::Shell,
    },
    /// Write the man pages (localm.1 and one per subcommand) into DIR (used by
    /// scripts/package).
    #[command(hide = true)]
    ManPages {
        #[arg(value_name = "DIR")]
        dir: PathBuf,
    },
}

#[derive(Debug, Args)]
pub struct DaemonArgs {
    /// The control socket [default: $XDG_RUNTIME_DIR/localm/memory.sock, else
    /// <data dir>/run/memory.sock]. A missing folder is created 0700; an existing one is used as
    /// it is. Only a stale socket at PATH is ever replaced.
    #[arg(long, value_name = "PATH")]
    pub socket: Option<PathBuf>,
    /// Also serve the API and the memory page on this address (e.g. 127.0.0.1:8765; port 0
    /// picks a free one), guarded by the token in <data dir>/api-token for programs and by
    /// `localm open`'s one-time login for the browser. Off by default (the listen setting is
    /// used when this is not given). A non-loopback address (e.g. 0.0.0.0:8765, for apps in
    /// containers) is served to the token only, answering to the allowed_hosts names too.
    #[arg(long, value_name = "ADDR")]
    pub listen: Option<SocketAddr>,
    /// Chat replies come from this OpenAI-compatible server (its base URL, e.g.
    /// http://127.0.0.1:8080/v1 for llama-server) instead of the local model; localm adds memory
    /// in front of it. Overrides the chat_upstream setting.
    #[arg(long, value_name = "URL", value_parser = parse_upstream)]
    pub chat_upstream: Option<String>,
    /// More log detail: -v debug, -vv trace (RUST_LOG overrides).
    #[arg(short, long, action = clap::ArgAction::Count)]
    pub verbose: u8,
}

#[derive(Debug, Args)]
pub struct McpArgs {
    /// Also offer memory_append, which saves facts a model writes (as source synth).
    #[arg(long)]
    pub memory_write: bool,
    /// Do not offer memory_recall: the client cannot read memory.
    #[arg(long)]
    pub no_memory: bool,
    /// Serve MCP over Streamable HTTP at http://ADDR/mcp instead of stdio (e.g. 127.0.0.1:8766;
    /// port 0 picks a free one), for hosts that speak only HTTP such as Open WebUI. Every request
    /// needs the token in <data dir>/api-token as `Authorization: Bearer TOKEN` and a Host naming
    /// the address (or localhost, or an allowed_hosts name).
    #[arg(long, value_name = "ADDR")]
    pub http: Option<SocketAddr>,
}

fn parse_upstream(v: &str) -> anyhow::Result<String> {
    match localm_core::settings::keys::parse_url(v) {
        Some(Some(url)) => Ok(url),
        _ => anyhow::bail!("expected an http:// or https:// base URL"),
    }
}

/// What every command needs: where the data is, what is in force, and the environment's
/// settings, each resolved once here and handed down.
pub struct Context {
    pub data_dir: PathBuf,
    pub settings: Settings,
    pub mode: Mode,
    /// Every `LOCALM_*` setting, typed ([`Env::read`] at start).
    pub env: Env,
    /// `--mode` and `LOCALM_MODE`, laid over settings.json again by the daemon's reloads and
    /// MCP's calls.
    pub overrides: Overrides,
}

impl Context {
    fn resolve(global: &Global, env: Env) -> anyhow::Result<Context> {
        let data_dir = paths::data_dir(global.data_dir.clone())?;
        let overrides = Overrides {
            mode: global.mode.map(Mode::from),
            env_mode: env.mode.clone(),
            chat_upstream: None,
        };
        let Config { settings, mode, .. } = Config::load(&data_dir, &overrides)?;
        Ok(Context {
            data_dir,
            settings,
            mode,
            env,
            overrides,
        })
    }
}

pub fn run(cli: Cli) -> anyhow::Result<()> {
    // Every LOCALM_* variable, read once by the command that runs: a bad value stops it before
    // it does anything.
    let env = || -> anyhow::Result<Env> {
        let env = Env::read().map_err(|e| coded(Code::Usage, e.to_string()))?;
        crate::models::llama::forward_log(env.llama_log);
        Ok(env)
    };
    let ctx = || Context::resolve(&cli.global, env()?);
    match cli.command {
        Command::ChatWorker { model, threads } => {
            env()?;
            crate::chat::worker::main(&model, threads)
        }
        Command::Completions { shell } => {
            let mut cmd = Cli::command();
            clap_complete::generate(shell, &mut cmd, "localm", &mut std::io::stdout());
            Ok(())
        }
        Command::ManPages { dir } => manual::write(Cli::command(), &dir),
        Command::SetupEmbeddings { from, multilingual } => {
            setup::embeddings(&ctx()?, from.as_deref(), multilingual)
        }
        Command::SetupModel { from } => setup::model(&ctx()?, from.as_deref()),
        Command::Memory(cmd) => memory::run(&ctx()?, cmd),
        Command::Daemon(args) => {
            crate::service::init_logging(args.verbose);
            let ctx = ctx()?;
            crate::service::main(crate::service::DaemonOptions {
                data_dir: ctx.data_dir,
                overrides: Overrides {
                    chat_upstream: args.chat_upstream,
                    ..ctx.overrides
                },
                socket: args.socket,
                listen: args.listen,
                intervals: ctx.env.intervals,
                deadlines: ctx.env.deadlines,
                chat: ctx.env.chat,
            })
        }
        Command::Mcp(args) => {
            crate::service::init_logging(0);
            let ctx = ctx()?;
            crate::mcp::main(crate::mcp::McpOptions {
                data_dir: ctx.data_dir,
                overrides: ctx.overrides,
                mode: ctx.mode,
                tools: crate::mcp::Tools {
                    recall: !args.no_memory,
                    append: args.memory_write,
                },
                http: args.http,
                deadlines: ctx.env.deadlines,
            })
        }
        Command::Open { no_browser } => open::run(&ctx()?, !no_browser),
        Command::Status { json } => status::run(&ctx()?, json),
        Command::Settings { cmd, json } => settings::run(&ctx()?, cmd, json),
        Command::Plugin(cmd) => plugin::run(&ctx()?, cmd),
        Command::Job(cmd) => job::run(&ctx()?, cmd),
        Command::Service(cmd) => service::run(cmd, cli.global.data_dir.as_deref()),
        Command::Token(cmd) => token::run(&ctx()?, cmd),
    }
}
