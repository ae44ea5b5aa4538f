//! Secrets the text names: a name ("PIN", "password", "door code", "mother's maiden name",
//! "login", "seed phrase"), then links and the words allowed between, then a value of its kind;
//! a value the text calls a security answer ("Fluffy, that's my security answer"); and a user
//! name and password pair after an email address.

use super::value::{LINKS, Value, plain_value, proper_run_back, value_at};
use super::{Found, Secret, Word};

/// One name of a secret.
struct Name {
    /// Its words, lower-case, matched in order.
    words: &'static [&'static str],
    kind: Secret,
    /// The value after a link ("is", "was", ':').
    linked: Value,
    /// The value with no link between ("PIN 4821", "password hunter2"), if one may stand so.
    bare: Option<Value>,
    /// What must stand around the name.
    qualifier: Qualifier,
}

/// What must stand around a name for it to name a secret.
#[derive(Clone, Copy)]
enum Qualifier {
    Any,
    /// One of these words just before it ("mother's maiden name").
    Before(&'static [&'static str]),
    /// A code's door: one of `CODE_OF` before it ("the door code"), or "to/for my …" after it
    /// ("the code to my door"): a zip, area or promo code is not a secret.
    Door,
}

/// A name whose value may follow with or without a link.
const fn both(words: &'static [&'static str], kind: Secret, value: Value) -> Name {
    Name {
        words,
        kind,
        linked: value,
        bare: Some(value),
        qualifier: Qualifier::Any,
    }
}

/// A name whose value must follow a link ("security answer is …").
const fn linked(words: &'static [&'static str], kind: Secret, value: Value) -> Name {
    Name {
        words,
        kind,
        linked: value,
        bare: None,
        qualifier: Qualifier::Any,
    }
}

/// A name of a password: any word after a link, a made-up one without ("password hunter2").
const fn password(words: &'static [&'static str]) -> Name {
    Name {
        words,
        kind: Secret::Password,
        linked: Value::Word,
        bare: Some(Value::Made),
        qualifier: Qualifier::Any,
    }
}

const fn door(words: &'static [&'static str]) -> Name {
    Name {
        words,
        kind: Secret::Passcode,
        linked: Value::Code,
        bare: Some(Value::Code),
        qualifier: Qualifier::Door,
    }
}

/// The names, in the order they are tried at each word: the longer and narrower first.
const NAMES: &[Name] = &[
    both(&["pin"], Secret::Pin, Value::Digits(4, 8)),
    both(&["puk"], Secret::Pin, Value::Digits(4, 10)),
    password(&["password"]),
    password(&["passwd"]),
    password(&["passphrase"]),
    password(&["pwd"]),
    password(&["pw"]),
    password(&["wifi", "key"]),
    password(&["wi-fi", "key"]),
    password(&["wpa", "key"]),
    password(&["wpa2", "key"]),
    password(&["network", "key"]),
    // A login is a user name and a password: "my Netflix login is bob / Hunter2!".
    both(&["login", "details"], Secret::Password, Value::Pair),
    both(&["login", "info"], Secret::Password, Value::Pair),
    both(&["login"], Secret::Password, Value::Pair),
    both(&["logins"], Secret::Password, Value::Pair),
    both(&["log-in"], Secret::Password, Value::Pair),
    both(&["logon"], Secret::Password, Value::Pair),
    both(&["sign-in"], Secret::Password, Value::Pair),
    both(&["credentials"], Secret::Password, Value::Pair),
    both(&["creds"], Secret::Password, Value::Pair),
    both(&["passcode"], Secret::Passcode, Value::Word),
    both(&["pass", "code"], Secret::Passcode, Value::Word),
    linked(&["combination"], Secret::Passcode, Value::Digits(3, 10)),
    both(&["recovery", "code"], Secret::RecoveryCode, Value::Code),
    both(&["recovery", "codes"], Secret::RecoveryCode, Value::Code),
    both(&["backup", "code"], Secret::RecoveryCode, Value::Code),
    both(&["backup", "codes"], Secret::RecoveryCode, Value::Code),
    door(&["code"]),
    door(&["codes"]),
    both(&["seed", "phrase"], Secret::SeedPhrase, Value::Phrase),
    both(&["seed", "words"], Secret::SeedPhrase, Value::Phrase),
    both(&["recovery", "phrase"], Secret::SeedPhrase, Value::Phrase),
    both(&["mnemonic", "phrase"], Secret::SeedPhrase, Value::Phrase),
    both(&["wallet", "phrase"], Secret::SeedPhrase, Value::Phrase),
    both(&["backup", "phrase"], Secret::SeedPhrase, Value::Phrase),
    both(&["cvv"], Secret::Cvv, Value::Digits(3, 4)),
    both(&["cvv2"], Secret::Cvv, Value::Digits(3, 4)),
    both(&["cvc"], Secret::Cvv, Value::Digits(3, 4)),
    both(&["csc"], Secret::Cvv, Value::Digits(3, 4)),
    both(&["account"], Secret::AccountNumber, Value::Digits(6, 17)),
    both(&["acct"], Secret::AccountNumber, Value::Digits(6, 17)),
    both(&["routing"], Secret::RoutingNumber, Value::Digits(9, 9)),
    both(
        &["sort", "code"],
        Secret::RoutingNumber,
        Value::Digits(6, 6),
    ),
    both(&["ssn"], Secret::Ssn, Value::Digits(9, 9)),
    both(&["social", "security"], Secret::Ssn, Value::Digits(9, 9)),
    linked(&["security", "answer"], Secret::SecurityAnswer, Value::Word),
    linked(
        &["security", "answers"],
        Secret::SecurityAnswer,
        Value::Word,
    ),
    linked(&["secret", "answer"], Secret::SecurityAnswer, Value::Word),
    linked(&["security", "word"], Secret::SecurityAnswer, Value::Word),
    linked(&["memorable", "word"], Secret::SecurityAnswer, Value::Word),
    linked(
        &["memorable", "information"],
        Secret::SecurityAnswer,
        Value::Word,
    ),
    linked(
        &["answer", "to", "my", "security", "question"],
        Secret::SecurityAnswer,
        Value::Word,
    ),
    // The classic security question is one: a mother's maiden name. The user's own maiden name,
    // or their mother's name, is a personal fact.
    Name {
        words: &["maiden", "name"],
        kind: Secret::SecurityAnswer,
        linked: Value::Word,
        bare: None,
        qualifier: Qualifier::Before(MOTHER),
    },
    both(&["key"], Secret::ApiKey, Value::Random),
    both(&["apikey"], Secret::ApiKey, Value::Random),
    both(&["api_key"], Secret::ApiKey, Value::Random),
    both(&["secret"], Secret::ApiKey, Value::Random),
    both(&["token"], Secret::Token, Value::Random),
    both(&["bearer"], Secret::Token, Value::Random),
];

/// Whose maiden name is a security answer.
const MOTHER: &[&str] = &[
    "mother's",
    "mother’s",
    "mothers",
    "mom's",
    "mom’s",
    "moms",
    "mum's",
    "mum’s",
    "mums",
    "ma's",
];

/// Words that name which code a "code" is: "the door code is 1234".
const CODE_OF: &[&str] = &[
    "door",
    "front",
    "back",
    "gate",
    "alarm",
    "garage",
    "lock",
    "lockbox",
    "padlock",
    "locker",
    "safe",
    "vault",
    "access",
    "entry",
    "keypad",
    "intercom",
    "buzzer",
    "mailbox",
    "storage",
    "security",
    "verification",
    "unlock",
    "phone",
    "voicemail",
    "screen",
    "building",
    "house",
    "apartment",
    "flat",
    "wifi",
    "wi-fi",
    "2fa",
    "mfa",
    "otp",
    "one-time",
    "login",
    "authenticator",
];

/// Words that may stand between a name and its value without a link ("PIN number 4821").
const BETWEEN: &[&str] = &[
    "number",
    "no",
    "num",
    "#",
    "code",
    "currently",
    "now",
    "still",
];

/// A secret named at `words[i]`: its name matched there, then links and the words allowed
/// between, then a value of its kind.
pub(super) fn named(words: &[Word], i: usize, text: &str) -> Option<Found> {
    for name in NAMES {
        let n = name.words.len();
        if i + n > words.len()
            || !name
                .words
                .iter()
                .zip(&words[i..])
                .all(|(a, w)| w.lower == *a)
        {
            continue;
        }
        let mut j = i + n;
        let mut linked = words[j - 1].colon;
        let before = |list: &[&str]| i > 0 && list.contains(&words[i - 1].lower.as_str());
        match name.qualifier {
            Qualifier::Any => {}
            Qualifier::Before(list) if before(list) => {}
            Qualifier::Before(_) => continue,
            Qualifier::Door => {
                let to_my = j + 2 < words.len()
                    && matches!(words[j].lower.as_str(), "to" | "for")
                    && matches!(words[j + 1].lower.as_str(), "my" | "the" | "our");
                if to_my {
                    j += 3;
                    // The thing in two words: "the code for my bike lock is 4821".
                    if j + 1 < words.len()
                        && !LINKS.contains(&words[j].lower.as_str())
                        && LINKS.contains(&words[j + 1].lower.as_str())
                    {
                        j += 1;
                    }
                    linked = words[j - 1].colon;
                } else if !before(CODE_OF) {
                    continue;
                }
            }
        }
        let fits = |k: usize| {
            [Some(name.linked), name.bare]
                .into_iter()
                .flatten()
                .any(|v| value_at(words, k, v, text).is_some())
        };
        // "my bank PIN for the card is 4821": for/on/to + a determiner + one or two words.
        let mut steps = 0;
        while j < words.len() && steps < 6 {
            let w = words[j].lower.as_str();
            if LINKS.contains(&w) {
                linked = true;
            } else if BETWEEN.contains(&w) {
            } else if !linked && matches!(w, "for" | "to" | "on" | "at") {
                // The thing it unlocks: "for (my|the) bank card".
                let mut k = j + 1;
                if k < words.len() && matches!(words[k].lower.as_str(), "my" | "the" | "our") {
                    k += 1;
                }
                let thing = k < words.len() && !LINKS.contains(&words[k].lower.as_str());
                if !thing {
                    break;
                }
                j = k;
                // A second word of the thing: "for my bank card".
                if j + 1 < words.len()
                    && !LINKS.contains(&words[j + 1].lower.as_str())
                    && !words[j].colon
                    && !fits(j + 1)
                {
                    j += 1;
                }
            } else {
                break;
            }
            linked |= words[j].colon;
            j += 1;
            steps += 1;
        }
        let value = if linked { Some(name.linked) } else { name.bare };
        if let Some(span) = value.and_then(|v| value_at(words, j, v, text)) {
            return Some(Found {
                kind: name.kind,
                span,
            });
        }
    }
    None
}

/// Words that call a stated value a security answer: "security answer", "secret question",
/// "memorable word", "challenge question".
fn is_mark(words: &[Word], k: usize) -> bool {
    let Some(next) = words.get(k + 1) else {
        return false;
    };
    let second = next.lower.as_str();
    match words[k].lower.as_str() {
        "security" | "secret" | "challenge" => matches!(
            second,
            "answer" | "answers" | "question" | "questions" | "word"
        ),
        "memorable" => matches!(second, "word" | "information" | "answer"),
        _ => false,
    }
}

/// A value stated before the text calls it a security answer: "My first pet's name was
/// Fluffy, that's my security answer", "Elm Street is my security answer". A link after the
/// words ("security questions are annoying") states the question, not an answer: not one.
pub(super) fn labelled_answer(words: &[Word], text: &str) -> Option<Found> {
    let m = (0..words.len()).find(|&k| is_mark(words, k))?;
    for k in 0..m {
        let w = words[k].lower.as_str();
        // Where the link stands: at a link word (its subject before it), or after a colon.
        let (subject, value) = if LINKS.contains(&w)
            || matches!(w, "that's" | "that’s" | "it's" | "it’s" | "which's")
        {
            (k.checked_sub(1), k + 1)
        } else if words[k].colon {
            (Some(k), k + 1)
        } else {
            continue;
        };
        if value < m
            && let Some(span) = value_at(words, value, Value::Word, text)
        {
            return Some(Found {
                kind: Secret::SecurityAnswer,
                span,
            });
        }
        // "X is my security answer": the subject is the value.
        let mut v = value;
        while v < m && matches!(words[v].lower.as_str(), "my" | "the" | "our" | "a") {
            v += 1;
        }
        if v == m
            && let Some(s) = subject.filter(|&s| plain_value(&words[s]))
        {
            return Some(Found {
                kind: Secret::SecurityAnswer,
                span: proper_run_back(words, s, text),
            });
        }
    }
    None
}

/// A password after an email address: "bob@example.com / Hunter2!", "bob@example.com:Hunter2".
pub(super) fn email_pair(words: &[Word], j: usize, text: &str) -> Option<Found> {
    let raw = &text[words[j].span.clone()];
    let (local, domain) = raw.split_once('@')?;
    let email = !local.is_empty() && domain.find('.').is_some_and(|p| p > 0);
    if !email {
        return None;
    }
    value_at(words, j, Value::Pair, text).map(|span| Found {
        kind: Secret::Password,
        span,
    })
}
