//! A folder's tokenizer.json as embedding uses it: read by the `tokenizers` crate, with the
//! Unigram model swapped for [`CompactUnigram`] where the file names one (the same ids, a tenth
//! of the memory); never padded, truncated on the right.

use std::path::Path;

use tokenizers::{
    Decoder, DecoderWrapper, EncodeInput, Encoding, Model, Normalizer, NormalizerWrapper,
    PostProcessor, PostProcessorWrapper, PreTokenizer, PreTokenizerWrapper, Tokenizer,
    TokenizerImpl, TruncationDirection, TruncationParams, TruncationStrategy,
};

use crate::BertError;
use crate::unigram::CompactUnigram;

type UnigramTokenizer = TokenizerImpl<
    CompactUnigram,
    NormalizerWrapper,
    PreTokenizerWrapper,
    PostProcessorWrapper,
    DecoderWrapper,
>;

/// Text to token ids, as the model folder says.
pub struct TextTokenizer(Inner);

enum Inner {
    Crate(Box<Tokenizer>),
    Unigram(Box<UnigramTokenizer>),
}

impl TextTokenizer {
    /// The tokenizer of `path`, unpadded (one text at a time) and truncated on the right at
    /// `max_tokens`, special tokens included.
    pub fn from_file(path: &Path, max_tokens: usize) -> Result<Self, BertError> {
        let error =
            |e: &dyn std::fmt::Display| BertError::Tokenizer(format!("{}: {e}", path.display()));
        let bytes = std::fs::read(path).map_err(|e| error(&e))?;
        // Any file the Unigram reading refuses (another model, byte fallback) is the crate's.
        let inner = match serde_json::from_slice::<UnigramTokenizer>(&bytes) {
            Ok(mut t) => {
                configure(&mut t, max_tokens).map_err(|e| error(&e))?;
                Inner::Unigram(Box::new(t))
            }
            Err(_) => {
                let mut t = Tokenizer::from_bytes(&bytes).map_err(|e| error(&e))?;
                configure(&mut t, max_tokens).map_err(|e| error(&e))?;
                Inner::Crate(Box::new(t))
            }
        };
        Ok(Self(inner))
    }

    /// The ids (and the rest) of `text`, with the model's special tokens when `add_special`.
    pub fn encode<'s>(
        &self,
        text: impl Into<EncodeInput<'s>>,
        add_special: bool,
    ) -> tokenizers::Result<Encoding> {
        match &self.0 {
            Inner::Crate(t) => t.encode(text, add_special),
            Inner::Unigram(t) => t.encode(text, add_special),
        }
    }

    /// Whether the file's Unigram model is read by [`CompactUnigram`].
    pub fn is_compact_unigram(&self) -> bool {
        matches!(self.0, Inner::Unigram(_))
    }
}

/// `t` as embedding uses it: never padded, truncated on the right at `max_tokens`.
fn configure<M: Model, N, PT, PP, D>(
    t: &mut TokenizerImpl<M, N, PT, PP, D>,
    max_tokens: usize,
) -> tokenizers::Result<()>
where
    N: Normalizer,
    PT: PreTokenizer,
    PP: PostProcessor,
    D: Decoder,
{
    t.with_padding(None);
    t.with_truncation(Some(TruncationParams {
        direction: TruncationDirection::Right,
        max_length: max_tokens,
        strategy: TruncationStrategy::LongestFirst,
        stride: 0,
    }))?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Texts in many scripts, and strings of random characters (unknown ones among them):
    /// the compact Unigram gives the crate's ids for every one, truncation included.
    #[test]
    fn the_compact_unigram_gives_the_crates_ids() {
        let Some(dir) =
            crate::tests::test_model_at("LOCALM_TEST_E5_MODEL", "multilingual-e5-small")
        else {
            return;
        };
        let path = dir.join("tokenizer.json");
        let ours = TextTokenizer::from_file(&path, 256).unwrap();
        assert!(ours.is_compact_unigram());
        let mut theirs = Tokenizer::from_file(&path).unwrap();
        configure(&mut theirs, 256).unwrap();
        let mut texts = corpus();
        texts.extend(random_texts(2000));
        let long = texts.join(" ");
        texts.push(long.chars().take(5000).collect());
        for text in &texts {
            let a = ours.encode(text.as_str(), true).unwrap();
            let b = theirs.encode(text.as_str(), true).unwrap();
            assert_eq!(a.get_ids(), b.get_ids(), "{text:?}");
            assert_eq!(a.get_type_ids(), b.get_type_ids(), "{text:?}");
        }
    }

    /// Every message and fact of the repository's recall sets (six languages and more).
    fn corpus() -> Vec<String> {
        let data = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/data");
        let mut texts = Vec::new();
        for set in [
            "recall-set-languages",
            "recall-set",
            "recall-probe",
            "recall-requests",
        ] {
            let Ok(dir) = std::fs::read_dir(data.join(set)) else {
                continue;
            };
            for entry in dir.flatten() {
                let Ok(raw) = std::fs::read_to_string(entry.path()) else {
                    continue;
                };
                let Ok(json) = serde_json::from_str::<serde_json::Value>(&raw) else {
                    continue;
                };
                collect_strings(&json, &mut texts);
            }
        }
        assert!(
            texts.len() > 500,
            "the recall sets hold {} texts",
            texts.len()
        );
        texts
    }

    fn collect_strings(v: &serde_json::Value, out: &mut Vec<String>) {
        match v {
            serde_json::Value::String(s) => out.push(s.clone()),
            serde_json::Value::Array(a) => a.iter().for_each(|v| collect_strings(v, out)),
            serde_json::Value::Object(o) => o.values().for_each(|v| collect_strings(v, out)),
            _ => {}
        }
    }

    /// Strings drawn from a spread of Unicode blocks (Latin, Cyrillic, Arabic, Devanagari, Thai,
    /// CJK, Hangul, emoji, combining marks, private use, controls), with spaces between.
    fn random_texts(n: usize) -> Vec<String> {
        const RANGES: &[(u32, u32)] = &[
            (0x20, 0x7e),
            (0xa0, 0x24f),
            (0x300, 0x36f),
            (0x400, 0x4ff),
            (0x600, 0x6ff),
            (0x900, 0x97f),
            (0xe00, 0xe7f),
            (0x3040, 0x30ff),
            (0x4e00, 0x9fff),
            (0xac00, 0xd7a3),
            (0xe000, 0xe0ff),
            (0xff00, 0xffef),
            (0x1f300, 0x1faff),
            (0x0, 0x1f),
        ];
        let mut state: u64 = 0x9e37_79b9_7f4a_7c15;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        (0..n)
            .map(|_| {
                let len = 1 + (next() % 40) as usize;
                (0..len)
                    .map(|_| {
                        if next() % 5 == 0 {
                            return ' ';
                        }
                        let (lo, hi) = RANGES[(next() % RANGES.len() as u64) as usize];
                        char::from_u32(lo + (next() % u64::from(hi - lo + 1)) as u32).unwrap_or('?')
                    })
                    .collect()
            })
            .collect()
    }
}
