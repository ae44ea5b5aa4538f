//! `localm man-pages DIR` (hidden): the man pages, rendered by clap_mangen from the same clap
//! definitions as `--help`, for scripts/package to ship.

use std::path::Path;

use anyhow::Context as _;

/// Write localm.1 and one page per subcommand (localm-service-install.1, ...) into `dir`.
pub fn write(cmd: clap::Command, dir: &Path) -> anyhow::Result<()> {
    std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    clap_mangen::generate_to(cmd, dir)
        .with_context(|| format!("cannot write the man pages into {}", dir.display()))
}
