// weft — per-worker trace buffers, and writing them as Chrome/Perfetto trace-event JSON (SPEC §6).
// The format: https://docs.google.com/document/d/1CvAClvFfyA5R-PhYUmn5OOQtYMH4h6I0nSsKchNAySU —
// "X" (complete) events for the activities, "i" (instant) events, "M" metadata naming the lanes,
// and "otherData" for what the pool knows about the run (policy, workers, dropped events).
#include "trace.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <vector>
#include <cerrno>
#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <stdexcept>

#include "weft/detail/platform.hpp"
#include "weft/detail/slow_path.hpp"

namespace weft::detail {

const char* activity_name(activity a) noexcept {
  switch (a) {
    case activity::startup: return "startup";
    case activity::work: return "work";
    case activity::leapfrog_work: return "leapfrog-work";
    case activity::stealing: return "stealing";
    case activity::leapfrogging: return "leapfrogging";
    case activity::idle: return "idle";
    case activity::shutdown: return "shutdown";
  }
  return "?";
}

trace_buffer::trace_buffer(std::size_t capacity)
    : events_(std::make_unique_for_overwrite<trace_event[]>(capacity)), capacity_(capacity) {
  stack_.reserve(16);
}

void trace_buffer::enter(activity a) noexcept {
  try {
    stack_.push_back(a);
  } catch (...) {  // out of memory for the activity stack: the lane shows the outer activity
    return;
  }
  record(trace_kind::enter, 0, 0, a, true);
}

void trace_buffer::leave() noexcept {
  if (!stack_.empty()) stack_.pop_back();
  record(trace_kind::enter, 0, 0, current(), true);
}

void trace_buffer::replace(activity a) noexcept {
  if (stack_.empty())
    stack_.push_back(a);  // reserved in the constructor: cannot throw
  else
    stack_.back() = a;
  record(trace_kind::enter, 0, 0, a, true);
}

bool trace_buffer::instant(trace_kind k, std::uint32_t a, std::uint16_t b) noexcept {
  return record(k, a, b, current(), false);
}

void trace_buffer::close_promotions(std::uint64_t promotions_now) noexcept {
  promotions_cut_.store(promotions_now, std::memory_order_relaxed);
  promotions_closed_.store(true, std::memory_order_relaxed);
}

void trace_buffer::rebase_promotions(std::uint64_t promotions_now) noexcept {
  if (!promotions_closed()) return;
  promotions_dropped_.store(dropped_promotions(promotions_now), std::memory_order_relaxed);
  promotions_cut_.store(0, std::memory_order_relaxed);
}

std::uint64_t trace_buffer::dropped_promotions(std::uint64_t promotions_now) const noexcept {
  const std::uint64_t base = promotions_dropped_.load(std::memory_order_relaxed);
  if (!promotions_closed()) return base;
  const std::uint64_t cut = promotions_cut_.load(std::memory_order_relaxed);
  return base + (promotions_now > cut ? promotions_now - cut : 0);
}

// Instants stop at 7/8 of the capacity, so that the activity changes, which make up the lanes, keep
// being recorded; the last slot is kept for the `full` event.
bool trace_buffer::record(trace_kind k, std::uint32_t a, std::uint16_t b, activity act, bool essential) noexcept {
  const std::size_t n = size_private_;
  const std::size_t limit = essential ? capacity_ - 1 : capacity_ - capacity_ / 8;
  if (n >= limit) {
    if (n == capacity_ - 1) {
      events_[n] = trace_event{cycle_count(), 0, 0, trace_kind::full, act};
      size_private_ = n + 1;
      size_.store(n + 1, std::memory_order_release);
    }
    dropped_.store(dropped_.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
    return false;
  }
  events_[n] = trace_event{cycle_count(), a, b, k, act};
  size_private_ = n + 1;
  size_.store(n + 1, std::memory_order_release);  // publishes events_[n] to a concurrent reader (write_trace)
  return true;
}

trace_clock trace_clock::now() { return trace_clock{cycle_count(), now_ns()}; }

namespace {

// Ticks to microseconds since the start, by the line through the two (tick, ns) pairs.
struct tick_converter {
  std::uint64_t tick0;
  double ns_per_tick;
  double us(std::uint64_t tick) const noexcept {
    // On the whole-ns grid, so that the printed start plus duration of one activity is exactly the
    // printed start of the next.
    return tick <= tick0 ? 0.0 : double(std::llround(double(tick - tick0) * ns_per_tick)) / 1000.0;
  }
};

const char* promotion_name(std::uint16_t kind) noexcept {
  switch (promotion_kind(kind)) {
    case promotion_kind::join: return "join";
    case promotion_kind::loop_half: return "loop-half";
    case promotion_kind::loop_whole: return "loop-whole";
  }
  return "?";
}

class json_out {
 public:
  explicit json_out(std::FILE* f) : f_(f) {}
  // Starts the next element of traceEvents.
  void event(const char* fmt, ...) __attribute__((format(printf, 2, 3))) {
    std::fputs(first_ ? "\n" : ",\n", f_);
    first_ = false;
    va_list ap;
    va_start(ap, fmt);
    std::vfprintf(f_, fmt, ap);
    va_end(ap);
  }

 private:
  std::FILE* f_;
  bool first_ = true;
};

struct stolen_from {  // a steal, mirrored on the victim's lane
  double us;
  unsigned thief;
  bool leapfrog;
};

// One lane: its activities as complete events, then its instants, each in time order.
// `n`: the lane's events in the cut (write_trace_file), all recorded before `end_us`.
void write_lane(json_out& out, unsigned tid, const trace_buffer& b, std::size_t n, const tick_converter& cv,
                double end_us, std::vector<std::vector<stolen_from>>& victims) {
  const trace_event* ev = b.events();
  bool open = false;
  activity cur = activity::startup;
  double since = 0;
  auto close = [&](double at) {
    if (open && at >= since)
      out.event(R"({"name":"%s","cat":"%s","ph":"X","pid":1,"tid":%u,"ts":%.3f,"dur":%.3f})", activity_name(cur),
                activity_name(cur), tid, since, at - since);
    open = false;
  };
  // A lane's events are in the order its worker recorded them, but the cycle counters of two CPUs
  // may disagree a little (a VM's especially), and a worker that migrated between two events can
  // read a smaller count for the later one: times are clamped to never go backwards within a lane,
  // so an activity is never dropped or reordered for it.  For the same reason they are clamped to
  // the end time: every event of the cut was published before it was taken.
  std::vector<double> at(n);
  for (std::size_t i = 0; i < n; ++i) at[i] = std::min(std::max(cv.us(ev[i].tick), i ? at[i - 1] : 0.0), end_us);
  for (std::size_t i = 0; i < n; ++i) {
    const double t = at[i];
    if (ev[i].kind == trace_kind::enter) {
      close(t);
      open = true;
      cur = ev[i].act;
      since = t;
    } else if (ev[i].kind == trace_kind::end || ev[i].kind == trace_kind::full) {
      close(t);
    }
  }
  close(end_us);
  for (std::size_t i = 0; i < n; ++i) {
    const trace_event& e = ev[i];
    const double t = at[i];
    switch (e.kind) {
      case trace_kind::promotion:
        out.event(R"({"name":"promotion","cat":"promotion","ph":"i","s":"t","pid":1,"tid":%u,"ts":%.3f,"args":{"slot":%u,"kind":"%s"}})",
                  tid, t, e.a, promotion_name(e.b));
        break;
      case trace_kind::steal:
        if (e.a == no_victim) {
          out.event(R"({"name":"steal","cat":"steal","ph":"i","s":"t","pid":1,"tid":%u,"ts":%.3f,"args":{"thief":%u,"victim":null,"leapfrog":false}})",
                    tid, t, tid);
          break;
        }
        out.event(R"({"name":"steal","cat":"steal","ph":"i","s":"t","pid":1,"tid":%u,"ts":%.3f,"args":{"thief":%u,"victim":%u,"leapfrog":%s}})",
                  tid, t, tid, e.a, e.b ? "true" : "false");
        if (e.a < victims.size()) victims[e.a].push_back(stolen_from{t, tid, e.b != 0});
        break;
      case trace_kind::heartbeat_delivered:
        out.event(R"({"name":"heartbeat","cat":"heartbeat","ph":"i","s":"t","pid":1,"tid":%u,"ts":%.3f})", tid, t);
        break;
      case trace_kind::heartbeat_sent:
        out.event(R"({"name":"beat-sent","cat":"heartbeat","ph":"i","s":"t","pid":1,"tid":%u,"ts":%.3f,"args":{"workers":%u}})",
                  tid, t, e.a);
        break;
      case trace_kind::full:
        out.event(R"({"name":"trace-full","cat":"trace","ph":"i","s":"t","pid":1,"tid":%u,"ts":%.3f})", tid, t);
        break;
      case trace_kind::enter:
      case trace_kind::end:
        break;
    }
  }
}

}  // namespace

namespace {
std::mutex trace_files_mutex;
}  // namespace

void lock_trace_files() noexcept { trace_files_mutex.lock(); }
void unlock_trace_files() noexcept { trace_files_mutex.unlock(); }

int trace_file_unwritable(const std::string& path) {
  // Under the writes' lock: a pool writing this path meanwhile (pools sharing WEFT_TRACE) could
  // otherwise have its fresh file removed by the unlink below.
  const std::lock_guard one_at_a_time(trace_files_mutex);
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
  if (fd >= 0) {
    ::close(fd);
    ::unlink(path.c_str());
    return 0;
  }
  if (errno != EEXIST) return errno;
  // There already (or a symbolic link): opened as fopen("w") would, less the truncation.
  // O_NONBLOCK: a FIFO with no reader answers ENXIO at once instead of waiting for one (its
  // write, at the end, waits as any writer's would).  ENOENT here is a dangling link (fopen makes
  // its target) or a file removed meanwhile: nothing says the write will fail.
  fd = ::open(path.c_str(), O_WRONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd >= 0) {
    ::close(fd);
    return 0;
  }
  return errno == ENXIO || errno == ENOENT ? 0 : errno;
}

std::uint64_t write_trace_file(const std::string& path, const std::vector<trace_lane>& lanes, const trace_clock& start,
                               const std::string& meta) {
  const std::lock_guard one_at_a_time(trace_files_mutex);  // trace.hpp, lock_trace_files
  // One cut of every lane, then the end time: a worker that records while the file is written (a
  // snapshot of a running pool, or of one whose workers are going to sleep after a run) adds nothing
  // to it.  Read lane by lane as the writing reached them, after the end time, a snapshot's lanes
  // ran past its duration_us and its dropped_events (summed first) differed from dropped_per_lane
  // (read last) (stop 54's trace hunt).  The acquire loads of the sizes come before the clock read
  // in program order; a cycle counter read early or skewed across CPUs is covered by write_lane's
  // clamp to the end time.
  struct lane_cut {
    std::size_t events;
    std::uint64_t dropped;
  };
  std::vector<lane_cut> cut;
  cut.reserve(lanes.size());
  for (const trace_lane& l : lanes) cut.push_back(lane_cut{l.buffer->published(), l.buffer->dropped() + l.dropped_promotions});
  const trace_clock end = trace_clock::now();
  const double ns_per_tick =
      end.tick0 > start.tick0 ? double(end.ns0 - start.ns0) / double(end.tick0 - start.tick0) : 1.0;
  const tick_converter cv{start.tick0, ns_per_tick};
  const double end_us = cv.us(end.tick0);

  std::FILE* f = std::fopen(path.c_str(), "w");
  if (f == nullptr)
    throw std::runtime_error("weft: cannot write the trace file \"" + path + "\" (trace_path / WEFT_TRACE): " +
                             std::strerror(errno));
  std::fputs(R"({"displayTimeUnit":"ns","traceEvents":[)", f);
  json_out out(f);
  std::uint64_t dropped = 0;
  for (unsigned tid = 0; tid < lanes.size(); ++tid) {
    dropped += cut[tid].dropped;
    out.event(R"({"name":"thread_name","ph":"M","pid":1,"tid":%u,"args":{"name":"%s"}})", tid, lanes[tid].name.c_str());
    out.event(R"({"name":"thread_sort_index","ph":"M","pid":1,"tid":%u,"args":{"sort_index":%u}})", tid, tid);
  }
  std::vector<std::vector<stolen_from>> victims(lanes.size());
  for (unsigned tid = 0; tid < lanes.size(); ++tid) write_lane(out, tid, *lanes[tid].buffer, cut[tid].events, cv, end_us, victims);
  // A victim's stolen-from instants come from every thief's lane, one thief after the other: in
  // time order on the victim's lane, as every other instant of a lane (with three workers or more
  // they went back in time where a second thief's list began: stop 43's bug hunt).
  for (auto& list : victims)
    std::stable_sort(list.begin(), list.end(), [](const stolen_from& a, const stolen_from& b) { return a.us < b.us; });
  for (unsigned v = 0; v < victims.size(); ++v)
    for (const stolen_from& s : victims[v])
      out.event(R"({"name":"stolen-from","cat":"steal","ph":"i","s":"t","pid":1,"tid":%u,"ts":%.3f,"args":{"thief":%u,"victim":%u,"leapfrog":%s}})",
                v, s.us, s.thief, v, s.leapfrog ? "true" : "false");
  std::fprintf(f, "\n],\"otherData\":{%s,\"dropped_events\":%llu,\"dropped_per_lane\":[", meta.c_str(),
               (unsigned long long)dropped);
  for (unsigned tid = 0; tid < lanes.size(); ++tid)
    std::fprintf(f, "%s%llu", tid ? "," : "", (unsigned long long)cut[tid].dropped);
  std::fprintf(f, "],\"events_per_lane_capacity\":%zu,\"duration_us\":%.3f}}\n",
               lanes.empty() ? std::size_t(0) : lanes[0].buffer->capacity(), end_us);
  const bool ok = std::ferror(f) == 0;
  if (std::fclose(f) != 0 || !ok)
    throw std::runtime_error("weft: writing the trace file \"" + path + "\" failed (trace_path / WEFT_TRACE)");
  return dropped;
}

}  // namespace weft::detail
