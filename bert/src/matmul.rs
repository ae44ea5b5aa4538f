//! The one matrix product the encoder runs, `out[t][j] = x[t]·w[j] + bias[j]` with `w` stored
//! as PyTorch stores a Linear (a row per output unit), in f32 or f16 ([`Weight`]): blocks of up to
//! four tokens share each weight row while it is in L1, so a weight is read from memory once
//! per product; products over many tokens are split over rayon's threads; and the inner loop is AVX2+FMA(+F16C) when the CPU has it
//! (checked once, at run time), plain Rust that the compiler vectorises otherwise. Sums are f32.

use half::f16;
use rayon::prelude::*;

/// A weight's storage type: f32, or f16 for the layers' matrices (half the bytes to read, and a
/// short query is bound by reading them).
pub trait Weight: Copy + Send + Sync {
    fn to_f32(self) -> f32;
    /// Eight weights from `p` as f32 lanes.
    ///
    /// # Safety
    /// Eight values must be readable at `p`, and the CPU must have AVX2, FMA and F16C.
    #[cfg(target_arch = "x86_64")]
    unsafe fn load8(p: *const Self) -> std::arch::x86_64::__m256;
}

impl Weight for f32 {
    fn to_f32(self) -> f32 {
        self
    }
    #[cfg(target_arch = "x86_64")]
    #[inline(always)]
    unsafe fn load8(p: *const f32) -> std::arch::x86_64::__m256 {
        // SAFETY: the caller guarantees eight readable floats and AVX.
        unsafe { std::arch::x86_64::_mm256_loadu_ps(p) }
    }
}

impl Weight for f16 {
    fn to_f32(self) -> f32 {
        f16::to_f32(self)
    }
    #[cfg(target_arch = "x86_64")]
    #[inline(always)]
    unsafe fn load8(p: *const f16) -> std::arch::x86_64::__m256 {
        use std::arch::x86_64::*;
        // SAFETY: the caller guarantees eight readable halves (16 bytes) and F16C.
        unsafe { _mm256_cvtph_ps(_mm_loadu_si128(p.cast::<__m128i>())) }
    }
}

/// Most tokens one weight row is read for at a time (their accumulators stay in registers).
const BLOCK: usize = 4;
/// Weight rows every token block passes over while they sit in L1 (32 × 384 f16 = 24 KiB): each
/// weight is read from memory once per product, however many tokens there are.
const COLS: usize = 32;
/// Tokens from which a product is split over rayon's threads; below, waking a parked thread
/// costs more than it saves (a short query ran slower through the daemon on two threads).
const PARALLEL_ROWS: usize = 32;

/// `out` (m×n) = `x` (m×k) · `w`ᵀ + `bias`, where `w` is n×k and `bias` n long; all row-major.
///
/// Panics when the lengths disagree (a caller bug, not input).
pub fn linear<W: Weight>(x: &[f32], k: usize, w: &[W], bias: Option<&[f32]>, out: &mut [f32]) {
    assert!(k > 0 && x.len().is_multiple_of(k) && w.len().is_multiple_of(k));
    let (m, n) = (x.len() / k, w.len() / k);
    assert_eq!(out.len(), m * n, "output is m×n");
    if let Some(b) = bias {
        assert_eq!(b.len(), n, "one bias per output");
    }
    let threads = rayon::current_num_threads().max(1);
    if m >= PARALLEL_ROWS && threads > 1 {
        let rows = m.div_ceil(threads);
        x.par_chunks(rows * k)
            .zip(out.par_chunks_mut(rows * n))
            .for_each(|(xb, ob)| tile(xb, k, w, bias, ob));
    } else {
        tile(x, k, w, bias, out);
    }
}

/// Every row of `x` against `w`, [`COLS`] weight rows at a time, [`BLOCK`] tokens at a time.
fn tile<W: Weight>(x: &[f32], k: usize, w: &[W], bias: Option<&[f32]>, out: &mut [f32]) {
    let n = w.len() / k;
    for (c, wc) in w.chunks(COLS * k).enumerate() {
        let j0 = c * COLS;
        let bc = bias.map(|b| &b[j0..j0 + wc.len() / k]);
        for (t, xb) in x.chunks(BLOCK * k).enumerate() {
            dots(xb, k, wc, bc, &mut out[t * BLOCK * n + j0..], n);
        }
    }
}

/// One block: `x` holds 1 to [`BLOCK`] token rows; row `r`'s outputs start at `out[r * ld]`.
fn dots<W: Weight>(x: &[f32], k: usize, w: &[W], bias: Option<&[f32]>, out: &mut [f32], ld: usize) {
    #[cfg(target_arch = "x86_64")]
    if avx2() {
        // SAFETY: the CPU has AVX2, FMA and F16C (just checked), all `avx2_block` needs.
        unsafe { avx2_block(x, k, w, bias, out, ld) };
        return;
    }
    match x.len() / k {
        1 => dots_plain::<W, 1>(x, k, w, bias, out, ld),
        2 => dots_plain::<W, 2>(x, k, w, bias, out, ld),
        3 => dots_plain::<W, 3>(x, k, w, bias, out, ld),
        _ => dots_plain::<W, 4>(x, k, w, bias, out, ld),
    }
}

/// Whether this CPU runs the AVX2+FMA+F16C kernel (asked once per process).
#[cfg(target_arch = "x86_64")]
pub fn avx2() -> bool {
    use std::sync::OnceLock;
    static HAS: OnceLock<bool> = OnceLock::new();
    *HAS.get_or_init(|| {
        is_x86_feature_detected!("avx2")
            && is_x86_feature_detected!("fma")
            && is_x86_feature_detected!("f16c")
    })
}

/// Whether this CPU runs the AVX2+FMA kernel: never off x86-64.
#[cfg(not(target_arch = "x86_64"))]
pub fn avx2() -> bool {
    false
}

/// Portable kernel: eight independent lanes per dot product, so the compiler vectorises it.
fn dots_plain<W: Weight, const R: usize>(
    x: &[f32],
    k: usize,
    w: &[W],
    bias: Option<&[f32]>,
    out: &mut [f32],
    ld: usize,
) {
    for (j, wr) in w.chunks_exact(k).enumerate() {
        let mut lanes = [[0f32; 8]; R];
        let full = k / 8 * 8;
        for c in (0..full).step_by(8) {
            let wv = &wr[c..c + 8];
            for (r, acc) in lanes.iter_mut().enumerate() {
                let xv = &x[r * k + c..r * k + c + 8];
                for l in 0..8 {
                    acc[l] += xv[l] * wv[l].to_f32();
                }
            }
        }
        for (r, acc) in lanes.iter().enumerate() {
            let mut s: f32 = acc.iter().sum();
            for c in full..k {
                s += x[r * k + c] * wr[c].to_f32();
            }
            out[r * ld + j] = s + bias.map_or(0.0, |b| b[j]);
        }
    }
}

/// Dispatch on the block's row count to the AVX2 kernel (callable only where the CPU has AVX2
/// and FMA: calling it elsewhere is `unsafe`).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma,f16c")]
fn avx2_block<W: Weight>(
    x: &[f32],
    k: usize,
    w: &[W],
    bias: Option<&[f32]>,
    out: &mut [f32],
    ld: usize,
) {
    match x.len() / k {
        1 => dots_avx2::<W, 1>(x, k, w, bias, out, ld),
        2 => dots_avx2::<W, 2>(x, k, w, bias, out, ld),
        3 => dots_avx2::<W, 3>(x, k, w, bias, out, ld),
        _ => dots_avx2::<W, 4>(x, k, w, bias, out, ld),
    }
}

/// AVX2 kernel: eight floats per fused multiply-add; two weight rows at a time against `R`
/// token rows, so each load feeds more than one multiply-add.
///
/// `x` holds `R` rows of `k`, `w` rows of `k`; row `r`'s outputs go to `out[r * ld..]` (checked).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma,f16c")]
fn dots_avx2<W: Weight, const R: usize>(
    x: &[f32],
    k: usize,
    w: &[W],
    bias: Option<&[f32]>,
    out: &mut [f32],
    ld: usize,
) {
    use std::arch::x86_64::*;
    let n = w.len() / k;
    assert!(x.len() >= R * k && out.len() >= (R - 1) * ld + n && w.len() == n * k);
    let full = k / 8 * 8;
    let mut j = 0;
    while j < n {
        // The last row of an odd count pairs with itself (computed twice, stored once).
        let j2 = if j + 1 < n { j + 1 } else { j };
        let (w0, w1) = (&w[j * k..(j + 1) * k], &w[j2 * k..(j2 + 1) * k]);
        let mut a0 = [_mm256_setzero_ps(); R];
        let mut a1 = [_mm256_setzero_ps(); R];
        let mut c = 0;
        while c < full {
            // SAFETY: c + 8 <= full <= k = w0.len() = w1.len(), and r * k + c + 8 <= R * k <=
            // x.len().
            unsafe {
                let v0 = W::load8(w0.as_ptr().add(c));
                let v1 = W::load8(w1.as_ptr().add(c));
                for r in 0..R {
                    let xv = _mm256_loadu_ps(x.as_ptr().add(r * k + c));
                    a0[r] = _mm256_fmadd_ps(xv, v0, a0[r]);
                    a1[r] = _mm256_fmadd_ps(xv, v1, a1[r]);
                }
            }
            c += 8;
        }
        for r in 0..R {
            let xr = &x[r * k..(r + 1) * k];
            let tail = |wr: &[W]| (full..k).map(|c| xr[c] * wr[c].to_f32()).sum::<f32>();
            out[r * ld + j] = hsum(a0[r]) + tail(w0) + bias.map_or(0.0, |b| b[j]);
            out[r * ld + j2] = hsum(a1[r]) + tail(w1) + bias.map_or(0.0, |b| b[j2]);
        }
        j += 2;
    }
}

/// The sum of a vector's eight lanes.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma,f16c")]
fn hsum(v: std::arch::x86_64::__m256) -> f32 {
    use std::arch::x86_64::*;
    let s = _mm_add_ps(_mm256_extractf128_ps(v, 1), _mm256_castps256_ps128(v));
    let s = _mm_add_ps(s, _mm_movehl_ps(s, s));
    let s = _mm_add_ss(s, _mm_shuffle_ps(s, s, 1));
    _mm_cvtss_f32(s)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The textbook triple loop, in f64.
    fn reference(x: &[f32], k: usize, w: &[f32], bias: Option<&[f32]>) -> Vec<f32> {
        let (m, n) = (x.len() / k, w.len() / k);
        let mut out = vec![0f32; m * n];
        for t in 0..m {
            for j in 0..n {
                let mut s = bias.map_or(0.0, |b| f64::from(b[j]));
                for c in 0..k {
                    s += f64::from(x[t * k + c]) * f64::from(w[j * k + c]);
                }
                out[t * n + j] = s as f32;
            }
        }
        out
    }

    /// Numbers in [-1, 1) from a fixed seed.
    fn numbers(len: usize, seed: u32) -> Vec<f32> {
        let mut s = seed.wrapping_mul(2_654_435_761).max(1);
        (0..len)
            .map(|_| {
                s ^= s << 13;
                s ^= s >> 17;
                s ^= s << 5;
                (s as f32 / u32::MAX as f32) * 2.0 - 1.0
            })
            .collect()
    }

    #[test]
    fn every_shape_matches_the_triple_loop() {
        // Token counts around the block size and the split, widths with and without a tail of
        // fewer than eight, small products (one thread) and big ones (rayon).
        for (m, k, n) in [
            (1, 8, 3),
            (3, 13, 5),
            (4, 32, 7),
            (5, 384, 384),
            (8, 384, 1536),
            (17, 1536, 384),
            (38, 100, 9),
            (40, 96, 70),
        ] {
            let x = numbers(m * k, (m * 31 + k) as u32);
            let w = numbers(n * k, (n * 17 + k) as u32);
            let b = numbers(n, n as u32);
            for bias in [None, Some(b.as_slice())] {
                let want = reference(&x, k, &w, bias);
                let mut got = vec![f32::NAN; m * n];
                linear(&x, k, &w, bias, &mut got);
                for (i, (g, e)) in got.iter().zip(&want).enumerate() {
                    assert!(
                        (g - e).abs() <= 1e-4 * (1.0 + e.abs()),
                        "m={m} k={k} n={n} bias={} at {i}: {g} vs {e}",
                        bias.is_some()
                    );
                }
            }
        }
    }

    #[test]
    fn half_weights_give_the_products_of_their_f32_values() {
        for (m, k, n) in [(1, 8, 3), (5, 13, 9), (8, 384, 40)] {
            let x = numbers(m * k, 7);
            let w: Vec<f16> = numbers(n * k, 8).into_iter().map(f16::from_f32).collect();
            let wide: Vec<f32> = w.iter().map(|h| h.to_f32()).collect();
            let want = reference(&x, k, &wide, None);
            let mut got = vec![0f32; m * n];
            linear(&x, k, &w, None, &mut got);
            for (g, e) in got.iter().zip(&want) {
                assert!(
                    (g - e).abs() <= 1e-4 * (1.0 + e.abs()),
                    "m={m} k={k}: {g} vs {e}"
                );
            }
        }
    }

    #[test]
    fn the_portable_kernel_agrees_with_the_fast_one() {
        let (k, n) = (77, 11);
        let x = numbers(3 * k, 1);
        let w = numbers(n * k, 2);
        let want = reference(&x, k, &w, None);
        let mut got = vec![0f32; 3 * n];
        dots_plain::<f32, 3>(&x, k, &w, None, &mut got, n);
        for (g, e) in got.iter().zip(&want) {
            assert!((g - e).abs() <= 1e-4 * (1.0 + e.abs()), "{g} vs {e}");
        }
    }
}
