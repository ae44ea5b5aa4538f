//! Atomic file replacement: write a temp file beside the target (created new, 0600, never
//! through a symlink), fsync it, rename it over the target, fsync the folder. A reader sees the
//! old file or the new one, never half of either.
//!
//! A file that is a symbolic link is written through: the target is the file the link finally
//! points to ([`resolve`]), its temp file is made beside that, and the link is kept. Replacing the
//! link itself would leave the old bytes (a forgotten fact, an old token) in what it pointed to.
//! This is the one rule for every file localm replaces (the store's, `settings.json`,
//! `api-token`, `jobs.json`); [`remove_through`] removes what a link points to, for the same
//! reason.

use std::fs::{self, File, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

/// Links followed at most, as the kernel does (ELOOP past it).
const MAX_LINKS: usize = 40;

/// Replace `path` (or, when it is a link, the file it points to) with `bytes` atomically. Files
/// are private to the owner (0600).
pub fn write_atomic(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let staged = stage(path, bytes)?;
    let target = staged.target.clone();
    staged.install()?;
    sync_dir(&target)
}

/// The file a write of `path` replaces: `path`, or when it is a symbolic link the file it points
/// to in the end (each link read relative to its own folder; the last may not exist yet).
pub fn resolve(path: &Path) -> io::Result<PathBuf> {
    let mut at = path.to_path_buf();
    for _ in 0..MAX_LINKS {
        match fs::symlink_metadata(&at) {
            Ok(m) if m.file_type().is_symlink() => {
                let to = fs::read_link(&at)?;
                at = match at.parent() {
                    Some(dir) => dir.join(to),
                    None => to,
                };
            }
            _ => return Ok(at),
        }
    }
    Err(io::Error::other(format!(
        "{}: more than {MAX_LINKS} symbolic links in a row",
        path.display()
    )))
}

/// A temp file written and fsynced beside its target, not yet renamed over it. Dropped without
/// `install`, it is removed.
#[must_use = "a staged file is removed unless installed"]
pub struct Staged {
    tmp: PathBuf,
    target: PathBuf,
    installed: bool,
}

/// Write `bytes` to a fresh temp file beside `path` (beside its target, when it is a link) and
/// fsync it; `path` is not touched yet.
pub fn stage(path: &Path, bytes: &[u8]) -> io::Result<Staged> {
    let target = resolve(path)?;
    let staged = Staged {
        tmp: temp_path(&target),
        target,
        installed: false,
    };
    hook::step(Step::Create, &staged.tmp)?;
    let mut file = create_temp(&staged.tmp)?;
    hook::step(Step::Write, &staged.tmp)?;
    file.write_all(bytes)?;
    hook::step(Step::Sync, &staged.tmp)?;
    file.sync_all()?;
    Ok(staged)
}

impl Staged {
    /// Rename the temp file over the target: from here on a reader sees the new bytes. Not yet
    /// durable: `sync_dir` the folder for that.
    pub fn install(mut self) -> io::Result<()> {
        hook::step(Step::Rename, &self.target)?;
        fs::rename(&self.tmp, &self.target)?;
        self.installed = true;
        Ok(())
    }
}

impl Drop for Staged {
    fn drop(&mut self) {
        if !self.installed && hook::step(Step::Remove, &self.tmp).is_ok() {
            let _ = fs::remove_file(&self.tmp);
        }
    }
}

/// Remove `path` if it exists, then fsync its folder so the removal is durable.
pub fn remove_durable(path: &Path) -> io::Result<()> {
    hook::step(Step::Remove, path)?;
    match fs::remove_file(path) {
        Ok(()) => sync_dir(path),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(e),
    }
}

/// Remove `path` durably; when it is a symbolic link, the file it points to first, then the
/// link, so nothing it held stays behind. (Not for names anyone else may plant a link at: a temp
/// name's leftover is removed with [`remove_durable`], the link alone.)
pub fn remove_through(path: &Path) -> io::Result<()> {
    let target = resolve(path)?;
    if target != path {
        remove_durable(&target)?;
    }
    remove_durable(path)
}

/// The temp name for one write of `path`: hidden, in the same folder (so rename is atomic), and
/// unique to this process and this write, so two threads never share one.
pub fn temp_path(path: &Path) -> PathBuf {
    static SERIAL: AtomicU64 = AtomicU64::new(0);
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let serial = SERIAL.fetch_add(1, Ordering::Relaxed);
    path.with_file_name(format!(".{name}.tmp-{}-{serial}", std::process::id()))
}

/// Whether a file name is one of our temp files (left behind by a process that died mid-write).
pub fn is_temp_name(name: &str) -> bool {
    name.starts_with('.') && name.contains(".tmp-")
}

/// Create the temp file `tmp`, new, private, never through a symlink (`O_CREAT | O_EXCL |
/// O_NOFOLLOW`). Its name is this process's and this write's alone, so whatever is already
/// there is stale — a leftover of a crashed process whose pid we reuse, or a link planted to
/// make us write elsewhere. It is unlinked (the link itself, not its target) and the file
/// created afresh, once; if something is there again, the write fails rather than follow it.
fn create_temp(tmp: &Path) -> io::Result<File> {
    match open_new_private(tmp) {
        Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {
            hook::step(Step::Remove, tmp)?;
            fs::remove_file(tmp)?;
            open_new_private(tmp)
        }
        other => other,
    }
}

#[cfg(unix)]
fn open_new_private(path: &Path) -> io::Result<File> {
    use std::os::unix::fs::OpenOptionsExt;
    OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .custom_flags(libc::O_NOFOLLOW)
        .open(path)
}

#[cfg(not(unix))]
fn open_new_private(path: &Path) -> io::Result<File> {
    OpenOptions::new().write(true).create_new(true).open(path)
}

/// fsync the folder holding `path`, making a rename or removal there durable.
#[cfg(unix)]
pub fn sync_dir(path: &Path) -> io::Result<()> {
    match path.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => {
            hook::step(Step::SyncDir, dir)?;
            File::open(dir)?.sync_all()
        }
        _ => Ok(()),
    }
}

#[cfg(not(unix))]
pub fn sync_dir(_path: &Path) -> io::Result<()> {
    Ok(())
}

/// One change this module makes to the disk, named for the test hook.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Step {
    /// Create a temp file.
    Create,
    Write,
    /// fsync a file.
    Sync,
    Rename,
    /// fsync a folder, making renames and removals in it durable.
    SyncDir,
    Remove,
}

/// Test builds only: a per-thread hook called before every step above, which can fail it (to
/// inject a crash or an I/O error at step N) or act on the disk first (plant a symlink). In other
/// builds `step` is an empty inline function.
#[cfg(test)]
pub mod hook {
    use std::cell::RefCell;
    use std::io;
    use std::path::Path;

    use super::Step;

    type Hook = Box<dyn FnMut(Step, &Path) -> io::Result<()>>;

    thread_local! {
        static HOOK: RefCell<Option<Hook>> = const { RefCell::new(None) };
    }

    /// Call `hook` before every step this thread takes, until `clear`.
    pub fn set(hook: impl FnMut(Step, &Path) -> io::Result<()> + 'static) {
        HOOK.with(|h| *h.borrow_mut() = Some(Box::new(hook)));
    }

    pub fn clear() {
        HOOK.with(|h| *h.borrow_mut() = None);
    }

    pub(super) fn step(step: Step, path: &Path) -> io::Result<()> {
        HOOK.with(|h| match h.borrow_mut().as_mut() {
            Some(hook) => hook(step, path),
            None => Ok(()),
        })
    }
}

#[cfg(not(test))]
mod hook {
    use std::io;
    use std::path::Path;

    use super::Step;

    #[inline(always)]
    pub(super) fn step(_step: Step, _path: &Path) -> io::Result<()> {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replaces_whole_file_and_leaves_no_temp() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("memory.jsonl");
        write_atomic(&path, b"one\n").unwrap();
        write_atomic(&path, b"two\n").unwrap();
        assert_eq!(fs::read(&path).unwrap(), b"two\n");
        let names: Vec<_> = fs::read_dir(dir.path()).unwrap().collect();
        assert_eq!(names.len(), 1, "no temp file left behind");
    }

    #[cfg(unix)]
    #[test]
    fn files_are_private() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f");
        write_atomic(&path, b"x").unwrap();
        let mode = fs::metadata(&path).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o600);
    }

    /// A file at the temp name (a crash's leftover, or pid reuse) does not make the write fail.
    #[test]
    fn a_stale_file_at_the_temp_name_is_replaced() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f");
        hook::set(|step: Step, tmp: &Path| {
            if step == Step::Create {
                fs::write(tmp, "stale, from a crash")?;
            }
            Ok(())
        });
        let result = write_atomic(&path, b"new");
        hook::clear();
        result.unwrap();
        assert_eq!(fs::read(&path).unwrap(), b"new");
        assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 1, "no temp left");
    }

    /// Every file is written through its link: the link stays, what it points to gets the new
    /// bytes, and no copy of the old ones is left anywhere (#33).
    #[cfg(unix)]
    #[test]
    fn a_symlinked_file_is_written_and_removed_through_its_link() {
        use std::os::unix::fs::symlink;
        let dir = tempfile::tempdir().unwrap();
        let elsewhere = tempfile::tempdir().unwrap();
        let target = elsewhere.path().join("settings.json");
        fs::write(&target, "old secret").unwrap();
        // A relative link to a relative link.
        let middle = dir.path().join("middle");
        symlink(&target, &middle).unwrap();
        let path = dir.path().join("f");
        symlink("middle", &path).unwrap();
        write_atomic(&path, b"new").unwrap();
        assert!(
            fs::symlink_metadata(&path)
                .unwrap()
                .file_type()
                .is_symlink()
        );
        assert_eq!(fs::read(&target).unwrap(), b"new");
        assert_eq!(
            fs::read_dir(elsewhere.path()).unwrap().count(),
            1,
            "no temp left"
        );
        assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 2, "no temp left");
        // A dangling link gets its target made.
        fs::remove_file(&target).unwrap();
        write_atomic(&path, b"again").unwrap();
        assert_eq!(fs::read(&target).unwrap(), b"again");
        remove_through(&path).unwrap();
        assert!(!target.exists() && fs::symlink_metadata(&path).is_err());
        // A loop of links is an error, not a hang.
        let a = dir.path().join("a");
        symlink("b", &a).unwrap();
        symlink("a", dir.path().join("b")).unwrap();
        assert!(write_atomic(&a, b"x").is_err());
    }

    #[test]
    fn failed_write_leaves_target_untouched() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("missing-dir").join("f");
        assert!(write_atomic(&path, b"x").is_err());
        assert!(!path.exists());
    }
}
