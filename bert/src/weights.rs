//! `model.safetensors` read without a tensor library: the file memory-mapped read-only, each
//! tensor found by name under a prefix (`bert.` in some checkpoints), its shape checked, and its
//! values converted to f32 from the F32, F16 or BF16 the file stores.

use std::fs::File;
use std::path::{Path, PathBuf};

use half::{bf16, f16};
use memmap2::Mmap;
use safetensors::{Dtype, SafeTensors};

use super::BertError;

/// The mapped file; [`Weights::tensors`] reads it.
pub struct Weights {
    path: PathBuf,
    map: Mmap,
}

impl Weights {
    pub fn open(path: &Path) -> Result<Weights, BertError> {
        let file = File::open(path).map_err(|source| BertError::Io {
            path: path.to_path_buf(),
            source,
        })?;
        // SAFETY: the file is mapped read-only; like every mmap user we rely on the model file
        // not being modified while the map is alive (only while the embedder loads).
        let map = unsafe { Mmap::map(&file) }.map_err(|source| BertError::Io {
            path: path.to_path_buf(),
            source,
        })?;
        Ok(Weights {
            path: path.to_path_buf(),
            map,
        })
    }

    /// The file's tensors, at its root.
    pub fn tensors(&self) -> Result<Tensors<'_>, BertError> {
        let file = SafeTensors::deserialize(&self.map).map_err(|e| {
            BertError::Invalid(format!(
                "{} is not a safetensors file: {e}",
                self.path.display()
            ))
        })?;
        Ok(Tensors {
            file: std::rc::Rc::new(file),
            path: &self.path,
            prefix: String::new(),
        })
    }
}

/// The tensors under one name prefix (`encoder.layer.0.` …).
#[derive(Clone)]
pub struct Tensors<'a> {
    file: std::rc::Rc<SafeTensors<'a>>,
    path: &'a Path,
    prefix: String,
}

impl<'a> Tensors<'a> {
    /// The tensors under `name.` within these.
    pub fn pp(&self, name: impl AsRef<str>) -> Tensors<'a> {
        Tensors {
            file: self.file.clone(),
            path: self.path,
            prefix: format!("{}{}.", self.prefix, name.as_ref()),
        }
    }

    fn full(&self, name: &str) -> String {
        format!("{}{name}", self.prefix)
    }

    pub fn contains(&self, name: &str) -> bool {
        self.file.tensor(&self.full(name)).is_ok()
    }

    /// The tensor `name`, which must have `shape`, as f32 values in row-major order.
    pub fn get(&self, shape: &[usize], name: &str) -> Result<Vec<f32>, BertError> {
        self.get_as(shape, name, |v| v)
    }

    /// [`Tensors::get`] as f16, without an f32 copy of the whole tensor on the way.
    pub fn get_f16(&self, shape: &[usize], name: &str) -> Result<Vec<f16>, BertError> {
        self.get_as(shape, name, f16::from_f32)
    }

    /// The tensor's values, each converted from f32 by `to`.
    fn get_as<T>(
        &self,
        shape: &[usize],
        name: &str,
        to: impl Fn(f32) -> T,
    ) -> Result<Vec<T>, BertError> {
        let full = self.full(name);
        let view = self.file.tensor(&full).map_err(|_| {
            BertError::Invalid(format!("{} has no tensor {full}", self.path.display()))
        })?;
        if view.shape() != shape {
            return Err(BertError::Invalid(format!(
                "{}: tensor {full} has shape {:?}, expected {shape:?}",
                self.path.display(),
                view.shape()
            )));
        }
        let bytes = view.data();
        let values: Vec<T> = match view.dtype() {
            Dtype::F32 => bytes
                .chunks_exact(4)
                .map(|b| to(f32::from_le_bytes([b[0], b[1], b[2], b[3]])))
                .collect(),
            Dtype::F16 => bytes
                .chunks_exact(2)
                .map(|b| to(f16::from_le_bytes([b[0], b[1]]).to_f32()))
                .collect(),
            Dtype::BF16 => bytes
                .chunks_exact(2)
                .map(|b| to(bf16::from_le_bytes([b[0], b[1]]).to_f32()))
                .collect(),
            other => {
                return Err(BertError::Invalid(format!(
                    "{}: tensor {full} is {other:?}; only F32, F16 and BF16 are read",
                    self.path.display()
                )));
            }
        };
        if values.len() != shape.iter().product::<usize>() {
            return Err(BertError::Invalid(format!(
                "{}: tensor {full} holds {} values, not {}",
                self.path.display(),
                values.len(),
                shape.iter().product::<usize>()
            )));
        }
        Ok(values)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A safetensors file of the given tensors (name, dtype, shape, little-endian bytes).
    fn file(tensors: &[(&str, &str, &[usize], Vec<u8>)]) -> tempfile::NamedTempFile {
        let mut header = serde_json::Map::new();
        let mut data = Vec::new();
        for (name, dtype, shape, bytes) in tensors {
            let start = data.len();
            data.extend_from_slice(bytes);
            header.insert(
                (*name).to_string(),
                serde_json::json!({"dtype": dtype, "shape": shape, "data_offsets": [start, data.len()]}),
            );
        }
        let header = serde_json::to_vec(&header).unwrap();
        let mut out = (header.len() as u64).to_le_bytes().to_vec();
        out.extend(header);
        out.extend(data);
        let f = tempfile::NamedTempFile::new().unwrap();
        std::fs::write(f.path(), out).unwrap();
        f
    }

    #[test]
    fn reads_each_dtype_as_f32_under_a_prefix() {
        let f32s: Vec<u8> = [1.5f32, -2.0]
            .iter()
            .flat_map(|v| v.to_le_bytes())
            .collect();
        let f16s: Vec<u8> = [0.25f32, 3.0]
            .iter()
            .flat_map(|v| f16::from_f32(*v).to_le_bytes())
            .collect();
        let bf16s: Vec<u8> = [-1.0f32, 8.0]
            .iter()
            .flat_map(|v| bf16::from_f32(*v).to_le_bytes())
            .collect();
        let f = file(&[
            ("bert.a.weight", "F32", &[1, 2], f32s),
            ("bert.b", "F16", &[2], f16s),
            ("c", "BF16", &[2, 1], bf16s),
        ]);
        let w = Weights::open(f.path()).unwrap();
        let root = w.tensors().unwrap();
        let bert = root.pp("bert");
        assert!(bert.contains("b") && !root.contains("b"));
        assert_eq!(
            bert.pp("a").get(&[1, 2], "weight").unwrap(),
            vec![1.5, -2.0]
        );
        assert_eq!(bert.get(&[2], "b").unwrap(), vec![0.25, 3.0]);
        assert_eq!(root.get(&[2, 1], "c").unwrap(), vec![-1.0, 8.0]);
        let wrong = root.get(&[2], "c").unwrap_err().to_string();
        assert!(wrong.contains("shape [2, 1], expected [2]"), "{wrong}");
        let missing = root.get(&[2], "d").unwrap_err().to_string();
        assert!(missing.contains("has no tensor d"), "{missing}");
    }

    #[test]
    fn a_file_that_is_not_safetensors_is_one_error() {
        let f = tempfile::NamedTempFile::new().unwrap();
        std::fs::write(f.path(), b"not a model").unwrap();
        let w = Weights::open(f.path()).unwrap();
        let err = w.tensors().err().unwrap().to_string();
        assert!(err.contains("is not a safetensors file"), "{err}");
    }
}
