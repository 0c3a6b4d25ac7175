//! Shared by the loom models: run a model under a preemption bound and report how many executions
//! loom explored (verify/run.sh collects the `loom-iterations:` lines for verify/README.md).

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

/// Explores every execution of `body` with at most `preemptions` preemptions per execution, then
/// prints the number of executions.  A failing execution panics inside loom (the test fails, or
/// passes when it is marked `should_panic`).
pub fn explore<F>(name: &str, preemptions: usize, body: F)
where
    F: Fn() + Sync + Send + 'static,
{
    let iterations = Arc::new(AtomicUsize::new(0));
    let counter = iterations.clone();
    let mut builder = loom::model::Builder::new();
    builder.preemption_bound = Some(preemptions);
    builder.check(move || {
        counter.fetch_add(1, Ordering::Relaxed);
        body();
    });
    let line = format!("{}: {} executions (preemption bound {})", name, iterations.load(Ordering::Relaxed), preemptions);
    println!("loom-iterations: {}", line);
    // verify/run.sh collects these lines into its report.
    if let Ok(path) = std::env::var("WEFT_LOOM_REPORT") {
        use std::io::Write;
        if let Ok(mut f) = std::fs::OpenOptions::new().create(true).append(true).open(path) {
            let _ = writeln!(f, "{}", line);
        }
    }
}
