//! The recall-quality floors on the labelled set (`tests/data/recall-set/`, both halves): hit@6
//! on on-topic messages and the share of off-topic messages that inject nothing, lexical and
//! semantic with the real all-MiniLM-L6-v2. The floors sit just under what docs/benchmarks.md reports,
//! so a regression of the gate or the ranking fails here. Lexical needs no model and is always
//! checked. `examples/eval_recall.rs` prints the full table.
#![allow(clippy::unwrap_used)] // test code: a failed unwrap is a failed test

use localm::models::embedder::BertEmbedder;
use localm_tests::recall_set::{Figures, HALVES, HEADER, evaluate, load};

/// The share of constraint questions ("Any dinner ideas?") that recalled one of their
/// standing constraints ("User is vegetarian").
fn constraint_rate(f: &Figures) -> f64 {
    f.by_class["constraint"].hit6_rate()
}

/// Lexical recall (word share, no embedder): off-topic messages stay empty, on-topic ones hit.
#[test]
fn lexical_recall_quality_on_both_halves() {
    eprintln!("{HEADER}");
    for half in HALVES {
        let f = evaluate(&load(half), None, false);
        eprintln!("{}", f.row(&format!("{half}, lexical")));
        assert!(f.off_empty_rate() >= 0.90, "{half}: {f:?}");
        assert!(f.hit6_rate() >= 0.65, "{half}: {f:?}");
        assert!(constraint_rate(&f) >= 0.90, "{half}: {f:?}");
    }
}

/// Semantic recall with the real all-MiniLM-L6-v2 and its calibrated gate: at least 95% of
/// off-topic messages inject nothing, the right fact is in the top 6 for 83%, and a request
/// for advice recalls a standing constraint on it in 90%.
#[test]
fn semantic_recall_quality_on_both_halves() {
    // Absent model: skipped, unless LOCALM_REQUIRE_MODELS is set (scripts/test), then it fails.
    let Some(model) = localm_tests::embed_model() else {
        return;
    };
    let bert = BertEmbedder::load(&model).unwrap();
    eprintln!("{HEADER}");
    for half in HALVES {
        let set = load(half);
        let semantic = evaluate(&set, Some(&bert), false);
        eprintln!("{}", semantic.row(&format!("{half}, semantic")));
        assert!(semantic.off_empty_rate() >= 0.95, "{half}: {semantic:?}");
        assert!(semantic.hit6_rate() >= 0.83, "{half}: {semantic:?}");
        assert!(constraint_rate(&semantic) >= 0.90, "{half}: {semantic:?}");
    }
}

/// Words alone, then each test embedding model that is present (MiniLM, multilingual-e5-small),
/// loaded; an absent one is skipped, or fails under `LOCALM_REQUIRE_MODELS`.
fn signals() -> Vec<(&'static str, Option<BertEmbedder>)> {
    let mut out = vec![("lexical", None)];
    for (name, model) in [
        ("MiniLM", localm_tests::embed_model()),
        ("e5", localm_tests::e5_model()),
    ] {
        if let Some(m) = model {
            out.push((name, Some(BertEmbedder::load(&m).unwrap())));
        }
    }
    out
}

/// The set in six languages and across them (`tests/data/recall-set-languages/`), both halves:
/// words alone and MiniLM leave at least 95% of off-topic messages empty (MiniLM scores no
/// language but English), multilingual-e5-small 90% (its held-out half: 28 of 30), and no
/// language has more than one of its five off-topic messages answered; with e5, facts are
/// found in every language and across languages. Floors sit just under docs/benchmarks.md's
/// figures.
#[test]
fn recall_in_six_languages_and_across_them() {
    use localm_tests::recall_set::load_from;
    let signals = signals();
    eprintln!("{HEADER}");
    for half in HALVES {
        let set = load_from("recall-set-languages", half);
        for (name, embedder) in &signals {
            let (name, embedder) = (*name, embedder.as_ref());
            let f = evaluate(&set, embedder, false);
            eprintln!("{}", f.row(&format!("{half}, {name}")));
            let floor = if name == "e5" { 0.90 } else { 0.95 };
            assert!(f.off_empty_rate() >= floor, "{half}, {name}: {f:?}");
            for (lang, l) in &f.by_lang {
                let off = l.off_empty_rate();
                assert!(
                    l.off_topic == 0 || off >= 0.8,
                    "{half}, {name}, {lang}: {l:?}"
                );
            }
            if name == "e5" {
                assert!(f.hit6_rate() >= 0.70, "{half}, {name}: {f:?}");
                assert!(f.by_lang["cross"].hit6_rate() >= 0.5, "{half}: {f:?}");
            }
        }
    }
}

/// The spec's promise for the window: an anaphoric follow-up ("yes, do that") still carries the
/// earlier topic, lexical and semantic alike, with every embedder.
#[test]
fn a_follow_up_carries_the_earlier_topic() {
    use localm_tests::recall_set::{Fact, Labelled, Set};
    let fact = |id: &str, text: &str| Fact {
        id: id.into(),
        text: text.into(),
        kind: "semantic".into(),
    };
    let follow_up = |q: &str, prior: &str, expect: &str| Labelled {
        q: q.into(),
        expect: vec![expect.into()],
        class: "followup".into(),
        prior: vec![prior.into()],
        lang: "en".into(),
    };
    let set = Set {
        facts: vec![
            fact("lisbon", "User is planning a trip to Lisbon in May"),
            fact("bass", "User plays bass guitar in a jazz band"),
            fact("rust", "User is building a budgeting app in Rust"),
            fact("pip", "User has a border collie called Pip"),
        ],
        queries: vec![
            follow_up(
                "yes, do that",
                "Can you plan my Lisbon trip for May?",
                "lisbon",
            ),
            follow_up(
                "which strings suit it?",
                "I'm looking for a new bass guitar",
                "bass",
            ),
            follow_up(
                "ok, go on",
                "How should I structure my budgeting app in Rust?",
                "rust",
            ),
        ],
    };
    for (name, embedder) in signals() {
        let f = evaluate(&set, embedder.as_ref(), true);
        assert_eq!(f.hit6, 3, "{name}: {f:?}");
    }
}
