//! `localm job add|list|rm|run`: scheduled jobs in jobs.json. The daemon picks up changes at
//! once and records each run's outcome; `job run` runs one now, here.

use chrono::Utc;
use clap::{ArgGroup, Subcommand};
use localm_core::consolidate::Status;
use localm_core::jobs::{self, Job, JobError, RunOutcome, Schedule, Task};
use serde_json::json;

use super::Context;
use super::consolidate;
use super::output::{self, print};
use crate::exit::{Code, coded};

#[derive(Debug, Subcommand)]
pub enum JobCommand {
    /// Schedule a job: `localm job add distil-memory --memory --every 6h`.
    #[command(group(ArgGroup::new("when").required(true).args(["every", "cron"])))]
    Add {
        /// A name: letters, digits, '.', '_' or '-'.
        name: String,
        /// The job distils memory from recent sessions (a consolidation pass).
        #[arg(long)]
        memory: bool,
        /// Run every DURATION: seconds (21600) or a duration (6h, 90m).
        #[arg(long, value_name = "DURATION")]
        every: Option<String>,
        /// Run on a cron schedule, in local time: "0 3 * * *".
        #[arg(long, value_name = "EXPR")]
        cron: Option<String>,
    },
    /// The jobs, their schedule, next run and last outcome.
    List {
        #[arg(long)]
        json: bool,
    },
    /// Remove a job.
    Rm { name: String },
    /// Run a job now, in this process, and record its outcome.
    Run {
        name: String,
        #[arg(long)]
        json: bool,
    },
}

fn job_err(e: JobError) -> anyhow::Error {
    let code = match e {
        JobError::NotFound(_) => Code::NotFound,
        JobError::Lock(_) => Code::Busy,
        JobError::Io(_) | JobError::Invalid { .. } => Code::Failure,
        _ => Code::Usage,
    };
    coded(code, e.to_string())
}

pub fn run(ctx: &Context, cmd: JobCommand) -> anyhow::Result<()> {
    match cmd {
        JobCommand::Add {
            name,
            memory,
            every,
            cron,
        } => {
            if !memory {
                return Err(coded(
                    Code::Usage,
                    "say what the job does: --memory (distil memory from recent sessions)",
                ));
            }
            let schedule = match (every, cron) {
                (Some(e), _) => Schedule::every(&e),
                (None, Some(c)) => Schedule::cron(&c),
                (None, None) => unreachable!("clap requires --every or --cron"),
            }
            .map_err(job_err)?;
            let job = Job {
                name: name.clone(),
                task: Task::Memory,
                schedule,
                created_at: Utc::now(),
                last_run: None,
            };
            let next = job.next_run();
            let about = job.schedule.describe();
            jobs::update(&ctx.data_dir, "localm job add", |f| f.add(job)).map_err(job_err)?;
            print(&format!(
                "job {name} added: memory, {about}; next run {}\n",
                output::when(next)
            ));
        }
        JobCommand::List { json: as_json } => {
            let file = jobs::load(&ctx.data_dir).map_err(job_err)?;
            if as_json {
                let v: Vec<_> = file
                    .jobs
                    .iter()
                    .map(|j| {
                        let mut v = json!(j);
                        v["next_run"] = json!(j.next_run());
                        v["schedule"] = json!(j.schedule.describe());
                        v
                    })
                    .collect();
                output::json(&json!({"jobs": v}));
                return Ok(());
            }
            if file.jobs.is_empty() {
                print("no jobs; add one with `localm job add NAME --memory --every 6h`\n");
                return Ok(());
            }
            let rows: Vec<Vec<String>> = file
                .jobs
                .iter()
                .map(|j| {
                    vec![
                        j.name.clone(),
                        "memory".into(),
                        j.schedule.describe(),
                        output::when(j.next_run()),
                        j.last_run.as_ref().map_or("never".into(), last_run),
                    ]
                })
                .collect();
            print(&output::table(
                &["NAME", "TASK", "SCHEDULE", "NEXT RUN", "LAST RUN"],
                &rows,
            ));
        }
        JobCommand::Rm { name } => {
            jobs::update(&ctx.data_dir, "localm job rm", |f| f.remove(&name)).map_err(job_err)?;
            print(&format!("job {name} removed\n"));
        }
        JobCommand::Run {
            name,
            json: as_json,
        } => {
            jobs::load(&ctx.data_dir)
                .map_err(job_err)?
                .get(&name)
                .map_err(job_err)?;
            let started_at = Utc::now();
            let result = consolidate::pass(ctx, Default::default());
            let finished_at = Utc::now();
            let outcome = match &result {
                Ok(r) => RunOutcome::from_report("manual", started_at, finished_at, r),
                Err(e) => RunOutcome::failed("manual", started_at, finished_at, format!("{e:#}")),
            };
            print_outcome(&name, &outcome, as_json);
            jobs::update(&ctx.data_dir, "localm job run", |f| {
                f.record(&name, outcome)
            })
            .map_err(job_err)?;
            result?;
        }
    }
    Ok(())
}

fn print_outcome(name: &str, o: &RunOutcome, as_json: bool) {
    if as_json {
        output::json(o);
    } else {
        print(&format!("job {name}: {}\n", last_run(o)));
    }
}

/// One line: when, status, counts or the error.
fn last_run(o: &RunOutcome) -> String {
    let secs = (o.finished_at - o.started_at).num_milliseconds() as f64 / 1e3;
    let mut s = format!("{} {} ({secs:.1}s)", output::when(o.started_at), o.status);
    if o.status == Status::Ok {
        s.push_str(&format!(": {}", o.counts.sentence()));
    }
    if let Some(r) = &o.reason {
        s.push_str(&format!(": {r}"));
    }
    s
}
