// weft — a runtime for fine-grained nested parallelism.  The whole public API (SPEC §2):
//
//   weft::pool p;  p.run(f);  p.size();  p.stats();  p.reset_stats();  weft::pool::global()
//   auto [a, b] = weft::join(f, g);
//   weft::parallel_for(lo, hi, body [, weft::grain{n}]);
//   T t = weft::parallel_reduce(lo, hi, init, map, combine [, weft::grain{n}]);
//   weft::parallel_for(range, body [, weft::grain{n}]);            // any random-access range
//   T t = weft::parallel_reduce(range, init, map, combine [, weft::grain{n}]);
//   auto [a, b, c] = weft::parallel_invoke(f, g, h);                // any number of branches
//   weft::scope s; s.spawn(f); s.sync();
//   auto t = weft::spawn(f); ...; auto r = t.sync();                  // one typed task
//   weft::malloc / weft::free / weft::allocator<T>
//   weft::config, weft::policy, weft::parse_policy, weft::to_string, weft::counters, weft::stats
//   p.config();  p.write_trace();  p.work_span();  weft::region("name", f)      // Seeing inside
#pragma once

#include "config.hpp"
#include "detail/join.hpp"
#include "invoke.hpp"
#include "loops.hpp"
#include "memory.hpp"
#include "pool.hpp"
#include "scope.hpp"
#include "spawn.hpp"
#include "work_span.hpp"
