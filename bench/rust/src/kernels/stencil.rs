//! stencil (issue 10's flat loops): Jacobi sweeps of a 2-D 5-point stencil over a side x side
//! grid of f64, each sweep one flat parallel loop over the interior rows. Generation (seed 47):
//! cell i (row-major) = `below(g, 1024) / 1024`. A sweep: `out[r][c] = 0.2 * (in[r][c] +
//! in[r][c-1] + in[r][c+1] + in[r-1][c] + in[r+1][c])`, added in that order, for the interior
//! cells; then in and out swap (both start as the input). Checksum: the wrapping sum of the
//! bit patterns of the grid written last. (side, sweeps) = (16, 3) / (2048, 12) / (4096, 24).

use crate::rng::SplitMix64;
use crate::sys::Sys;
use crate::{Kernel, Size};

pub struct Stencil;

pub struct Input {
    pub side: usize,
    pub sweeps: usize,
    pub grid: Vec<f64>,
}

fn bits_sum(grid: &[f64]) -> u64 {
    grid.iter().fold(0u64, |s, &v| s.wrapping_add(v.to_bits()))
}

/// Interior row `r` of a grid from `src`: `out` is that row (side cells).
#[inline]
fn sweep_row(src: &[f64], side: usize, r: usize, out: &mut [f64]) {
    let (up, mid, down) = (
        &src[(r - 1) * side..r * side],
        &src[r * side..(r + 1) * side],
        &src[(r + 1) * side..(r + 2) * side],
    );
    for c in 1..side - 1 {
        out[c] = 0.2 * (mid[c] + mid[c - 1] + mid[c + 1] + up[c] + down[c]);
    }
}

/// `sweeps` sweeps over (a, b); the grid written last is `a` when sweeps is even.
fn sweeps<S: Sys>(c: &mut S::Ctx<'_>, inp: &Input, a: &mut [f64], b: &mut [f64]) {
    let side = inp.side;
    for s in 0..inp.sweeps {
        let (src, dst) = if s % 2 == 0 {
            (&*a, &mut *b)
        } else {
            (&*b, &mut *a)
        };
        let interior = &mut dst[side..(side - 1) * side];
        S::for_rows_mut(c, interior, side, |_, i, row| {
            sweep_row(src, side, i + 1, row)
        });
    }
}

impl Kernel for Stencil {
    const NAME: &'static str = "stencil";
    type Input = Input;
    type State = (Vec<f64>, Vec<f64>);
    type Out = ();

    fn generate(size: Size) -> Input {
        let (side, sweeps) = size.pick((16, 3), (2048, 12), (4096, 24));
        let mut g = SplitMix64::new(47);
        let grid = (0..side * side)
            .map(|_| g.below(1024) as f64 / 1024.0)
            .collect();
        Input { side, sweeps, grid }
    }
    fn prepare(inp: &Input) -> (Vec<f64>, Vec<f64>) {
        (inp.grid.clone(), inp.grid.clone())
    }
    fn reset(inp: &Input, st: &mut (Vec<f64>, Vec<f64>)) {
        st.0.copy_from_slice(&inp.grid);
        st.1.copy_from_slice(&inp.grid);
    }
    fn run<S: Sys>(c: &mut S::Ctx<'_>, inp: &Input, st: &mut (Vec<f64>, Vec<f64>)) {
        let (a, b) = st;
        sweeps::<S>(c, inp, a, b);
    }
    fn checksum(inp: &Input, st: &(Vec<f64>, Vec<f64>), _: ()) -> Option<u64> {
        Some(bits_sum(if inp.sweeps % 2 == 0 { &st.0 } else { &st.1 }))
    }
    /// Serial sweeps, untimed.
    fn oracle(inp: &Input) -> u64 {
        let side = inp.side;
        let (mut a, mut b) = (inp.grid.clone(), inp.grid.clone());
        for _ in 0..inp.sweeps {
            for r in 1..side - 1 {
                sweep_row(&a, side, r, &mut b[r * side..(r + 1) * side]);
            }
            std::mem::swap(&mut a, &mut b);
        }
        bits_sum(&a)
    }
}
