//! floyd: `d[i][j]` (int32) row-major, seed 13: 0 on the diagonal (no draw), else
//! `1 + below(g, 100)` if `uniform01(g) < 0.3` else INF = 2^29. For k serially: a parallel loop
//! over i, the loop over j serial: `d[i][j] = min(d[i][j], d[i][k] + d[k][j])`. Checksum:
//! wrapping sum of the finite d[i][j]. n = 64 / 640 / 2048.
//!
//! Row k does not change during step k (d[k][k] = 0; the iteration i = k does nothing, as in
//! bench/floyd/floyd.hpp), so every task reads it from a copy taken at the start of the step
//! (n copies of n ints in all, next to n^3 relaxations); that keeps the rows of d disjoint.

use crate::rng::SplitMix64;
use crate::sys::Sys;
use crate::{Kernel, Size};

pub struct Floyd;

pub const INF: i32 = 1 << 29;

pub struct Input {
    pub n: usize,
    pub d: Vec<i32>,
}

fn finite_sum(d: &[i32]) -> u64 {
    d.iter()
        .filter(|&&v| v < INF)
        .fold(0u64, |s, &v| s.wrapping_add(v as i64 as u64))
}

impl Kernel for Floyd {
    const NAME: &'static str = "floyd";
    type Input = Input;
    /// (d, a buffer for row k).
    type State = (Vec<i32>, Vec<i32>);
    type Out = ();

    fn generate(size: Size) -> Input {
        let n = size.pick(64, 640, 2048);
        let mut g = SplitMix64::new(13);
        let mut d = vec![0i32; n * n];
        for i in 0..n {
            for j in 0..n {
                if i != j {
                    d[i * n + j] = if g.uniform01() < 0.3 {
                        1 + g.below(100) as i32
                    } else {
                        INF
                    };
                }
            }
        }
        Input { n, d }
    }
    fn prepare(inp: &Input) -> (Vec<i32>, Vec<i32>) {
        (inp.d.clone(), vec![0; inp.n])
    }
    fn reset(inp: &Input, st: &mut (Vec<i32>, Vec<i32>)) {
        st.0.copy_from_slice(&inp.d);
        st.1.fill(0);
    }
    fn run<S: Sys>(c: &mut S::Ctx<'_>, inp: &Input, st: &mut (Vec<i32>, Vec<i32>)) {
        let n = inp.n;
        let (d, rowk) = st;
        for k in 0..n {
            rowk.copy_from_slice(&d[k * n..(k + 1) * n]);
            let rk = &rowk[..];
            S::for_rows_mut(c, d, n, |_, i, row| {
                if i == k {
                    return;
                }
                // d[i][j] = min(d[i][j], d[i][k] + d[k][j]) as a select and an unconditional
                // store, as the C++ kernel's relax() writes it (bench/floyd/floyd.hpp). An `if`
                // around the store made LLVM vectorize the compare but test each lane and
                // branch to a scalar store where the path got shorter: 8 branches per 8
                // elements, the taken ones (1.6 % of lanes at quick size) mispredicted, where
                // gcc's loop is a branch-free compare-and-blend; docs/results/kernel-audit.md.
                // The zip also drops the bounds checks of row[j] and rk[j].
                let dik = row[k];
                for (x, &dkj) in row.iter_mut().zip(rk) {
                    let v = dik + dkj;
                    *x = if v < *x { v } else { *x };
                }
            });
        }
    }
    fn checksum(_: &Input, st: &(Vec<i32>, Vec<i32>), _: ()) -> Option<u64> {
        Some(finite_sum(&st.0))
    }
    fn oracle(inp: &Input) -> u64 {
        let n = inp.n;
        let mut d = inp.d.clone();
        for k in 0..n {
            for i in 0..n {
                for j in 0..n {
                    d[i * n + j] = d[i * n + j].min(d[i * n + k] + d[k * n + j]);
                }
            }
        }
        finite_sum(&d)
    }
}
