//! stress: a balanced binary join tree of the given depth (2^depth leaves, numbered left to
//! right from 0), repeated `reps` times (serially); each leaf runs the LCG
//! `x = x * 6364136223846793005 + 1442695040888963407` `leaf` times from `x = leaf index` and
//! returns x. Checksum: wrapping sum of all leaf results over all reps.
//! (depth, leaf, reps) = (6, 64, 4) / (10, 256, 400) / (14, 256, 200).

use crate::sys::Sys;
use crate::{Size, Stateless};

pub struct Stress;

#[derive(Clone, Copy, Debug)]
pub struct Params {
    pub depth: u32,
    pub leaf: u64,
    pub reps: u64,
}

/// The leaf: `leaf` dependent LCG steps. The constants go through `black_box` so that the
/// compiler cannot unroll the loop and fold k steps into one `x * a^k + c_k` (LLVM does, which
/// would cut the leaf's work about tenfold); every step stays one multiply and one add.
#[inline]
pub fn leaf_work(index: u64, leaf: u64) -> u64 {
    let a = std::hint::black_box(6364136223846793005u64);
    let c = std::hint::black_box(1442695040888963407u64);
    let mut x = index;
    for _ in 0..leaf {
        x = x.wrapping_mul(a).wrapping_add(c);
    }
    x
}

/// A balanced join tree of height `depth` whose leaves are `index * 2^depth + l`, l = 0 ..
/// 2^depth - 1 (left to right); returns the wrapping sum of the leaf results.
pub fn tree<S: Sys>(c: &mut S::Ctx<'_>, depth: u32, index: u64, leaf: u64) -> u64 {
    if depth == 0 {
        return leaf_work(index, leaf);
    }
    let (a, b) = S::join(
        c,
        |c| tree::<S>(c, depth - 1, 2 * index, leaf),
        |c| tree::<S>(c, depth - 1, 2 * index + 1, leaf),
    );
    a.wrapping_add(b)
}

impl Stateless for Stress {
    const NAME: &'static str = "stress";
    type Input = Params;

    fn generate(size: Size) -> Params {
        let (depth, leaf, reps) = size.pick((6, 64, 4), (10, 256, 400), (14, 256, 200));
        Params { depth, leaf, reps }
    }
    fn run<S: Sys>(c: &mut S::Ctx<'_>, p: &Params) -> u64 {
        let mut sum = 0u64;
        for _ in 0..p.reps {
            sum = sum.wrapping_add(tree::<S>(c, p.depth, 0, p.leaf));
        }
        sum
    }
    /// Serial: one repetition's leaf sum, times reps.
    fn oracle(p: &Params) -> u64 {
        let one = (0..1u64 << p.depth).fold(0u64, |s, i| s.wrapping_add(leaf_work(i, p.leaf)));
        one.wrapping_mul(p.reps)
    }
}
