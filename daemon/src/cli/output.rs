//! Printing for people and scripts: aligned tables, stable JSON, warnings, and a quiet exit when
//! the reader of stdout goes away (`localm memory list | head`).

use std::io::{self, Write};

use chrono::{DateTime, SecondsFormat, Utc};
use localm_core::store::jsonl::CorruptLine;
use serde::Serialize;

/// Write `text` to stdout; a closed pipe ends the process quietly with success.
pub fn print(text: &str) {
    let mut out = io::stdout().lock();
    if let Err(e) = out.write_all(text.as_bytes()).and_then(|_| out.flush()) {
        if e.kind() == io::ErrorKind::BrokenPipe {
            std::process::exit(0);
        }
        eprintln!("localm: error: cannot write to stdout: {e}");
        std::process::exit(1);
    }
}

/// Print `value` as pretty JSON and a newline.
pub fn json<T: Serialize + ?Sized>(value: &T) {
    let mut text = serde_json::to_string_pretty(value)
        .expect("our output types serialise: plain data, string keys");
    text.push('\n');
    print(&text);
}

/// Print `{"key": value}` (typed all the way, so `f32` values print as written).
pub fn json_under<T: Serialize + ?Sized>(key: &str, value: &T) {
    json(&std::collections::BTreeMap::from([(key, value)]));
}

/// Rows of cells, left-aligned in columns; the last column is not padded.
pub fn table(header: &[&str], rows: &[Vec<String>]) -> String {
    let mut widths: Vec<usize> = header.iter().map(|h| h.chars().count()).collect();
    for row in rows {
        for (i, cell) in row.iter().enumerate() {
            widths[i] = widths[i].max(cell.chars().count());
        }
    }
    let mut out = String::new();
    let line = |cells: Vec<&str>, out: &mut String| {
        let last = cells.len().saturating_sub(1);
        for (i, cell) in cells.iter().enumerate() {
            out.push_str(cell);
            if i < last {
                let pad = widths[i] - cell.chars().count() + 2;
                out.extend(std::iter::repeat_n(' ', pad));
            }
        }
        out.push('\n');
    };
    line(header.to_vec(), &mut out);
    for row in rows {
        line(row.iter().map(String::as_str).collect(), &mut out);
    }
    out
}

/// A timestamp for people: `2026-03-01 12:00`.
pub fn when(t: DateTime<Utc>) -> String {
    t.format("%Y-%m-%d %H:%M").to_string()
}

/// A timestamp for `show`: RFC 3339 to the second.
pub fn exact(t: DateTime<Utc>) -> String {
    t.to_rfc3339_opts(SecondsFormat::Secs, true)
}

/// Tell the user about lines that did not parse: found (left in place) or moved aside.
pub fn warn_corrupt(lines: &[CorruptLine], moved: bool) {
    // Per file: where (a line number, or first-last for a run of them) and how many lines.
    let mut by_file: Vec<(&str, Vec<String>, usize)> = Vec::new();
    for l in lines {
        let at = if l.last_line_no > l.line_no {
            format!("{}-{}", l.line_no, l.last_line_no)
        } else {
            l.line_no.to_string()
        };
        match by_file.iter_mut().find(|(f, _, _)| *f == l.file) {
            Some((_, ats, n)) => {
                ats.push(at);
                *n += l.lines;
            }
            None => by_file.push((&l.file, vec![at], l.lines)),
        }
    }
    for (file, ats, n) in by_file {
        let list = ats.join(", ");
        let s = if n == 1 { "" } else { "s" };
        if moved {
            eprintln!(
                "localm: warning: moved {n} unreadable line{s} of {file} (line {list}) to {file}.corrupt"
            );
        } else {
            eprintln!(
                "localm: warning: {n} unreadable line{s} in {file} (line {list}); kept as is, the next write moves it to {file}.corrupt"
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_aligns_columns_by_characters() {
        let t = table(
            &["ID", "TEXT"],
            &[
                vec!["é1".into(), "one".into()],
                vec!["long-id".into(), "two".into()],
            ],
        );
        assert_eq!(t, "ID       TEXT\né1       one\nlong-id  two\n");
    }
}
