//! `localm man-pages DIR` (hidden): the man pages, rendered by clap_mangen from the same clap
//! definitions as `--help`, for scripts/package to ship. Each page is written as a new file or
//! over a plain one, never through a symbolic link (`O_NOFOLLOW`).

use std::io::Write as _;
use std::path::Path;

use anyhow::Context as _;

/// Write localm.1 and one page per subcommand (localm-service-install.1, ...) into `dir`.
pub fn write(cmd: clap::Command, dir: &Path) -> anyhow::Result<()> {
    std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    let mut cmd = cmd.disable_help_subcommand(true);
    cmd.build();
    pages(cmd, dir)
}

/// The page of `cmd` and of each of its shown subcommands, as clap_mangen's `generate_to` names
/// them.
fn pages(cmd: clap::Command, dir: &Path) -> anyhow::Result<()> {
    for sub in cmd.get_subcommands().filter(|s| !s.is_hide_set()).cloned() {
        pages(sub, dir)?;
    }
    let man = clap_mangen::Man::new(cmd);
    let path = dir.join(man.get_filename());
    let mut page = Vec::new();
    man.render(&mut page)
        .with_context(|| format!("cannot render {}", path.display()))?;
    write_no_follow(&path, &page).with_context(|| format!("cannot write {}", path.display()))
}

fn write_no_follow(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    use std::os::unix::fs::OpenOptionsExt as _;
    let mut file = std::fs::OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(true)
        .mode(0o644)
        .custom_flags(libc::O_NOFOLLOW)
        .open(path)?;
    file.write_all(bytes)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    /// A link planted at a page's name is not followed (#33): the write fails, the target keeps
    /// its bytes.
    #[test]
    fn a_link_at_a_page_name_is_not_followed() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("precious");
        std::fs::write(&target, "keep me").unwrap();
        let pages = dir.path().join("man");
        std::fs::create_dir(&pages).unwrap();
        std::os::unix::fs::symlink(&target, pages.join("localm.1")).unwrap();
        let cmd = clap::Command::new("localm").subcommand(clap::Command::new("daemon"));
        assert!(write(cmd.clone(), &pages).is_err());
        assert_eq!(std::fs::read_to_string(&target).unwrap(), "keep me");
        std::fs::remove_file(pages.join("localm.1")).unwrap();
        write(cmd, &pages).unwrap();
        assert!(pages.join("localm.1").is_file() && pages.join("localm-daemon.1").is_file());
    }
}
