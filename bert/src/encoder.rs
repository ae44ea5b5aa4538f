//! The BERT encoder's forward pass for one text, written out in plain loops over weights held as
//! f32 slices: embeddings, then per layer self-attention and the feed-forward block, each with
//! its residual and layer norm, exactly as candle-transformers' `BertModel` computes them (a test
//! holds the two to a cosine of 0.999999). One text at a time needs no padding and no mask, and a
//! short query spends its time in [`matmul::linear`] instead of in per-tensor overheads.

use half::f16;

use super::config::{Config, HiddenAct};
use super::weights::Tensors;
use super::{BertError, matmul};

/// A Linear layer: `w` is out×in, row-major (as stored) and held in f16 (a short query reads
/// every weight once, so half the bytes is near half the time), `b` is out long.
struct Linear {
    w: Vec<f16>,
    b: Vec<f32>,
    inputs: usize,
}

impl Linear {
    fn load(vb: &Tensors, inputs: usize, outputs: usize) -> Result<Linear, BertError> {
        Ok(Linear {
            w: vb.get_f16(&[outputs, inputs], "weight")?,
            b: vb.get(&[outputs], "bias")?,
            inputs,
        })
    }

    /// Several Linears over the same input as one (their outputs side by side).
    fn stacked(parts: Vec<Linear>) -> Linear {
        let inputs = parts.first().map_or(0, |p| p.inputs);
        let (w, b) = parts
            .into_iter()
            .fold((Vec::new(), Vec::new()), |(mut w, mut b), p| {
                w.extend(p.w);
                b.extend(p.b);
                (w, b)
            });
        Linear { w, b, inputs }
    }

    fn outputs(&self) -> usize {
        self.b.len()
    }

    /// `x` (m×inputs) → m×outputs.
    fn forward(&self, x: &[f32]) -> Vec<f32> {
        let mut out = vec![0f32; x.len() / self.inputs * self.outputs()];
        matmul::linear(x, self.inputs, &self.w, Some(&self.b), &mut out);
        out
    }
}

/// A LayerNorm's scale and shift.
struct Norm {
    gamma: Vec<f32>,
    beta: Vec<f32>,
    eps: f32,
}

impl Norm {
    fn load(vb: &Tensors, size: usize, eps: f64) -> Result<Norm, BertError> {
        // Old PyTorch checkpoints name them gamma and beta (candle-nn accepts both).
        let pick = |new: &str, old: &str| {
            if vb.contains(new) || !vb.contains(old) {
                new.to_string()
            } else {
                old.to_string()
            }
        };
        Ok(Norm {
            gamma: vb.get(&[size], &pick("weight", "gamma"))?,
            beta: vb.get(&[size], &pick("bias", "beta"))?,
            eps: eps as f32,
        })
    }

    /// Each row of `x` normalised in place.
    fn apply(&self, x: &mut [f32]) {
        let h = self.gamma.len();
        for row in x.chunks_exact_mut(h) {
            let mean = row.iter().sum::<f32>() / h as f32;
            let var = row.iter().map(|v| (v - mean) * (v - mean)).sum::<f32>() / h as f32;
            let inv = 1.0 / (var + self.eps).sqrt();
            for ((v, g), b) in row.iter_mut().zip(&self.gamma).zip(&self.beta) {
                *v = (*v - mean) * inv * g + b;
            }
        }
    }
}

/// One transformer layer.
struct Layer {
    /// Query, key and value stacked: 3h outputs.
    qkv: Linear,
    attention_out: Linear,
    attention_norm: Norm,
    up: Linear,
    down: Linear,
    out_norm: Norm,
}

/// The whole encoder, weights in memory.
pub struct Encoder {
    hidden: usize,
    heads: usize,
    act: HiddenAct,
    /// The word table in f16: a multilingual vocabulary (250,000 rows) is most of a model's
    /// weights, and a text reads only its own rows.
    word: Vec<f16>,
    position: Vec<f32>,
    token_type: Vec<f32>,
    embedding_norm: Norm,
    layers: Vec<Layer>,
}

impl Encoder {
    /// Read every weight from `vb` (the folder's safetensors, at the model's root).
    pub fn load(vb: &Tensors, c: &Config) -> Result<Encoder, BertError> {
        let h = c.hidden_size;
        let emb = vb.pp("embeddings");
        let layers = (0..c.num_hidden_layers)
            .map(|i| {
                let l = vb.pp(format!("encoder.layer.{i}"));
                let a = l.pp("attention");
                let s = a.pp("self");
                Ok(Layer {
                    qkv: Linear::stacked(vec![
                        Linear::load(&s.pp("query"), h, h)?,
                        Linear::load(&s.pp("key"), h, h)?,
                        Linear::load(&s.pp("value"), h, h)?,
                    ]),
                    attention_out: Linear::load(&a.pp("output.dense"), h, h)?,
                    attention_norm: Norm::load(&a.pp("output.LayerNorm"), h, c.layer_norm_eps)?,
                    up: Linear::load(&l.pp("intermediate.dense"), h, c.intermediate_size)?,
                    down: Linear::load(&l.pp("output.dense"), c.intermediate_size, h)?,
                    out_norm: Norm::load(&l.pp("output.LayerNorm"), h, c.layer_norm_eps)?,
                })
            })
            .collect::<Result<Vec<_>, BertError>>()?;
        Ok(Encoder {
            hidden: h,
            heads: c.num_attention_heads,
            act: c.hidden_act,
            word: emb.get_f16(&[c.vocab_size, h], "word_embeddings.weight")?,
            position: emb.get(
                &[c.max_position_embeddings, h],
                "position_embeddings.weight",
            )?,
            token_type: emb.get(&[c.type_vocab_size, h], "token_type_embeddings.weight")?,
            embedding_norm: Norm::load(&emb.pp("LayerNorm"), h, c.layer_norm_eps)?,
            layers,
        })
    }

    /// The last layer's token vectors (tokens×hidden, row-major) for one text's token ids and
    /// type ids; `None` when an id is outside the model's tables or the text is longer than its
    /// positions.
    pub fn forward(&self, ids: &[u32], type_ids: &[u32]) -> Option<Vec<f32>> {
        let h = self.hidden;
        let m = ids.len();
        if m == 0 || type_ids.len() != m || m * h > self.position.len() {
            return None;
        }
        let mut x = vec![0f32; m * h];
        for (t, (&id, &ty)) in ids.iter().zip(type_ids).enumerate() {
            let word = self.word.get(id as usize * h..(id as usize + 1) * h)?;
            let ty = self
                .token_type
                .get(ty as usize * h..(ty as usize + 1) * h)?;
            let pos = &self.position[t * h..(t + 1) * h];
            for (((o, a), b), c) in x[t * h..(t + 1) * h].iter_mut().zip(word).zip(ty).zip(pos) {
                *o = a.to_f32() + b + c;
            }
        }
        self.embedding_norm.apply(&mut x);
        for layer in &self.layers {
            x = self.layer(layer, x, m);
        }
        Some(x)
    }

    fn layer(&self, l: &Layer, x: Vec<f32>, m: usize) -> Vec<f32> {
        let h = self.hidden;
        let context = self.attention(&l.qkv.forward(&x), m);
        let mut a = l.attention_out.forward(&context);
        add(&mut a, &x);
        l.attention_norm.apply(&mut a);
        let mut up = l.up.forward(&a);
        activate(self.act, &mut up);
        let mut out = l.down.forward(&up);
        add(&mut out, &a);
        l.out_norm.apply(&mut out);
        debug_assert_eq!(out.len(), m * h);
        out
    }

    /// Scaled dot-product attention, every head, from the stacked q|k|v rows (m×3h) to m×h.
    fn attention(&self, qkv: &[f32], m: usize) -> Vec<f32> {
        let h = self.hidden;
        let d = h / self.heads;
        let scale = 1.0 / (d as f32).sqrt();
        let mut context = vec![0f32; m * h];
        let (mut q, mut k, mut vt) = (vec![0f32; m * d], vec![0f32; m * d], vec![0f32; d * m]);
        let mut scores = vec![0f32; m * m];
        let mut head_out = vec![0f32; m * d];
        for head in 0..self.heads {
            let at = head * d;
            for t in 0..m {
                let row = &qkv[t * 3 * h..(t + 1) * 3 * h];
                for i in 0..d {
                    q[t * d + i] = row[at + i] * scale;
                    k[t * d + i] = row[h + at + i];
                    vt[i * m + t] = row[2 * h + at + i];
                }
            }
            matmul::linear(&q, d, &k, None, &mut scores);
            for row in scores.chunks_exact_mut(m) {
                softmax(row);
            }
            matmul::linear(&scores, m, &vt, None, &mut head_out);
            for t in 0..m {
                context[t * h + at..t * h + at + d].copy_from_slice(&head_out[t * d..(t + 1) * d]);
            }
        }
        context
    }
}

fn add(x: &mut [f32], y: &[f32]) {
    for (a, b) in x.iter_mut().zip(y) {
        *a += b;
    }
}

fn softmax(row: &mut [f32]) {
    let max = row.iter().copied().fold(f32::NEG_INFINITY, f32::max);
    let mut sum = 0.0;
    for v in row.iter_mut() {
        *v = (*v - max).exp();
        sum += *v;
    }
    for v in row.iter_mut() {
        *v /= sum;
    }
}

fn activate(act: HiddenAct, x: &mut [f32]) {
    match act {
        HiddenAct::Gelu => x
            .iter_mut()
            .for_each(|v| *v = 0.5 * *v * (1.0 + erf(*v / 2f32.sqrt()))),
        HiddenAct::GeluApproximate => x.iter_mut().for_each(|v| {
            let u = 0.797_884_6 * (*v + 0.044_715 * *v * *v * *v);
            *v = 0.5 * *v * (1.0 + u.tanh());
        }),
        HiddenAct::Relu => x.iter_mut().for_each(|v| *v = v.max(0.0)),
    }
}

/// The error function in f32: a rational function of degree 13/8 on [-4, 4] (the one Eigen and
/// XLA use), within a few units in the last place, and with no branch or call, so the GELU loop
/// vectorises. libm's f64 `erf` cost 20-40 ns a value, most of a long text's time.
fn erf(x: f32) -> f32 {
    let x = x.clamp(-4.0, 4.0);
    let x2 = x * x;
    let mut p = x2 * -2.726_142_3e-10 + 2.770_681_4e-8;
    p = x2 * p + -2.101_024e-6;
    p = x2 * p + -5.692_506_4e-5;
    p = x2 * p + -7.349_906_3e-4;
    p = x2 * p + -2.954_6e-3;
    p = x2 * p + -1.609_603_3e-2;
    let mut q = x2 * -1.456_607_2e-5 + -2.133_740_6e-4;
    q = x2 * q + -1.682_827e-3;
    q = x2 * q + -7.373_329e-3;
    q = x2 * q + -1.426_474e-2;
    x * p / q
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_fast_erf_is_within_a_millionth_of_libms() {
        let mut worst = 0f64;
        for i in -6000..=6000 {
            let x = i as f32 / 1000.0;
            worst = worst.max((f64::from(erf(x)) - libm::erf(f64::from(x))).abs());
        }
        assert!(worst < 1e-6, "largest error {worst}");
    }

    #[test]
    fn erf_and_softmax_are_right() {
        for (x, want) in [
            (0.0, 0.0),
            (0.5, 0.520_499_9),
            (1.0, 0.842_700_8),
            (-2.0, -0.995_322_3),
        ] {
            assert!((erf(x) - want).abs() < 1e-6, "erf({x}) = {}", erf(x));
        }
        let mut row = [1.0, 2.0, 3.0];
        softmax(&mut row);
        let want = [0.090_030_57, 0.244_728_48, 0.665_240_94];
        for (g, e) in row.iter().zip(want) {
            assert!((g - e).abs() < 1e-6);
        }
    }

    #[test]
    fn layer_norm_centres_and_scales_each_row() {
        let n = Norm {
            gamma: vec![2.0; 4],
            beta: vec![1.0; 4],
            eps: 0.0,
        };
        let mut x = [1.0, 2.0, 3.0, 4.0, 5.0, 5.0, 5.0, 5.0 + 1e-3];
        n.apply(&mut x);
        let first: Vec<f32> = x[..4].to_vec();
        let s = 1.0 / 1.25f32.sqrt();
        for (g, e) in first.iter().zip([-1.5 * s, -0.5 * s, 0.5 * s, 1.5 * s]) {
            assert!((g - (2.0 * e + 1.0)).abs() < 1e-5, "{first:?}");
        }
    }
}
