//! bfs (as bench/bfs/bfs.hpp): a random geometric graph (seed 11): point p at
//! `(uniform01, uniform01)` (x drawn first); with `r = sqrt(10 / (pi * n))`, nodes numbered in
//! cell order of a grid `floor(1 / r)` cells a side (see [`geometric_graph`]), an undirected edge
//! between i and j != i iff `dx*dx + dy*dy < r*r` (doubles); CSR with the neighbours of a node
//! sorted ascending. Level-synchronous BFS from node 0: a parallel loop over the frontier, each
//! node's neighbour loop parallel; a neighbour whose level reads UNVISITED is claimed with a
//! compare-and-swap UNVISITED -> d+1, and the claimer appends it to the next frontier: into a
//! block of [`APPEND_BLOCK`] slots that its thread reserved with one atomic fetch-add, the slots
//! it leaves unfilled holes (UNVISITED) that the next level skips (one shared fetch-add per block,
//! not per node, as in the C++ kernel). Untimed: resetting the levels, allocating the frontiers.
//! Checksum: number of reached nodes * 2^32 + sum of the levels of the reached nodes.
//! nodes = 2000 / 1000000 / 4000000.

use std::cell::Cell;
use std::sync::atomic::{AtomicU32, AtomicU64, AtomicUsize, Ordering::Relaxed};

use crate::rng::SplitMix64;
use crate::sys::Sys;
use crate::{Kernel, Size};

pub struct Bfs;

pub const UNVISITED: u32 = u32::MAX;

pub struct Graph {
    pub n: usize,
    pub off: Vec<usize>,
    pub adj: Vec<u32>,
}

pub struct State {
    pub level: Vec<AtomicU32>,
    pub front: Vec<AtomicU32>,
    pub next: Vec<AtomicU32>,
}

/// A frontier is appended to in blocks of this many slots (one fetch-add each).
pub const APPEND_BLOCK: usize = 64;
/// The most threads that may append to one frontier (each leaves at most one partly filled block).
pub const APPEND_THREADS: usize = 256;

fn capacity(n: usize) -> usize {
    n + APPEND_BLOCK * APPEND_THREADS
}

/// The next frontier's fill counter on a cache line of its own, as the C++ kernel's `alignas(64)
/// next_size`: as a plain stack local of the driving thread it could share a line with the level
/// loop's closure environment, which every task reads and every block reservation's `fetch_add`
/// would invalidate (no time difference measured at quick size: docs/results/kernel-audit.md).
#[repr(align(64))]
struct Tail(AtomicUsize);

/// Search numbers: a thread's block belongs to one search (and level), never taken for another's.
static SEARCHES: AtomicU64 = AtomicU64::new(0);

thread_local! {
    /// This thread's block: (search, level, next free slot, end).
    static CURSOR: Cell<(u64, u32, usize, usize)> = const { Cell::new((0, 0, 0, 0)) };
}

/// v into this thread's block of `next` (reserving a new block, its slots holes until filled, when
/// the thread has none for this search and level or its block is full).
fn append(next: &[AtomicU32], tail: &AtomicUsize, search: u64, level: u32, v: u32) {
    CURSOR.with(|c| {
        let (s, l, mut pos, mut end) = c.get();
        if s != search || l != level || pos == end {
            pos = tail.fetch_add(APPEND_BLOCK, Relaxed);
            end = pos + APPEND_BLOCK;
            assert!(end <= next.len(), "bfs: more than {APPEND_THREADS} threads appended to one frontier");
            for slot in &next[pos..end] {
                slot.store(UNVISITED, Relaxed);
            }
        }
        next[pos].store(v, Relaxed);
        c.set((search, level, pos + 1, end));
    });
}

/// The random geometric graph. The grid of `k = max(1, floor(1 / r))` cells a side (cells at
/// least r wide, so a node's neighbours lie in the 3 x 3 cells around its own) also numbers the
/// nodes: node ids are the points' ranks in (cell, point) order (nearby points get nearby ids),
/// so a node's cells hold consecutive ids and its neighbour list comes out
/// ascending without a sort.
pub fn geometric_graph(n: usize, seed: u64) -> Graph {
    let mut g = SplitMix64::new(seed);
    let mut pts = Vec::with_capacity(n);
    for _ in 0..n {
        let x = g.uniform01();
        let y = g.uniform01();
        pts.push((x, y));
    }
    let r = (10.0 / (std::f64::consts::PI * n as f64)).sqrt();
    let r2 = r * r;
    let cells = ((1.0 / r).floor() as usize).max(1);
    let axis = |v: f64| ((v * cells as f64) as usize).min(cells - 1);
    let cell_of = |(x, y): (f64, f64)| axis(y) * cells + axis(x);
    // Counting sort of the points by cell (stable): the node numbering.
    let mut start = vec![0usize; cells * cells + 1];
    for &p in &pts {
        start[cell_of(p) + 1] += 1;
    }
    for k in 0..cells * cells {
        start[k + 1] += start[k];
    }
    let mut fill = start.clone();
    let mut node = vec![(0.0, 0.0); n];
    for &p in &pts {
        let k = cell_of(p);
        node[fill[k]] = p;
        fill[k] += 1;
    }
    let mut off = Vec::with_capacity(n + 1);
    let mut adj = Vec::with_capacity(n * 11);
    off.push(0);
    for (i, &(x, y)) in node.iter().enumerate() {
        let (cx, cy) = (axis(x), axis(y));
        let (x_lo, x_hi) = (cx.saturating_sub(1), (cx + 1).min(cells - 1));
        for gy in cy.saturating_sub(1)..=(cy + 1).min(cells - 1) {
            // the cells x_lo..=x_hi of row gy hold consecutive ids
            for j in start[gy * cells + x_lo]..start[gy * cells + x_hi + 1] {
                let (px, py) = node[j];
                let (dx, dy) = (x - px, y - py);
                if j != i && dx * dx + dy * dy < r2 {
                    adj.push(j as u32);
                }
            }
        }
        off.push(adj.len());
    }
    Graph { n, off, adj }
}

fn level_checksum(levels: impl Iterator<Item = u32>) -> u64 {
    let (mut reached, mut sum) = (0u64, 0u64);
    for l in levels {
        if l != UNVISITED {
            reached += 1;
            sum = sum.wrapping_add(l as u64);
        }
    }
    (reached << 32).wrapping_add(sum)
}

fn atomic_vec(n: usize, v: u32) -> Vec<AtomicU32> {
    (0..n).map(|_| AtomicU32::new(v)).collect()
}

impl Kernel for Bfs {
    const NAME: &'static str = "bfs";
    type Input = Graph;
    type State = State;
    type Out = ();

    fn generate(size: Size) -> Graph {
        geometric_graph(size.pick(2000, 1_000_000, 4_000_000), 11)
    }
    fn prepare(gr: &Graph) -> State {
        State {
            level: atomic_vec(gr.n, UNVISITED),
            front: atomic_vec(capacity(gr.n), 0),
            next: atomic_vec(capacity(gr.n), 0),
        }
    }
    fn reset(_: &Graph, st: &mut State) {
        for l in &st.level {
            l.store(UNVISITED, Relaxed);
        }
        for f in st.front.iter().chain(&st.next) {
            f.store(0, Relaxed);
        }
    }
    fn run<S: Sys>(c: &mut S::Ctx<'_>, gr: &Graph, st: &mut State) {
        let (off, adj) = (&gr.off[..], &gr.adj[..]);
        let level = &st.level[..];
        let (mut front, mut next) = (&st.front[..], &st.next[..]);
        level[0].store(0, Relaxed);
        front[0].store(0, Relaxed);
        let search = SEARCHES.fetch_add(1, Relaxed) + 1;
        let mut len = 1usize;
        let mut d = 0u32;
        while len > 0 {
            let tail = Tail(AtomicUsize::new(0));
            let (fr, nx, tl) = (front, next, &tail.0);
            S::for_each(c, len, |c, k| {
                let u = fr[k].load(Relaxed);
                if u == UNVISITED {
                    return; // a hole of a partly filled block
                }
                let u = u as usize;
                let lo = off[u];
                S::for_each(c, off[u + 1] - lo, |_, t| {
                    let v = adj[lo + t];
                    let lv = &level[v as usize];
                    if lv.load(Relaxed) == UNVISITED
                        && lv
                            .compare_exchange(UNVISITED, d + 1, Relaxed, Relaxed)
                            .is_ok()
                    {
                        append(nx, tl, search, d + 1, v);
                    }
                });
            });
            len = tail.0.into_inner();
            std::mem::swap(&mut front, &mut next);
            d += 1;
        }
    }
    fn checksum(_: &Graph, st: &State, _: ()) -> Option<u64> {
        Some(level_checksum(st.level.iter().map(|l| l.load(Relaxed))))
    }
    /// Serial queue BFS.
    fn oracle(gr: &Graph) -> u64 {
        let mut level = vec![UNVISITED; gr.n];
        let mut queue = std::collections::VecDeque::new();
        level[0] = 0;
        queue.push_back(0usize);
        while let Some(u) = queue.pop_front() {
            for &v in &gr.adj[gr.off[u]..gr.off[u + 1]] {
                if level[v as usize] == UNVISITED {
                    level[v as usize] = level[u] + 1;
                    queue.push_back(v as usize);
                }
            }
        }
        level_checksum(level.into_iter())
    }
}
