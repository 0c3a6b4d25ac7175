//! flat_spmv (issue 10's flat loops): `y += M·x` for a square CSR matrix as one flat parallel
//! loop over the rows, each row's nonzeros a serial inner loop. Generation (seed 43), row by
//! row: the row's nonzero count `4 + below(g, 13)`, then for each nonzero `col = below(g, rows)`
//! and `value = below(g, 17) - 8`; then `x[c] = below(g, 9) - 4`. One run: y = 0, then reps
//! times `y[r] += row r · x`. Checksum: wrapping sum over rows of `(int64)y[r]` (as u64).
//! (rows, reps) = (300, 2) / (2^18, 10) / (2^20, 20).

use super::csr::{random_csr, y_sum, Csr};
use crate::sys::Sys;
use crate::{Kernel, Size};

pub struct FlatSpmv;

pub type Input = Csr;

/// Row r's product with x, the nonzeros in order (the C++ kernel's `row_dot`). The row's columns
/// and values are taken as two subslices and zipped, so that the loop checks only x's bound: with
/// `val[k]`, `col[k]` and `x[col[k]]` indexed it checked three, 13 instructions a nonzero against
/// gcc's 7 (docs/results/kernel-audit.md).
#[inline]
fn row_dot(inp: &Input, r: usize) -> f64 {
    let (lo, hi) = (inp.row_ptr[r], inp.row_ptr[r + 1]);
    let mut acc = 0.0;
    for (&c, &v) in inp.col[lo..hi].iter().zip(&inp.val[lo..hi]) {
        acc += v * inp.x[c as usize];
    }
    acc
}

impl Kernel for FlatSpmv {
    const NAME: &'static str = "flat_spmv";
    type Input = Input;
    type State = Vec<f64>;
    type Out = ();

    fn generate(size: Size) -> Input {
        let (rows, reps) = size.pick((300, 2), (1 << 18, 10), (1 << 20, 20));
        random_csr(43, rows, rows, reps, |g| 4 + g.below(13) as usize)
    }
    fn prepare(inp: &Input) -> Vec<f64> {
        vec![0.0; inp.rows]
    }
    fn reset(_: &Input, y: &mut Vec<f64>) {
        y.fill(0.0);
    }
    fn run<S: Sys>(c: &mut S::Ctx<'_>, inp: &Input, y: &mut Vec<f64>) {
        for _ in 0..inp.reps {
            S::for_each_mut(c, y, |_, r, yr| *yr += row_dot(inp, r));
        }
    }
    fn checksum(_: &Input, y: &Vec<f64>, _: ()) -> Option<u64> {
        Some(y_sum(y))
    }
    /// Serial: one product, times reps.
    fn oracle(inp: &Input) -> u64 {
        let y: Vec<f64> = (0..inp.rows).map(|r| row_dot(inp, r)).collect();
        y_sum(&y).wrapping_mul(inp.reps as u64)
    }
}
