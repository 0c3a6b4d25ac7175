//! The two parallel systems behind one interface, so that every kernel's algorithm is
//! written once, generic over `S: Sys`.
//!
//! A kernel runs with a context `&mut S::Ctx<'_>` (rayon: a unit token; chili: its `Scope`)
//! and uses only these primitives:
//!
//! * `join(c, a, b)`: the two closures potentially in parallel (rayon::join / Scope::join);
//! * `reduce(c, n, id, f, op)`: `op`-fold of `f(i)` over `0..n` (rayon: `into_par_iter().map().
//!   reduce()`; chili: recursive halving of the range down to single iterations with `join`);
//! * `for_each(c, n, f)`, `for_each_mut(c, data, f)`, `for_rows_mut(c, data, row, f)`: parallel
//!   loops over an index range / the elements of a slice / the rows of a row-major slice
//!   (rayon: `par_iter`, `par_iter_mut`, `par_chunks_mut`; chili: recursive halving);
//!
//! No grain, no cutoff anywhere: rayon splits with its default adaptive splitter, chili
//! halves down to single iterations.

use std::num::NonZeroUsize;

/// Stack size of every worker thread (and of the thread that drives a run): deep recursions
/// (uts-bin, quickhull) must not overflow. Only address space; pages are committed on use.
pub const STACK_SIZE: usize = 256 << 20;

pub trait Sys: Sized + 'static {
    /// The `"system"` field of the JSON line.
    const NAME: &'static str;
    /// What a kernel's code carries through its recursion.
    type Ctx<'x>;
    /// The thread pool.
    type Pool;

    /// A pool with `workers` threads in all (the calling thread included for chili).
    fn pool(workers: usize) -> Self::Pool;

    /// Runs `f` in the pool, with a fresh context.
    fn exec<R, F>(pool: &Self::Pool, f: F) -> R
    where
        R: Send,
        F: for<'x> FnOnce(&mut Self::Ctx<'x>) -> R + Send;

    fn join<A, B, RA, RB>(c: &mut Self::Ctx<'_>, a: A, b: B) -> (RA, RB)
    where
        A: for<'x> FnOnce(&mut Self::Ctx<'x>) -> RA + Send,
        B: for<'x> FnOnce(&mut Self::Ctx<'x>) -> RB + Send,
        RA: Send,
        RB: Send;

    fn reduce<T, F, Op>(c: &mut Self::Ctx<'_>, n: usize, id: T, f: F, op: Op) -> T
    where
        T: Copy + Send + Sync,
        F: for<'x> Fn(&mut Self::Ctx<'x>, usize) -> T + Sync,
        Op: Fn(T, T) -> T + Sync;

    fn for_each<F>(c: &mut Self::Ctx<'_>, n: usize, f: F)
    where
        F: for<'x> Fn(&mut Self::Ctx<'x>, usize) + Sync;

    fn for_each_mut<T, F>(c: &mut Self::Ctx<'_>, data: &mut [T], f: F)
    where
        T: Send,
        F: for<'x> Fn(&mut Self::Ctx<'x>, usize, &mut T) + Sync;

    /// `data` holds rows of `row` elements; `f(c, i, row_i)` for every row, in parallel.
    fn for_rows_mut<T, F>(c: &mut Self::Ctx<'_>, data: &mut [T], row: usize, f: F)
    where
        T: Send,
        F: for<'x> Fn(&mut Self::Ctx<'x>, usize, &mut [T]) + Sync;
}

// ---------------------------------------------------------------------------------------
// Rayon

/// Rayon: `rayon::join`, `par_iter` loops, a `ThreadPoolBuilder` pool of `num_threads(P)`.
pub struct Rayon;

/// Rayon needs no context; this token only keeps the kernels' signatures uniform.
pub struct RayonCtx;

impl Sys for Rayon {
    const NAME: &'static str = "rayon";
    type Ctx<'x> = RayonCtx;
    type Pool = rayon::ThreadPool;

    fn pool(workers: usize) -> rayon::ThreadPool {
        rayon::ThreadPoolBuilder::new()
            .num_threads(workers)
            .stack_size(STACK_SIZE)
            .build()
            .expect("cannot build the rayon thread pool")
    }

    fn exec<R, F>(pool: &rayon::ThreadPool, f: F) -> R
    where
        R: Send,
        F: for<'x> FnOnce(&mut RayonCtx) -> R + Send,
    {
        pool.install(move || f(&mut RayonCtx))
    }

    #[inline]
    fn join<A, B, RA, RB>(_c: &mut RayonCtx, a: A, b: B) -> (RA, RB)
    where
        A: for<'x> FnOnce(&mut RayonCtx) -> RA + Send,
        B: for<'x> FnOnce(&mut RayonCtx) -> RB + Send,
        RA: Send,
        RB: Send,
    {
        rayon::join(move || a(&mut RayonCtx), move || b(&mut RayonCtx))
    }

    #[inline]
    fn reduce<T, F, Op>(_c: &mut RayonCtx, n: usize, id: T, f: F, op: Op) -> T
    where
        T: Copy + Send + Sync,
        F: for<'x> Fn(&mut RayonCtx, usize) -> T + Sync,
        Op: Fn(T, T) -> T + Sync,
    {
        use rayon::prelude::*;
        (0..n)
            .into_par_iter()
            .map(|i| f(&mut RayonCtx, i))
            .reduce(|| id, &op)
    }

    #[inline]
    fn for_each<F>(_c: &mut RayonCtx, n: usize, f: F)
    where
        F: for<'x> Fn(&mut RayonCtx, usize) + Sync,
    {
        use rayon::prelude::*;
        (0..n).into_par_iter().for_each(|i| f(&mut RayonCtx, i))
    }

    #[inline]
    fn for_each_mut<T, F>(_c: &mut RayonCtx, data: &mut [T], f: F)
    where
        T: Send,
        F: for<'x> Fn(&mut RayonCtx, usize, &mut T) + Sync,
    {
        use rayon::prelude::*;
        data.par_iter_mut()
            .enumerate()
            .for_each(|(i, x)| f(&mut RayonCtx, i, x))
    }

    #[inline]
    fn for_rows_mut<T, F>(_c: &mut RayonCtx, data: &mut [T], row: usize, f: F)
    where
        T: Send,
        F: for<'x> Fn(&mut RayonCtx, usize, &mut [T]) + Sync,
    {
        use rayon::prelude::*;
        if row == 0 {
            return;
        }
        data.par_chunks_mut(row)
            .enumerate()
            .for_each(|(i, r)| f(&mut RayonCtx, i, r))
    }
}

// ---------------------------------------------------------------------------------------
// chili

/// chili: only `Scope::join`; every loop is a recursive halving of its range down to single
/// iterations. The pool is `chili::ThreadPool::with_config` with `thread_count = P` (chili
/// starts P - 1 worker threads; the thread that opens the scope is the P-th).
pub struct Chili;

impl Sys for Chili {
    const NAME: &'static str = "chili";
    type Ctx<'x> = chili::Scope<'x>;
    type Pool = chili::ThreadPool;

    fn pool(workers: usize) -> chili::ThreadPool {
        // chili spawns its threads with std's default stack size, which honours
        // RUST_MIN_STACK (set by the binaries' main before any thread starts).
        chili::ThreadPool::with_config(chili::Config {
            thread_count: Some(NonZeroUsize::new(workers).expect("workers >= 1")),
            ..Default::default()
        })
    }

    fn exec<R, F>(pool: &chili::ThreadPool, f: F) -> R
    where
        R: Send,
        F: for<'x> FnOnce(&mut chili::Scope<'x>) -> R + Send,
    {
        let mut scope = pool.scope();
        f(&mut scope)
    }

    #[inline]
    fn join<A, B, RA, RB>(c: &mut chili::Scope<'_>, a: A, b: B) -> (RA, RB)
    where
        A: for<'x> FnOnce(&mut chili::Scope<'x>) -> RA + Send,
        B: for<'x> FnOnce(&mut chili::Scope<'x>) -> RB + Send,
        RA: Send,
        RB: Send,
    {
        c.join(move |s| a(s), move |s| b(s))
    }

    #[inline]
    fn reduce<T, F, Op>(c: &mut chili::Scope<'_>, n: usize, id: T, f: F, op: Op) -> T
    where
        T: Copy + Send + Sync,
        F: for<'x> Fn(&mut chili::Scope<'x>, usize) -> T + Sync,
        Op: Fn(T, T) -> T + Sync,
    {
        if n == 0 {
            id
        } else {
            chili_reduce(c, 0, n, &f, &op)
        }
    }

    #[inline]
    fn for_each<F>(c: &mut chili::Scope<'_>, n: usize, f: F)
    where
        F: for<'x> Fn(&mut chili::Scope<'x>, usize) + Sync,
    {
        if n > 0 {
            chili_for(c, 0, n, &f)
        }
    }

    #[inline]
    fn for_each_mut<T, F>(c: &mut chili::Scope<'_>, data: &mut [T], f: F)
    where
        T: Send,
        F: for<'x> Fn(&mut chili::Scope<'x>, usize, &mut T) + Sync,
    {
        if !data.is_empty() {
            chili_for_mut(c, 0, data, &f)
        }
    }

    #[inline]
    fn for_rows_mut<T, F>(c: &mut chili::Scope<'_>, data: &mut [T], row: usize, f: F)
    where
        T: Send,
        F: for<'x> Fn(&mut chili::Scope<'x>, usize, &mut [T]) + Sync,
    {
        if row > 0 && data.len() >= row {
            chili_rows(c, 0, data.len() / row, data, row, &f)
        }
    }
}

fn chili_reduce<T, F, Op>(c: &mut chili::Scope<'_>, lo: usize, hi: usize, f: &F, op: &Op) -> T
where
    T: Copy + Send + Sync,
    F: for<'x> Fn(&mut chili::Scope<'x>, usize) -> T + Sync,
    Op: Fn(T, T) -> T + Sync,
{
    if hi - lo == 1 {
        return f(c, lo);
    }
    let mid = lo + (hi - lo) / 2;
    let (a, b) = c.join(
        |s| chili_reduce(s, lo, mid, f, op),
        |s| chili_reduce(s, mid, hi, f, op),
    );
    op(a, b)
}

fn chili_for<F>(c: &mut chili::Scope<'_>, lo: usize, hi: usize, f: &F)
where
    F: for<'x> Fn(&mut chili::Scope<'x>, usize) + Sync,
{
    if hi - lo == 1 {
        return f(c, lo);
    }
    let mid = lo + (hi - lo) / 2;
    c.join(|s| chili_for(s, lo, mid, f), |s| chili_for(s, mid, hi, f));
}

fn chili_for_mut<T, F>(c: &mut chili::Scope<'_>, lo: usize, data: &mut [T], f: &F)
where
    T: Send,
    F: for<'x> Fn(&mut chili::Scope<'x>, usize, &mut T) + Sync,
{
    if data.len() == 1 {
        return f(c, lo, &mut data[0]);
    }
    let half = data.len() / 2;
    let (l, r) = data.split_at_mut(half);
    c.join(
        |s| chili_for_mut(s, lo, l, f),
        |s| chili_for_mut(s, lo + half, r, f),
    );
}

fn chili_rows<T, F>(
    c: &mut chili::Scope<'_>,
    lo: usize,
    hi: usize,
    data: &mut [T],
    row: usize,
    f: &F,
) where
    T: Send,
    F: for<'x> Fn(&mut chili::Scope<'x>, usize, &mut [T]) + Sync,
{
    if hi - lo == 1 {
        return f(c, lo, &mut data[..row]);
    }
    let mid = lo + (hi - lo) / 2;
    let (l, r) = data.split_at_mut((mid - lo) * row);
    c.join(
        |s| chili_rows(s, lo, mid, l, row, f),
        |s| chili_rows(s, mid, hi, r, row, f),
    );
}
