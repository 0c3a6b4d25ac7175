// bench/common/system.hpp: the system adapter, so that every kernel's algorithm is written once
// (bench/<kernel>/<kernel>.hpp, a template over the system S) and every system provably runs it.
//
// The build compiles each bench/<kernel>/<kernel>.cpp once per binary with one of
// BENCH_SYSTEM_SERIAL / _WEFT / _TBB / _OMP defined; `bench::active_system` is then that
// binary's adapter.  An adapter is a struct of static functions (the model: bench/rust's `Sys`
// trait, bench/rust/src/sys.rs):
//
//   S::run_tasks(f)         enters the timed region of a kernel that forks (joins, loops nested
//                           in recursion) and returns f()  (weft: pool.run; OpenMP: parallel +
//                           single; serial, tbb: a plain call, tbb already runs inside its arena)
//   S::run_loops(f)         enters the timed region of a kernel made of flat loops (S::flat_for)
//                           (weft: pool.run; OpenMP: a plain call, each flat loop its own
//                           `parallel for`; serial, tbb: a plain call)
//   S::join(f, g)           both closures, potentially in parallel; f's effects come first in the
//                           serial elision.  Returns std::pair of the results (a void branch gives
//                           an empty placeholder).  tbb and OpenMP need default-constructible
//                           results.
//   S::parallel_for(lo, hi, body)                    body(i) for i in [lo, hi)
//   S::parallel_reduce(lo, hi, init, map, combine)   combine(init, map(lo) ... map(hi-1)):
//                           combine associative, init its identity (tbb and rayon start every
//                           split from it)
//   S::flat_for(lo, hi, body)  a loop at the top of a run_loops region: the loop that the papers'
//                           OpenMP codes write as `omp for` (KERNELS.md: mm, ssf, spmv rows, floyd,
//                           bfs frontier); every other system treats it as parallel_for.
//   S::allocator<T>         the allocator of a kernel's temporaries (bench/common/temp.hpp): weft's
//                           weft::allocator (weft::malloc, counted in heap_peak_bytes), elsewhere
//                           std::allocator.
//
// No grain, no cutoff anywhere: how a loop is split is each system's own idiom (weft: its policy;
// tbb: the auto partitioner; OpenMP: see system_omp.hpp; serial: not at all).
#pragma once

#include <type_traits>
#include <utility>

#if defined(BENCH_SYSTEM_SERIAL)
#include "system_serial.hpp"
namespace bench { using active_system = serial_system; }
#elif defined(BENCH_SYSTEM_WEFT)
#include "system_weft.hpp"
namespace bench { using active_system = weft_system; }
#elif defined(BENCH_SYSTEM_TBB)
#include "system_tbb.hpp"
namespace bench { using active_system = tbb_system; }
#elif defined(BENCH_SYSTEM_RECORD)
#include "system_record.hpp"
namespace bench { using active_system = record_system; }
#elif defined(BENCH_SYSTEM_OMP)
#include "system_omp.hpp"
namespace bench { using active_system = omp_system; }
#else
#error "define one of BENCH_SYSTEM_SERIAL, BENCH_SYSTEM_RECORD, BENCH_SYSTEM_WEFT, BENCH_SYSTEM_TBB, BENCH_SYSTEM_OMP"
#endif
