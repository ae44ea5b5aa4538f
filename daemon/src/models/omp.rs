//! OpenMP's wait policy for every process that runs a language model: passive, so the threads
//! of llama.cpp sleep instead of spinning between tokens and a busy laptop core is shared, not
//! fought over.

use std::os::unix::process::CommandExt;

/// The variable libgomp reads once, when it is loaded — before `main`, so it cannot be set from
/// inside the process that needs it.
pub const WAIT_POLICY: &str = "OMP_WAIT_POLICY";

/// Make sure this process runs with passive OpenMP waiting: when `OMP_WAIT_POLICY` is unset,
/// run this same command again with it set to `PASSIVE` (the process image is replaced; nothing
/// has been written yet when this is called). A value the user set is kept. If the re-run
/// cannot start, this process carries on spinning, which is slower but correct.
pub fn ensure_passive() {
    if std::env::var_os(WAIT_POLICY).is_some() {
        return;
    }
    let Ok(exe) = std::env::current_exe() else {
        return;
    };
    let err = std::process::Command::new(exe)
        .args(std::env::args_os().skip(1))
        .env(WAIT_POLICY, "PASSIVE")
        .exec();
    tracing::debug!("cannot re-run with {WAIT_POLICY}=PASSIVE: {err}");
}
