/* weft — Spin model of the sleep/wake handshake (src/idle.cpp: runtime::sleep, work_visible,
 * wake_one, end_idle, begin_search; src/pool_runtime.hpp: notify_work; the pool's destructor for
 * the final wake), with the rules that wake nobody needlessly (issue 9 item 2, PROTOCOLS.md §4):
 * a publisher wakes nobody while a worker searches (`searching_`) or a woken one has not run yet
 * (`wake_pending_`), and the last searcher to leave for work wakes a sleeper in its place.
 *
 * Workers 0 and 1 each publish one task on their own deque (a promotion: the deque's bottom or
 * Wool's tagged state word, here `avail[k]`), call notify_work, and then stay busy until both
 * tasks are taken (their first branches run long): the published work must reach the idle
 * workers.  Workers 2 and 3 start idle and searching (worker_main's begin_search); each looks at
 * one victim at a time (find_work's random choice, either deque, full or not), and when it finds
 * nothing it sleeps:
 *     e = wake_epoch; wake_pending = false; stop searching (searching--); sleepers++ (seq_cst RMW);
 *     [fence]; if (!work_visible) futex_wait(epoch, e); sleepers--; searching++; wake_pending = false
 * A worker that takes a task stops searching (end_idle: searching--, and if that was the last
 * searcher and sleepers != 0, wake_one) and runs it — here it stays busy until both tasks are
 * taken, so that a task skipped because it searched must reach a sleeper — then searches again.
 * notify_work: [store of the work]; fence(seq_cst); if (searching == 0 && sleepers != 0) wake_one.
 * wake_one: if (wake_pending.exchange(true)) done; else epoch++, wake one.
 * The futex is modelled as the kernel does it: the wait compares and sleeps in one step, a wake
 * releases one sleeper (notify_one) or all (notify_all, the destructor's).  Not modelled: a lent
 * slot's pass-on of a wake (take_back_slot), root jobs (the same pair with a seq_cst load), the
 * thief's "more left" wake chain (each deque holds one task here), the steal backoff (a searcher
 * that waits, then looks again).
 *
 * Weak memory, as interleavings: a store that is not yet visible to others, or a load that reads
 * an old value, is modelled by letting the two accesses of a Dekker pair take effect in the
 * other order where the orders used allow it:
 *   - publisher: its store of the work may become visible after its loads of `searching` and
 *     `sleepers` unless the seq_cst fence sits between them (a store buffer, TSO and weaker);
 *   - sleeper: its relaxed loads of the deques may read values older than its seq_cst RMWs of
 *     `searching` and `sleepers` unless a seq_cst fence (or seq_cst loads) follows them.  This is
 *     the C++ model (and AArch64: LDADDAL does not order a later plain LDR before its store is
 *     seen); x86's locked RMW is a full fence, so x86 never shows it.
 * With both fences every access of the handshake is in the single total order S (the relaxed loads
 * of `searching` and `sleepers` after the publisher's fence, and of the deques after the sleeper's,
 * through the fences: PROTOCOLS.md §4), so the rest is sequentially consistent steps.
 *
 * Properties: no lost wake-up = no invalid end state (the publishers wait for the thefts, so a task
 * that stays published while every idle worker sleeps is a dead end), and each task runs once.
 *
 * Variants:
 *   (none)                    the orders and rules of the C++                        (pass)
 *   -DSLEEPER_CPP_TODAY       the sleeper as the C++ had it before issue 8's fix: no fence after
 *                             the seq_cst RMWs, relaxed deque loads                   (must fail)
 *   -DNO_PUBLISH_FENCE        notify_work without its fence                           (must fail)
 *   -DNO_EPOCH                the sleeper reads the epoch after its check, not before (must fail)
 *   -DNO_LAST_SEARCHER_WAKE   end_idle without its wake                               (must fail)
 *   -DSEARCHING_UNTIL_CHECKED the sleeper stops searching after its check, not before (must fail)
 *   -DNO_PENDING_CLEAR_AT_SLEEP  the sleeper does not clear wake_pending before it
 *                             announces itself (only when it leaves sleep)            (must fail)
 */

#define NT 2            /* tasks = publishing workers 0..NT-1 */

bit avail[NT];          /* the published tasks, as seen by others */
byte taken;
byte runs;
byte sleepers;
byte searching = 2;     /* workers 2 and 3 start searching */
bit wake_pending;
byte epoch;
bit asleep[4];          /* in the futex (workers 2 and 3) */
bit stopping;

/* wake_one: the exchange of wake_pending; then the epoch bump and the futex wake of one sleeper. */
inline wake_one() {
  atomic { was = wake_pending; wake_pending = 1 };
  if
  :: !was ->
     atomic {
       epoch++;
       if
       :: asleep[2] -> asleep[2] = 0
       :: asleep[3] -> asleep[3] = 0
       :: else -> skip
       fi
     }
  :: else -> skip
  fi
}

/* notify_work's decision, after its fence: nobody searches, somebody sleeps. */
inline publish_and_notify(k) {
#ifdef NO_PUBLISH_FENCE
  if
  :: avail[k] = 1; d_step { seen_searching = searching; seen_sleepers = sleepers }
  :: d_step { seen_searching = searching; seen_sleepers = sleepers }; avail[k] = 1   /* still in the store buffer */
  fi;
#else
  avail[k] = 1;
  seen_searching = searching;          /* after fence(seq_cst) */
  seen_sleepers = sleepers;
#endif
  if
  :: seen_searching == 0 && seen_sleepers != 0 -> wake_one()
  :: else -> skip
  fi
}

proctype publisher(byte k) {
  bit was;
  byte seen_searching, seen_sleepers;
  publish_and_notify(k);
  (taken == NT)                        /* busy in the first branch until both tasks are stolen */
}

proctype idle_worker(byte me) {
  byte e, v;
  bit work, got, was, last;
  do
  :: taken == NT -> break              /* nothing left to find: the rest is the destructor's wake */
  :: else ->
     /* find_work: one steal attempt on a victim chosen at random */
     if
     :: v = 0
     :: v = 1
     fi;
     atomic {
       if
       :: avail[v] -> avail[v] = 0; taken++; runs++; assert(runs <= NT); got = 1
       :: else -> got = 0
       fi
     };
     if
     :: got ->
        /* end_idle: no longer searching; the last searcher to leave wakes a sleeper */
        atomic { searching--; last = (searching == 0) };

#ifndef NO_LAST_SEARCHER_WAKE
        if
        :: last && sleepers != 0 -> wake_one()
        :: else -> skip
        fi;
#endif
        (taken == NT);                 /* runs the task: long, until the other one is taken too */
        break                          /* back in the idle loop with nothing left to find */
     :: else ->
        /* sleep() (the spin before it only delays) */
#ifndef NO_EPOCH
        e = epoch;
#endif
#ifndef NO_PENDING_CLEAR_AT_SLEEP
        wake_pending = 0;
#endif
#ifndef SEARCHING_UNTIL_CHECKED
        searching--;
#endif
#ifdef SLEEPER_CPP_TODAY
        if
        :: sleepers++; work = avail[0] || avail[1] || stopping
        :: work = avail[0] || avail[1] || stopping; sleepers++    /* the loads read old values */
        fi;
#else
        sleepers++;
        work = avail[0] || avail[1] || stopping;                  /* after fence(seq_cst) */
#endif
#ifdef SEARCHING_UNTIL_CHECKED
        searching--;
#endif
#ifdef NO_EPOCH
        e = epoch;
#endif
        if
        :: !work ->
           atomic {
             if
             :: epoch == e -> asleep[me] = 1
             :: else -> skip
             fi
           };
           (asleep[me] == 0)
        :: else -> skip
        fi;
        sleepers--;
        searching++;                   /* begin_search, then the flag cleared after it */
        wake_pending = 0;
        d_step { e = 0; work = 0 }
     fi;
     d_step { v = 0; got = 0; last = 0; was = 0 }
  od
}

init {
  atomic {
    run publisher(0);
    run publisher(1);
    run idle_worker(2);
    run idle_worker(3)
  }
  /* the pool's destructor, once both tasks are taken: stopping, epoch++, notify_all */
  (taken == NT);
  atomic { stopping = 1; epoch++; asleep[2] = 0; asleep[3] = 0 }
}
