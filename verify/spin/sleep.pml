/* weft — Spin model of the sleep/wake handshake (src/idle.cpp: runtime::sleep, work_visible,
 * wake_one; src/pool_runtime.hpp: notify_work; the pool's destructor for the final wake).
 *
 * Worker 0 publishes one task (a promotion: the deque's bottom or Wool's tagged state word, here
 * the flag `visible`), calls notify_work, and then stays busy until a thief has taken the task
 * (its first branch runs long): the published work must reach an idle worker.  Workers 1 and 2
 * are idle: they look for work, and when they find none they sleep:
 *     e = wake_epoch; sleepers++ (seq_cst RMW); [fence]; if (!work_visible) futex_wait(epoch, e);
 *     sleepers--
 * notify_work: [store of the work]; fence(seq_cst); if (sleepers != 0) { epoch++; wake one }.
 * The futex is modelled as the kernel does it: the wait compares and sleeps in one step, a wake
 * releases one sleeper (notify_one) or all (notify_all, the destructor's).
 *
 * Weak memory, as interleavings: a store that is not yet visible to others, or a load that reads
 * an old value, is modelled by letting the two accesses of a Dekker pair take effect in the
 * other order where the orders used allow it:
 *   - publisher: its store of the work may become visible after its load of `sleepers` unless the
 *     seq_cst fence sits between them (a store buffer, TSO and weaker);
 *   - sleeper: its relaxed loads of the deques may read values older than its seq_cst RMW of
 *     `sleepers` unless a seq_cst fence (or seq_cst loads) follows the RMW.  This is the C++
 *     model (and AArch64: LDADDAL does not order a later plain LDR before its store is seen);
 *     x86's locked RMW is a full fence, so x86 never shows it.
 *
 * Properties: no lost wake-up = no invalid end state (worker 0 waits for the theft, so a task that
 * stays published while every idle worker sleeps is a dead end), and the task runs once.
 *
 * Variants:
 *   (none)               the orders with the fix of issue 8: fence after the sleeper's RMW  (pass)
 *   -DSLEEPER_CPP_TODAY  the sleeper as the C++ had it before the fix: no fence after the
 *                        seq_cst fetch_add, relaxed deque loads                    (must fail)
 *   -DNO_PUBLISH_FENCE   notify_work without its fence                             (must fail)
 *   -DNO_EPOCH           the sleeper reads the epoch after its check, not before   (must fail)
 */

#define NI 2            /* idle workers 1..NI */

bit visible;            /* the published task, as seen by others */
bit taken;              /* a thief took it */
byte runs;
byte sleepers;
byte epoch;
bit asleep[NI + 1];     /* in the futex */
bit stopping;

/* notify_one: the epoch bump and the futex wake of one sleeper, if any. */
inline wake_one() {
  atomic {
    epoch++;
    if
    :: asleep[1] -> asleep[1] = 0
    :: asleep[2] -> asleep[2] = 0
    :: else -> skip
    fi
  }
}

proctype publisher() {
  byte seen;
  /* promote: the store that makes the task visible, and notify_work's load of `sleepers` */
#ifdef NO_PUBLISH_FENCE
  if
  :: visible = 1; seen = sleepers
  :: seen = sleepers; visible = 1      /* the store still in the store buffer */
  fi;
#else
  visible = 1;
  seen = sleepers;                     /* after fence(seq_cst) */
#endif
  if
  :: seen != 0 -> wake_one()
  :: else -> skip
  fi;
  (taken);                             /* busy in the first branch until the task is stolen */
  /* the pool's destructor: stopping, epoch++, notify_all */
  atomic { stopping = 1; epoch++; asleep[1] = 0; asleep[2] = 0 }
}

proctype idle_worker(byte me) {
  byte e;
  bit work;
  do
  :: stopping -> break
  :: else ->
     /* find_work: one steal attempt */
     atomic {
       if
       :: visible && !taken -> taken = 1; runs++; assert(runs == 1)
       :: else -> skip
       fi
     };
     /* sleep(): (the spin before it only delays) */
#ifndef NO_EPOCH
     e = epoch;
#endif
#ifdef SLEEPER_CPP_TODAY
     if
     :: sleepers++; work = (visible && !taken) || stopping
     :: work = (visible && !taken) || stopping; sleepers++    /* the loads read old values */
     fi;
#else
     sleepers++;
     work = (visible && !taken) || stopping;                   /* after fence(seq_cst) */
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
     d_step { e = 0; work = 0 }
  od
}

init {
  atomic {
    run publisher();
    run idle_worker(1);
    run idle_worker(2)
  }
}
