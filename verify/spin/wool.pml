/* weft — Spin model of Wool's state-word protocol as src/sched_wool.cpp implements it.
 *
 * What is modelled (names are the C++ ones):
 *   - the per-slot state word: TASK (untagged, a private slot), TASK|public_tag, EMPTY,
 *     STOLEN(i), DONE (include/weft/detail/frame.hpp, task_state); every task has the same
 *     wrapper, so two TASK words are always equal: the worst case for ABA;
 *   - push_frame (join.hpp) and the slow path on_poll: publish, grow (the trip wire's
 *     notification), update_public_next;
 *   - the owner's join: the private join (no synchronisation, `promoted` false) and reclaim
 *     (exchange, the EMPTY spin, maybe_privatize, wait_stolen, the `bot` store);
 *   - steal: bot load, state load, CAS to EMPTY, the `bot` re-check and the restore, STOLEN,
 *     the `bot` store, the trip wire; the thief writes the result, then DONE (execute_stolen);
 *   - wait_stolen's transitive leapfrogging along `blocked_on`.
 * Spin interleaves statements sequentially consistently; the weak-memory side of the same code
 * is the loom model (verify/loom/tests/wool.rs).
 *
 * The program: worker 0 runs the root, which joins tasks 1..5 in the order
 *   spawn 1; spawn 2; join 2; spawn 3; join 3; join 1; spawn 4; spawn 5; join 5; join 4
 * so slots 0 and 1 are reused (the ABA a late thief meets); task 1 spawns task 6 (so its thief
 * has a stack to leapfrog onto).  Workers 1 and 2 steal from anyone until the root is done.
 * Window: one public slot at start, grow by one per notification, and the owner may privatize
 * after any public inline (the C++ waits for 64 in a row: any count is covered).
 *
 * Properties (assertions; a deadlock is an invalid end state):
 *   P1 every task runs exactly once (run count checked at each run and at the end);
 *   P2 the owner reads a stolen task's result only after DONE;
 *   P3 WOOL's `bot` invariant: a thief takes slot t only when every slot below t is STOLEN or
 *      DONE (the oldest live public task is the one stolen);
 *   P4 no process blocks for ever (Spin's valid end states).  Idle thieves retry for ever, so a
 *      stuck owner would be a livelock, not a dead end: P4 is checked with -DBOUNDED=n, where
 *      each thief gives up after n steal attempts (a subset of the behaviours; the owner must
 *      still finish alone).
 *
 * Deliberately broken variants (each must be caught):
 *   -DNO_BOT_RECHECK   the thief skips the re-check of `bot` after its CAS   (P3 fails)
 *   -DTAG_BESIDE       the public mark is the slot's flag beside the word (`promoted`, which
 *                      the owner's private join does not synchronise on) instead of the tag
 *                      in the word: thieves CAS an untagged TASK when the flag says public
 *                                                                            (P1 fails)
 *   -DNO_RESTORE       after a failed `bot` re-check the thief leaves EMPTY in the slot
 *                      instead of restoring the task: the owner spins for ever (P4 fails,
 *                      with -DBOUNDED)
 */

#define NW 3            /* workers: 0 runs the root, 1 and 2 steal */
#define NS 3            /* slots per worker */
#define NT 7            /* tasks 1..6 (0 is the root) */
#define NONE 255
#ifdef LEAPFROG
#define HAS_CHILD 1
#else
#define HAS_CHILD 0
#endif

#define EMPTY 1
#define DONE 3
#define TASKU 8          /* TASK(w), untagged: a private slot */
#define TASKP 12         /* TASK(w) | public_tag */
#define STOLEN(i) (2 + 4 * (i))
#define is_task(s) ((s) == TASKU || (s) == TASKP)
#define is_stolen(s) (((s) & 3) == 2)
#define thief_of(s) ((s) >> 2)
#define SL(w, k) ((w) * NS + (k))

byte state[NW * NS];     /* the state words */
byte payload[NW * NS];   /* ghost: the task that lives in the slot (the frame's closure) */
byte bot[NW];            /* shared with thieves */
bit notify[NW];          /* the `notify` poll bit, set by thieves */
byte trip[NW];
byte blocked_on[NW];     /* NONE = -1 */

/* owner-private (worker w touches only index w) */
byte top[NW];
byte pub[NW];
bit promoted[NW * NS];  /* the C++'s frame_mark::public_slot (frame::marks), once frame::promoted */
bit public_next[NW];

/* ghosts */
byte runs[NT];
bit result[NT];
bit finished;

inline set_trip(w) {
  trip[w] = (pub[w] > 2 -> pub[w] - 2 : 0)
}

inline update_public_next(w) {
  public_next[w] = (top[w] < pub[w])
}

/* Tag a task in a public slot (publish). */
inline publish(w, k) {
  if
#ifdef TAG_BESIDE
  :: true -> skip     /* the flag (promoted) is the mark */
#else
  :: state[SL(w, k)] == TASKU -> state[SL(w, k)] = TASKP
  :: else -> skip
#endif
  fi
}

/* grow: one more public slot per notification, publishing a live private task in it. */
inline grow(w) {
  if
  :: pub[w] < NS ->
     promoted[SL(w, pub[w])] = 1;
     if
     :: pub[w] < top[w] -> publish(w, pub[w])
     :: else -> skip
     fi;
     pub[w]++;
     set_trip(w)
  :: else -> skip
  fi
}

inline on_poll(w, k) {
  if
  :: notify[w] -> notify[w] = 0; grow(w)
  :: else -> skip
  fi;
  if
  :: promoted[SL(w, k)] -> publish(w, k)
  :: else -> skip
  fi;
  update_public_next(w)
}

/* join_branches + push_frame: the poll is read before the push, on_poll runs after it. */
inline spawn(w, task, k, slow) {
  /* The poll, the plain stores of the closure and the untagged TASK word (no thief acts on an
   * untagged word in the correct protocol, so one step), and the new top. */
  atomic {
    slow = (notify[w] || public_next[w]);
    k = top[w];
    assert(k < NS);
    payload[SL(w, k)] = task;
    state[SL(w, k)] = TASKU;
    top[w] = k + 1
  };
  if
  :: slow -> slow = 0; on_poll(w, k)
  :: else -> skip
  fi
}

inline run_task(task) {
  d_step {
    runs[task]++;
    assert(runs[task] == 1)    /* P1 */
  }
}

/* WOOL §III.B privatization, nondeterministic in the count (sched_wool.cpp maybe_privatize): the
 * top public slot becomes private, whether it is the joined slot k (the owner holds its task) or
 * lies above it, above the owner's top: a dead slot (issue 9 item 2's case; until stop 57 the model
 * privatized only the joined slot). */
inline maybe_privatize(w, k) {
  if
  :: (k + 1 <= pub[w] && pub[w] > 1) ->
     promoted[SL(w, pub[w] - 1)] = 0; pub[w]--; set_trip(w)
  :: true -> skip
  fi
}

/* One steal attempt by th on v (sched_wool.cpp steal).  got = the task taken, or NONE. */
inline try_steal(th, v, t, s, got) {
  got = NONE;
  t = bot[v];
  if
  :: t < NS ->
     s = state[SL(v, t)];
#ifdef TAG_BESIDE
     if
     :: is_task(s) && promoted[SL(v, t)] -> skip
     :: else -> s = 0
     fi;
#endif
     if
#ifdef TAG_BESIDE
     :: s != 0 ->
#else
     :: s == TASKP ->
#endif
        atomic {
          if
          :: state[SL(v, t)] == s -> state[SL(v, t)] = EMPTY; got = payload[SL(v, t)]
          :: else -> skip
          fi
        }
#ifndef NO_BOT_RECHECK
        if
        :: got != NONE && bot[v] != t ->
#ifndef NO_RESTORE
           state[SL(v, t)] = s;
#endif
           got = NONE
        :: else -> skip
        fi;
#endif
        if
        :: got != NONE ->
           /* P3: every slot below t holds a stolen task */
           d_step {
             s = 0;
             do
             :: s < t -> assert(is_stolen(state[SL(v, s)]) || state[SL(v, s)] == DONE); s++
             :: else -> break
             od;
             s = 0
           }
           state[SL(v, t)] = STOLEN(th);
           bot[v] = t + 1;
           if
           :: t >= trip[v] -> notify[v] = 1
           :: else -> skip
           fi
        :: else -> skip
        fi
     :: else -> skip
     fi
  :: else -> skip
  fi
}

/* The thief's side of execute_stolen: the result before DONE. */
inline finish_stolen(v, t, task) {
  result[task] = 1;
  state[SL(v, t)] = DONE
}

/* reclaim's first part: the exchange and the EMPTY spin.  Leaves the final word in s. */
inline take_slot(w, k, s) {
  atomic { s = state[SL(w, k)]; state[SL(w, k)] = EMPTY };
  do
  :: s == EMPTY ->
     (state[SL(w, k)] != EMPTY);
     s = state[SL(w, k)];
     if
     :: is_task(s) -> atomic { s = state[SL(w, k)]; state[SL(w, k)] = EMPTY }
     :: else -> skip
     fi
  :: else -> break
  od
}

/* A leaf job: run it.  A job with a child at this depth is outside the model: flag it. */
inline exec_leaf(task) {
  assert(task != 1 || !HAS_CHILD);
  run_task(task)
}

/* wait_stolen with transitive leapfrogging; stolen work runs as a leaf (LEAF = 1) or through
 * exec_level1 (LEAF = 0: only the root's join does that). */
inline wait_stolen_leaf(w, k, task, thief, v, hops, t2, s2, got2, ok, x) {
  blocked_on[w] = thief;
  do
  :: state[SL(w, k)] == DONE -> break
  :: else ->
     v = thief; hops = 0; got2 = NONE;
     do
     :: (v != NONE && v != w && hops < NW && got2 == NONE) ->
        try_steal(w, v, t2, s2, got2);
        if
        :: got2 == NONE -> v = blocked_on[v]; hops++
        :: else -> skip
        fi
     :: else -> break
     od;
     if
     :: got2 != NONE ->
        exec_leaf(got2);
        finish_stolen(v, t2, got2)
     :: else -> skip
     fi;
     d_step { got2 = NONE; v = 0; hops = 0; t2 = 0; s2 = 0; ok = 0 }
  od;
  blocked_on[w] = NONE
}

/* The join of the frame in slot k holding `task` (join_pushed / join_promoted / reclaim), at the
 * depth where stolen work runs as a leaf. */
inline join_leaf(w, k, task, s, v, hops, t2, s2, got2, ok, x) {
  top[w] = k;
  if
  :: promoted[SL(w, k)] ->
     take_slot(w, k, s);
     if
     :: is_task(s) -> maybe_privatize(w, k); update_public_next(w); exec_leaf(task)
     :: else ->
        if
        :: s != DONE ->
           assert(is_stolen(s));
           top[w] = k + 1;
           wait_stolen_leaf(w, k, task, thief_of(s), v, hops, t2, s2, got2, ok, x);
           top[w] = k
        :: else -> skip
        fi;
        bot[w] = k;
        update_public_next(w);
        assert(result[task])      /* P2 */
     fi
  :: else -> exec_leaf(task)      /* the private join: a plain pop */
  fi
}

/* A job run at depth 1 (stolen by a thief's idle loop, or leapfrogged by the root's join): task
 * 1 spawns task 6 and joins it; the others are leaves. */
inline exec_level1(w, task, k, slow, s, v, hops, t2, s2, got2, ok, x) {
  if
  :: task == 1 && HAS_CHILD ->
     spawn(w, 6, k, slow);
     run_task(task);
     join_leaf(w, k, 6, s, v, hops, t2, s2, got2, ok, x)
  :: else -> run_task(task)
  fi
}

/* The root's join of slot k (depth 0): leapfrogged work runs at depth 1. */
inline join_root(k, task) {
  top[0] = k;
  if
  :: promoted[SL(0, k)] ->
     take_slot(0, k, s0);
     if
     :: is_task(s0) -> maybe_privatize(0, k); update_public_next(0); exec_level1(0, task, k1, slow1, s1, v1, h1, t2, s2, g2, ok, x)
     :: else ->
        if
        :: s0 != DONE ->
           assert(is_stolen(s0));
           top[0] = k + 1;
           blocked_on[0] = thief_of(s0);
           do
           :: state[SL(0, k)] == DONE -> break
           :: else ->
              v0 = thief_of(s0); h0 = 0; g0 = NONE;
              do
              :: (v0 != NONE && v0 != 0 && h0 < NW && g0 == NONE) ->
                 try_steal(0, v0, t0, s00, g0);
                 if
                 :: g0 == NONE -> v0 = blocked_on[v0]; h0++
                 :: else -> skip
                 fi
              :: else -> break
              od;
              if
              :: g0 != NONE ->
                 exec_level1(0, g0, k1, slow1, s1, v1, h1, t2, s2, g2, ok, x);
                 finish_stolen(v0, t0, g0)
              :: else -> skip
              fi;
              d_step { g0 = NONE; v0 = 0; h0 = 0; t0 = 0; s00 = 0; k1 = 0; s1 = 0; v1 = 0; h1 = 0; t2 = 0; s2 = 0; ok = 0; x = 0 }
           od;
           blocked_on[0] = NONE;
           top[0] = k
        :: else -> skip
        fi;
        bot[0] = k;
        update_public_next(0);
        assert(result[task])      /* P2 */
     fi
  :: else -> exec_level1(0, task, k1, slow1, s1, v1, h1, t2, s2, g2, ok, x)
  fi
}

proctype root_worker() {
  byte ka, kb, slow, s0, v0, h0, t0, s00, g0;
  byte k1, slow1, s1, v1, h1, t2, s2, g2, ok, x;
#ifdef LEAPFROG
  spawn(0, 1, ka, slow);
  spawn(0, 2, kb, slow);
  join_root(kb, 2);
  join_root(ka, 1);
  runs[3] = 1; runs[4] = 1; runs[5] = 1;   /* not in this program */
#else
  spawn(0, 1, ka, slow);
  spawn(0, 2, kb, slow);
  join_root(kb, 2);
  spawn(0, 3, kb, slow);
  join_root(kb, 3);
  join_root(ka, 1);
  spawn(0, 4, ka, slow);
  spawn(0, 5, kb, slow);
  join_root(kb, 5);
  join_root(ka, 4);
  runs[6] = 1;                             /* task 1 is a leaf in this program */
#endif
  d_step {
    x = 1;
    do
    :: x < NT -> assert(runs[x] == 1); x++    /* P1: every task ran */
    :: else -> break
    od
  }
  finished = 1
}

proctype thief(byte me) {
  byte v, t, s, got;
  byte k1, slow1, s1, v1, h1, t2, s2, g2, ok, x;
#ifdef BOUNDED
  byte budget = BOUNDED;
#endif
  do
  :: finished -> break
#ifdef BOUNDED
  :: !finished && budget == 0 -> break
  :: !finished && budget > 0 -> budget--;
#else
  :: else ->
#endif
     if
     :: me != 0 -> v = 0
     :: me != 1 -> v = 1
     :: me != 2 -> v = 2
     fi;
     if
     :: v != me ->
        try_steal(me, v, t, s, got);
        if
        :: got != NONE ->
           exec_level1(me, got, k1, slow1, s1, v1, h1, t2, s2, g2, ok, x);
           finish_stolen(v, t, got);
           d_step { got = NONE; k1 = 0; s1 = 0; v1 = 0; h1 = 0; t2 = 0; s2 = 0; ok = 0; x = 0 }
        :: else -> skip
        fi;
        d_step { t = 0; s = 0; v = 0 }
     :: else -> skip
     fi
  od
}

init {
  byte i = 0;
  atomic {
    do
    :: i < NW * NS -> state[i] = EMPTY; i++
    :: else -> break
    od;
    i = 0;
    do
    :: i < NW ->
       pub[i] = 1; promoted[SL(i, 0)] = 1; set_trip(i); public_next[i] = 1;
       bot[i] = 0; blocked_on[i] = NONE; i++
    :: else -> break
    od;
    run root_worker();
    run thief(1);
    run thief(2)
  }
}
