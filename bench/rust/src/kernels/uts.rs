//! uts-geo and uts-bin (LS §8, T1L-like and T3L-like trees), with the shapes and sizes of
//! bench/uts/uts.hpp. The root's state is `hash2(19, 0)`; child c of a node with state s has
//! state `hash2(s, c)`; a node's draw is `u = uniform01(s')`, s' a copy of its state stepped
//! once. Traversal: at every node a parallel reduce over its children. Checksum: the number of
//! nodes (the oracle: a serial traversal with an explicit stack).
//!
//! * uts-geo, (root children, b0, limit) = (4, 4, 5) / (4, 4, 11) / (4, 4, 13): the root has b0
//!   children (with the formula the root of this hash scheme happens to be a leaf); a node at
//!   depth 0 < d < limit has `floor(ln(1 - u) / ln(b0 / (1 + b0)))` children; none at depth
//!   >= limit.
//! * uts-bin, (root children r, q, m) = (200, 0.12, 8) / (50000, 0.1246, 8) /
//!   (200000, 0.1247, 8): the root has r children, every other node m children if u < q, else
//!   none. (Near q*m = 1 the trees are deep: about 2100 levels at quick, 2600 at full.)

use crate::rng::{SplitMix64, hash2};
use crate::sys::Sys;
use crate::{Size, Stateless};

pub const ROOT_SEED: u64 = 19;

pub fn root_state() -> u64 {
    hash2(ROOT_SEED, 0)
}

#[inline]
fn draw(s: u64) -> f64 {
    SplitMix64::new(s).uniform01()
}

// ------------------------------------------------------------------ geometric

pub struct UtsGeo;

#[derive(Clone, Copy, Debug)]
pub struct Geo {
    pub root_children: u64,
    pub b0: f64,
    pub depth: u32,
    /// ln(b0 / (1 + b0)).
    pub ln_q: f64,
}

#[inline]
fn geo_children(p: &Geo, s: u64, d: u32) -> u64 {
    if d == 0 {
        p.root_children
    } else if d < p.depth {
        ((1.0 - draw(s)).ln() / p.ln_q).floor() as u64
    } else {
        0
    }
}

fn geo<S: Sys>(c: &mut S::Ctx<'_>, p: &Geo, s: u64, d: u32) -> u64 {
    let nc = geo_children(p, s, d);
    1 + S::reduce(
        c,
        nc as usize,
        0u64,
        |c, i| geo::<S>(c, p, hash2(s, i as u64), d + 1),
        |a, b| a + b,
    )
}

/// Serial, with an explicit stack.
fn geo_serial(p: &Geo) -> u64 {
    let mut stack = vec![(root_state(), 0u32)];
    let mut count = 0u64;
    while let Some((s, d)) = stack.pop() {
        count += 1;
        for i in 0..geo_children(p, s, d) {
            stack.push((hash2(s, i), d + 1));
        }
    }
    count
}

impl Stateless for UtsGeo {
    const NAME: &'static str = "uts-geo";
    type Input = Geo;

    fn generate(size: Size) -> Geo {
        let (root_children, b0, depth) = size.pick((4, 4.0, 5), (4, 4.0, 11), (4, 4.0, 13));
        Geo {
            root_children,
            b0,
            depth,
            ln_q: (b0 / (1.0 + b0)).ln(),
        }
    }
    fn run<S: Sys>(c: &mut S::Ctx<'_>, p: &Geo) -> u64 {
        geo::<S>(c, p, root_state(), 0)
    }
    fn oracle(p: &Geo) -> u64 {
        geo_serial(p)
    }
}

// ------------------------------------------------------------------ binomial

pub struct UtsBin;

#[derive(Clone, Copy, Debug)]
pub struct Bin {
    pub root_children: u64,
    pub q: f64,
    pub m: u64,
}

#[inline]
fn bin_children(p: &Bin, s: u64, root: bool) -> u64 {
    if root {
        p.root_children
    } else if draw(s) < p.q {
        p.m
    } else {
        0
    }
}

fn bin<S: Sys>(c: &mut S::Ctx<'_>, p: &Bin, s: u64, root: bool) -> u64 {
    let nc = bin_children(p, s, root);
    1 + S::reduce(
        c,
        nc as usize,
        0u64,
        |c, i| bin::<S>(c, p, hash2(s, i as u64), false),
        |a, b| a + b,
    )
}

/// Serial, with an explicit stack (the trees can be deep).
fn bin_serial(p: &Bin) -> u64 {
    let mut stack = vec![(root_state(), true)];
    let mut count = 0u64;
    while let Some((s, root)) = stack.pop() {
        count += 1;
        for i in 0..bin_children(p, s, root) {
            stack.push((hash2(s, i), false));
        }
    }
    count
}

impl Stateless for UtsBin {
    const NAME: &'static str = "uts-bin";
    type Input = Bin;

    fn generate(size: Size) -> Bin {
        let (root_children, q, m) =
            size.pick((200, 0.12, 8), (50_000, 0.1246, 8), (200_000, 0.1247, 8));
        Bin {
            root_children,
            q,
            m,
        }
    }
    fn run<S: Sys>(c: &mut S::Ctx<'_>, p: &Bin) -> u64 {
        bin::<S>(c, p, root_state(), true)
    }
    fn oracle(p: &Bin) -> u64 {
        bin_serial(p)
    }
}
