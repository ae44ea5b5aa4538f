//! What core creates on disk is private: folders 0700, lock files 0600; folders that already
//! exist keep their mode.
#![cfg(unix)]

use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;

use localm_core::fsutil::create_private_dir;
use localm_core::jobs;
use localm_core::settings::Settings;
use localm_core::store::lock::{DEFAULT_WAIT, StoreLock};

fn mode(path: &Path) -> u32 {
    fs::symlink_metadata(path)
        .expect("the path exists")
        .permissions()
        .mode()
        & 0o777
}

#[test]
fn new_folders_are_0700_and_existing_ones_keep_their_mode() {
    let tmp = tempfile::tempdir().unwrap();
    let users = tmp.path().join("users-own");
    fs::create_dir(&users).unwrap();
    fs::set_permissions(&users, fs::Permissions::from_mode(0o755)).unwrap();

    let deep = users.join("data").join("memory").join("chat");
    create_private_dir(&deep).unwrap();
    for made in [users.join("data"), users.join("data/memory"), deep.clone()] {
        assert_eq!(mode(&made), 0o700, "{}", made.display());
    }
    assert_eq!(mode(&users), 0o755, "an existing folder is never changed");

    // Again, on folders that now exist: no error, no change.
    fs::set_permissions(&deep, fs::Permissions::from_mode(0o750)).unwrap();
    create_private_dir(&deep).unwrap();
    assert_eq!(mode(&deep), 0o750);
}

#[test]
fn a_file_in_the_way_is_an_error() {
    let tmp = tempfile::tempdir().unwrap();
    let file = tmp.path().join("file");
    fs::write(&file, "x").unwrap();
    assert!(create_private_dir(&file).is_err());
    assert!(create_private_dir(&file.join("below")).is_err());
}

#[test]
fn lock_files_are_0600() {
    let tmp = tempfile::tempdir().unwrap();
    let path = tmp.path().join(".lock");
    let held = StoreLock::acquire(&path, "test", DEFAULT_WAIT).unwrap();
    assert_eq!(mode(&path), 0o600);
    drop(held);
    assert_eq!(mode(&path), 0o600);
}

#[test]
fn jobs_make_a_private_data_dir_and_lock() {
    let tmp = tempfile::tempdir().unwrap();
    let data = tmp.path().join("localm");
    jobs::update(&data, "test", |_| Ok(())).unwrap();
    assert_eq!(mode(&data), 0o700);
    assert_eq!(mode(&data.join(jobs::LOCK_FILE)), 0o600);
}

#[test]
fn settings_make_a_private_data_dir() {
    let tmp = tempfile::tempdir().unwrap();
    let data = tmp.path().join("nested").join("localm");
    Settings::default().save(&data).unwrap();
    assert_eq!(mode(&tmp.path().join("nested")), 0o700);
    assert_eq!(mode(&data), 0o700);
    assert_eq!(mode(&data.join(Settings::FILE)), 0o600);
}
