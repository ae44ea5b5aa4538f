//! Tables of real bad model outputs (SmolLM2-135M) and good texts that must pass each guard.

use super::*;

const EXAMPLES: &[&str] = &[
    "user: hi, I'm Marta. I left Porto last year, I live in Lisbon now.\n\
     assistant: Nice to meet you, Marta! How can I help?\n\
     user: suggest a podcast for my commute, I love jazz.",
    r#"{"facts": [{"text": "User's name is Marta", "kind": "semantic", "confidence": 0.95}, {"text": "User lives in Lisbon", "kind": "semantic", "confidence": 0.9}, {"text": "User loves jazz", "kind": "semantic", "confidence": 0.8}]}"#,
    r#"{"summary": "Asked for a jazz podcast for the commute"}"#,
];

const USER: &str = "hi, I'm Nadia. I just adopted a beagle named Biscuit and I walk him every \
morning before work. I'm coeliac so no bread for me. I use tabs instead of spaces and I run \
Debian on my laptop. My USB upload test is flaky, can you help me debug it? I live in Toronto. \
How do I tell crocodiles from alligators? I'd like a podcast for the commute.";

const ASSISTANT: &str = "Hi Nadia! I'm Sam, your assistant. Sure, let's look at the USB test. \
Crocodiles have a narrower snout than alligators.";

fn cx() -> Context<'static> {
    Context {
        user_text: USER,
        assistant_text: ASSISTANT,
        examples: EXAMPLES,
    }
}

/// A real loop, cut where the model's token budget ran out.
fn support_group_loop() -> String {
    "I'm a support group, "
        .repeat(40)
        .chars()
        .take(500)
        .collect()
}

/// A long, ordinary fact of about 500 characters.
const LONG_FACT: &str = "User maintains a Rust daemon for on-device memory that reads chat \
session logs, distils durable facts about its owner with a small local language model, folds \
them into a JSONL store behind file locks, serves recall over a Unix socket to editor plugins, \
runs consolidation passes on a schedule when the laptop is idle and on mains power, keeps \
vectors in a sidecar file, and is tested against fixtures of every older on-disk format so \
that upgrades never silently break the store of an existing installation.";

#[test]
fn repetition_loops() {
    let bad = support_group_loop();
    assert!(bad.chars().count() == 500);
    assert_eq!(repetition_loop(&bad), Some(Refusal::Loop));
    for t in [
        "User likes tea tea tea",
        // Three in a row, in a long text the repeat does not cover.
        "User really really really loves long walks along the river with Biscuit before work",
        "User is a user is a user is a user",
        // Period longer than 4 words: its 4-grams still cover most of the text.
        "User went to the shop today. User went to the shop today. User went to the shop today.",
    ] {
        assert_eq!(repetition_loop(t), Some(Refusal::Loop), "{t}");
    }
    assert!(LONG_FACT.chars().count() >= 480, "{}", LONG_FACT.len());
    for t in [
        LONG_FACT,
        "User likes tea and coffee and cake",
        "User has had had enough of Java",
        "User's name is Nadia",
    ] {
        assert_eq!(repetition_loop(t), None, "{t}");
    }
}

#[test]
fn voice() {
    let cases: &[(&str, Option<Refusal>)] = &[
        (
            "Your family loves music, and you play the piano",
            Some(Refusal::AssistantVoice),
        ),
        (
            "I'm not sure how to debug a USB upload test in your firmware",
            Some(Refusal::AssistantVoice),
        ),
        (
            "Sure! Here's a list of podcasts",
            Some(Refusal::AssistantVoice),
        ),
        (
            "As an AI, I cannot have preferences",
            Some(Refusal::AssistantVoice),
        ),
        (
            "You should try a jazz podcast",
            Some(Refusal::AssistantVoice),
        ),
        ("I can help with that", Some(Refusal::FirstPerson)),
        (
            "A lot happened since our last chat",
            Some(Refusal::FirstPerson),
        ),
        ("I\u{2019}m a support group", Some(Refusal::FirstPerson)),
        ("User's name is Nadia", None),
        ("User lives in the US", None),
        ("User has ME and rests every afternoon", None),
        ("User works at a coal mine", None),
        ("Debugged a flaky USB upload test", None),
        ("Asked how to tell crocodiles from alligators", None),
    ];
    for (t, want) in cases {
        assert_eq!(wrong_voice(t), *want, "{t}");
    }
}

#[test]
fn fragments() {
    let cases: &[(&str, bool)] = &[
        ("Guinea pig", true),
        ("User", true),
        ("User's", true),
        ("User is", true),
        ("User's name is Nadia", false),
        ("User is coeliac", false),
        ("Owns a guinea pig named Pickle", false),
    ];
    for (t, refused) in cases {
        assert_eq!(fact_fragment(t).is_some(), *refused, "{t}");
    }
    // Summaries need three content words, "User" or not.
    assert_eq!(refuse_summary("Guinea pig", &cx()), Some(Refusal::Fragment));
    assert_eq!(refuse_summary("User chat", &cx()), Some(Refusal::Fragment));
}

#[test]
fn facts_about_the_assistant() {
    assert_eq!(
        about_assistant("User's name is Sam", &cx()),
        Some(Refusal::AboutAssistant)
    );
    assert_eq!(
        refuse_fact("User's name is Sam", &cx()),
        Some(Refusal::AboutAssistant)
    );
    // The assistant said "Nadia" too, but the user typed it first.
    assert_eq!(about_assistant("User's name is Nadia", &cx()), None);
    // Lower case in the user's text still counts: "usb" vs "USB".
    let lower = Context {
        user_text: "my usb test fails",
        ..cx()
    };
    assert_eq!(about_assistant("User has a flaky USB test", &lower), None);
    // A name the user typed as a possessive ("Corey Schafer's series", "my Master's degree") is
    // the user's, though the assistant said it too.
    let possessive = Context {
        user_text: "I've done 30 videos of Corey Schafer's Python series for my Master's degree",
        assistant_text: "Corey Schafer's series is great, and a Master's degree takes Python.",
        ..cx()
    };
    for t in [
        "User has completed 30 videos of Corey Schafer's Python series",
        "User is considering going back to school for their Master's degree",
    ] {
        assert_eq!(about_assistant(t, &possessive), None, "{t}");
    }
}

#[test]
fn copies_of_the_examples() {
    for t in [
        "User's name is Marta",
        "User loves music",
        "User loves jazz",
        "User lives in Lisbon",
        "Asked for a jazz podcast for the commute",
    ] {
        assert_eq!(example_copy(t, &cx()), Some(Refusal::ExampleCopy), "{t}");
    }
    for t in [
        "User's name is Nadia",
        "User lives in Toronto",
        "Asked how to tell crocodiles from alligators",
    ] {
        assert_eq!(example_copy(t, &cx()), None, "{t}");
    }
    // A user who really is Marta from Lisbon keeps the facts, though the example says the same.
    let marta = Context {
        user_text: "I'm Marta and I live in Lisbon, I love jazz",
        ..cx()
    };
    assert_eq!(example_copy("User's name is Marta", &marta), None);
    assert_eq!(example_copy("User lives in Lisbon", &marta), None);
    assert_eq!(example_copy("User loves jazz", &marta), None);
}

#[test]
fn grounding_by_substance() {
    let user = "I just adopted a beagle named Biscuit and I walk him every morning before work.";
    let good = "User adopted a beagle named Biscuit and walks him every morning before work";
    assert_eq!(ungrounded(good, user), None);
    // One shared word ("beagle") out of four is not grounding.
    assert_eq!(
        ungrounded("User breeds champion beagle puppies", user),
        Some(Refusal::Ungrounded)
    );
    assert_eq!(ungrounded("User's name is Nadia", "I'm Nadia"), None);
    assert_eq!(ungrounded("User is", user), Some(Refusal::Ungrounded));
    // Three of five is the threshold.
    assert_eq!(
        ungrounded("User walks Biscuit every evening happily", user),
        None
    );
    assert_eq!(
        ungrounded(
            "User walks Biscuit near Glasgow every evening happily",
            user
        ),
        Some(Refusal::Ungrounded)
    );
}

#[test]
fn updates_that_lose_information() {
    let cases: &[(&str, &str, bool)] = &[
        (
            "User walks the dog",
            "User walks Pickle every morning before work",
            true,
        ),
        ("User has cats", "User has 2 cats", true),
        ("User works", "User works on printer firmware", true),
        ("User lives in Edinburgh", "User lives in Toronto", false),
        ("User has 3 cats", "User has 2 cats", false),
        (
            "User walks Pickle every morning and evening",
            "User walks Pickle every morning",
            false,
        ),
        ("User prefers tea over coffee", "User drinks coffee", false),
    ];
    for (new, old, want) in cases {
        assert_eq!(less_specific(new, old), *want, "{old} -> {new}");
    }
}

#[test]
fn compound_facts_are_split() {
    let cases: &[(&str, &[&str])] = &[
        (
            "User uses tabs instead of spaces, and runs Debian on laptop",
            &[
                "User uses tabs instead of spaces",
                "User runs Debian on laptop",
            ],
        ),
        (
            "User is coeliac; User's dog is called Pickle",
            &["User is coeliac", "User's dog is called Pickle"],
        ),
        (
            "User adopted a beagle named Biscuit and walks him every morning",
            &[
                "User adopted a beagle named Biscuit",
                "User walks him every morning",
            ],
        ),
        (
            "User likes rock and roll music",
            &["User likes rock and roll music"],
        ),
        (
            "User has a cat and two dogs",
            &["User has a cat and two dogs"],
        ),
        (
            "User speaks English and French",
            &["User speaks English and French"],
        ),
        ("User's name is Nadia", &["User's name is Nadia"]),
    ];
    for (text, want) in cases {
        assert_eq!(split_compound(text), *want, "{text}");
    }
}

#[test]
fn entry_points() {
    let facts: &[(&str, Option<Refusal>)] = &[
        (&support_group_loop(), Some(Refusal::Loop)),
        ("Your family loves music", Some(Refusal::AssistantVoice)),
        ("Guinea pig", Some(Refusal::Fragment)),
        ("User's name is Sam", Some(Refusal::AboutAssistant)),
        ("User lives in Lisbon", Some(Refusal::ExampleCopy)),
        ("User plays chess every weekend", Some(Refusal::Ungrounded)),
        ("User's name is Nadia", None),
        ("User is coeliac", None),
        ("User lives in Toronto", None),
        ("User runs Debian on laptop", None),
        (
            "User adopted a beagle named Biscuit and walks him every morning before work",
            None,
        ),
    ];
    for (t, want) in facts {
        assert_eq!(refuse_fact(t, &cx()), *want, "{t}");
    }
    let summaries: &[(&str, Option<Refusal>)] = &[
        (&support_group_loop(), Some(Refusal::Loop)),
        (
            "I'm not sure how to debug a USB upload test in your firmware",
            Some(Refusal::AssistantVoice),
        ),
        (
            "A lot happened since our last chat",
            Some(Refusal::FirstPerson),
        ),
        (
            "Asked for a jazz podcast for the commute",
            Some(Refusal::ExampleCopy),
        ),
        ("Debugged a flaky USB upload test", None),
        ("Asked how to tell crocodiles from alligators", None),
    ];
    for (t, want) in summaries {
        assert_eq!(refuse_summary(t, &cx()), *want, "{t}");
    }
}
