//! mm: `C = A·B` with doubles, `A[i][j] = below(g, 10)` row-major, then `B` from the same
//! generator (seed 1); the outer loop over rows is parallel, the inner two loops serial in
//! i-k-j order; repeated `reps` times. Checksum: wrapping sum over reps and all cells of
//! `(uint64)C[i][j]`. (n, reps) = (32, 2) / (256, 12) / (256, 40).

use crate::rng::SplitMix64;
use crate::sys::Sys;
use crate::{Kernel, Size};

pub struct Mm;

pub struct Input {
    pub n: usize,
    pub reps: usize,
    pub a: Vec<f64>,
    pub b: Vec<f64>,
}

fn cell_sum(c: &[f64]) -> u64 {
    c.iter().fold(0u64, |s, &v| s.wrapping_add(v as u64))
}

impl Kernel for Mm {
    const NAME: &'static str = "mm";
    type Input = Input;
    type State = Vec<f64>;
    type Out = u64;

    fn generate(size: Size) -> Input {
        let (n, reps) = size.pick((32, 2), (256, 12), (256, 40));
        let mut g = SplitMix64::new(1);
        let a = (0..n * n).map(|_| g.below(10) as f64).collect();
        let b = (0..n * n).map(|_| g.below(10) as f64).collect();
        Input { n, reps, a, b }
    }
    fn prepare(inp: &Input) -> Vec<f64> {
        vec![0.0; inp.n * inp.n]
    }
    fn reset(_: &Input, cm: &mut Vec<f64>) {
        cm.fill(crate::POISON);
    }
    fn run<S: Sys>(c: &mut S::Ctx<'_>, inp: &Input, cm: &mut Vec<f64>) -> u64 {
        let n = inp.n;
        let (a, b) = (&inp.a[..], &inp.b[..]);
        let mut sum = 0u64;
        for _ in 0..inp.reps {
            S::for_rows_mut(c, cm, n, |_, i, crow| {
                crow.fill(0.0);
                let arow = &a[i * n..(i + 1) * n];
                for k in 0..n {
                    let aik = arow[k];
                    let brow = &b[k * n..(k + 1) * n];
                    for j in 0..n {
                        crow[j] += aik * brow[j];
                    }
                }
            });
            sum = sum.wrapping_add(cell_sum(cm));
        }
        sum
    }
    fn checksum(_: &Input, _: &Vec<f64>, out: u64) -> Option<u64> {
        Some(out)
    }
    /// Serial triple loop, once, times reps (every rep computes the same C).
    fn oracle(inp: &Input) -> u64 {
        let n = inp.n;
        let mut cm = vec![0.0f64; n * n];
        for i in 0..n {
            for k in 0..n {
                for j in 0..n {
                    cm[i * n + j] += inp.a[i * n + k] * inp.b[k * n + j];
                }
            }
        }
        cell_sum(&cm).wrapping_mul(inp.reps as u64)
    }
}
