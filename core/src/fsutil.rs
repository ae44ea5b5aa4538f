//! Private folders: every folder localm creates is 0700 (owner only), and a folder that already
//! exists is never changed — it may be the user's own (their home, a synced folder).

use std::io;
use std::path::Path;

/// Create `path` and any missing parents, each new folder 0700. Folders that exist are left
/// exactly as they are, whatever their mode. A folder another process creates meanwhile counts
/// as existing.
pub fn create_private_dir(path: &Path) -> io::Result<()> {
    // The missing folders, deepest first: walk up to the first one that exists.
    let mut missing = Vec::new();
    let mut at = path;
    loop {
        match std::fs::metadata(at) {
            Ok(meta) if meta.is_dir() => break,
            Ok(_) => {
                return Err(io::Error::new(
                    io::ErrorKind::AlreadyExists,
                    format!("{} exists and is not a folder", at.display()),
                ));
            }
            Err(e) if e.kind() == io::ErrorKind::NotFound => {
                missing.push(at);
                match at.parent() {
                    Some(parent) if !parent.as_os_str().is_empty() => at = parent,
                    _ => break,
                }
            }
            Err(e) => return Err(e),
        }
    }
    for dir in missing.into_iter().rev() {
        match make_private(dir) {
            Ok(()) => {}
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists && dir.is_dir() => {}
            Err(e) => return Err(e),
        }
    }
    Ok(())
}

#[cfg(unix)]
fn make_private(dir: &Path) -> io::Result<()> {
    use std::os::unix::fs::{DirBuilderExt, PermissionsExt};
    std::fs::DirBuilder::new().mode(0o700).create(dir)?;
    // The umask can only take bits away; an unusual one (0o277) would leave us a folder we
    // cannot write. This one is ours, just made: set its mode exactly.
    let meta = std::fs::symlink_metadata(dir)?;
    if meta.is_dir() && meta.permissions().mode() & 0o777 != 0o700 {
        std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o700))?;
    }
    Ok(())
}

#[cfg(not(unix))]
fn make_private(dir: &Path) -> io::Result<()> {
    std::fs::create_dir(dir)
}
