//! mergesort: uint64 keys `splitmix64(seed 23)`; recursive merge sort (both halves a join)
//! between the array and a buffer of the same size (ping-pong: the halves are sorted into the
//! other array, then merged back), down to single elements; the merge is parallel: split the
//! larger run at its middle element, binary-search (lower bound) that element in the other
//! run, place it, and merge both sides with a join, down to empty runs. Checksum:
//! `sum over i of sorted[i] * (i+1)` wrapping, and sortedness.
//! keys = 1000 / 300000 / 100000000.

use crate::rng::SplitMix64;
use crate::sys::Sys;
use crate::{Kernel, Size};

pub struct Mergesort;

pub fn keys(n: usize, seed: u64) -> Vec<u64> {
    let mut g = SplitMix64::new(seed);
    (0..n).map(|_| g.next_u64()).collect()
}

fn merge<S: Sys>(c: &mut S::Ctx<'_>, x: &[u64], y: &[u64], out: &mut [u64]) {
    let (x, y) = if x.len() < y.len() { (y, x) } else { (x, y) };
    if x.is_empty() {
        return;
    }
    let mx = x.len() / 2;
    let pivot = x[mx];
    let my = y.partition_point(|&v| v < pivot);
    let (lo, hi) = out.split_at_mut(mx + my);
    hi[0] = pivot;
    let hi = &mut hi[1..];
    // The branches take their runs computed and by value (`move`), as the C++ kernel's closures
    // capture theirs (bench/mergesort/mergesort.hpp), not references to this frame's locals.
    let (x1, x2, (y1, y2)) = (&x[..mx], &x[mx + 1..], y.split_at(my));
    S::join(
        c,
        move |c| merge::<S>(c, x1, y1, lo),
        move |c| merge::<S>(c, x2, y2, hi),
    );
}

/// Sorts `a` (using `b` as the other array); the result ends in `b` if `to_b`, else in `a`.
fn sort<S: Sys>(c: &mut S::Ctx<'_>, a: &mut [u64], b: &mut [u64], to_b: bool) {
    let n = a.len();
    if n == 1 {
        if to_b {
            b[0] = a[0];
        }
        return;
    }
    let m = n / 2;
    {
        let (a1, a2) = a.split_at_mut(m);
        let (b1, b2) = b.split_at_mut(m);
        S::join(
            c,
            move |c| sort::<S>(c, a1, b1, !to_b),
            move |c| sort::<S>(c, a2, b2, !to_b),
        );
    }
    if to_b {
        let (a1, a2) = a.split_at(m);
        merge::<S>(c, a1, a2, b);
    } else {
        let (b1, b2) = b.split_at(m);
        merge::<S>(c, b1, b2, a);
    }
}

fn weighted_sum(v: &[u64]) -> u64 {
    v.iter().enumerate().fold(0u64, |s, (i, &k)| {
        s.wrapping_add(k.wrapping_mul(i as u64 + 1))
    })
}

impl Kernel for Mergesort {
    const NAME: &'static str = "mergesort";
    type Input = Vec<u64>;
    /// (the array, sorted in place, and the buffer).
    type State = (Vec<u64>, Vec<u64>);
    type Out = ();

    fn generate(size: Size) -> Vec<u64> {
        keys(size.pick(1000, 300_000, 100_000_000), 23)
    }
    fn prepare(k: &Vec<u64>) -> (Vec<u64>, Vec<u64>) {
        (k.clone(), vec![0; k.len()])
    }
    fn reset(k: &Vec<u64>, st: &mut (Vec<u64>, Vec<u64>)) {
        st.0.copy_from_slice(k);
        st.1.fill(0);
    }
    fn run<S: Sys>(c: &mut S::Ctx<'_>, _: &Vec<u64>, st: &mut (Vec<u64>, Vec<u64>)) {
        let (a, b) = st;
        if !a.is_empty() {
            sort::<S>(c, a, b, false);
        }
    }
    fn checksum(_: &Vec<u64>, st: &(Vec<u64>, Vec<u64>), _: ()) -> Option<u64> {
        let a = &st.0;
        if a.windows(2).any(|w| w[0] > w[1]) {
            return None;
        }
        Some(weighted_sum(a))
    }
    /// The standard library's sort.
    fn oracle(k: &Vec<u64>) -> u64 {
        let mut v = k.clone();
        v.sort_unstable();
        weighted_sum(&v)
    }
}
