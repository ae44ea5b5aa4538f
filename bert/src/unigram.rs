//! A Unigram (SentencePiece) model that finds a text's pieces by hashing its substrings, for
//! tokenizer.json files whose model is Unigram (multilingual-e5-small's 250,002 pieces): the same
//! pieces and ids as the `tokenizers` crate's own model, whose byte trie holds about 290 MB for
//! that vocabulary, in about 20 MB.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Deserializer};
use tokenizers::models::unigram::UnigramTrainer;
use tokenizers::{Model, Token};

/// The score of a character no piece covers, below the lowest piece's: the crate's
/// `K_UNK_PENALTY`, so that paths through unknown characters are weighed as it weighs them.
const UNK_PENALTY: f64 = 10.0;

/// A Unigram vocabulary: each piece with its log-probability, found by exact lookup.
#[derive(Debug)]
pub struct CompactUnigram {
    /// Piece and score, by id (the file's order).
    vocab: Vec<(Box<str>, f64)>,
    /// Piece → id; a piece listed twice keeps its last id, as the crate's map does.
    ids: HashMap<Box<str>, u32>,
    unk_id: Option<u32>,
    min_score: f64,
    /// The longest piece, in bytes: no lookup is longer.
    longest: usize,
}

/// The model object of tokenizer.json, as the crate reads it.
#[derive(Deserialize)]
struct UnigramFile {
    #[serde(rename = "type")]
    kind: String,
    vocab: Vec<(String, f64)>,
    #[serde(default)]
    unk_id: Option<usize>,
    #[serde(default)]
    byte_fallback: bool,
}

impl<'de> Deserialize<'de> for CompactUnigram {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        use serde::de::Error;
        let file = UnigramFile::deserialize(deserializer)?;
        if file.kind != "Unigram" {
            return Err(D::Error::custom(format!(
                "model is {}, not Unigram",
                file.kind
            )));
        }
        // Byte fallback spells an unknown character as its bytes' pieces: the crate's model does.
        if file.byte_fallback {
            return Err(D::Error::custom("byte_fallback is not read here"));
        }
        CompactUnigram::new(file.vocab, file.unk_id).map_err(D::Error::custom)
    }
}

impl CompactUnigram {
    /// The model of `vocab` (piece, score), unknown characters given `unk_id`.
    pub fn new(vocab: Vec<(String, f64)>, unk_id: Option<usize>) -> Result<Self, String> {
        if unk_id.is_some_and(|u| u >= vocab.len()) {
            return Err("unk_id is not in the vocabulary".to_string());
        }
        let mut ids = HashMap::with_capacity(vocab.len());
        let mut min_score = f64::INFINITY;
        let mut longest = 0;
        let vocab: Vec<(Box<str>, f64)> = vocab
            .into_iter()
            .map(|(piece, score)| (piece.into_boxed_str(), score))
            .collect();
        for (id, (piece, score)) in vocab.iter().enumerate() {
            ids.insert(piece.clone(), id as u32);
            min_score = min_score.min(*score);
            longest = longest.max(piece.len());
        }
        Ok(Self {
            vocab,
            ids,
            unk_id: unk_id.map(|u| u as u32),
            min_score,
            longest,
        })
    }

    /// The best-scoring split of `text` into pieces (Viterbi), as the crate's optimised encoder
    /// finds it: at each character, every piece starting there from the shortest up, a later
    /// path replacing an earlier one only when strictly better; a character no one-character
    /// piece covers is unknown, and adjacent unknowns are one piece. Each piece with its id.
    fn split<'t>(&self, text: &'t str) -> Result<Vec<(&'t str, u32)>, String> {
        struct Best {
            id: u32,
            score: f64,
            start: Option<usize>,
        }
        let size = text.len();
        let unk_score = self.min_score - UNK_PENALTY;
        let mut best: Vec<Best> = (0..=size)
            .map(|_| Best {
                id: 0,
                score: 0.0,
                start: None,
            })
            .collect();
        let offer = |best: &mut Vec<Best>, end: usize, start: usize, id: u32, score: f64| {
            let node = &mut best[end];
            if node.start.is_none() || score > node.score {
                *node = Best {
                    id,
                    score,
                    start: Some(start),
                };
            }
        };
        for (start, ch) in text.char_indices() {
            let here = best[start].score;
            let char_len = ch.len_utf8();
            let mut single = false;
            for (offset, c) in text[start..].char_indices() {
                let end = start + offset + c.len_utf8();
                if end - start > self.longest {
                    break;
                }
                if let Some(&id) = self.ids.get(&text[start..end]) {
                    let score = here + self.vocab[id as usize].1;
                    offer(&mut best, end, start, id, score);
                    single |= end - start == char_len;
                }
            }
            if !single {
                let unk = self
                    .unk_id
                    .ok_or("a character no piece covers, and no unk_id")?;
                offer(&mut best, start + char_len, start, unk, here + unk_score);
            }
        }
        // A run of unknowns is looked up whole, as the crate looks it up (unk when not a piece).
        // Only a path through an unknown makes a run, so unk_id is there when one is made.
        let unk = self.unk_id.unwrap_or_default();
        let run = |piece: &'t str| (piece, self.ids.get(piece).copied().unwrap_or(unk));
        let mut pieces = Vec::new();
        let mut end = size;
        let mut unknown_from: Option<usize> = None;
        while end > 0 {
            let node = &best[end];
            let start = node.start.expect("every character boundary is reached");
            if Some(node.id) == self.unk_id {
                // Adjacent unknowns fuse: extend the run leftwards.
                unknown_from.get_or_insert(end);
            } else {
                if let Some(run_end) = unknown_from.take() {
                    pieces.push(run(&text[end..run_end]));
                }
                pieces.push((&text[start..end], node.id));
            }
            end = start;
        }
        if let Some(run_end) = unknown_from {
            pieces.push(run(&text[..run_end]));
        }
        pieces.reverse();
        Ok(pieces)
    }
}

impl Model for CompactUnigram {
    /// Never trained here; the trait asks for a trainer type.
    type Trainer = UnigramTrainer;

    fn tokenize(&self, sequence: &str) -> tokenizers::Result<Vec<Token>> {
        let mut offset = 0;
        let mut tokens = Vec::new();
        for (piece, id) in self.split(sequence)? {
            let len = piece.len();
            tokens.push(Token::new(id, piece.to_string(), (offset, offset + len)));
            offset += len;
        }
        Ok(tokens)
    }

    fn token_to_id(&self, token: &str) -> Option<u32> {
        self.ids.get(token).copied()
    }

    fn id_to_token(&self, id: u32) -> Option<String> {
        self.vocab
            .get(id as usize)
            .map(|(piece, _)| piece.to_string())
    }

    fn get_vocab(&self) -> HashMap<String, u32> {
        self.ids
            .iter()
            .map(|(p, &id)| (p.to_string(), id))
            .collect()
    }

    fn get_vocab_size(&self) -> usize {
        self.vocab.len()
    }

    fn save(&self, _folder: &Path, _prefix: Option<&str>) -> tokenizers::Result<Vec<PathBuf>> {
        Err("this Unigram model is read only".into())
    }

    fn get_trainer(&self) -> UnigramTrainer {
        UnigramTrainer::default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn model() -> CompactUnigram {
        let vocab = [
            ("<unk>", 0.0),
            ("▁", -1.0),
            ("a", -2.0),
            ("b", -2.0),
            ("ab", -3.0),
            ("abc", -9.0),
            ("c", -2.5),
            ("xa", -13.0),
        ];
        CompactUnigram::new(
            vocab.iter().map(|(p, s)| (p.to_string(), *s)).collect(),
            Some(0),
        )
        .unwrap()
    }

    fn pieces<'t>(m: &CompactUnigram, text: &'t str) -> Vec<&'t str> {
        m.split(text).unwrap().into_iter().map(|(p, _)| p).collect()
    }

    #[test]
    fn the_best_path_wins_and_unknowns_fuse() {
        let m = model();
        // "ab" (-3) beats "a"+"b" (-4); "abc" (-9) loses to "ab"+"c" (-5.5).
        assert_eq!(pieces(&m, "abc"), ["ab", "c"]);
        // Two unknown characters in a row are one piece, with unk's id.
        assert_eq!(pieces(&m, "aéßb"), ["a", "éß", "b"]);
        let ids: Vec<u32> = m.tokenize("xéa").unwrap().iter().map(|t| t.id).collect();
        assert_eq!(ids, [0, 2]);
        assert!(pieces(&m, "").is_empty());
        // "x" has no piece of its own, but a longer piece starting with it is still found.
        assert_eq!(pieces(&m, "xa"), ["xa"]);
    }
}
