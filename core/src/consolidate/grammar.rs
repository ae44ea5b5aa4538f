//! GBNF grammars for the JSON each consolidation prompt expects, so a small model cannot produce
//! anything else. The decision grammar is built per call: its `target` can only be one of the
//! neighbours' ids (or empty).

/// Shared rules: a bounded JSON string, a 0–1 number, optional space.
const COMMON: &str = r#"
str ::= "\"" char{1,240} "\""
char ::= [^"\\\x00-\x1F\x7F] | "\\" ["\\/nt]
num ::= "0" ("." [0-9] [0-9]?)? | "1" (".0")?
ws ::= " "?
"#;

/// `{"facts": [{"text", "kind", "confidence"}, …]}` with at most 12 facts.
pub fn candidates() -> String {
    format!(
        r#"root ::= "{{" ws "\"facts\"" ws ":" ws "[" ws (fact (ws "," ws fact){{0,11}})? ws "]" ws "}}"
fact ::= "{{" ws "\"text\"" ws ":" ws str ws "," ws "\"kind\"" ws ":" ws kind ws "," ws "\"confidence\"" ws ":" ws num ws "}}"
kind ::= "\"semantic\"" | "\"episodic\""{COMMON}"#
    )
}

/// `{"op", "target", "text", "confidence"}` where target is one of `ids` or "".
pub fn decision(ids: &[String]) -> String {
    let mut targets = vec![r#""\"\"""#.to_string()];
    for id in ids {
        let safe: String = id.chars().filter(|c| c.is_ascii_alphanumeric()).collect();
        targets.push(format!(r#""\"{safe}\"""#));
    }
    format!(
        r#"root ::= "{{" ws "\"op\"" ws ":" ws op ws "," ws "\"target\"" ws ":" ws target ws "," ws "\"text\"" ws ":" ws str ws "," ws "\"confidence\"" ws ":" ws num ws "}}"
op ::= "\"ADD\"" | "\"UPDATE\"" | "\"DELETE\"" | "\"NO_OP\""
target ::= {}{COMMON}"#,
        targets.join(" | ")
    )
}

/// `{"fact": "User…"}`: one fact, in the third person by construction.
pub fn fact() -> String {
    format!(r#"root ::= "{{" ws "\"fact\"" ws ":" ws "\"User" char{{1,200}} "\"" ws "}}"{COMMON}"#)
}

/// `{"summary": "<Verb> …"}`: one short line that opens with a past-tense verb of what the user
/// did, so it can be neither the assistant's voice nor a ramble cut off by the token budget.
pub fn summary() -> String {
    let verbs: Vec<String> = SUMMARY_VERBS.iter().map(|v| format!(r#""{v}""#)).collect();
    format!(
        r#"root ::= "{{" ws "\"summary\"" ws ":" ws "\"" verb " " char{{8,90}} "\"" ws "}}"
verb ::= {}{COMMON}"#,
        verbs.join(" | ")
    )
}

/// The verbs a summary may open with.
pub const SUMMARY_VERBS: &[&str] = &[
    "Asked",
    "Fixed",
    "Debugged",
    "Planned",
    "Compared",
    "Wrote",
    "Drafted",
    "Discussed",
    "Learned",
    "Chose",
    "Prepared",
    "Explored",
    "Tracked",
    "Set",
    "Looked",
    "Shared",
    "Practised",
    "Configured",
    "Reviewed",
    "Role-played",
    "Daydreamed",
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decision_targets_are_only_the_given_ids() {
        let g = decision(&["abc12345".into(), "bad\"id".into()]);
        assert!(
            g.contains(r#"target ::= "\"\"" | "\"abc12345\"" | "\"badid\"""#),
            "{g}"
        );
    }

    #[test]
    fn grammars_have_a_root_and_balanced_quotes() {
        for g in [candidates(), decision(&[]), summary(), fact()] {
            assert!(g.starts_with("root ::= "));
            for line in g.lines().filter(|l| !l.trim().is_empty()) {
                assert!(line.contains("::="), "{line}");
            }
        }
    }
}
