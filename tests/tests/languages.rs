//! Memory in the user's language, with the real SmolLM2-135M-Instruct: a chat in Spanish,
//! German, Chinese, Japanese, Russian or Arabic leaves only records in the user's own words (a
//! fact kept as they said it, no summary in English, no English word mixed in), and a language
//! memory does not read leaves nothing at all. One test per script: Latin with diacritics, CJK,
//! Cyrillic, Arabic.
#![allow(clippy::unwrap_used)] // test code: a failed unwrap is a failed test

use localm_tests::{Env, llm_model};
use serde_json::Value;

/// Words that give away an English record (a summary "Said they …", a fact "User is …").
const ENGLISH: &[&str] = &[
    "user", "user's", "said", "asked", "they", "them", "their", "the", "is", "has", "and", "about",
    "how", "to", "a", "of", "in", "likes", "works", "lives", "named",
];

/// A pass over one session of `user_lines` (each answered "Got it."), with the real model; the
/// records it leaves.
fn pass(user_lines: &[&str]) -> Option<Vec<Value>> {
    pass_in(user_lines).map(|(_, records)| records)
}

/// [`pass`], and the data dir it ran in.
fn pass_in(user_lines: &[&str]) -> Option<(Env, Vec<Value>)> {
    let model = llm_model()?;
    let env = Env::new();
    env.log(&["setup-model", "--from", model.to_str().unwrap()])
        .ok();
    env.write_session("chat", user_lines);
    // Quiet for an hour, so the pass summarises it too.
    let log = env.data_dir().join("sessions/chat.jsonl");
    let an_hour_ago = std::time::SystemTime::now() - std::time::Duration::from_secs(3600);
    std::fs::File::options()
        .append(true)
        .open(log)
        .unwrap()
        .set_modified(an_hour_ago)
        .unwrap();
    env.log(&["memory", "consolidate", "--json"]).ok();
    let records = env.records();
    Some((env, records))
}

/// Every record is in the user's words: no English word in it, and a fact is a sentence (or the
/// run of one) the user typed.
fn in_their_words(records: &[Value], user_lines: &[&str]) {
    for r in records {
        let text = r["text"].as_str().unwrap();
        let english: Vec<String> = localm_core::words::tokens(text)
            .into_iter()
            .filter(|w| ENGLISH.contains(&w.as_str()))
            .collect();
        assert!(english.is_empty(), "English {english:?} in {text:?}");
        if r["kind"] == "semantic" {
            let said = user_lines
                .iter()
                .any(|l| l.contains(text.trim_end_matches('.')));
            assert!(said, "not the user's words: {text:?}");
        }
    }
}

/// The facts among `records`.
fn facts(records: &[Value]) -> Vec<&str> {
    records
        .iter()
        .filter(|r| r["kind"] == "semantic")
        .map(|r| r["text"].as_str().unwrap())
        .collect()
}

#[test]
fn latin_with_diacritics_keeps_the_users_words() {
    let said = [
        "Hola, me llamo Lucía y trabajo como enfermera en un hospital de Valencia.",
        "Tengo dos gatos, Luna y Sol.",
        "Soy vegetariana desde hace cinco años.",
        "Ich bin allergisch gegen Nüsse.",
        "Ich plane im Juli eine Radtour an der Ostsee mit meiner Tochter Mia.",
    ];
    let Some(records) = pass(&said) else { return };
    in_their_words(&records, &said);
    let facts = facts(&records);
    for kept in [
        "Tengo dos gatos",
        "allergisch gegen Nüsse",
        "Soy vegetariana",
    ] {
        assert!(
            facts.iter().any(|f| f.contains(kept)),
            "{kept:?} not in {facts:?}"
        );
    }
}

#[test]
fn cjk_keeps_the_users_words() {
    let said = [
        "你好！我是一名护士，住在上海。",
        "我有两只猫，它们叫小白和小黑。",
        "私は東京で先生をしています。",
        "저는 서울에 살고 있어요.",
    ];
    let Some(records) = pass(&said) else { return };
    in_their_words(&records, &said);
    let facts = facts(&records);
    assert!(facts.iter().any(|f| f.contains("我有两只猫")), "{facts:?}");
}

#[test]
fn cyrillic_is_not_read_and_nothing_is_garbled() {
    let said = [
        "Привет, меня зовут Ольга, я работаю врачом в Москве.",
        "У меня есть собака по кличке Рекс.",
    ];
    let Some(records) = pass(&said) else { return };
    in_their_words(&records, &said);
    assert!(facts(&records).is_empty(), "{records:?}");
}

#[test]
fn arabic_is_not_read_and_nothing_is_garbled() {
    let said = [
        "مرحبا، اسمي ليلى وأعمل معلمة في عمّان.",
        "عندي قطتان وأحب القراءة.",
    ];
    let Some(records) = pass(&said) else { return };
    in_their_words(&records, &said);
    assert!(facts(&records).is_empty(), "{records:?}");
}

#[test]
fn recall_finds_what_the_user_said_in_their_language() {
    let said = [
        "Ich bin allergisch gegen Nüsse.",
        "我有两只猫，它们叫小白和小黑。",
    ];
    let Some((env, records)) = pass_in(&said) else {
        return;
    };
    assert_eq!(facts(&records).len(), 2, "{records:?}");
    for (asked, recalled) in [
        ("Hast du Ideen fürs Abendessen?", "Nüsse"),
        ("Des idées pour le dîner ?", "Nüsse"),
        ("我的猫叫什么名字？", "两只猫"),
    ] {
        let out = env.log(&["memory", "recall", asked]).ok();
        assert!(out.contains(recalled), "{asked:?} recalled:\n{out}");
    }
    for off_topic in ["今天天气怎么样？", "Wie wird das Wetter morgen?"] {
        let out = env.log(&["memory", "recall", off_topic]).ok();
        assert!(
            out.contains("nothing recalled"),
            "{off_topic:?} recalled:\n{out}"
        );
    }
}

#[test]
fn explain_says_which_language_a_clause_was_kept_in() {
    let Some(model) = llm_model() else { return };
    let env = Env::new();
    env.log(&["setup-model", "--from", model.to_str().unwrap()])
        .ok();
    env.write_session("chat", &["Tengo dos gatos, Luna y Sol.", "I have a dog."]);
    let report: Value =
        serde_json::from_str(&env.log(&["memory", "consolidate", "--json"]).ok()).unwrap();
    let explained = report["explained"].as_array().unwrap();
    let of = |clause: &str| {
        explained
            .iter()
            .find(|e| e["clause"].as_str().unwrap().contains(clause))
            .unwrap_or_else(|| panic!("{clause:?} not in {explained:?}"))
    };
    assert_eq!(of("Tengo dos gatos")["language"], "es");
    assert!(of("I have a dog")["language"].is_null());
}

/// Issue #50: beyond English a session's summary is what the user asked the assistant for,
/// quoted in their language's frame, never an English line; a session of small talk gets none.
#[test]
fn a_summary_beyond_english_quotes_what_was_asked() {
    let asked = [
        "Salut !",
        "Explique-moi comment fonctionne un transistor, simplement.",
        "Merci, c'est plus clair.",
    ];
    let Some(records) = pass(&asked) else {
        return;
    };
    let summaries: Vec<&str> = records
        .iter()
        .filter(|r| r["kind"] == "episodic")
        .map(|r| r["text"].as_str().unwrap())
        .collect();
    assert_eq!(
        summaries,
        ["A demandé : « Explique-moi comment fonctionne un transistor, simplement. »"]
    );
    let small_talk = [
        "Ciao! Come stai?",
        "Hai animali domestici? Io ho due gatti.",
    ];
    let records = pass(&small_talk).unwrap();
    assert!(
        records.iter().all(|r| r["kind"] != "episodic"),
        "{records:?}"
    );
}

/// Beyond English, a reply that does not say "I" is kept joined to the question about the user
/// it answers, both as typed (issue #50's "Hast du Haustiere?" — "Ja, einen alten Dackel namens
/// Fritz."); the same reply after a question about something else is not kept.
#[test]
fn a_reply_is_kept_with_the_question_it_answers() {
    let Some(model) = llm_model() else {
        return;
    };
    let env = Env::new();
    env.log(&["setup-model", "--from", model.to_str().unwrap()])
        .ok();
    let turns = [
        ("assistant", "Hallo! Hast du Haustiere?"),
        ("user", "Ja, einen alten Dackel namens Fritz."),
        ("assistant", "Ist Bremen schön?"),
        ("user", "Ja, eine sehr schöne alte Stadt."),
    ];
    let log: String = turns
        .iter()
        .enumerate()
        .map(|(i, (role, content))| {
            let ts = format!("2026-03-01T10:00:0{i}Z");
            serde_json::json!({"ts": ts, "role": role, "content": content}).to_string() + "\n"
        })
        .collect();
    let sessions = env.data_dir().join("sessions");
    std::fs::create_dir_all(&sessions).unwrap();
    std::fs::write(sessions.join("chat.jsonl"), log).unwrap();
    env.log(&["memory", "consolidate", "--json"]).ok();
    let records = env.records();
    assert_eq!(
        facts(&records),
        ["Hast du Haustiere? Ja, einen alten Dackel namens Fritz."]
    );
}

/// An intention said without a day holds a month from when it was said, in every read language
/// (issue #50: plans never expired beyond English): said on 1 March, "Estoy buscando piso en
/// Bilbao" is archived as expired by the same pass (it is later than 31 March), restorable; "Tengo
/// dos gatos" stays.
#[test]
fn an_intention_ends_a_month_after_it_was_said() {
    let Some((env, records)) = pass_in(&[
        "Estoy buscando piso en Bilbao. Tengo dos gatos.",
        "Estoy planeando un viaje a Galicia. Me preocupa la mudanza de mi madre.",
        "Estoy buscando trabajo para el año que viene.",
    ]) else {
        return;
    };
    // One that names a later time holds on.
    let mut kept = facts(&records);
    kept.sort_unstable();
    assert_eq!(
        kept,
        [
            "Estoy buscando trabajo para el año que viene.",
            "Tengo dos gatos."
        ]
    );
    let archived = env.forgotten();
    for text in [
        "Estoy buscando piso en Bilbao.",
        "Estoy planeando un viaje a Galicia.",
        "Me preocupa la mudanza de mi madre.",
    ] {
        let expired = archived
            .iter()
            .find(|a| a["text"] == text)
            .unwrap_or_else(|| panic!("{text:?} not expired: {archived:?}"));
        assert_eq!(expired["reason"], "expired", "{expired}");
        assert!(
            expired["valid_until"]
                .as_str()
                .unwrap()
                .starts_with("2026-0"),
            "{expired}"
        );
    }
}
