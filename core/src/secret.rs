//! Secrets a memory never keeps: PINs, passwords, passcodes, logins, recovery codes, seed
//! phrases, API keys and tokens, card, account, routing and social security numbers, CVVs and
//! security answers, found by rule in one line of text (`find`) and blanked out of it
//! (`redact`). A value is a secret when the text names it ("my bank PIN is 4821", "password
//! hunter2", `named`) or when its shape proves it (a Luhn-valid card number, an IBAN,
//! `ddd-dd-dddd`, a key with a vendor's prefix such as `sk-proj-` or `ghp_`); a number alone
//! ("I have 2 kids", "born in 1984") is not. Beyond English, a value after a secret's name in
//! any language, read or not ("mi contraseña es Girasol2024", "пароль: солнце"): `any_language`.

use std::fmt;
use std::ops::Range;

mod any_language;
mod named;
mod value;

/// What kind of secret a text holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Secret {
    Pin,
    Password,
    /// A door, alarm, lock or phone code.
    Passcode,
    ApiKey,
    Token,
    PrivateKey,
    CardNumber,
    Cvv,
    AccountNumber,
    Iban,
    RoutingNumber,
    Ssn,
    SecurityAnswer,
    /// A recovery or 2FA backup code.
    RecoveryCode,
    /// A crypto wallet's seed (recovery) phrase.
    SeedPhrase,
}

impl Secret {
    /// The kind as the user reads it: "holds a PIN".
    pub fn as_str(self) -> &'static str {
        match self {
            Secret::Pin => "a PIN",
            Secret::Password => "a password",
            Secret::Passcode => "a passcode",
            Secret::ApiKey => "an API key",
            Secret::Token => "an access token",
            Secret::PrivateKey => "a private key",
            Secret::CardNumber => "a card number",
            Secret::Cvv => "a card security code (CVV)",
            Secret::AccountNumber => "a bank account number",
            Secret::Iban => "an IBAN",
            Secret::RoutingNumber => "a routing number",
            Secret::Ssn => "a social security number",
            Secret::SecurityAnswer => "a security answer",
            Secret::RecoveryCode => "a recovery code",
            Secret::SeedPhrase => "a seed phrase",
        }
    }
}

impl fmt::Display for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One secret in a text: its kind and the bytes of its value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Found {
    pub kind: Secret,
    pub span: Range<usize>,
}

/// What stands in for a secret's value in redacted text.
pub const REDACTED: &str = "[secret]";

/// The first secret `text` holds, if any.
pub fn find(text: &str) -> Option<Secret> {
    find_all(text).first().map(|f| f.kind)
}

/// `text` with the value of every secret it holds replaced by [`REDACTED`], again while what is
/// left still reads as one ("密码0#A#'00aa": a second value after the first), at most a few
/// times.
pub fn redact(text: &str) -> String {
    let mut out = text.to_string();
    for _ in 0..5 {
        let found = find_all(&out);
        if found.is_empty() {
            break;
        }
        out = blank(&out, found);
    }
    out
}

/// `text` with each of `found` replaced by [`REDACTED`] (an overlapping one skipped).
fn blank(text: &str, mut found: Vec<Found>) -> String {
    found.sort_by_key(|f| f.span.start);
    let mut out = String::with_capacity(text.len());
    let mut at = 0;
    for f in found {
        if f.span.start < at {
            continue;
        }
        out.push_str(&text[at..f.span.start]);
        out.push_str(REDACTED);
        at = f.span.end;
    }
    out.push_str(&text[at..]);
    out
}

/// Every secret in `text`, by the rules of this module.
pub fn find_all(text: &str) -> Vec<Found> {
    let words = words(text);
    let mut out = Vec::new();
    for w in &words {
        if let Some(kind) = prefixed_key(&text[w.span.clone()]) {
            out.push(Found {
                kind,
                span: w.span.clone(),
            });
        }
    }
    if text.contains("PRIVATE KEY") {
        out.push(Found {
            kind: Secret::PrivateKey,
            span: 0..text.len(),
        });
    }
    for run in digit_runs(text) {
        if let Some(kind) = shaped_number(&run) {
            out.push(Found {
                kind,
                span: run.span.clone(),
            });
        }
    }
    out.extend(iban(text));
    for i in 0..words.len() {
        out.extend(named::named(&words, i, text));
        out.extend(named::email_pair(&words, i, text));
    }
    out.extend(named::labelled_answer(&words, text));
    // Names in every language, read or not: what the rules above did not find already.
    for f in any_language::named(text) {
        let overlaps = |o: &Found| o.span.start < f.span.end && f.span.start < o.span.end;
        if !out.iter().any(overlaps) {
            out.push(f);
        }
    }
    out
}

/// A word of the text: its bytes (leading and trailing punctuation left out), lower-cased, and
/// whether a ':' or '=' closed it ("PIN:").
struct Word {
    span: Range<usize>,
    lower: String,
    colon: bool,
}

/// The text's words. "PIN:4821" and "token=abc" are two words, the first closed by its colon.
fn words(text: &str) -> Vec<Word> {
    let mut out = Vec::new();
    let mut start = None;
    let push = |s: usize, e: usize, out: &mut Vec<Word>| {
        let chunk = &text[s..e];
        // "PIN:4821", "token=abc": a name of letters, then its value.
        if let Some(p) = chunk.find([':', '='])
            && p > 0
            && chunk[..p].chars().all(char::is_alphabetic)
            && chunk[p + 1..]
                .chars()
                .next()
                .is_some_and(char::is_alphanumeric)
        {
            word(text, s, s + p, true, out);
            word(text, s + p + 1, e, false, out);
        } else {
            word(text, s, e, false, out);
        }
    };
    for (i, c) in text.char_indices() {
        match (c.is_whitespace(), start) {
            (true, Some(s)) => {
                push(s, i, &mut out);
                start = None;
            }
            (false, None) => start = Some(i),
            _ => {}
        }
    }
    if let Some(s) = start {
        push(s, text.len(), &mut out);
    }
    out
}

/// One word of `text[s..e]`, its punctuation trimmed; a lone ':' or '=' closes the word before.
fn word(text: &str, s: usize, e: usize, colon: bool, out: &mut Vec<Word>) {
    let chunk = &text[s..e];
    let lead = chunk.len()
        - chunk
            .trim_start_matches(|c: char| "\"'([{<«“‘#".contains(c))
            .len();
    let body = &chunk[lead..];
    let kept = body.trim_end_matches(|c: char| ".,;:!?\"')]}>»”’…".contains(c));
    let closed = colon || body[kept.len()..].starts_with([':']);
    if kept.is_empty() {
        if chunk.contains([':', '=', '-', '–'])
            && let Some(prev) = out.last_mut()
        {
            prev.colon = true;
        }
        return;
    }
    out.push(Word {
        span: s + lead..s + lead + kept.len(),
        lower: kept.to_lowercase(),
        colon: closed,
    });
}

/// A key or token by its vendor's prefix, wherever it stands.
fn prefixed_key(w: &str) -> Option<Secret> {
    let tail = |prefix: &str, min: usize| {
        w.strip_prefix(prefix).is_some_and(|t| {
            t.len() >= min
                && t.chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
        })
    };
    let upper_tail = |prefix: &str| {
        w.strip_prefix(prefix).is_some_and(|t| {
            t.len() == 16
                && t.chars()
                    .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit())
        })
    };
    let key = tail("sk-", 20)
        || tail("sk_live_", 16)
        || tail("sk_test_", 16)
        || tail("rk_live_", 16)
        || upper_tail("AKIA")
        || upper_tail("ASIA")
        || tail("AIza", 30);
    let token = [
        "ghp_",
        "gho_",
        "ghu_",
        "ghs_",
        "ghr_",
        "github_pat_",
        "glpat-",
    ]
    .iter()
    .any(|p| tail(p, 20))
        || ["xoxa-", "xoxb-", "xoxp-", "xoxr-", "xoxs-", "xoxe-"]
            .iter()
            .any(|p| tail(p, 10))
        || tail("hf_", 30)
        || is_jwt(w);
    if key {
        Some(Secret::ApiKey)
    } else if token {
        Some(Secret::Token)
    } else {
        None
    }
}

/// A JSON web token: `eyJ…` in three dot-separated base64url parts.
fn is_jwt(w: &str) -> bool {
    let parts: Vec<&str> = w.split('.').collect();
    w.starts_with("eyJ")
        && w.len() >= 30
        && parts.len() == 3
        && parts.iter().all(|p| {
            !p.is_empty()
                && p.chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
        })
}

/// A run of digits, single spaces or dashes between its groups ("4111 1111 1111 1111").
struct Run {
    span: Range<usize>,
    digits: String,
    groups: Vec<usize>,
    dashes: bool,
}

fn digit_runs(text: &str) -> Vec<Run> {
    let b = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let starts = b[i].is_ascii_digit() && (i == 0 || !b[i - 1].is_ascii_alphanumeric());
        if !starts {
            i += 1;
            continue;
        }
        let start = i;
        let mut run = Run {
            span: 0..0,
            digits: String::new(),
            groups: vec![0],
            dashes: false,
        };
        loop {
            while i < b.len() && b[i].is_ascii_digit() {
                run.digits.push(char::from(b[i]));
                if let Some(g) = run.groups.last_mut() {
                    *g += 1;
                }
                i += 1;
            }
            let sep = i + 1 < b.len() && matches!(b[i], b' ' | b'-') && b[i + 1].is_ascii_digit();
            if !sep {
                break;
            }
            run.dashes |= b[i] == b'-';
            run.groups.push(0);
            i += 1;
        }
        if i < b.len() && b[i].is_ascii_alphabetic() {
            // "5k", "3rd": a measure, not a number on its own.
            continue;
        }
        run.span = start..i;
        out.push(run);
    }
    out
}

/// A number whose shape says what it is: a card number (13–19 digits, Luhn-valid, starting 2–6,
/// in groups of at least 3) or a social security number (`ddd-dd-dddd`).
fn shaped_number(run: &Run) -> Option<Secret> {
    if run.dashes && run.groups == [3, 2, 4] {
        return Some(Secret::Ssn);
    }
    let n = run.digits.len();
    let grouped = run.groups.len() == 1 || run.groups.iter().all(|g| *g >= 3);
    let issuer = run.digits.starts_with(['2', '3', '4', '5', '6']);
    ((13..=19).contains(&n) && grouped && issuer && luhn(&run.digits)).then_some(Secret::CardNumber)
}

/// The Luhn checksum of a digit string holds.
fn luhn(digits: &str) -> bool {
    let sum: u32 = digits
        .bytes()
        .rev()
        .enumerate()
        .map(|(i, d)| {
            let d = u32::from(d - b'0');
            if i % 2 == 1 {
                let x = d * 2;
                if x > 9 { x - 9 } else { x }
            } else {
                d
            }
        })
        .sum();
    sum.is_multiple_of(10)
}

/// IBANs: two capital letters, two check digits, 11–30 letters or digits (spaces allowed
/// between groups), the ISO 13616 checksum (mod 97 = 1) holding.
fn iban(text: &str) -> Vec<Found> {
    let b = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i + 4 <= b.len() {
        let head = b[i].is_ascii_uppercase()
            && b[i + 1].is_ascii_uppercase()
            && b[i + 2].is_ascii_digit()
            && b[i + 3].is_ascii_digit()
            && (i == 0 || !b[i - 1].is_ascii_alphanumeric());
        if !head {
            i += 1;
            continue;
        }
        // The ends of groups: each place the IBAN could end.
        let mut chars = String::new();
        let mut ends: Vec<(usize, usize)> = Vec::new();
        let mut j = i;
        while j < b.len() && chars.len() < 34 {
            let c = b[j];
            if c.is_ascii_uppercase() || c.is_ascii_digit() {
                chars.push(char::from(c));
                j += 1;
                if j == b.len() || !b[j].is_ascii_alphanumeric() {
                    ends.push((j, chars.len()));
                }
            } else if c == b' '
                && j + 1 < b.len()
                && (b[j + 1].is_ascii_uppercase() || b[j + 1].is_ascii_digit())
            {
                j += 1;
            } else {
                break;
            }
        }
        let hit = ends
            .iter()
            .rev()
            .find(|(_, n)| (15..=34).contains(n) && iban_checks(&chars[..*n]));
        match hit {
            Some((end, _)) => {
                out.push(Found {
                    kind: Secret::Iban,
                    span: i..*end,
                });
                i = *end;
            }
            None => i += 1,
        }
    }
    out
}

fn iban_checks(s: &str) -> bool {
    let (head, rest) = s.split_at(4);
    let mut m: u32 = 0;
    for c in rest.chars().chain(head.chars()) {
        let v = match c.to_digit(36) {
            Some(v) => v,
            None => return false,
        };
        m = if v >= 10 {
            (m * 100 + v) % 97
        } else {
            (m * 10 + v) % 97
        };
    }
    m == 1
}

#[cfg(test)]
mod tests;
