//! spmv: CSR generated row by row (seed 7): for each nonzero `col = below(g, cols)` then
//! `value = below(g, 17) - 8`; then, from the same generator, `x[c] = below(g, 9) - 4`.
//! Declarative: a parallel loop over rows, each row a parallel reduce over its nonzeros;
//! repeated `reps` times. Checksum: wrapping sum over reps and rows of `(int64)y[r]` (as u64).
//! (rows, cols, nnz/row, reps) = (200, 100, 10, 1) / (40000, 5000, 100, 10) / (80000, 5000, 500, 3).

use super::csr::{random_csr, y_sum, Csr};
use crate::sys::Sys;
use crate::{Kernel, Size};

pub struct Spmv;

pub type Input = Csr;

impl Kernel for Spmv {
    const NAME: &'static str = "spmv";
    type Input = Input;
    type State = Vec<f64>;
    type Out = u64;

    fn generate(size: Size) -> Input {
        let (rows, cols, nnz, reps) = size.pick(
            (200, 100, 10, 1),
            (40000, 5000, 100, 10),
            (80000, 5000, 500, 3),
        );
        random_csr(7, rows, cols, reps, |_| nnz)
    }
    fn prepare(inp: &Input) -> Vec<f64> {
        vec![0.0; inp.rows]
    }
    fn reset(_: &Input, y: &mut Vec<f64>) {
        y.fill(crate::POISON);
    }
    fn run<S: Sys>(c: &mut S::Ctx<'_>, inp: &Input, y: &mut Vec<f64>) -> u64 {
        let (rp, col, val, x) = (&inp.row_ptr[..], &inp.col[..], &inp.val[..], &inp.x[..]);
        let mut sum = 0u64;
        for _ in 0..inp.reps {
            S::for_each_mut(c, y, |c, r, yr| {
                let (lo, hi) = (rp[r], rp[r + 1]);
                *yr = S::reduce(
                    c,
                    hi - lo,
                    0.0f64,
                    |_, k| val[lo + k] * x[col[lo + k] as usize],
                    |a, b| a + b,
                );
            });
            sum = sum.wrapping_add(y_sum(y));
        }
        sum
    }
    fn checksum(_: &Input, _: &Vec<f64>, out: u64) -> Option<u64> {
        Some(out)
    }
    /// Serial: once, times reps.
    fn oracle(inp: &Input) -> u64 {
        let y: Vec<f64> = (0..inp.rows)
            .map(|r| {
                (inp.row_ptr[r]..inp.row_ptr[r + 1])
                    .map(|k| inp.val[k] * inp.x[inp.col[k] as usize])
                    .sum()
            })
            .collect();
        y_sum(&y).wrapping_mul(inp.reps as u64)
    }
}
