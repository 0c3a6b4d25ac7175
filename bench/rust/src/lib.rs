//! Rayon and chili variants of the weft benchmark kernels: the contract is bench/KERNELS.md
//! (same algorithm, same generated input, same checksum as the C++ variants).
//!
//! Every kernel is written once, generic over [`sys::Sys`]; the two binaries
//! `weft-bench-rayon` and `weft-bench-chili` are [`cli::main`] instantiated with
//! [`sys::Rayon`] and [`sys::Chili`].

pub mod cli;
pub mod kernels;
pub mod rng;
pub mod sys;

/// `--size test|quick|full`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Size {
    Test,
    Quick,
    Full,
}

impl Size {
    pub fn parse(s: &str) -> Option<Size> {
        match s {
            "test" => Some(Size::Test),
            "quick" => Some(Size::Quick),
            "full" => Some(Size::Full),
            _ => None,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Size::Test => "test",
            Size::Quick => "quick",
            Size::Full => "full",
        }
    }

    /// The value of the size from a `test / quick / full` triple of KERNELS.md.
    pub fn pick<T>(self, test: T, quick: T, full: T) -> T {
        match self {
            Size::Test => test,
            Size::Quick => quick,
            Size::Full => full,
        }
    }
}

/// What `reset` fills a kernel's f64 outputs with (as the C++ `bench::poison`): exactly
/// representable, converts to u64 as is, and far from any result, so a cell a run leaves
/// unwritten changes the checksum.
pub const POISON: f64 = 1099511627776.0; // 2^40

/// One kernel of KERNELS.md.
///
/// `generate`, `prepare` and `reset` are untimed; `run` is the timed kernel call; `checksum`
/// (untimed, after every repetition) turns the run's result and state into the checksum
/// (`None`: the output is invalid, e.g. not sorted);
/// `oracle` is the expected checksum (closed form, or the serial algorithm written
/// independently of the parallel one).
pub trait Kernel {
    const NAME: &'static str;
    type Input: Sync;
    /// Mutable per-run state (output buffers, a copy of data the kernel modifies).
    type State: Send;
    type Out: Send;

    fn generate(size: Size) -> Self::Input;
    fn prepare(input: &Self::Input) -> Self::State;
    /// Restores `st` before a run, in place (untimed): the state is made once per process and
    /// reused, so its pages are already written and no timed run pays first-touch page faults
    /// (the C++ binaries allocate once too); outputs are cleared or poisoned so that a run that
    /// skips work cannot inherit an earlier run's answer. The default makes a fresh state,
    /// for kernels whose `prepare` writes all of it (copies of the input).
    fn reset(input: &Self::Input, st: &mut Self::State) {
        *st = Self::prepare(input);
    }
    fn run<S: sys::Sys>(c: &mut S::Ctx<'_>, input: &Self::Input, st: &mut Self::State)
    -> Self::Out;
    fn checksum(input: &Self::Input, st: &Self::State, out: Self::Out) -> Option<u64>;
    fn oracle(input: &Self::Input) -> u64;
}

/// A kernel without per-run state whose run returns its checksum (fib, nqueens, stress, tsp,
/// uts): it names only its input, its run and its oracle; [`Kernel`]'s other parts follow.
pub trait Stateless {
    const NAME: &'static str;
    type Input: Sync;

    fn generate(size: Size) -> Self::Input;
    fn run<S: sys::Sys>(c: &mut S::Ctx<'_>, input: &Self::Input) -> u64;
    fn oracle(input: &Self::Input) -> u64;
}

impl<K: Stateless> Kernel for K {
    const NAME: &'static str = <K as Stateless>::NAME;
    type Input = <K as Stateless>::Input;
    type State = ();
    type Out = u64;

    fn generate(size: Size) -> Self::Input {
        <K as Stateless>::generate(size)
    }
    fn prepare(_: &Self::Input) {}
    fn reset(_: &Self::Input, _: &mut ()) {}
    fn run<S: sys::Sys>(c: &mut S::Ctx<'_>, input: &Self::Input, _: &mut ()) -> u64 {
        <K as Stateless>::run::<S>(c, input)
    }
    fn checksum(_: &Self::Input, _: &(), out: u64) -> Option<u64> {
        Some(out)
    }
    fn oracle(input: &Self::Input) -> u64 {
        <K as Stateless>::oracle(input)
    }
}
