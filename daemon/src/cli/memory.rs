//! `localm memory …`: the store on the terminal — list, show, add, forget, forgotten, restore,
//! corrections, accept, reject, clear.

use std::io::{BufRead, IsTerminal, Write};

use anyhow::Context as _;
use chrono::Utc;
use clap::{Subcommand, ValueEnum};
use localm_core::legacy::LEGACY_FILE;
use localm_core::manage::{self, Added, Ctx, Force, ManageError};
use localm_core::printable::visible;
use localm_core::record::Record;
use localm_core::store::corrections::{Correction, CorrectionOp};
use localm_core::store::{Committed, Store};
use localm_core::{Kind, Source};

use super::Context;
use super::output::{self, print};
use crate::exit::{Code, coded};

#[derive(Debug, Subcommand)]
pub enum MemoryCommand {
    /// What localm has remembered about you (session summaries with --all).
    List {
        /// Also list episodic session summaries (JSON always has every record).
        #[arg(long)]
        all: bool,
        /// Print {"records": [...]} with every live record, for scripts.
        #[arg(long)]
        json: bool,
    },
    /// One fact in full, with its provenance.
    Show {
        /// The fact's id or a unique prefix of it.
        id: String,
        #[arg(long)]
        json: bool,
    },
    /// Save a fact yourself (source "user").
    Add {
        /// The fact, at most 500 characters.
        text: String,
        /// semantic: a standing fact; episodic: something that happened.
        #[arg(long, value_enum, default_value = "semantic")]
        kind: KindArg,
        /// Weight for recall and pruning, from 0 to 1.
        #[arg(long, default_value_t = 0.8, value_parser = parse_importance)]
        importance: f32,
        /// Store it even if it holds a secret (a PIN, password, key, card or account number).
        /// Recall still never puts such a fact into a prompt.
        #[arg(long)]
        force: bool,
    },
    /// Delete one fact outright (not archived, not recoverable).
    Forget {
        /// The fact's id or a unique prefix of it.
        id: String,
        /// Do not ask for confirmation.
        #[arg(short = 'y', long = "yes")]
        yes: bool,
    },
    /// Facts localm archived on its own (evicted at the cap, decayed, expired, or superseded).
    Forgotten {
        #[arg(long)]
        json: bool,
    },
    /// Bring an archived fact back.
    Restore {
        /// The archived fact's id or a unique prefix of it.
        id: String,
    },
    /// Proposals waiting for your review.
    Corrections {
        #[arg(long)]
        json: bool,
    },
    /// Apply one proposal (the old value is archived first).
    Accept {
        /// The proposal's id or a unique prefix of it.
        id: String,
    },
    /// Dismiss one proposal; the fact stays as is and it is not proposed again.
    Reject {
        /// The proposal's id or a unique prefix of it.
        id: String,
    },
    /// Run the recall a chat turn would get for TEXT (reads only; nothing is reinforced).
    Recall {
        /// The chat message to recall for.
        text: String,
        /// Print {"block", "items", "degrade", "header"} for scripts.
        #[arg(long)]
        json: bool,
        /// Also show every candidate's relevance, recency, importance, gate decision and score.
        #[arg(long)]
        explain: bool,
    },
    /// Distil facts from recent session logs now (needs a model; see setup-model).
    Consolidate {
        /// Print {"status", "reason", "added", "updated", "deleted", "proposed", "episodic", ...}.
        #[arg(long)]
        json: bool,
        /// Also show every clause of yours the pass read: kept (as what), joined to the fact
        /// before it, or the rule that dropped it and why, with every rule that fired on the way.
        #[arg(long)]
        explain: bool,
    },
    /// Embed facts that lack a vector from the installed embedding model.
    Backfill {
        /// Embed at most N facts.
        #[arg(long, value_name = "N")]
        limit: Option<usize>,
    },
    /// Erase everything: facts, the archive, and corrections.
    Clear {
        /// Do not ask for confirmation.
        #[arg(short = 'y', long = "yes")]
        yes: bool,
    },
}

#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum KindArg {
    Semantic,
    Episodic,
}

impl From<KindArg> for Kind {
    fn from(k: KindArg) -> Kind {
        match k {
            KindArg::Semantic => Kind::Semantic,
            KindArg::Episodic => Kind::Episodic,
        }
    }
}

fn parse_importance(s: &str) -> anyhow::Result<f32> {
    let v: f32 = s
        .parse()
        .map_err(|_| anyhow::anyhow!("{s:?} is not a number from 0 to 1"))?;
    anyhow::ensure!((0.0..=1.0).contains(&v), "{s} is outside 0 to 1");
    Ok(v)
}

pub fn run(ctx: &Context, cmd: MemoryCommand) -> anyhow::Result<()> {
    let store = Store::new(&ctx.data_dir, "chat", holder_name());
    let mctx = Ctx {
        store: &store,
        mode: ctx.mode,
        legacy_file: ctx.data_dir.join(LEGACY_FILE),
        now: Utc::now(),
        via: "cli",
    };
    match cmd {
        MemoryCommand::List { all, json } => list(&store, all, json),
        MemoryCommand::Show { id, json } => show(&store, &id, json),
        MemoryCommand::Add {
            text,
            kind,
            importance,
            force,
        } => {
            let force = Force { secrets: force };
            let added = manage::add_with(
                &mctx,
                Source::User,
                &text,
                kind.into(),
                Some(importance),
                force,
            )
            .map_err(|e| match e {
                ManageError::Secret(_) => coded(
                    Code::Secret,
                    format!("{e}. Pass --force to store it anyway"),
                ),
                e => e.into(),
            });
            let added = done(added)?;
            match added {
                Added::New(r) => print(&format!("remembered {}: {}\n", r.id, r.text)),
                Added::Existing(r) => {
                    print(&format!("already remembered as {}: {}\n", r.id, r.text))
                }
            }
            Ok(())
        }
        MemoryCommand::Forget { id, yes } => {
            let snap = read(&store)?;
            let rec = &snap.records[manage::find_record(&snap, &id)?];
            confirm(
                yes,
                "forget",
                &format!(
                    "Forget {} \"{}\"? It is deleted, not archived.",
                    rec.id, rec.text
                ),
            )?;
            let exact = rec.id.clone();
            let gone = done(manage::forget(&mctx, &exact))?;
            print(&format!("forgot {}: {}\n", gone.id, gone.text));
            Ok(())
        }
        MemoryCommand::Forgotten { json } => forgotten(&store, json),
        MemoryCommand::Restore { id } => {
            let rec = done(manage::restore(&mctx, &id))?;
            print(&format!("restored {}: {}\n", rec.id, rec.text));
            Ok(())
        }
        MemoryCommand::Corrections { json } => {
            if !ctx.mode.allows_writes() {
                eprintln!(
                    "localm: privacy mode: corrections are not listed (listing prunes the proposal file, which is a write)"
                );
            }
            let pending = done(manage::corrections(&mctx))?;
            corrections(&pending, json);
            Ok(())
        }
        MemoryCommand::Accept { id } => {
            let (c, rec) = done(manage::accept(&mctx, &id))?;
            match rec {
                Some(r) => print(&format!(
                    "applied {}: {} now reads: {} (old value archived)\n",
                    c.id, r.id, r.text
                )),
                None => print(&format!(
                    "applied {}: deleted {} (archived; `localm memory restore` brings it back)\n",
                    c.id, c.target
                )),
            }
            Ok(())
        }
        MemoryCommand::Reject { id } => {
            let c = done(manage::reject(&mctx, &id))?;
            print(&format!(
                "dismissed {}; {} stays: {}\n",
                c.id, c.target, c.old_text
            ));
            Ok(())
        }
        MemoryCommand::Recall {
            text,
            json,
            explain,
        } => super::recall::run_recall(ctx, &store, &text, json, explain),
        MemoryCommand::Consolidate { json, explain } => super::consolidate::run(ctx, json, explain),
        MemoryCommand::Backfill { limit } => super::recall::run_backfill(ctx, &store, limit),
        MemoryCommand::Clear { yes } => {
            let snap = read(&store)?;
            confirm(
                yes,
                "clear",
                &format!(
                    "Erase all {} facts, {} archived and {} corrections? This cannot be undone.",
                    snap.records.len(),
                    snap.archive.len(),
                    snap.corrections.len()
                ),
            )?;
            let r = manage::clear(&mctx)?;
            print(&format!(
                "erased {} facts, {} archived, {} corrections; no fact text is left on disk\n",
                r.records, r.archived, r.corrections
            ));
            Ok(())
        }
    }
}

/// Who we are, for the lock file: `localm memory add`.
fn holder_name() -> String {
    let args: Vec<String> = std::env::args().skip(1).take(2).collect();
    format!("localm {}", args.join(" "))
}

fn read(store: &Store) -> anyhow::Result<localm_core::store::Snapshot> {
    let snap = store
        .read()
        .with_context(|| format!("while reading the store in {}", store.dir().display()))?;
    output::warn_corrupt(&snap.corrupt, false);
    Ok(snap)
}

/// Unwrap a committed write, reporting any unreadable lines it moved aside.
fn done<T, E: Into<anyhow::Error>>(r: Result<Committed<T>, E>) -> anyhow::Result<T> {
    let c = r.map_err(Into::into)?;
    output::warn_corrupt(&c.corrupt_moved, true);
    Ok(c.value)
}

/// Ask on the terminal unless `-y`; with no terminal and no `-y`, refuse.
fn confirm(yes: bool, what: &str, question: &str) -> anyhow::Result<()> {
    if yes {
        return Ok(());
    }
    let stdin = std::io::stdin();
    if !stdin.is_terminal() {
        return Err(coded(
            Code::NotConfirmed,
            format!("{what} needs confirmation and there is no terminal to ask on; pass -y"),
        ));
    }
    eprint!("{question} [y/N] ");
    let _ = std::io::stderr().flush();
    let mut answer = String::new();
    stdin.lock().read_line(&mut answer)?;
    if matches!(answer.trim().to_ascii_lowercase().as_str(), "y" | "yes") {
        Ok(())
    } else {
        Err(coded(
            Code::NotConfirmed,
            format!("{what} not confirmed; nothing was changed"),
        ))
    }
}

fn list(store: &Store, all: bool, as_json: bool) -> anyhow::Result<()> {
    let snap = read(store)?;
    let mut records: Vec<&Record> = snap.records.iter().collect();
    records.sort_by(|a, b| {
        (a.kind as u8, a.created_at, &a.id).cmp(&(b.kind as u8, b.created_at, &b.id))
    });
    if as_json {
        output::json_under("records", &records);
        return Ok(());
    }
    let hidden = if all {
        0
    } else {
        records.iter().filter(|r| r.kind == Kind::Episodic).count()
    };
    let shown: Vec<&&Record> = records
        .iter()
        .filter(|r| all || r.kind == Kind::Semantic)
        .collect();
    if shown.is_empty() && hidden == 0 {
        print("nothing remembered yet\n");
        return Ok(());
    }
    let rows: Vec<Vec<String>> = shown
        .iter()
        .map(|r| {
            vec![
                r.id.clone(),
                r.kind.as_str().into(),
                r.source.as_str().into(),
                format!("{:.2}", r.importance),
                match r.valid_until {
                    Some(t) => format!("{} (until {})", visible(&r.text), t.format("%Y-%m-%d")),
                    None => visible(&r.text).into_owned(),
                },
            ]
        })
        .collect();
    let mut text = output::table(&["ID", "KIND", "SOURCE", "IMP", "TEXT"], &rows);
    if hidden > 0 {
        let s = if hidden == 1 { "y" } else { "ies" };
        text.push_str(&format!(
            "({hidden} session summar{s} not shown; --all lists them)\n"
        ));
    }
    print(&text);
    Ok(())
}

fn show(store: &Store, id: &str, as_json: bool) -> anyhow::Result<()> {
    let snap = read(store)?;
    let r = &snap.records[manage::find_record(&snap, id)?];
    if as_json {
        output::json(r);
        return Ok(());
    }
    let recalled = match (r.recall_count, r.last_recalled_at) {
        (0, _) | (_, None) => "never".to_string(),
        (n, Some(t)) => format!("{n} times, last {}", output::exact(t)),
    };
    let mut prov = Vec::new();
    if let Some(via) = &r.provenance.via {
        prov.push(format!("via {via}"));
    }
    if !r.provenance.sessions.is_empty() {
        prov.push(format!("sessions {}", r.provenance.sessions.join(", ")));
    }
    if let Some(pass) = &r.provenance.pass {
        prov.push(format!("pass {pass}"));
    }
    let mut rows = vec![
        vec!["id".into(), r.id.clone()],
        vec!["text".into(), visible(&r.text).into_owned()],
        vec!["kind".into(), r.kind.as_str().into()],
        vec!["source".into(), r.source.as_str().into()],
        vec!["importance".into(), format!("{:.2}", r.importance)],
        vec!["created".into(), output::exact(r.created_at)],
        vec!["updated".into(), output::exact(r.updated_at)],
        vec!["recalled".into(), recalled],
        vec!["provenance".into(), prov.join("; ")],
    ];
    // Said to hold for a time ("for the next two weeks"): recalled until then, then archived.
    if let Some(until) = r.valid_until {
        rows.insert(5, vec!["valid until".into(), output::exact(until)]);
    }
    // The user's own words the fact was written from, oldest first.
    for e in &r.provenance.evidence {
        rows.push(vec![
            "evidence".into(),
            format!(
                "\"{}\" (session {}, line {})",
                visible(&e.quote),
                visible(&e.session),
                e.line
            ),
        ]);
    }
    let table = output::table(&["", ""], &rows);
    // Drop the empty header line.
    print(table.split_once('\n').map(|(_, rest)| rest).unwrap_or(""));
    Ok(())
}

fn forgotten(store: &Store, as_json: bool) -> anyhow::Result<()> {
    let snap = read(store)?;
    if as_json {
        output::json_under("forgotten", &snap.archive);
        return Ok(());
    }
    if snap.archive.is_empty() {
        print("nothing archived\n");
        return Ok(());
    }
    let rows: Vec<Vec<String>> = snap
        .archive
        .iter()
        .map(|a| {
            vec![
                a.record.id.clone(),
                a.reason.as_str().into(),
                output::when(a.archived_at),
                a.record.source.as_str().into(),
                visible(&a.record.text).into_owned(),
            ]
        })
        .collect();
    print(&output::table(
        &["ID", "REASON", "ARCHIVED", "SOURCE", "TEXT"],
        &rows,
    ));
    Ok(())
}

fn corrections(pending: &[Correction], as_json: bool) {
    if as_json {
        output::json_under("corrections", pending);
        return;
    }
    if pending.is_empty() {
        print("no corrections waiting\n");
        return;
    }
    let rows: Vec<Vec<String>> = pending
        .iter()
        .map(|c| {
            let change = match (c.op, &c.new_text) {
                (CorrectionOp::Update, Some(new)) => {
                    format!("{}  →  {}", visible(&c.old_text), visible(new))
                }
                _ => format!("delete: {}", visible(&c.old_text)),
            };
            vec![
                c.id.clone(),
                c.target.clone(),
                format!("{:.2}", c.confidence),
                change,
            ]
        })
        .collect();
    print(&output::table(&["ID", "FACT", "CONF", "CHANGE"], &rows));
}
