//! Text the user pastes is not the user's: an email (its headers, from its greeting to its
//! sign-off, a reply's "On … wrote:" and everything under it), lines quoted with ">", log lines
//! (a timestamp or a level first, a stack frame) and lines of code. What is left is what the
//! user typed around it ("Can you help me answer this email?"); each pasted line becomes an
//! empty line, so the sentences either side never run into one. In any language: the markers
//! are shapes and every reader's headers, greetings and sign-offs (`language::reader::Letters`).

use std::sync::OnceLock;

use crate::language::reader::{Letters, READERS};

/// A line that opens a quoted reply: "On Tue, 3 May, Ana wrote:", "-----Original Message-----".
const REPLY_OPENERS: &[&str] = &[
    "-----original message-----",
    "--- original message ---",
    "-------- forwarded message",
    "---------- forwarded message",
    "begin forwarded message",
];

/// Levels a log line opens with (after its timestamp, if any).
const LEVELS: &[&str] = &[
    "error", "warn", "warning", "info", "debug", "trace", "fatal", "critical", "panic",
];

/// Every reader's way of writing a letter, gathered once: a text's language is not known
/// before its pasted lines are left out.
struct Gathered {
    headers: Vec<&'static str>,
    wrote: Vec<&'static str>,
    greetings: Vec<&'static str>,
    sign_offs: Vec<&'static str>,
}

fn gathered() -> &'static Gathered {
    static G: OnceLock<Gathered> = OnceLock::new();
    G.get_or_init(|| {
        let all = |pick: fn(&'static Letters) -> &'static [&'static str]| {
            READERS
                .iter()
                .flat_map(|r| pick(&r.letters).iter().copied())
                .collect()
        };
        Gathered {
            headers: all(|l| l.headers),
            wrote: all(|l| l.wrote),
            greetings: all(|l| l.greetings),
            sign_offs: all(|l| l.sign_offs),
        }
    })
}

/// `text` without what the user pasted into it, line for line (a pasted line left empty).
pub fn without_pasted(text: &str) -> String {
    let lines: Vec<&str> = text.lines().collect();
    let mut pasted = vec![false; lines.len()];
    mark_letters(&lines, &mut pasted);
    for (i, line) in lines.iter().enumerate() {
        if is_quoted(line) || is_log(line) || is_code(line) {
            pasted[i] = true;
        }
    }
    if !pasted.contains(&true) {
        return text.to_string();
    }
    lines
        .iter()
        .zip(&pasted)
        .map(|(line, p)| if *p { "" } else { *line })
        .collect::<Vec<_>>()
        .join("\n")
}

/// Mark an email's lines: from its head or a reply's opener to the end, and from a greeting
/// to its sign-off and the name under it.
fn mark_letters(lines: &[&str], pasted: &mut [bool]) {
    let folded: Vec<String> = lines.iter().map(|l| crate::words::fold(l.trim())).collect();
    let head = (0..lines.len()).find(|&i| is_header(&folded, i));
    let reply = folded.iter().position(|l| opens_reply(l));
    if let Some(from) = [head, reply].into_iter().flatten().min() {
        pasted[from..].iter_mut().for_each(|p| *p = true);
    }
    let sign_off = folded.iter().rposition(|l| is_sign_off(l));
    let greeting = folded
        .iter()
        .enumerate()
        .position(|(i, l)| is_greeting(l) && (i > 0 || sign_off.is_some()));
    match (greeting, sign_off) {
        (Some(g), Some(s)) if s > g => {
            // The sign-off, and the name under it (a short line).
            let short_next = s + 1 < lines.len() && lines[s + 1].trim().chars().count() <= 40;
            let name = if short_next { s + 1 } else { s };
            pasted[g..=name].iter_mut().for_each(|p| *p = true);
        }
        (Some(g), _) => pasted[g..].iter_mut().for_each(|p| *p = true),
        _ => {}
    }
}

/// Whether line `i` opens an email's head: a header, and another header on one of the next
/// three lines ("From: …" then "Subject: …").
fn is_header(folded: &[String], i: usize) -> bool {
    let header = |l: &str| gathered().headers.iter().any(|h| l.starts_with(h));
    header(&folded[i]) && folded[i + 1..].iter().take(3).any(|l| header(l))
}

fn opens_reply(l: &str) -> bool {
    REPLY_OPENERS.iter().any(|o| l.starts_with(o))
        || (l.chars().count() <= 160 && gathered().wrote.iter().any(|w| l.ends_with(w)))
}

/// "Hi Ana,", "Dear team,", "Bonjour Marie,", "亲爱的小王，", "拝啓": a greeting, then at most
/// three words of a name (a few letters, without spaces) and a comma or colon ending the line, or
/// the greeting alone on its line.
fn is_greeting(l: &str) -> bool {
    // A greeting in CJK letters may stand alone ("拝啓").
    if gathered().greetings.contains(&l) {
        return l.chars().any(crate::words::is_cjk);
    }
    let Some(body) = l.strip_suffix([',', ':', '，']) else {
        return false;
    };
    gathered().greetings.iter().any(|g| {
        body.strip_prefix(g).is_some_and(|rest| {
            if rest.chars().any(crate::words::is_cjk) {
                return (1..=8).contains(&rest.chars().count());
            }
            let words = rest.split_whitespace().count();
            rest.starts_with(' ') && (1..=3).contains(&words)
        })
    })
}

/// "Best,", "Kind regards", "Viele Grüße,": a sign-off alone on its line.
fn is_sign_off(l: &str) -> bool {
    let body = l.trim_end_matches([',', '.', '!', '-', ' ']);
    gathered().sign_offs.contains(&body)
}

/// "> On Monday we …": a line quoted in an email or a chat.
fn is_quoted(line: &str) -> bool {
    line.trim_start().starts_with('>')
}

/// A log line: a timestamp first ("2024-05-01 12:00:01", "[12:00:01]", "12:00:01.123"), a level
/// first ("ERROR …", "[WARN]"), or a stack frame ("  at com.acme.Main(…)", "  File \"…\", line").
fn is_log(line: &str) -> bool {
    let t = line.trim_start().trim_start_matches('[');
    let stamp = {
        let head: String = t.chars().take(8).collect();
        let digits = head.chars().filter(char::is_ascii_digit).count();
        digits >= 4
            && head
                .chars()
                .all(|c| c.is_ascii_digit() || "-/:.T ".contains(c))
            && head.contains([':', '-'])
            && head.chars().next().is_some_and(|c| c.is_ascii_digit())
    };
    let first = t.split(|c: char| !c.is_alphanumeric()).next().unwrap_or("");
    let level = LEVELS.contains(&first.to_lowercase().as_str())
        && first.chars().all(|c| c.is_ascii_uppercase());
    let frame = line.starts_with(char::is_whitespace)
        && (t.starts_with("at ") && t.contains('(') || t.starts_with("File \""));
    stamp || level || frame || t.starts_with("Traceback (most recent call last)")
}

/// A line of code: a statement's shape ("let x = 5;", "}", "def f(x):", "#include <x>",
/// "$ cargo build").
fn is_code(line: &str) -> bool {
    let t = line.trim();
    if t.is_empty() {
        return false;
    }
    let opens = [
        "def ",
        "fn ",
        "let ",
        "const ",
        "var ",
        "import ",
        "from ",
        "#include",
        "$ ",
        "pub ",
        "class ",
        "function ",
        "return ",
        "if (",
        "for (",
        "while (",
        "</",
        "<div",
        "SELECT ",
        "console.",
        "print(",
        "println!",
    ];
    let ends = [";", "{", "}", "};", ");", "=>"];
    let symbols = t.chars().filter(|c| "{}();=<>[]".contains(*c)).count();
    opens.iter().any(|o| t.starts_with(o) && symbols > 0)
        || (ends.iter().any(|e| t.ends_with(e)) && symbols >= 2)
        || t == "}"
        || t == "{"
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kept(text: &str) -> Vec<String> {
        without_pasted(text)
            .lines()
            .filter(|l| !l.trim().is_empty())
            .map(str::to_string)
            .collect()
    }

    #[test]
    fn a_pasted_email_log_code_or_quote_is_not_the_users() {
        let email = "Can you help me answer this email? I work at Acme.\n\nHi Maria,\n\n\
                     I live in Braga now and I have a gluten allergy, so lunch is tricky.\n\n\
                     Best,\nJoão";
        assert_eq!(
            kept(email),
            ["Can you help me answer this email? I work at Acme."]
        );
        let headers = "Summarise this please\nFrom: Ana <ana@example.com>\nSubject: lunch\n\n\
                       I'm vegan and I live in Porto.";
        assert_eq!(kept(headers), ["Summarise this please"]);
        let reply = "I'm a nurse, see below\nOn Tue, 3 May 2024, Ana wrote:\nI live in Braga.";
        assert_eq!(kept(reply), ["I'm a nurse, see below"]);
        let log = "my build fails:\n2024-05-01 12:00:01 ERROR I am the database\n\
                   [12:00:02] retrying\nERROR: I have no permission\nI use Rust at work.";
        assert_eq!(kept(log), ["my build fails:", "I use Rust at work."]);
        let code = "why does this fail?\nlet my_age = 42;\nfn main() {\n}\nI'm new to Rust.";
        assert_eq!(kept(code), ["why does this fail?", "I'm new to Rust."]);
        let quoted = "My friend wrote this:\n> I live in Lisbon and I'm a pilot\nI live in Faro.";
        assert_eq!(kept(quoted), ["My friend wrote this:", "I live in Faro."]);
        let french = "Tu peux répondre à ce mail ?\nBonjour Marie,\nJ'habite à Lyon.\n\
                      Cordialement,\nPaul";
        assert_eq!(kept(french), ["Tu peux répondre à ce mail ?"]);
        let chinese = "帮我回复这封邮件\n亲爱的小王，\n我住在北京。\n此致\n李明";
        assert_eq!(kept(chinese), ["帮我回复这封邮件"]);
    }

    /// The user's own words with the same look are kept: a greeting opening their message, a
    /// multi-paragraph message (LongMemEval's user turns), a time of day, "Thanks" in a line.
    #[test]
    fn the_users_own_words_are_kept() {
        for text in [
            "Hi there, I'm Ada and I write firmware.",
            "Hi Sam,\nI'm looking for a new laptop for work.",
            "I think I'll start by offering 1 point for every dollar spent.\n\n\
             For rewards, I'm thinking of offering discounts on future purchases.",
            "I wake up at 6:30 every day. Thanks for the tips!",
            "My favourite number is 42; my sister's is 7.",
            "I have a meeting at 10:00 with my team",
            "Error messages scare me, honestly.",
        ] {
            assert_eq!(without_pasted(text), text, "{text}");
        }
    }
}
