//! File events: notify on the sessions folder and on the data dir (settings.json, jobs.json),
//! classified and sent to the event loop. No polling: the OS wakes us.

use std::path::{Path, PathBuf};

use notify::event::{AccessKind, AccessMode};
use notify::{EventKind, RecommendedWatcher, RecursiveMode, Watcher};
use tokio::sync::mpsc::UnboundedSender;

/// A change the daemon cares about.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FsEvent {
    /// A session log was written.
    Sessions,
    /// settings.json changed.
    Settings,
    /// jobs.json changed.
    Jobs,
}

/// Watch `data_dir` and `data_dir/sessions` (which must exist). Keep the watcher alive.
pub fn start(data_dir: &Path, tx: UnboundedSender<FsEvent>) -> notify::Result<RecommendedWatcher> {
    let sessions: PathBuf = data_dir.join("sessions");
    let sessions_for_cb = sessions.clone();
    let mut watcher = notify::recommended_watcher(move |res: notify::Result<notify::Event>| {
        let Ok(event) = res else { return };
        if !relevant(&event.kind) {
            return;
        }
        for path in &event.paths {
            if let Some(ev) = classify(path, &sessions_for_cb) {
                let _ = tx.send(ev);
            }
        }
    })?;
    watcher.watch(data_dir, RecursiveMode::NonRecursive)?;
    watcher.watch(&sessions, RecursiveMode::NonRecursive)?;
    Ok(watcher)
}

fn relevant(kind: &EventKind) -> bool {
    matches!(
        kind,
        EventKind::Create(_)
            | EventKind::Modify(_)
            | EventKind::Remove(_)
            | EventKind::Access(AccessKind::Close(AccessMode::Write))
    )
}

fn classify(path: &Path, sessions: &Path) -> Option<FsEvent> {
    if path.parent() == Some(sessions) {
        return (path.extension().and_then(|e| e.to_str()) == Some("jsonl"))
            .then_some(FsEvent::Sessions);
    }
    match path.file_name()?.to_str()? {
        "settings.json" => Some(FsEvent::Settings),
        "jobs.json" => Some(FsEvent::Jobs),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classifies_only_what_the_daemon_watches() {
        let s = Path::new("/d/sessions");
        assert_eq!(
            classify(Path::new("/d/sessions/a.jsonl"), s),
            Some(FsEvent::Sessions)
        );
        assert_eq!(classify(Path::new("/d/sessions/a.tmp"), s), None);
        assert_eq!(
            classify(Path::new("/d/settings.json"), s),
            Some(FsEvent::Settings)
        );
        assert_eq!(classify(Path::new("/d/jobs.json"), s), Some(FsEvent::Jobs));
        assert_eq!(classify(Path::new("/d/.settings.json.tmp"), s), None);
        assert_eq!(classify(Path::new("/d/memory.jsonl"), s), None);
    }
}
