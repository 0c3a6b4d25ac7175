//! The command-line protocol of bench/KERNELS.md:
//!
//! ```text
//! BIN --kernel K|list --size test|quick|full --workers P [--variant V] [--reps R]
//! ```
//!
//! `--kernel list --variant V` lists the kernels that accept V (KERNELS.md's listing of
//! variants; here none but stress, for a well-formed steal-cost:L:R).
//!
//! Generates the input (untimed), runs the kernel once untimed as warm-up (not for `--size
//! full`), runs it R times timed (default 1; `Instant` around the kernel call: entering the pool
//! and the kernel), verifies every repetition's checksum against the oracle and prints one JSON
//! line per repetition (with `"rep": 0 .. R-1` when R > 1). Exit codes:
//! 0 ok, 2 bad arguments (message on stderr), 3 wrong checksum. `--policy` is weft's only:
//! given to rayon or chili it is a bad argument. Variants (KERNELS.md, "Variants"): `stress
//! --variant steal-cost:L:R`; any other non-empty variant is exit 2.

use std::fmt::Write as _;
use std::io::Write as _;
use std::time::Instant;

use crate::kernels::{NAMES, stress};
use crate::sys::{STACK_SIZE, Sys};
use crate::{Kernel, Size};

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Args {
    pub kernel: String,
    pub size: Size,
    pub workers: usize,
    pub variant: String,
    pub shape: Shape,
    /// Timed repetitions after one input generation and warm-up.
    pub reps: usize,
}

/// What `--variant` selects.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shape {
    /// The kernel as tabled in KERNELS.md (`--variant` absent or empty).
    Default,
    /// `stress --variant steal-cost:L:R`.
    StealCost { leaf: u64, reps: u64 },
}

/// What a command line asks for.
#[derive(Debug, PartialEq, Eq)]
pub enum Command {
    Help,
    /// `--kernel list [--variant V]`: the kernel names; with V only those that have V.
    List(String),
    Run(Args),
}

pub const USAGE: &str = "--kernel K|list --size test|quick|full --workers P [--variant V] \
     [--reps R]  (no --policy: weft only)";

fn parse_positive(s: &str) -> Option<u64> {
    if s.is_empty() || !s.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    s.parse::<u64>().ok().filter(|&v| v >= 1)
}

fn parse_shape(kernel: &str, variant: &str) -> Result<Shape, String> {
    if variant.is_empty() {
        return Ok(Shape::Default);
    }
    if kernel == "stress"
        && let Some(rest) = variant.strip_prefix("steal-cost:")
    {
        let bad =
            || format!("bad variant '{variant}': steal-cost:L:R needs two integers L, R >= 1");
        let (l, r) = rest.split_once(':').ok_or_else(bad)?;
        let leaf = parse_positive(l).ok_or_else(bad)?;
        let reps = parse_positive(r).ok_or_else(bad)?;
        return Ok(Shape::StealCost { leaf, reps });
    }
    Err(format!(
        "kernel {kernel} has no variant '{variant}' (it has only the default variant)"
    ))
}

pub fn parse(argv: &[String]) -> Result<Command, String> {
    let (mut kernel, mut size, mut workers, mut variant, mut reps) =
        (None, None, None, None, None);
    let mut it = argv.iter();
    while let Some(arg) = it.next() {
        if arg == "--help" || arg == "-h" {
            return Ok(Command::Help);
        }
        let (key, inline) = match arg.split_once('=') {
            Some((k, v)) if k.starts_with("--") => (k, Some(v.to_string())),
            _ => (arg.as_str(), None),
        };
        let slot = match key {
            "--kernel" => &mut kernel,
            "--size" => &mut size,
            "--workers" => &mut workers,
            "--variant" => &mut variant,
            "--reps" => &mut reps,
            "--policy" => return Err("--policy is only for the weft system".into()),
            _ => return Err(format!("unknown argument '{arg}'")),
        };
        let value = match inline {
            Some(v) => v,
            None => it
                .next()
                .ok_or_else(|| format!("{key} needs a value"))?
                .clone(),
        };
        if slot.replace(value).is_some() {
            return Err(format!("{key} given twice"));
        }
    }
    let kernel = kernel.ok_or("--kernel is required")?;
    if kernel == "list" {
        return Ok(Command::List(variant.unwrap_or_default()));
    }
    let size = size.ok_or("--size is required")?;
    let workers = workers.ok_or("--workers is required")?;
    if !NAMES.contains(&kernel.as_str()) {
        let mut known = NAMES.to_vec();
        known.sort_unstable();
        return Err(format!(
            "unknown kernel '{kernel}' (known: {})",
            known.join(", ")
        ));
    }
    let size = Size::parse(&size)
        .ok_or_else(|| format!("--size must be test, quick or full (got '{size}')"))?;
    let workers = match parse_positive(&workers) {
        Some(p) if p <= 4096 => p as usize,
        _ => {
            return Err(format!(
                "--workers must be an integer from 1 to 4096 (got '{workers}')"
            ));
        }
    };
    let reps = match reps.as_deref().map(parse_positive) {
        None => 1,
        Some(Some(r)) if r <= 10000 => r as usize,
        Some(_) => {
            return Err(format!(
                "--reps must be an integer from 1 to 10000 (got '{}')",
                reps.unwrap_or_default()
            ));
        }
    };
    let variant = variant.unwrap_or_default();
    let shape = parse_shape(&kernel, &variant)?;
    Ok(Command::Run(Args {
        kernel,
        size,
        workers,
        variant,
        shape,
        reps,
    }))
}

/// The outcome of one benchmark process: every timed repetition.
#[derive(Debug, Clone)]
pub struct Report {
    /// Seconds of each timed repetition, in order (at least one).
    pub times_s: Vec<f64>,
    /// The first repetition's checksum that differs from the oracle, else the last one's;
    /// None: the output was invalid (e.g. not sorted).
    pub checksum: Option<u64>,
    pub expected: u64,
    /// Extra members of the JSON line, each starting with a comma.
    pub extra: String,
}

impl Report {
    pub fn ok(&self) -> bool {
        self.checksum == Some(self.expected)
    }

    /// A report whose checksum is the first of `sums` that differs from `expected`, if any.
    fn of_reps(times_s: Vec<f64>, sums: &[Option<u64>], expected: u64, extra: String) -> Report {
        let checksum = sums
            .iter()
            .copied()
            .find(|&c| c != Some(expected))
            .unwrap_or(sums[sums.len() - 1]);
        Report {
            times_s,
            checksum,
            expected,
            extra,
        }
    }
}

/// Generate, warm up (unless full), run timed once, verify.
pub fn bench<K: Kernel, S: Sys>(size: Size, workers: usize) -> Report {
    bench_reps::<K, S>(size, workers, 1)
}

/// Generate, warm up (unless full), run timed `reps` times, verify each repetition against one
/// oracle.
pub fn bench_reps<K: Kernel, S: Sys>(size: Size, workers: usize, reps: usize) -> Report {
    let input = K::generate(size);
    let pool = S::pool(workers);
    let mut st = K::prepare(&input);
    if size != Size::Full {
        K::reset(&input, &mut st);
        let out = S::exec(&pool, |c| K::run::<S>(c, &input, &mut st));
        std::hint::black_box(K::checksum(&input, &st, out));
    }
    let (mut times_s, mut sums) = (Vec::with_capacity(reps), Vec::with_capacity(reps));
    for _ in 0..reps.max(1) {
        K::reset(&input, &mut st);
        let t0 = Instant::now();
        let out = S::exec(&pool, |c| K::run::<S>(c, &input, &mut st));
        times_s.push(t0.elapsed().as_secs_f64());
        sums.push(K::checksum(&input, &st, out));
    }
    drop(pool);
    Report::of_reps(times_s, &sums, K::oracle(&input), String::new())
}

/// ceil(log2(p)) for p >= 1.
pub fn ceil_log2(p: usize) -> u32 {
    usize::BITS - (p - 1).leading_zeros()
}

/// `stress --variant steal-cost:L:R` (KERNELS.md, "Variants"): R trees of height
/// ceil(log2(P)), one after the other, in one timed region; leaf l of tree r runs the stress
/// leaf loop L times from r * 2^h + l. Then, outside the pool, R serial leaf loops (from
/// x = r) timed together: `leaf_time_s`.
pub fn steal_cost<S: Sys>(
    size: Size,
    workers: usize,
    leaf: u64,
    reps: u64,
    timed_reps: usize,
) -> Report {
    let h = ceil_log2(workers);
    let pool = S::pool(workers);
    fn trees<S: Sys>(c: &mut S::Ctx<'_>, h: u32, leaf: u64, reps: u64) -> u64 {
        let mut s = 0u64;
        for r in 0..reps {
            s = s.wrapping_add(stress::tree::<S>(c, h, r, leaf));
        }
        s
    }
    if size != Size::Full {
        std::hint::black_box(S::exec(&pool, |c| trees::<S>(c, h, leaf, reps)));
    }
    let (mut times_s, mut sums) = (Vec::new(), Vec::new());
    for _ in 0..timed_reps.max(1) {
        let t0 = Instant::now();
        sums.push(Some(S::exec(&pool, |c| trees::<S>(c, h, leaf, reps))));
        times_s.push(t0.elapsed().as_secs_f64());
    }
    drop(pool);

    let t0 = Instant::now();
    let mut sink = 0u64;
    for r in 0..reps {
        sink = sink.wrapping_add(stress::leaf_work(std::hint::black_box(r), leaf));
    }
    let leaf_time_s = t0.elapsed().as_secs_f64();
    std::hint::black_box(sink);

    let mut expected = 0u64;
    for x in 0..reps << h {
        expected = expected.wrapping_add(stress::leaf_work(x, leaf));
    }
    let extra = format!(
        ",\"leaf_time_s\":{},\"reps\":{reps},\"leaf_iterations\":{leaf},\"height\":{h}",
        fmt_seconds(leaf_time_s)
    );
    Report::of_reps(times_s, &sums, expected, extra)
}

fn json_escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for ch in s.chars() {
        match ch {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out
}

/// Seconds with 9 significant digits (like the C++ side's `%.9g`), always a JSON number.
fn fmt_seconds(t: f64) -> String {
    if t == 0.0 {
        return "0".into();
    }
    let digits = 8 - t.abs().log10().floor() as i32;
    if (0..=17).contains(&digits) {
        let s = format!("{t:.*}", digits as usize);
        if s.contains('.') {
            s.trim_end_matches('0').trim_end_matches('.').to_string()
        } else {
            s
        }
    } else {
        format!("{t:.8e}")
    }
}

/// The JSON line of repetition `rep` of `r` (`"rep"` only when more than one was asked for).
pub fn json_line(system: &str, a: &Args, r: &Report, rep: usize) -> String {
    let checksum = match r.checksum {
        Some(v) => v.to_string(),
        None => "invalid".to_string(),
    };
    format!(
        concat!(
            "{{\"kernel\":\"{}\",\"system\":\"{}\",\"policy\":\"\",\"workers\":{},",
            "\"size\":\"{}\",\"variant\":\"{}\",\"time_s\":{},\"checksum\":\"{}\",\"ok\":{}{}{}}}"
        ),
        json_escape(&a.kernel),
        system,
        a.workers,
        a.size.name(),
        json_escape(&a.variant),
        fmt_seconds(r.times_s[rep]),
        checksum,
        r.ok(),
        if a.reps > 1 {
            format!(",\"rep\":{rep}")
        } else {
            String::new()
        },
        r.extra
    )
}

/// Runs what `a` asks for (on the calling thread).
pub fn execute<S: Sys>(a: &Args) -> Report {
    match a.shape {
        Shape::StealCost { leaf, reps } => {
            steal_cost::<S>(a.size, a.workers, leaf, reps, a.reps)
        }
        Shape::Default => crate::with_kernel!(
            a.kernel.as_str(),
            bench_reps::<S>(a.size, a.workers, a.reps)
        )
        .expect("kernel name checked by parse"),
    }
}

/// The whole program; returns the exit code.
pub fn main<S: Sys>() -> i32 {
    let argv: Vec<String> = std::env::args().skip(1).collect();
    let bin = format!("weft-bench-{}", S::NAME);
    let args = match parse(&argv) {
        Ok(Command::Help) => {
            println!("usage: {bin} {USAGE}");
            return 0;
        }
        Ok(Command::List(variant)) => {
            // no kernel here has a variant a listing names (stress's steal-cost:L:R has
            // parameters), so `--variant V` lists only those that accept V as given
            let mut names: Vec<&str> = NAMES
                .iter()
                .copied()
                .filter(|k| parse_shape(k, &variant).is_ok())
                .collect();
            names.sort_unstable();
            let mut out = std::io::stdout().lock();
            for n in names {
                let _ = writeln!(out, "{n}");
            }
            return 0;
        }
        Ok(Command::Run(a)) => a,
        Err(msg) => {
            eprintln!("{bin}: {msg}");
            eprintln!("usage: {bin} {USAGE}");
            return 2;
        }
    };
    // chili's threads get std's default stack size, which RUST_MIN_STACK sets; it is read
    // once, at the first spawn, so set it before any thread exists.
    // SAFETY: no other thread exists yet.
    unsafe { std::env::set_var("RUST_MIN_STACK", STACK_SIZE.to_string()) };
    // Run on a thread with a large stack: chili's scope runs on the calling thread.
    let a = args.clone();
    let report = std::thread::Builder::new()
        .name("weft-bench".into())
        .stack_size(STACK_SIZE)
        .spawn(move || execute::<S>(&a))
        .expect("cannot start the benchmark thread")
        .join()
        .expect("the benchmark panicked");
    {
        let mut out = std::io::stdout().lock();
        for rep in 0..report.times_s.len() {
            let _ = writeln!(out, "{}", json_line(S::NAME, &args, &report, rep));
        }
        let _ = out.flush();
    }
    if !report.ok() {
        let got = report
            .checksum
            .map_or("invalid (not sorted)".to_string(), |v| v.to_string());
        eprintln!(
            "{bin}: kernel {}: wrong checksum {got} (expected {})",
            args.kernel, report.expected
        );
        return 3;
    }
    0
}
