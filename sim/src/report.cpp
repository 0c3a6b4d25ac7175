#include "report.hpp"

#include <cstdio>

namespace weft_sim {
namespace {

// The length of the well-formed UTF-8 sequence at s[i] (Unicode Table 3-7: no overlong forms,
// surrogates or code points past U+10FFFF), 0 if none starts there.
std::size_t utf8_length(const std::string& s, std::size_t i) {
  const auto at = [&](std::size_t k) { return static_cast<unsigned char>(s[k]); };
  const unsigned char b = at(i);
  std::size_t n = 0;
  unsigned char lo = 0x80, hi = 0xBF;  // the second byte's range
  if (b >= 0xC2 && b <= 0xDF) {
    n = 2;
  } else if (b >= 0xE0 && b <= 0xEF) {
    n = 3;
    if (b == 0xE0) lo = 0xA0;  // overlong below U+0800
    if (b == 0xED) hi = 0x9F;  // surrogates
  } else if (b >= 0xF0 && b <= 0xF4) {
    n = 4;
    if (b == 0xF0) lo = 0x90;  // overlong below U+10000
    if (b == 0xF4) hi = 0x8F;  // past U+10FFFF
  } else {
    return 0;
  }
  if (i + n > s.size() || at(i + 1) < lo || at(i + 1) > hi) return 0;
  for (std::size_t k = 2; k < n; ++k)
    if (at(i + k) < 0x80 || at(i + k) > 0xBF) return 0;
  return n;
}

// A JSON string: RFC 8259 §7's escapes, and UTF-8 (§8.1): a byte that starts no well-formed
// sequence (a DAG file's path in Latin-1) is written as U+FFFD, not copied into the file.
std::string quoted(const std::string& s) {
  std::string out = "\"";
  for (std::size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    if (static_cast<unsigned char>(c) >= 0x80) {
      const std::size_t n = utf8_length(s, i);
      if (n == 0) {
        out += "\\ufffd";
      } else {
        out.append(s, i, n);
        i += n - 1;
      }
    } else if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (static_cast<unsigned char>(c) < 0x20) {  // control characters: \u00XX (RFC 8259 §7)
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", unsigned(static_cast<unsigned char>(c)));
      out += buf;
    } else {
      out += c;
    }
  }
  return out + "\"";
}

std::string num(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}

}  // namespace

std::string to_json(const RunRecord& r) {
  const RunResult& x = r.result;
  std::string s = "{";
  auto field = [&](const char* k, const std::string& v) {
    if (s.size() > 1) s += ", ";
    s += quoted(k) + ": " + v;
  };
  field("dag", quoted(r.dag));
  field("policy", quoted(r.policy));
  field("P", num(r.workers));
  field("seed", std::to_string(r.seed));  // exact: a double holds 53 bits
  std::string costs = "{";
  for (const auto& [k, v] : cost_values(r.costs))
    costs += (costs.size() > 1 ? ", " : "") + quoted(k) + ": " + num(double(v));
  field("costs", costs + "}");
  field("dag_work", num(r.dag_totals.work));
  field("dag_span", num(r.dag_totals.span));
  field("dag_span_tau", num(r.dag_span_tau));
  field("dag_serial_memory", num(r.dag_totals.serial_peak));
  field("dag_instances", num(r.dag_totals.instances));
  field("makespan", num(double(x.makespan)));
  field("speedup", num(x.makespan ? r.dag_totals.work / double(x.makespan) : 0));
  field("work", num(x.raw_work + x.overhead));
  field("raw_work", num(x.raw_work));
  field("overhead", num(x.overhead));
  field("steal_time", num(x.steal_time));
  field("idle", num(x.idle));
  field("descheduled", num(x.descheduled));
  field("exec_span", num(x.exec_span));
  field("instances", num(double(x.instances)));
  field("joins", num(double(x.joins)));
  field("loops", num(double(x.loops)));
  field("iterations", num(double(x.iterations)));
  field("polls", num(double(x.polls)));
  field("promotions", num(double(x.promotions)));
  field("thefts", num(double(x.thefts)));
  field("steal_attempts", num(double(x.steal_attempts)));
  field("leapfrogs", num(double(x.leapfrogs)));
  field("leapfrogs_from_thief", num(double(x.leapfrogs_from_thief)));
  field("pops", num(double(x.pops)));
  field("detached", num(double(x.detached)));
  field("beats", num(double(x.beats)));
  field("steal_backoffs", num(double(x.steal_backoffs)));
  field("idle_thefts_done", num(double(x.idle_thefts_done)));
  field("idle_theft_time", num(x.idle_theft_time));
  field("trip_wires", num(double(x.trip_wires)));
  field("loop_splits", num(double(x.loop_splits)));
  field("memory_peak", num(double(x.memory_peak)));
  field("live_items_peak", num(double(x.live_items_peak)));
  field("max_stack", num(double(x.max_stack)));
  return s + "}";
}

std::string table_header() {
  return "policy       P     makespan   speedup  promotions      thefts   leapfrogs        idle  mem_peak";
}

std::string table_row(const RunRecord& r) {
  const RunResult& x = r.result;
  char buf[256];
  std::snprintf(buf, sizeof buf, "%-10s %4u %12llu %9.2f %11llu %11llu %11llu %11.3g %9llu",
                r.policy.c_str(), r.workers, (unsigned long long)x.makespan,
                x.makespan ? r.dag_totals.work / double(x.makespan) : 0.0,
                (unsigned long long)x.promotions, (unsigned long long)x.thefts,
                (unsigned long long)x.leapfrogs, x.idle, (unsigned long long)x.memory_peak);
  return buf;
}

}  // namespace weft_sim
