//! A store file full of junk: every unreadable line reaches `<file>.corrupt`, including those
//! past the ones reported one by one, and every good record stays.

use std::fs;
use std::path::Path;

use localm_core::Store;
use localm_core::store::jsonl::SINGLE_LINES;

#[test]
fn every_unreadable_line_of_a_junk_file_is_moved_aside() {
    let fixture =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures/v1/memory/chat/memory.jsonl");
    let good: Vec<String> = fs::read_to_string(fixture)
        .expect("the v1 fixture")
        .lines()
        .take(2)
        .map(str::to_string)
        .collect();
    // More junk than is reported line by line, good records among it, blank lines, CRLF, and
    // a last line with no newline.
    let mut junk: Vec<String> = (0..SINGLE_LINES + 50)
        .map(|i| format!("junk {i}"))
        .collect();
    let mut text = junk.join("\n") + "\n";
    text.push_str(&good[0]);
    text.push_str("\nafter one\r\n\n\nafter two\n");
    text.push_str(&good[1]);
    text.push_str("\nlast, no newline");
    junk.extend(["after one", "after two", "last, no newline"].map(String::from));

    let tmp = tempfile::tempdir().expect("temp dir");
    let store = Store::new(tmp.path(), "chat", "test");
    fs::create_dir_all(store.dir()).expect("store folder");
    fs::write(store.path("memory.jsonl"), &text).expect("memory.jsonl");

    let read = store.read().expect("reads");
    assert_eq!(read.records.len(), 2);
    assert_eq!(
        read.corrupt.iter().map(|c| c.lines).sum::<usize>(),
        junk.len()
    );
    let moved = store
        .write(|_| Ok::<_, localm_core::StoreError>(()))
        .expect("a write moves the junk aside");
    assert_eq!(moved.corrupt_moved.len(), read.corrupt.len());

    let aside = fs::read_to_string(store.path("memory.jsonl.corrupt")).expect(".corrupt");
    let aside: Vec<&str> = aside
        .split('\n')
        .map(|l| l.trim_end_matches('\r'))
        .filter(|l| !l.is_empty())
        .collect();
    assert_eq!(aside, junk);
    let after = store.read().expect("reads");
    assert_eq!(after.records.len(), 2);
    assert!(after.corrupt.is_empty());
    let kept = fs::read_to_string(store.path("memory.jsonl")).expect("memory.jsonl");
    assert_eq!(kept, format!("{}\n{}\n", good[0], good[1]));
}
