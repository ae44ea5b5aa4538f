//! A BERT `config.json`: the fields the encoder reads, named as in Hugging Face's BERT config
//! (and candle-transformers', which reads the same file for the reference test), so every folder
//! that loaded through candle loads here.

/// The feed-forward activation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum HiddenAct {
    /// GELU with the exact `erf`.
    Gelu,
    /// GELU's tanh approximation (`geluapproximate` in the file).
    GeluApproximate,
    Relu,
}

/// Only absolute position embeddings are supported (as candle's `BertModel` supports only them).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum PositionEmbeddingType {
    #[default]
    Absolute,
}

/// The model's shape and settings.
#[derive(Debug, Clone, PartialEq, serde::Deserialize)]
pub struct Config {
    pub vocab_size: usize,
    pub hidden_size: usize,
    pub num_hidden_layers: usize,
    pub num_attention_heads: usize,
    pub intermediate_size: usize,
    pub hidden_act: HiddenAct,
    pub max_position_embeddings: usize,
    pub type_vocab_size: usize,
    pub layer_norm_eps: f64,
    /// Read only so that a config naming another position embedding is refused, not misread.
    #[serde(default, rename = "position_embedding_type")]
    _positions: PositionEmbeddingType,
    pub model_type: Option<String>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_a_minilm_config_and_refuses_relative_positions() {
        let text = r#"{"vocab_size": 30522, "hidden_size": 384, "num_hidden_layers": 6,
            "num_attention_heads": 12, "intermediate_size": 1536, "hidden_act": "gelu",
            "hidden_dropout_prob": 0.1, "max_position_embeddings": 512, "type_vocab_size": 2,
            "initializer_range": 0.02, "layer_norm_eps": 1e-12, "pad_token_id": 0,
            "model_type": "bert"}"#;
        let c: Config = serde_json::from_str(text).unwrap();
        assert_eq!((c.hidden_size, c.hidden_act), (384, HiddenAct::Gelu));
        assert_eq!(c._positions, PositionEmbeddingType::Absolute);
        let relative = text.replace(
            "\"model_type\"",
            "\"position_embedding_type\": \"relative_key\", \"model_type\"",
        );
        assert!(serde_json::from_str::<Config>(&relative).is_err());
    }
}
