//! The one GGUF file check, run before llama.cpp ever sees a file ([`check_gguf`]).

use std::io::Read;
use std::path::Path;

use llama_cpp_2::gguf::GgufContext;

/// Why a file is not a GGUF llama.cpp can open; the reason in a few words.
#[derive(Debug, thiserror::Error)]
pub enum GgufError {
    #[error("{0}")]
    Metadata(std::io::Error),
    #[error("not a regular file")]
    NotAFile,
    #[error("cannot read header: {0}")]
    Header(std::io::Error),
    #[error("not a GGUF file (bad magic)")]
    BadMagic,
    #[error("path is not valid UTF-8")]
    NotUtf8,
    #[error("corrupt GGUF header or metadata")]
    Corrupt,
}

/// The one GGUF check, run before llama.cpp ever sees a file: a regular file that starts with the
/// `GGUF` magic, at a UTF-8 path, whose header and metadata llama.cpp can parse (tensor data is
/// not read: a file truncated inside it passes, and `Llama::load` rejects it). `Llama::load` and
/// `localm setup-model --from` both run it.
pub fn check_gguf(path: &Path) -> Result<(), GgufError> {
    let meta = std::fs::metadata(path).map_err(GgufError::Metadata)?;
    if !meta.is_file() {
        return Err(GgufError::NotAFile);
    }
    let mut magic = [0u8; 4];
    std::fs::File::open(path)
        .and_then(|mut f| f.read_exact(&mut magic))
        .map_err(GgufError::Header)?;
    if &magic != b"GGUF" {
        return Err(GgufError::BadMagic);
    }
    if path.to_str().is_none() {
        return Err(GgufError::NotUtf8);
    }
    if GgufContext::from_file(path).is_none() {
        return Err(GgufError::Corrupt);
    }
    Ok(())
}
