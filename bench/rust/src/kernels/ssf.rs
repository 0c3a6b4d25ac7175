//! ssf: the Fibonacci string `s0 = "a", s1 = "b", s_n = s_{n-1} s_{n-2}`; for each position i
//! (parallel loop), for every j != i ascending, k = length of the common prefix of the
//! suffixes at i and j; keep the largest k (the first j on ties). Checksum: wrapping sum of
//! `max_len[i] * 1000003 + max_pos[i]`. n = 10 / 17 / 17.

use crate::sys::Sys;
use crate::{Kernel, Size};

pub struct Ssf;

pub fn fib_string(n: usize) -> Vec<u8> {
    let (mut prev, mut cur) = (b"a".to_vec(), b"b".to_vec());
    if n == 0 {
        return prev;
    }
    for _ in 1..n {
        let mut next = cur.clone();
        next.extend_from_slice(&prev);
        prev = cur;
        cur = next;
    }
    cur
}

/// The length of the common prefix of the suffixes at i and j. The zip of the two suffixes runs
/// to `len - max(i, j)`, one bound computed once, as the C++ kernel's `limit` (bench/ssf/ssf.hpp);
/// testing `i + k < len && j + k < len` per character instead made LLVM's loop 11 instructions
/// a character (two bounds, a reload from the stack) against gcc's 6 (docs/results/kernel-audit.md).
#[inline]
fn lcp(s: &[u8], i: usize, j: usize) -> usize {
    s[i..].iter().zip(&s[j..]).take_while(|(a, b)| a == b).count()
}

/// (max_len, max_pos) of position i; (0, 0) when the string has no other position.
#[inline]
fn best_match(s: &[u8], i: usize) -> (u64, u64) {
    let mut best: Option<(usize, usize)> = None;
    for j in 0..s.len() {
        if j == i {
            continue;
        }
        let k = lcp(s, i, j);
        if best.is_none_or(|(bk, _)| k > bk) {
            best = Some((k, j));
        }
    }
    best.map_or((0, 0), |(k, j)| (k as u64, j as u64))
}

fn fold(m: impl Iterator<Item = (u64, u64)>) -> u64 {
    m.fold(0u64, |s, (len, pos)| {
        s.wrapping_add(len.wrapping_mul(1000003).wrapping_add(pos))
    })
}

impl Kernel for Ssf {
    const NAME: &'static str = "ssf";
    type Input = Vec<u8>;
    /// (max_len[i], max_pos[i]).
    type State = Vec<(u64, u64)>;
    type Out = ();

    fn generate(size: Size) -> Vec<u8> {
        fib_string(size.pick(10, 17, 17))
    }
    fn prepare(s: &Vec<u8>) -> Vec<(u64, u64)> {
        vec![(0, 0); s.len()]
    }
    fn reset(_: &Vec<u8>, out: &mut Vec<(u64, u64)>) {
        out.fill((u64::MAX, u64::MAX));
    }
    fn run<S: Sys>(c: &mut S::Ctx<'_>, s: &Vec<u8>, out: &mut Vec<(u64, u64)>) {
        S::for_each_mut(c, out, |_, i, o| *o = best_match(s, i));
    }
    fn checksum(_: &Vec<u8>, out: &Vec<(u64, u64)>, _: ()) -> Option<u64> {
        Some(fold(out.iter().copied()))
    }
    fn oracle(s: &Vec<u8>) -> u64 {
        fold((0..s.len()).map(|i| best_match(s, i)))
    }
}
