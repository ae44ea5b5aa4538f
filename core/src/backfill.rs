//! The embedding backfill: which records lack a current vector, and how freshly made vectors are
//! merged into the sidecar (dropping vectors of deleted records, edited texts or other models).

use crate::record::Record;
use crate::store::vectors::{VectorEntry, Vectors, text_hash};

/// Up to this many records are embedded per consolidation pass.
pub const PER_PASS: usize = 64;

/// A record to embed: its id and the text the vector will be made from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Todo {
    pub id: String,
    pub text: String,
}

/// The records without a current vector from `model`, most important first, at most `limit`.
pub fn todo(records: &[Record], vectors: &Vectors, model: &str, limit: usize) -> Vec<Todo> {
    let mut missing: Vec<&Record> = records
        .iter()
        .filter(|r| vectors.current(&r.id, &r.text, model).is_none())
        .collect();
    missing.sort_by(|a, b| {
        b.importance
            .total_cmp(&a.importance)
            .then(b.updated_at.cmp(&a.updated_at))
    });
    missing
        .into_iter()
        .take(limit)
        .map(|r| Todo {
            id: r.id.clone(),
            text: r.text.clone(),
        })
        .collect()
}

/// How many records have no current vector from `model`.
pub fn missing_count(records: &[Record], vectors: &Vectors, model: &str) -> usize {
    records
        .iter()
        .filter(|r| vectors.current(&r.id, &r.text, model).is_none())
        .count()
}

/// Merge `made` (vectors for `todo` items, in order) into `entries`, given the live records as
/// they are now: keep only current vectors of live records from `model`, add the new ones whose
/// record still has the text they were made from. Returns how many were added.
pub fn merge(
    records: &[Record],
    entries: &mut Vec<VectorEntry>,
    model: &str,
    made: Vec<(Todo, Vec<f32>)>,
) -> usize {
    let live = |id: &str, hash: u64| {
        records
            .iter()
            .any(|r| r.id == id && text_hash(&r.text) == hash)
    };
    entries.retain(|e| e.model == model && live(&e.id, e.text_hash));
    let mut added = 0;
    for (t, vector) in made {
        let hash = text_hash(&t.text);
        if !live(&t.id, hash) {
            continue;
        }
        entries.retain(|e| e.id != t.id);
        entries.push(VectorEntry {
            id: t.id,
            text_hash: hash,
            model: model.to_string(),
            vector,
        });
        added += 1;
    }
    added
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::Source;

    fn rec(id: &str, text: &str, importance: f32) -> Record {
        let t = "2026-01-01T00:00:00Z".parse().unwrap();
        Record {
            importance,
            ..Record::fixture(id, text, Source::User, t)
        }
    }

    #[test]
    fn todo_lists_missing_most_important_first_within_limit() {
        let records = vec![
            rec("a", "one", 0.2),
            rec("b", "two", 0.9),
            rec("c", "three", 0.5),
        ];
        let mut entries = Vec::new();
        merge(
            &records,
            &mut entries,
            "m",
            vec![(
                Todo {
                    id: "c".into(),
                    text: "three".into(),
                },
                vec![1.0],
            )],
        );
        let v = Vectors::new(entries);
        let t = todo(&records, &v, "m", 1);
        assert_eq!(
            t,
            vec![Todo {
                id: "b".into(),
                text: "two".into()
            }]
        );
        assert_eq!(missing_count(&records, &v, "m"), 2);
        assert_eq!(missing_count(&records, &v, "other-model"), 3);
    }

    #[test]
    fn merge_drops_stale_and_skips_vectors_of_changed_records() {
        let mut records = vec![rec("a", "one", 0.5), rec("b", "two", 0.5)];
        let mut entries = vec![
            VectorEntry {
                id: "gone".into(),
                text_hash: 1,
                model: "m".into(),
                vector: vec![1.0],
            },
            VectorEntry {
                id: "a".into(),
                text_hash: text_hash("one"),
                model: "old".into(),
                vector: vec![1.0, 2.0],
            },
        ];
        // "b" was edited while its vector was being made.
        records[1].text = "two, edited".into();
        let added = merge(
            &records,
            &mut entries,
            "m",
            vec![
                (
                    Todo {
                        id: "a".into(),
                        text: "one".into(),
                    },
                    vec![0.5],
                ),
                (
                    Todo {
                        id: "b".into(),
                        text: "two".into(),
                    },
                    vec![0.5],
                ),
            ],
        );
        assert_eq!(added, 1);
        assert_eq!(entries.len(), 1);
        assert_eq!(entries[0].id, "a");
        assert_eq!(entries[0].model, "m");
    }
}
