//! nqueens, LS Algorithm 2 (declarative): at row `d` a parallel reduce over the columns
//! 0..N-1; a safe column recurses on a copy of the partial placement (an `int[N]` array);
//! a full board counts 1. N = 8 / 12 / 14.

use crate::sys::Sys;
use crate::{Size, Stateless};

pub struct NQueens;

/// The partial placement: `b[r]` is the column of the queen of row r < d. N <= MAXN.
const MAXN: usize = 16;
type Board = [i32; MAXN];

#[inline]
fn safe(b: &Board, d: usize, col: i32) -> bool {
    (0..d).all(|r| {
        let q = b[r];
        q != col && (q - col).abs() != (d - r) as i32
    })
}

fn nq<S: Sys>(c: &mut S::Ctx<'_>, n: usize, d: usize, b: &Board) -> u64 {
    if d == n {
        return 1;
    }
    S::reduce(
        c,
        n,
        0u64,
        |c, col| {
            if !safe(b, d, col as i32) {
                return 0;
            }
            let mut nb = *b;
            nb[d] = col as i32;
            nq::<S>(c, n, d + 1, &nb)
        },
        |x, y| x + y,
    )
}

impl Stateless for NQueens {
    const NAME: &'static str = "nqueens";
    type Input = usize;

    fn generate(size: Size) -> usize {
        size.pick(8, 12, 14)
    }
    fn run<S: Sys>(c: &mut S::Ctx<'_>, n: &usize) -> u64 {
        nq::<S>(c, *n, 0, &[0; MAXN])
    }
    /// The known solution counts.
    fn oracle(n: &usize) -> u64 {
        match *n {
            1 => 1,
            4 => 2,
            5 => 10,
            6 => 4,
            7 => 40,
            8 => 92,
            9 => 352,
            10 => 724,
            11 => 2680,
            12 => 14200,
            13 => 73712,
            14 => 365596,
            _ => panic!("no known count for N = {n}"),
        }
    }
}
