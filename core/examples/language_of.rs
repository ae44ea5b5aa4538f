//! The language gate's accuracy on labelled turns: reads `lang<TAB>text` lines on stdin
//! (`scripts/language-turns.py` writes them) and prints, per language, the share given the right
//! language and the share read as English, by `localm_core::language::of`.
#![allow(clippy::unwrap_used, clippy::print_stdout)] // an example: a bad line is a bad run

use std::collections::BTreeMap;
use std::io::BufRead;

fn main() {
    let mut by: BTreeMap<String, (u32, u32, u32)> = BTreeMap::new();
    for line in std::io::stdin().lock().lines() {
        let line = line.unwrap();
        let Some((want, text)) = line.split_once('\t') else {
            continue;
        };
        let got = localm_core::language::of(text).code();
        let e = by.entry(want.to_string()).or_default();
        e.0 += 1;
        e.1 += u32::from(got == want);
        e.2 += u32::from(got == "en");
    }
    println!("lang  turns  right  read as English");
    for (lang, (n, right, en)) in by {
        let share = |k: u32| f64::from(k) / f64::from(n);
        println!("{lang:4}  {n:5}  {:.4}  {:.4}", share(right), share(en));
    }
}
