//! The loopback listener's bearer token (#22, item 4): kept in `api-token` across daemon starts,
//! replaced by `localm token rotate` (which a running daemon honours from its next request), and
//! a token file other users can read refused with a one-line error.
#![allow(clippy::unwrap_used)] // test code: a failed unwrap is a failed test

use std::fs;
use std::net::TcpStream;
use std::os::unix::fs::PermissionsExt;

use localm_tests::Env;
use localm_tests::daemon::{Daemon, exchange};

fn token_file(env: &Env) -> String {
    fs::read_to_string(env.data_dir().join("api-token"))
        .unwrap()
        .trim()
        .to_string()
}

fn mode(env: &Env) -> u32 {
    fs::metadata(env.data_dir().join("api-token"))
        .unwrap()
        .permissions()
        .mode()
        & 0o777
}

/// `GET /api/health` on the loopback listener with `Bearer token`: the status.
fn status_with(env: &Env, token: &str) -> u16 {
    let addr = env.tcp_addr();
    let mut s = TcpStream::connect(&addr).unwrap();
    let auth = format!("Bearer {token}");
    let r = exchange(
        &mut s,
        "GET",
        "/api/health",
        None,
        &[("Host", &addr), ("Authorization", &auth)],
    )
    .unwrap();
    r.status
}

fn start(env: &Env) -> Daemon {
    let d = env.spawn_daemon(&[], &["--listen", "127.0.0.1:0"]);
    d.wait_ready();
    d
}

#[test]
fn the_token_survives_a_restart_and_rotate_replaces_it_in_the_running_daemon() {
    let env = Env::new();
    let mut d = start(&env);
    let first = token_file(&env);
    assert_eq!(first.len(), 64);
    assert_eq!(mode(&env), 0o600);
    assert_eq!(status_with(&env, &first), 200);
    assert_eq!(d.stop().code(), Some(0));

    // A restart keeps it: a saved API key keeps working.
    let d = start(&env);
    assert_eq!(token_file(&env), first, "the token survives a restart");
    assert_eq!(status_with(&env, &first), 200);
    assert_eq!(env.run(&["token", "show"]).ok().trim(), first);

    // Rotate: a new token, 0600, honoured by the running daemon at once; the old one refused.
    let out = env.run(&["token", "rotate"]).ok();
    assert!(out.contains("api-token"), "{out}");
    let second = token_file(&env);
    assert_ne!(second, first);
    assert_eq!(mode(&env), 0o600);
    assert_eq!(status_with(&env, &second), 200, "{}", d.log());
    assert_eq!(
        status_with(&env, &first),
        401,
        "the old token stops working"
    );
    assert!(!d.log().contains(&second) && !d.log().contains(&first));
}

#[test]
fn a_token_file_others_can_read_is_refused() {
    let env = Env::new();
    let mut d = start(&env);
    let token = token_file(&env);
    let path = env.data_dir().join("api-token");
    // Made readable while the daemon runs: it stops honouring it.
    fs::set_permissions(&path, fs::Permissions::from_mode(0o644)).unwrap();
    assert_eq!(status_with(&env, &token), 401, "{}", d.log());
    assert_eq!(d.stop().code(), Some(0));

    // A daemon does not start on it, and says why in one line with the fix.
    let mut refused = env.spawn_daemon(&[], &["--listen", "127.0.0.1:0"]);
    let status = refused.wait_exit(30);
    assert!(!status.success());
    let log = refused.log();
    let line = log
        .lines()
        .find(|l| l.contains("api-token"))
        .unwrap_or_else(|| panic!("no line names the file:\n{log}"));
    assert!(
        line.contains("readable or writable by other users"),
        "{log}"
    );
    assert!(line.contains("localm token rotate"), "{log}");
    let err = env.run(&["token", "show"]).fails(1);
    assert_eq!(err.trim().lines().count(), 1, "{err}");
    assert!(err.contains("mode 644"), "{err}");

    // Rotate is the fix: a new private token, and the daemon starts again.
    env.run(&["token", "rotate"]).ok();
    assert_eq!(mode(&env), 0o600);
    let fresh = token_file(&env);
    assert_ne!(fresh, token);
    let _d = start(&env);
    assert_eq!(status_with(&env, &fresh), 200);
}
