//! tsp: symmetric distances `1 + below(g, 1000)` (seed 17, drawn for i < j row-major, the
//! diagonal 0); branch and bound from city 0: a partial tour (last city, visited set, cost)
//! is extended by every unvisited city in a parallel loop over the cities 1..n-1; a partial tour is
//! pruned when `cost + (cities left) * (smallest edge in the matrix) >= best`, where `cities
//! left` is the number of unvisited cities and `best` is a shared atomic minimum, initially
//! the greedy nearest-neighbour tour (ties to the smaller index). A complete tour lowers `best`
//! to `cost + d[last][0]`. Checksum: the length of the optimal tour. cities = 7 / 12 / 12.

use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

use crate::rng::SplitMix64;
use crate::sys::Sys;
use crate::{Size, Stateless};

pub struct Tsp;

pub struct Input {
    pub n: usize,
    pub d: Vec<u64>,
    pub min_edge: u64,
    pub greedy: u64,
}

fn greedy_tour(n: usize, d: &[u64]) -> u64 {
    let mut visited = 1u64;
    let (mut last, mut len) = (0usize, 0u64);
    for _ in 1..n {
        let next = (0..n)
            .filter(|&c| visited & (1 << c) == 0)
            .min_by_key(|&c| (d[last * n + c], c))
            .unwrap();
        len += d[last * n + next];
        visited |= 1 << next;
        last = next;
    }
    len + d[last * n]
}

struct Search<'a> {
    inp: &'a Input,
    best: AtomicU64,
}

fn extend<S: Sys>(
    c: &mut S::Ctx<'_>,
    sr: &Search,
    last: usize,
    visited: u64,
    cost: u64,
    left: u64,
) {
    let inp = sr.inp;
    if cost + left * inp.min_edge >= sr.best.load(Relaxed) {
        return;
    }
    let n = inp.n;
    if left == 0 {
        sr.best.fetch_min(cost + inp.d[last * n], Relaxed);
        return;
    }
    S::for_each(c, n - 1, |c, i| {
        let city = i + 1;
        if visited & (1 << city) == 0 {
            extend::<S>(
                c,
                sr,
                city,
                visited | (1 << city),
                cost + inp.d[last * n + city],
                left - 1,
            );
        }
    });
}

impl Stateless for Tsp {
    const NAME: &'static str = "tsp";
    type Input = Input;

    fn generate(size: Size) -> Input {
        let n = size.pick(7, 12, 12);
        let mut g = SplitMix64::new(17);
        let mut d = vec![0u64; n * n];
        for i in 0..n {
            for j in i + 1..n {
                let v = 1 + g.below(1000);
                d[i * n + j] = v;
                d[j * n + i] = v;
            }
        }
        let min_edge = (0..n)
            .flat_map(|i| (i + 1..n).map(move |j| (i, j)))
            .map(|(i, j)| d[i * n + j])
            .min()
            .unwrap_or(0);
        let greedy = greedy_tour(n, &d);
        Input {
            n,
            d,
            min_edge,
            greedy,
        }
    }
    fn run<S: Sys>(c: &mut S::Ctx<'_>, inp: &Input) -> u64 {
        let sr = Search {
            inp,
            best: AtomicU64::new(inp.greedy),
        };
        extend::<S>(c, &sr, 0, 1, 0, inp.n as u64 - 1);
        sr.best.into_inner()
    }
    /// Held-Karp dynamic programming (independent of the search).
    fn oracle(inp: &Input) -> u64 {
        let n = inp.n;
        if n == 1 {
            return 0;
        }
        let d = &inp.d;
        // dp[mask][j]: shortest path from 0 through the cities of mask (a subset of 1..n,
        // bit j-1 for city j), ending at j.
        let full = 1usize << (n - 1);
        let mut dp = vec![u64::MAX; full * n];
        for j in 1..n {
            dp[(1 << (j - 1)) * n + j] = d[j];
        }
        for mask in 1..full {
            for j in 1..n {
                let cur = dp[mask * n + j];
                if cur == u64::MAX || mask & (1 << (j - 1)) == 0 {
                    continue;
                }
                for k in 1..n {
                    if mask & (1 << (k - 1)) == 0 {
                        let m2 = mask | (1 << (k - 1));
                        let v = cur + d[j * n + k];
                        if v < dp[m2 * n + k] {
                            dp[m2 * n + k] = v;
                        }
                    }
                }
            }
        }
        (1..n)
            .map(|j| dp[(full - 1) * n + j] + d[j * n])
            .min()
            .unwrap()
    }
}
