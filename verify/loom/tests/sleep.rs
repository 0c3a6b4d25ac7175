//! loom model of the sleep/wake handshake (src/idle.cpp: runtime::sleep, work_visible, wake_one;
//! src/pool_runtime.hpp: notify_work) under the C++ memory model.
//!
//! The publisher (a worker promoting work): the store that makes the work stealable (Wool's
//! publish: state.store(TASK | public, release); the deque's push: bottom.store(release)), then
//! notify_work: fence(seq_cst); sleepers.load(relaxed); if non-zero, wake_one:
//! wake_epoch.fetch_add(1, release) + notify_one.
//! The sleeper (runtime::sleep): e = wake_epoch.load(acquire); sleepers.fetch_add(1, seq_cst);
//! work_visible(): the deques' has_stealable loads, all relaxed (sched_wool.cpp has_stealable:
//! bot and state relaxed; sched_deque.cpp: the deque's size(), relaxed); if none, wait while
//! wake_epoch == e (a futex: it returns at once if the epoch moved since e).
//!
//! The property (no lost wake-up): it must not happen that the sleeper saw no work AND the
//! publisher saw no sleeper (so nobody bumps the epoch after e): the sleeper would then sleep with
//! the published task in view of nobody.  Checked at the end: if the sleeper decided to wait, the
//! epoch must have moved past e.
//!
//! The C++ before the fix (`SleeperFence::None`): the publisher's fence is sequenced after its
//! store and before its load of `sleepers`, but on the sleeper's side nothing orders the seq_cst
//! RMW before the relaxed loads of the deques.  Under [atomics.order] (C++20): if the publisher's load of
//! `sleepers` reads the value before the sleeper's RMW A, its fence X precedes A in S (rule: a
//! seq_cst fence X sequenced before a read B, B coherence-ordered before a seq_cst A => X precedes
//! A).  Nothing then forces the sleeper's relaxed load R of the work to see the publisher's store
//! W: the rules that would need R to be seq_cst, or a seq_cst fence between A and R.  So both can
//! read the old values: a lost wake-up.  x86 never shows it (the locked RMW is a full barrier);
//! AArch64 can (LDADDAL orders a later load only after the RMW's read, not its write).
//!
//! loom weakens seq_cst *accesses* to acq_rel (tokio-rs/loom#180) but models seq_cst fences; the
//! fetch_add's seq_cst adds nothing here in C++ either (the argument above never uses it), so the
//! model is faithful.  The fix (`SleeperFence::SeqCst`): a fence(seq_cst) right after the
//! fetch_add.  With fences X (publisher) and Y (sleeper) in S: if X precedes Y, the sleeper's load
//! after Y reads W or later (W sequenced before X); if Y precedes X, the publisher's load after X
//! reads the sleeper's increment or later (A sequenced before Y).  One side always sees the other.

mod common;

use loom::sync::atomic::{fence, AtomicUsize};
use loom::sync::Arc;
use loom::thread;
use std::sync::atomic::Ordering::{Acquire, Relaxed, Release, SeqCst};

#[derive(Clone, Copy, PartialEq)]
enum SleeperFence {
    /// The C++ before issue 8's fix (PROTOCOLS.md F1): fetch_add(seq_cst), then relaxed loads.
    None,
    /// The fix, applied (src/idle.cpp): fence(seq_cst) after the fetch_add.
    SeqCst,
}

#[derive(Clone, Copy, PartialEq)]
enum PublisherFence {
    /// notify_work as it is: fence(seq_cst) between the store of the work and the load.
    SeqCst,
    /// Broken on purpose: no fence.
    None,
}

fn run(name: &str, sleeper_fence: SleeperFence, publisher_fence: PublisherFence) {
    common::explore(name, 5, move || {
        let work = Arc::new(AtomicUsize::new(0)); // the victim's stealable word (bot / state)
        let sleepers = Arc::new(AtomicUsize::new(0));
        let epoch = Arc::new(AtomicUsize::new(0));

        let publisher = {
            let (work, sleepers, epoch) = (work.clone(), sleepers.clone(), epoch.clone());
            thread::spawn(move || {
                work.store(1, Release); // publish / push
                if publisher_fence == PublisherFence::SeqCst {
                    fence(SeqCst); // notify_work
                }
                if sleepers.load(Relaxed) != 0 {
                    epoch.fetch_add(1, Release); // wake_one
                }
            })
        };

        // runtime::sleep
        let e = epoch.load(Acquire);
        sleepers.fetch_add(1, SeqCst);
        if sleeper_fence == SleeperFence::SeqCst {
            fence(SeqCst);
        }
        let sees_work = work.load(Relaxed) != 0; // work_visible -> has_stealable
        publisher.join().unwrap();
        if !sees_work {
            // futex wait(epoch, e): sleeps for ever unless the epoch moved after e was read
            assert!(epoch.load(Relaxed) != e, "lost wake-up: the sleeper waits with work published and no wake coming");
        }
    });
}

#[test]
fn with_sleeper_fence() {
    run("sleep::with_sleeper_fence", SleeperFence::SeqCst, PublisherFence::SeqCst);
}

/// Expected to fail: the C++ as it was before issue 8's fix (then src/runtime.cpp): the sleeper's
/// seq_cst fetch_add followed by relaxed loads of the deques can miss promoted work under the C++
/// model.
#[test]
#[should_panic(expected = "lost wake-up")]
fn cpp_today_loses_a_wake_up() {
    run("sleep::cpp_today_loses_a_wake_up", SleeperFence::None, PublisherFence::SeqCst);
}

/// Expected to fail: notify_work without its fence.
#[test]
#[should_panic(expected = "lost wake-up")]
fn broken_no_publisher_fence_is_caught() {
    run("sleep::broken_no_publisher_fence_is_caught", SleeperFence::SeqCst, PublisherFence::None);
}

/// Two idle workers and one publication: some worker must stay awake (or be woken) while the task
/// is published.  notify_one wakes one futex waiter; a waiter whose epoch moved does not sleep.
#[test]
fn two_sleepers_with_sleeper_fence() {
    common::explore("sleep::two_sleepers_with_sleeper_fence", 3, || {
        let work = Arc::new(AtomicUsize::new(0));
        let sleepers = Arc::new(AtomicUsize::new(0));
        let epoch = Arc::new(AtomicUsize::new(0));
        let sleep = |work: &AtomicUsize, sleepers: &AtomicUsize, epoch: &AtomicUsize| {
            let e = epoch.load(Acquire);
            sleepers.fetch_add(1, SeqCst);
            fence(SeqCst);
            (work.load(Relaxed) != 0, e)
        };
        let publisher = {
            let (work, sleepers, epoch) = (work.clone(), sleepers.clone(), epoch.clone());
            thread::spawn(move || {
                work.store(1, Release);
                fence(SeqCst);
                if sleepers.load(Relaxed) != 0 {
                    epoch.fetch_add(1, Release);
                }
            })
        };
        let other = {
            let (work, sleepers, epoch) = (work.clone(), sleepers.clone(), epoch.clone());
            thread::spawn(move || sleep(&work, &sleepers, &epoch))
        };
        let (sees1, e1) = sleep(&work, &sleepers, &epoch);
        let (sees2, e2) = other.join().unwrap();
        publisher.join().unwrap();
        let now = epoch.load(Relaxed);
        let asleep = |sees: bool, e: usize| !sees && now == e;
        assert!(!(asleep(sees1, e1) && asleep(sees2, e2)), "lost wake-up: every idle worker sleeps with work published");
    });
}

/// The searcher rule (issue 9 item 2; PROTOCOLS.md §4, "Skipping the wake because a worker
/// searches"): notify_work wakes nobody while a worker counts as searching (`searching_`, read
/// relaxed after the publisher's fence), because that worker, to sleep, first stops searching
/// (`searching_.fetch_sub(1, seq_cst)`), then announces itself and passes its fence, and only then
/// checks for work.  The C++ argument uses the two fences only: the publisher's fence X is
/// sequenced before its load of `searching`; if that load reads the value before the decrement D,
/// it is coherence-ordered before D, and D is sequenced before the sleeper's fence Y, so X precedes
/// Y in S ([atomics.order]: fence X happens before A, A coherence-ordered before B, B happens before
/// fence Y); the publisher's store W of the work is sequenced before X, so the sleeper's relaxed
/// load after Y cannot read a value older than W (else Y would precede X).  loom models that rule;
/// the seq_cst of the RMW adds nothing here, as for `sleepers`.  The worker starts counted as
/// searching (worker_main's begin_search).
fn run_searcher(name: &str, decrement_before_check: bool) {
    common::explore(name, 5, move || {
        let work = Arc::new(AtomicUsize::new(0));
        let searching = Arc::new(AtomicUsize::new(1)); // this worker, looking
        let sleepers = Arc::new(AtomicUsize::new(0));
        let epoch = Arc::new(AtomicUsize::new(0));

        let publisher = {
            let (work, searching, sleepers, epoch) = (work.clone(), searching.clone(), sleepers.clone(), epoch.clone());
            thread::spawn(move || {
                work.store(1, Release); // publish / push
                fence(SeqCst); // notify_work
                if searching.load(Relaxed) != 0 {
                    return; // a searcher will see it before it may sleep
                }
                if sleepers.load(Relaxed) != 0 {
                    epoch.fetch_add(1, Release); // wake_one
                }
            })
        };

        // runtime::sleep, entered by a searching worker
        let e = epoch.load(Acquire);
        if decrement_before_check {
            searching.fetch_sub(1, SeqCst);
        }
        sleepers.fetch_add(1, SeqCst);
        fence(SeqCst);
        let sees_work = work.load(Relaxed) != 0; // work_visible
        if !decrement_before_check {
            searching.fetch_sub(1, SeqCst); // broken: still counted as searching while it checked
        }
        publisher.join().unwrap();
        if !sees_work {
            assert!(epoch.load(Relaxed) != e, "lost wake-up: the publisher skipped its wake for a searcher that then slept");
        }
    });
}

#[test]
fn searcher_stops_searching_before_it_checks() {
    run_searcher("sleep::searcher_stops_searching_before_it_checks", true);
}

/// Expected to fail: a sleeper that stops counting as searching only after its check.
#[test]
#[should_panic(expected = "lost wake-up")]
fn broken_searching_until_checked_is_caught() {
    run_searcher("sleep::broken_searching_until_checked_is_caught", false);
}
