// bench/stream: this binary's system instantiates the kernel (bench/common/system.hpp).
#include "../common/system.hpp"
#include "stream.hpp"

BENCH_KERNEL("stream", bench::stream::run<bench::active_system>,
             bench::has_schedule_variant<bench::active_system>);
