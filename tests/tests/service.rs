//! `localm service` and the Debian package as a user meets them: `install --print` with flags,
//! a binary in a build folder refused, install / status / uninstall of a unit file (without
//! starting it), the unit checked by `systemd-analyze verify`, and `scripts/package`'s .deb
//! installed with `dpkg -i`, run from /usr/bin, and removed.
#![allow(clippy::unwrap_used)] // test code: a failed unwrap is a failed test

use std::path::{Path, PathBuf};
use std::process::Command;

use localm_tests::{Env, Run, bin};

fn have(tool: &str) -> bool {
    Command::new("sh")
        .args(["-c", &format!("command -v {tool}")])
        .output()
        .is_ok_and(|o| o.status.success())
}

/// `localm ARGS` with HOME and XDG_CONFIG_HOME inside the temp dir, so nothing outside it is
/// written, and `exe` as the program.
fn service(env: &Env, exe: &Path, args: &[&str]) -> Run {
    let home = env.data_dir().join("home");
    std::fs::create_dir_all(&home).unwrap();
    let out = Command::new(exe)
        .args(args)
        .env("HOME", &home)
        .env("XDG_CONFIG_HOME", home.join(".config"))
        .env("LOCALM_DATA_DIR", env.data_dir().join("data"))
        .env_remove("XDG_DATA_HOME")
        .output()
        .expect("run localm");
    Run(out)
}

fn unit_path(env: &Env) -> PathBuf {
    env.data_dir()
        .join("home/.config/systemd/user/localm-memory.service")
}

fn real_bin() -> PathBuf {
    std::fs::canonicalize(bin()).unwrap()
}

#[test]
fn install_print_shows_the_flags_in_the_unit_and_the_agent() {
    let env = Env::new();
    let data = env.data_dir().join("data");
    let r = service(
        &env,
        &bin(),
        &[
            "service",
            "install",
            "--print",
            "--listen",
            "127.0.0.1:8765",
            "--chat-upstream",
            "http://127.0.0.1:8080/v1",
        ],
    );
    let unit = r.ok();
    let exe = real_bin();
    assert!(
        unit.contains(&format!(
            "\nExecStart={} daemon --listen 127.0.0.1:8765 --chat-upstream http://127.0.0.1:8080/v1\n",
            exe.display()
        )),
        "{unit}"
    );
    assert!(
        unit.contains(&format!(
            "\nEnvironment=LOCALM_DATA_DIR={}\n",
            data.display()
        )),
        "{unit}"
    );
    assert!(
        unit.contains(&format!("\nReadWritePaths=-{}\n", data.display())),
        "{unit}"
    );
    // The test binary is in a build folder: --print says so, and writes nothing.
    assert!(
        r.stderr().contains("cargo build folder"),
        "{}",
        r.describe()
    );
    assert!(!unit_path(&env).exists());

    let r = service(
        &env,
        &bin(),
        &[
            "service",
            "install",
            "--print",
            "--platform",
            "launchd",
            "--listen",
            "127.0.0.1:8765",
        ],
    );
    let agent = r.ok();
    assert!(
        agent.contains(&format!(
            "<string>{}</string>\n    <string>daemon</string>\n    <string>--listen</string>\n    <string>127.0.0.1:8765</string>\n  </array>",
            exe.display()
        )),
        "{agent}"
    );
    let logs = env.data_dir().join("home/Library/Logs/localm/daemon.log");
    assert!(
        agent.contains(&format!(
            "<key>StandardErrorPath</key>\n  <string>{}</string>",
            logs.display()
        )),
        "{agent}"
    );

    // A bad flag value is refused in one line.
    let r = service(
        &env,
        &bin(),
        &[
            "service",
            "install",
            "--print",
            "--chat-upstream",
            "ftp://x",
        ],
    );
    let err = r.fails(2);
    assert!(err.contains("http:// or https://"), "{err}");
}

#[test]
fn install_refuses_a_binary_in_a_build_folder() {
    let env = Env::new();
    let r = service(&env, &bin(), &["service", "install", "--no-enable"]);
    let err = r.fails(2);
    assert!(err.contains("cargo build folder"), "{err}");
    assert!(
        err.contains("cargo install --path daemon --locked"),
        "{err}"
    );
    assert!(!unit_path(&env).exists(), "a unit was written");
}

#[test]
fn install_status_and_uninstall_of_an_installed_binary() {
    let env = Env::new();
    // A stand-in for an installed localm: a copy of a small program outside any build folder,
    // named with --exe (copying the 400 MB debug binary would only cost time).
    let installed = env.data_dir().join("bin").join("localm");
    std::fs::create_dir_all(installed.parent().unwrap()).unwrap();
    std::fs::copy("/bin/true", &installed).unwrap();
    let exe = installed.to_str().unwrap();
    let r = service(
        &env,
        &bin(),
        &[
            "service",
            "install",
            "--no-enable",
            "--exe",
            exe,
            "--listen",
            "127.0.0.1:8765",
        ],
    );
    let out = r.ok();
    assert!(out.contains("wrote "), "{out}");
    let unit = std::fs::read_to_string(unit_path(&env)).unwrap();
    assert!(
        unit.contains(&format!(
            "\nExecStart={exe} daemon --listen 127.0.0.1:8765\n"
        )),
        "{unit}"
    );
    // The data dir it makes writable exists, private.
    use std::os::unix::fs::PermissionsExt;
    let mode = std::fs::metadata(env.data_dir().join("data"))
        .unwrap()
        .permissions()
        .mode();
    assert_eq!(mode & 0o777, 0o700);

    let status = service(&env, &bin(), &["service", "status"]).ok();
    assert!(status.contains("installed: "), "{status}");
    assert!(status.contains(&format!("runs:      {exe}\n")), "{status}");
    // `cargo clean` for an installed binary: status says the service's binary is gone.
    std::fs::remove_file(&installed).unwrap();
    let status = service(&env, &bin(), &["service", "status"]).ok();
    assert!(status.contains("MISSING"), "{status}");

    let out = service(&env, &bin(), &["service", "uninstall"]).ok();
    assert!(out.contains("removed "), "{out}");
    assert!(!unit_path(&env).exists());
    let status = service(&env, &bin(), &["service", "status"]).ok();
    assert!(status.starts_with("not installed"), "{status}");
    let again = service(&env, &bin(), &["service", "uninstall"]).ok();
    assert!(again.contains("nothing to do"), "{again}");
}

#[test]
fn systemd_analyze_verifies_the_hardened_unit() {
    if !have("systemd-analyze") {
        localm_tests::skip("systemd-analyze not found (Debian package systemd)");
        return;
    }
    let env = Env::new();
    let unit = service(
        &env,
        &bin(),
        &[
            "service",
            "install",
            "--print",
            "--listen",
            "127.0.0.1:8765",
        ],
    )
    .ok();
    let dir = env.data_dir().join("units");
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("localm-memory.service");
    std::fs::write(&file, &unit).unwrap();
    verify(&env, &file);
}

/// `systemd-analyze --user verify FILE` (a runtime dir of its own, so it runs as root and
/// without a login session too): it must pass and say nothing about the unit, since an unknown
/// key or a bad value is only a warning.
fn verify(env: &Env, file: &Path) {
    let run = env.data_dir().join("xdg-run");
    std::fs::create_dir_all(&run).unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&run, std::fs::Permissions::from_mode(0o700)).unwrap();
    let out = Command::new("systemd-analyze")
        .args(["--user", "verify", "--man=no"])
        .arg(file)
        .env("XDG_RUNTIME_DIR", &run)
        .output()
        .unwrap();
    let said = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    println!(
        "systemd-analyze --user verify {}: {:?}\n{said}",
        file.display(),
        out.status
    );
    // Only lines about this unit count (the host's other units may have their own complaints).
    let ours: Vec<&str> = said
        .lines()
        .filter(|l| l.contains("localm-memory.service"))
        .collect();
    assert!(out.status.success(), "{said}");
    assert!(
        ours.is_empty(),
        "systemd-analyze complained:\n{}",
        ours.join("\n")
    );
}

#[test]
fn the_debian_package_installs_runs_and_is_removed() {
    // SAFETY: geteuid(2) cannot fail and touches no memory.
    let root = unsafe { libc::geteuid() } == 0;
    if !have("dpkg-deb") {
        localm_tests::skip("dpkg-deb not found (scripts/test runs on Debian)");
        return;
    }
    if !root {
        localm_tests::skip("dpkg -i needs root (CI runs as root)");
        return;
    }
    if Path::new("/usr/bin/localm").exists() {
        panic!("/usr/bin/localm already exists; this test installs and removes its own package");
    }
    let env = Env::new();
    let out = env.data_dir().join("deb");
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../scripts/package");
    let built = Command::new(&script)
        .args([
            "--bin",
            bin().to_str().unwrap(),
            "--compress",
            "none",
            "--out",
        ])
        .arg(&out)
        .output()
        .unwrap();
    let built = Run(built);
    let deb = built.ok().trim().to_string();
    assert!(deb.ends_with(".deb"), "{}", built.describe());
    let listing = Run(Command::new("dpkg-deb")
        .args(["-c", deb.as_str()])
        .output()
        .unwrap())
    .ok();
    for path in [
        "./usr/bin/localm",
        "./usr/lib/systemd/user/localm-memory.service",
        "./usr/share/man/man1/localm.1.gz",
        "./usr/share/man/man1/localm-service-install.1.gz",
        "./usr/share/bash-completion/completions/localm",
        "./usr/share/zsh/vendor-completions/_localm",
        "./usr/share/fish/vendor_completions.d/localm.fish",
    ] {
        assert!(listing.contains(path), "{path} missing:\n{listing}");
    }

    let installed = dpkg(&["-i", &deb]);
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        installed.ok();
        let version = Run(Command::new("/usr/bin/localm")
            .arg("--version")
            .output()
            .unwrap())
        .ok();
        assert_eq!(
            version.trim(),
            format!("localm {}", env!("CARGO_PKG_VERSION"))
        );
        let status = Run(Command::new("/usr/bin/localm")
            .arg("status")
            .env("LOCALM_DATA_DIR", env.data_dir().join("data"))
            .output()
            .unwrap())
        .ok();
        assert!(status.contains("daemon"), "{status}");
        let unit = std::fs::read_to_string("/usr/lib/systemd/user/localm-memory.service").unwrap();
        assert!(
            unit.contains("\nExecStart=/usr/bin/localm daemon\n"),
            "{unit}"
        );
        if have("systemd-analyze") {
            verify(
                &env,
                Path::new("/usr/lib/systemd/user/localm-memory.service"),
            );
        }
    }));
    let removed = dpkg(&["-r", "localm"]);
    if let Err(e) = result {
        std::panic::resume_unwind(e);
    }
    removed.ok();
    assert!(
        !Path::new("/usr/bin/localm").exists(),
        "dpkg -r left /usr/bin/localm"
    );
}

/// `dpkg ARGS`, retried while another dpkg or apt holds the lock (other builds may install
/// packages on the same machine).
fn dpkg(args: &[&str]) -> Run {
    for _ in 0..60 {
        let r = Run(Command::new("dpkg").args(args).output().unwrap());
        if r.code() == 0 || !r.stderr().contains("lock") {
            return r;
        }
        std::thread::sleep(std::time::Duration::from_secs(1));
    }
    Run(Command::new("dpkg").args(args).output().unwrap())
}

#[test]
fn service_install_writes_the_unit_for_this_executable() {
    let env = Env::new();
    let home = env.data_dir().join("home");
    std::fs::create_dir_all(&home).unwrap();
    let run = |args: &[&str]| {
        Run(env
            .cmd(args)
            .env("HOME", &home)
            .env("XDG_CONFIG_HOME", home.join(".config"))
            .env("PATH", "/nonexistent")
            .output()
            .unwrap())
    };
    // Installed outside the build folder (which `service install` refuses): a hard link, or a copy.
    let exe = env.data_dir().join("bin/localm");
    std::fs::create_dir_all(exe.parent().unwrap()).unwrap();
    if std::fs::hard_link(bin(), &exe).is_err() {
        std::fs::copy(bin(), &exe).unwrap();
    }
    let exe_arg = exe.to_str().unwrap();
    let printed = run(&["service", "install", "--print", "--exe", exe_arg]).ok();
    assert!(
        printed.contains(&format!("ExecStart={} daemon", exe.display())),
        "{printed}"
    );
    assert!(printed.contains("Restart=on-failure"));
    assert!(
        printed.contains(&format!(
            "Environment=LOCALM_DATA_DIR={}",
            env.data_dir().display()
        )),
        "the data dir in force is kept: {printed}"
    );
    let unit = home.join(".config/systemd/user/localm-memory.service");
    assert!(!unit.exists(), "--print writes nothing");
    run(&["service", "install", "--no-enable", "--exe", exe_arg]).ok();
    assert_eq!(std::fs::read_to_string(&unit).unwrap(), printed);
    // Enabling needs systemctl; without it the error says the file is there to finish by hand.
    let err = run(&["service", "install", "--exe", exe_arg]).fails(1);
    assert!(err.contains("finish by hand"), "{err}");
}
