//! fib: `fib(n) = n < 2 ? n : fib(n-1) + fib(n-2)`, both calls a join. n = 15 / 37 / 40.

use crate::sys::Sys;
use crate::{Size, Stateless};

pub struct Fib;

fn fib<S: Sys>(c: &mut S::Ctx<'_>, n: u64) -> u64 {
    if n < 2 {
        return n;
    }
    let (a, b) = S::join(c, move |c| fib::<S>(c, n - 1), move |c| fib::<S>(c, n - 2));
    a + b
}

impl Stateless for Fib {
    const NAME: &'static str = "fib";
    type Input = u64;

    fn generate(size: Size) -> u64 {
        size.pick(15, 37, 40)
    }
    fn run<S: Sys>(c: &mut S::Ctx<'_>, n: &u64) -> u64 {
        fib::<S>(c, *n)
    }
    /// Closed form (iteration).
    fn oracle(n: &u64) -> u64 {
        let (mut a, mut b) = (0u64, 1u64);
        for _ in 0..*n {
            (a, b) = (b, a + b);
        }
        a
    }
}
