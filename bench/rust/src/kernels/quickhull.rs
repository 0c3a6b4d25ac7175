//! quickhull (HB §5, after PBBS): integer points uniform in [0, 2^20)^2 (seed 29; for each point
//! x then y, each `below(g, 2^20)`). Same algorithm as bench/quickhull/quickhull.hpp:
//!
//! 1. L = the point with the smallest (x, y, index), R = the largest (x, y), ties to the smaller
//!    index (one parallel reduce over all points);
//! 2. filter all points into U = strictly left of L->R and D = strictly left of R->L;
//!    join(hull(U, L, R), hull(D, R, L)).
//!
//! hull(P, a, b): if P is empty, no vertex; else f = the point of P with the largest
//! cross(a, b, .), on ties the smallest dot(b - a, . - a) (the end of a segment parallel to a->b
//! nearest to a, a vertex), then the smallest index (a parallel reduce); filter P into
//! P1 = outside a->f and P2 = outside f->b; join(hull(P1, a, f), hull(P2, f, b)); f is a vertex.
//!
//! The filter is a stable pack of P into [P1 | P2] by a two-pass tree scan with joins down to
//! single points: an up-sweep halving [lo, hi) at mid = lo + (hi - lo) / 2, every inner node
//! storing the counts of its left half at cnt[mid], and a down-sweep passing the output
//! offsets down. P, P1, P2 are index arrays in two ping-pong buffers (no allocation in a run).
//! Collinear points and duplicates of a vertex are never strictly outside, so never vertices.
//!
//! Checksum: number of hull vertices * 2^32 + (sum of their indices mod 2^32). The oracle is
//! Andrew's monotone chain (duplicates dropped keeping the smallest index, collinear dropped).
//! points = 1000 / 1000000 / 10000000.

use crate::rng::SplitMix64;
use crate::sys::Sys;
use crate::{Kernel, Size};

pub struct Quickhull;

pub struct Points {
    pub x: Vec<i64>,
    pub y: Vec<i64>,
}

impl Points {
    pub fn generate(n: usize, seed: u64) -> Points {
        let mut g = SplitMix64::new(seed);
        let (mut x, mut y) = (Vec::with_capacity(n), Vec::with_capacity(n));
        for _ in 0..n {
            x.push(g.below(1 << 20) as i64);
            y.push(g.below(1 << 20) as i64);
        }
        Points { x, y }
    }

    pub fn len(&self) -> usize {
        self.x.len()
    }

    pub fn is_empty(&self) -> bool {
        self.x.is_empty()
    }

    /// Twice the signed area of (a, b, p): > 0 iff p is strictly left of a->b.
    /// `inline(always)` (and `Splitter::side`'s): with `#[inline]` LLVM kept this function, with
    /// its six bounds checks and their panic paths, out of line, so every point of every filter
    /// made one or two calls that gcc inlines in the C++ kernel (docs/results/kernel-audit.md).
    #[inline(always)]
    fn cross(&self, a: u32, b: u32, p: u32) -> i64 {
        let (a, b, p) = (a as usize, b as usize, p as usize);
        (self.x[b] - self.x[a]) * (self.y[p] - self.y[a])
            - (self.y[b] - self.y[a]) * (self.x[p] - self.x[a])
    }

    #[inline]
    fn outside(&self, a: u32, b: u32, p: u32) -> bool {
        self.cross(a, b, p) > 0
    }

    #[inline]
    fn key(&self, i: u32) -> (i64, i64) {
        (self.x[i as usize], self.y[i as usize])
    }
}

/// The farthest-point reduction value: (cross, dot, index); the identity has cross -1.
#[derive(Clone, Copy)]
struct Far {
    dist: i64,
    proj: i64,
    idx: u32,
}

const NO_POINT: Far = Far {
    dist: -1,
    proj: 0,
    idx: u32::MAX,
};

#[inline]
fn far_of(p: &Points, a: u32, b: u32, i: u32) -> Far {
    let (au, bu, iu) = (a as usize, b as usize, i as usize);
    let proj =
        (p.x[bu] - p.x[au]) * (p.x[iu] - p.x[au]) + (p.y[bu] - p.y[au]) * (p.y[iu] - p.y[au]);
    Far {
        dist: p.cross(a, b, i),
        proj,
        idx: i,
    }
}

#[inline]
fn farther(u: Far, v: Far) -> Far {
    if u.dist != v.dist {
        return if u.dist > v.dist { u } else { v };
    }
    if u.proj != v.proj {
        return if u.proj < v.proj { u } else { v };
    }
    if u.idx < v.idx { u } else { v }
}

/// (leftmost, rightmost) point indices.
#[inline]
fn extremes(p: &Points, u: (u32, u32), v: (u32, u32)) -> (u32, u32) {
    let left = if (p.key(u.0), u.0) < (p.key(v.0), v.0) {
        u.0
    } else {
        v.0
    };
    let (ku, kv) = (p.key(u.1), p.key(v.1));
    let right = if ku != kv {
        if ku > kv { u.1 } else { v.1 }
    } else if u.1 < v.1 {
        u.1
    } else {
        v.1
    };
    (left, right)
}

/// Counts of a filter's two outputs (P1, P2).
type Pair = (u32, u32);

#[inline]
fn add(u: Pair, v: Pair) -> Pair {
    (u.0 + v.0, u.1 + v.1)
}

/// Which side a point goes to: (1, 0) outside a->f, (0, 1) outside f->b, else (0, 0).
#[derive(Clone, Copy)]
struct Splitter<'a> {
    p: &'a Points,
    a: u32,
    f: u32,
    b: u32,
}

impl Splitter<'_> {
    #[inline(always)]
    fn side(&self, i: u32) -> Pair {
        if self.p.outside(self.a, self.f, i) {
            (1, 0)
        } else if self.p.outside(self.f, self.b, i) {
            (0, 1)
        } else {
            (0, 0)
        }
    }
}

/// Up-sweep over `pts` (a node [lo, hi) of the halving tree; `cnt` has the same length, and
/// the node stores the counts of its left half at `cnt[mid - lo]`, which no descendant writes).
fn up<S: Sys>(c: &mut S::Ctx<'_>, s: Splitter, pts: &[u32], cnt: &mut [Pair]) -> Pair {
    if pts.len() == 1 {
        return s.side(pts[0]);
    }
    let mid = pts.len() / 2;
    let (l, r) = {
        let (pl, pr) = pts.split_at(mid);
        let (cl, cr) = cnt.split_at_mut(mid);
        S::join(c, |c| up::<S>(c, s, pl, cl), |c| up::<S>(c, s, pr, cr))
    };
    cnt[mid] = l;
    add(l, r)
}

/// Down-sweep: `o1` / `o2` are exactly this node's slots of P1 / P2.
fn down<S: Sys>(
    c: &mut S::Ctx<'_>,
    s: Splitter,
    pts: &[u32],
    cnt: &[Pair],
    o1: &mut [u32],
    o2: &mut [u32],
) {
    if pts.len() == 1 {
        let k = s.side(pts[0]);
        if k.0 != 0 {
            o1[0] = pts[0];
        }
        if k.1 != 0 {
            o2[0] = pts[0];
        }
        return;
    }
    let mid = pts.len() / 2;
    let (pl, pr) = pts.split_at(mid);
    let (cl, cr) = cnt.split_at(mid);
    let (k1, k2) = cnt[mid];
    let (o1l, o1r) = o1.split_at_mut(k1 as usize);
    let (o2l, o2r) = o2.split_at_mut(k2 as usize);
    S::join(
        c,
        |c| down::<S>(c, s, pl, cl, o1l, o2l),
        |c| down::<S>(c, s, pr, cr, o1r, o2r),
    );
}

/// Packs `src` into `dst` = [P1 | P2]; returns (|P1|, |P2|).
fn filter<S: Sys>(
    c: &mut S::Ctx<'_>,
    s: Splitter,
    src: &[u32],
    cnt: &mut [Pair],
    dst: &mut [u32],
) -> Pair {
    let m = src.len();
    let cnt = &mut cnt[..m];
    let total = up::<S>(c, s, src, cnt);
    let (o1, rest) = dst.split_at_mut(total.0 as usize);
    down::<S>(c, s, src, cnt, o1, &mut rest[..total.1 as usize]);
    total
}

/// (hull vertices, sum of their indices).
type Vertices = (u64, u64);

fn hull<S: Sys>(
    c: &mut S::Ctx<'_>,
    p: &Points,
    src: &mut [u32],
    dst: &mut [u32],
    cnt: &mut [Pair],
    a: u32,
    b: u32,
) -> Vertices {
    let m = src.len();
    if m == 0 {
        return (0, 0);
    }
    let sp = &*src;
    let f = S::reduce(c, m, NO_POINT, |_, i| far_of(p, a, b, sp[i]), farther).idx;
    let k = filter::<S>(c, Splitter { p, a, f, b }, src, cnt, dst);
    let (k1, k2) = (k.0 as usize, k.1 as usize);
    let (d1, d2) = dst.split_at_mut(k1);
    let (s1, s2) = src.split_at_mut(k1);
    let (c1, c2) = cnt.split_at_mut(k1);
    let (l, r) = S::join(
        c,
        |c| hull::<S>(c, p, d1, s1, c1, a, f),
        |c| hull::<S>(c, p, &mut d2[..k2], &mut s2[..k2], c2, f, b),
    );
    (1 + l.0 + r.0, f as u64 + l.1 + r.1)
}

fn checksum_of(v: Vertices) -> u64 {
    (v.0 << 32).wrapping_add(v.1 & 0xFFFF_FFFF)
}

/// The buffers of one run: src = 0, 1, ..., n-1 (the point set as indices), dst, cnt.
pub struct Buffers {
    src: Vec<u32>,
    dst: Vec<u32>,
    cnt: Vec<Pair>,
}

impl Kernel for Quickhull {
    const NAME: &'static str = "quickhull";
    type Input = Points;
    type State = Buffers;
    type Out = u64;

    fn generate(size: Size) -> Points {
        Points::generate(size.pick(1000, 1_000_000, 10_000_000), 29)
    }
    fn prepare(p: &Points) -> Buffers {
        let n = p.len();
        Buffers {
            src: (0..n as u32).collect(),
            dst: vec![0; n],
            cnt: vec![(0, 0); n],
        }
    }
    fn reset(_: &Points, w: &mut Buffers) {
        for (i, s) in w.src.iter_mut().enumerate() {
            *s = i as u32;
        }
        w.dst.fill(0);
        w.cnt.fill((0, 0));
    }
    fn run<S: Sys>(c: &mut S::Ctx<'_>, p: &Points, w: &mut Buffers) -> u64 {
        let n = p.len();
        if n == 0 {
            return 0;
        }
        let src0 = &w.src[..];
        let (l, r) = S::reduce(
            c,
            n,
            (src0[0], src0[0]),
            |_, i| (src0[i], src0[i]),
            |u, v| extremes(p, u, v),
        );
        if l == r {
            return checksum_of((1, l as u64));
        }
        // Splitter (a, f, b) = (L, R, L): P1 = outside L->R, P2 = outside R->L.
        let k = filter::<S>(
            c,
            Splitter {
                p,
                a: l,
                f: r,
                b: l,
            },
            &w.src,
            &mut w.cnt,
            &mut w.dst,
        );
        let (k1, k2) = (k.0 as usize, k.1 as usize);
        let (d1, d2) = w.dst.split_at_mut(k1);
        let (s1, s2) = w.src.split_at_mut(k1);
        let (c1, c2) = w.cnt.split_at_mut(k1);
        let (u, d) = S::join(
            c,
            |c| hull::<S>(c, p, d1, s1, c1, l, r),
            |c| hull::<S>(c, p, &mut d2[..k2], &mut s2[..k2], c2, r, l),
        );
        checksum_of((2 + u.0 + d.0, l as u64 + r as u64 + u.1 + d.1))
    }
    fn checksum(_: &Points, _: &Buffers, out: u64) -> Option<u64> {
        Some(out)
    }
    /// Andrew's monotone chain over Akl and Toussaint's candidates ([`hull_candidates`]).
    fn oracle(p: &Points) -> u64 {
        let hull = monotone_chain(p, hull_candidates(p));
        checksum_of((hull.len() as u64, hull.iter().map(|&i| i as u64).sum()))
    }
}

/// Andrew's monotone chain on the points sorted by (x, y, index) with duplicates removed
/// (keeping the smallest index), popping collinear points: the strict hull, counter-clockwise.
fn monotone_chain(p: &Points, mut order: Vec<u32>) -> Vec<u32> {
    order.sort_unstable_by_key(|&i| (p.key(i), i));
    order.dedup_by_key(|i| p.key(*i));
    if order.len() < 3 {
        return order;
    }
    let chain = |it: &mut dyn Iterator<Item = u32>| {
        let mut h: Vec<u32> = Vec::new();
        for i in it {
            while h.len() >= 2 && p.cross(h[h.len() - 2], h[h.len() - 1], i) <= 0 {
                h.pop();
            }
            h.push(i);
        }
        h.pop(); // the last point starts the other chain
        h
    };
    let mut hull = chain(&mut order.iter().copied());
    hull.extend(chain(&mut order.iter().rev().copied()));
    hull
}

/// The points that may be hull vertices: all but those strictly inside the hull of the extreme
/// points in the eight directions +-x, +-y, +-(x + y), +-(x - y) (Akl and Toussaint's filter; a
/// point strictly inside the hull of some input points is no vertex of the whole hull).
fn hull_candidates(p: &Points) -> Vec<u32> {
    let key = |d: usize, i: usize| {
        let (x, y) = (p.x[i], p.y[i]);
        [x, -x, y, -y, x + y, -x - y, x - y, y - x][d]
    };
    let mut e = [0usize; 8];
    for i in 1..p.len() {
        for (d, best) in e.iter_mut().enumerate() {
            if key(d, i) > key(d, *best) {
                *best = i;
            }
        }
    }
    let poly = monotone_chain(p, e.iter().map(|&i| i as u32).collect());
    (0..p.len() as u32)
        .filter(|&i| {
            poly.len() < 3
                || (0..poly.len()).any(|v| p.cross(poly[v], poly[(v + 1) % poly.len()], i) <= 0)
        })
        .collect()
}
