//! stream (issue 10's flat loops): one multiply-add per element, `y[i] += 0.25 * x[i]` over n
//! f64, each sweep one flat parallel loop over the elements. Generation (seed 53):
//! `x[i] = below(g, 1000)`; y starts at 0. Checksum: the wrapping sum of `(u64)(4 * y[i])`;
//! every step is exact, so the oracle is `sweeps * sum(x)`.
//! (n, sweeps) = (1000, 3) / (2^22, 25) / (2^24, 50).

use crate::rng::SplitMix64;
use crate::sys::Sys;
use crate::{Kernel, Size};

pub struct Stream;

pub struct Input {
    pub sweeps: usize,
    pub x: Vec<f64>,
}

impl Kernel for Stream {
    const NAME: &'static str = "stream";
    type Input = Input;
    type State = Vec<f64>;
    type Out = ();

    fn generate(size: Size) -> Input {
        let (n, sweeps) = size.pick((1000, 3), (1 << 22, 25), (1 << 24, 50));
        let mut g = SplitMix64::new(53);
        let x = (0..n).map(|_| g.below(1000) as f64).collect();
        Input { sweeps, x }
    }
    fn prepare(inp: &Input) -> Vec<f64> {
        vec![0.0; inp.x.len()]
    }
    fn reset(_: &Input, y: &mut Vec<f64>) {
        y.fill(0.0);
    }
    fn run<S: Sys>(c: &mut S::Ctx<'_>, inp: &Input, y: &mut Vec<f64>) {
        let x = &inp.x[..];
        for _ in 0..inp.sweeps {
            S::for_each_mut(c, y, |_, i, yi| *yi += 0.25 * x[i]);
        }
    }
    fn checksum(_: &Input, y: &Vec<f64>, _: ()) -> Option<u64> {
        Some(y.iter().fold(0u64, |s, &v| s.wrapping_add((4.0 * v) as u64)))
    }
    /// Closed form: y[i] = sweeps * x[i] / 4 exactly.
    fn oracle(inp: &Input) -> u64 {
        let sum = inp.x.iter().fold(0u64, |s, &v| s.wrapping_add(v as u64));
        sum.wrapping_mul(inp.sweeps as u64)
    }
}
