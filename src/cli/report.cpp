#include "cli/report.h"

#include <cmath>
#include <cstdio>

#include "cli/numbers.h"

namespace gdedup::cli {
namespace {

// Two columns, the names padded to one width.
std::string row(const std::string& name, const std::string& value) {
  std::string line = name;
  line.resize(14, ' ');
  return line + value + "\n";
}

std::string fixed(double value, int digits) {
  char buf[48];
  std::snprintf(buf, sizeof buf, "%.*f", digits, value);
  return buf;
}


}  // namespace

std::string layout_text(const Layout& layout) {
  return std::to_string(layout.block_bits) + "-bit blocks, k = " + std::to_string(layout.k);
}

std::string hex64(uint64_t value) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "0x%016llx", static_cast<unsigned long long>(value));
  return buf;
}

std::string plan_text(const Plan& plan, double target_fpr) {
  std::string out;
  out += row("capacity", group_digits(plan.capacity) + " distinct keys");
  if (target_fpr >= 0) out += row("target FPR", format_rate(target_fpr));
  out += row("layout", layout_text(plan.layout));
  out += row("blocks", group_digits(plan.num_blocks));
  out += row("memory", human_bytes(plan.bytes()) + " (" + group_digits(plan.bytes()) +
                           " bytes, " + fixed(plan.bits_per_key(), 2) + " bits per key)");
  out += row("expected FPR", format_rate(plan.expected_fpr) + " at " +
                                 group_digits(plan.capacity) + " keys");
  return out;
}

JsonObject plan_json(const Plan& plan, double target_fpr) {
  JsonObject o;
  o.add("capacity", plan.capacity);
  if (target_fpr >= 0) o.add("target_fpr", target_fpr);
  o.add("block_bits", uint64_t{plan.layout.block_bits})
      .add("k", uint64_t{plan.layout.k})
      .add("blocks", plan.num_blocks)
      .add("bytes", plan.bytes())
      .add("bits_per_key", plan.bits_per_key())
      .add("expected_fpr", plan.expected_fpr);
  return o;
}

std::string plan_summary(const Plan& plan) {
  return "new filter of " + human_bytes(plan.bytes()) + " (" + layout_text(plan.layout) + ", " +
         group_digits(plan.num_blocks) + " blocks, " + fixed(plan.bits_per_key(), 1) +
         " bits per key): expected FPR " + format_rate(plan.expected_fpr) + " at " +
         group_digits(plan.capacity) + " distinct keys";
}

std::string filter_summary(const Filter& filter, const std::string& path) {
  const FilterParams& p = filter.params();
  const FilterCounters& c = filter.counters();
  std::string text = "filter " + path + ": " + human_bytes(p.bytes()) + " (" +
                     layout_text(p.layout) + ", " + group_digits(p.num_blocks) + " blocks)";
  if (c.planned_capacity > 0) {
    text += ", planned for " + group_digits(c.planned_capacity) + " keys at FPR " +
            format_rate(c.planned_fpr);
  }
  text += ", holds ~" + format_keys(filter.estimated_keys()) + " keys (FPR now " +
          format_rate(filter.current_fpr()) + ")";
  return text;
}

FilterState filter_state(const Filter& filter) {
  FilterState s;
  s.set_bits = filter.count_set_bits();
  s.total_bits = filter.params().bytes() * 8;
  s.fill = s.total_bits > 0 ? static_cast<double>(s.set_bits) / static_cast<double>(s.total_bits) : 0;
  s.estimated_keys = filter.estimated_keys();
  s.current_fpr = filter.current_fpr();
  return s;
}

std::string info_text(const std::string& path, const FilterFileInfo& info,
                      const FilterState& state) {
  const FilterParams& p = info.params;
  const FilterCounters& c = info.counters;
  std::string out;
  out += row("file", path);
  out += row("version", std::to_string(info.version));
  out += row("layout", layout_text(p.layout));
  out += row("blocks", group_digits(p.num_blocks));
  out += row("seed", hex64(p.seed));
  out += row("memory", human_bytes(p.bytes()) + " (" + group_digits(p.bytes()) + " bytes)");
  out += row("fill", format_percent(state.fill) + " (" + group_digits(state.set_bits) + " of " +
                         group_digits(state.total_bits) + " bits set)");
  out += row("keys", "~" + format_keys(state.estimated_keys) + " distinct (estimated from the fill)");
  out += row("insertions", group_digits(c.insertions) + " (keys added or found new)");
  out += row("FPR now", format_rate(state.current_fpr));
  if (c.planned_capacity > 0) {
    out += row("planned", group_digits(c.planned_capacity) + " keys at FPR " +
                              format_rate(c.planned_fpr));
  } else {
    out += row("planned", "unknown");
  }
  return out;
}

JsonObject info_json(const std::string& path, const FilterFileInfo& info,
                     const FilterState& state) {
  const FilterParams& p = info.params;
  const FilterCounters& c = info.counters;
  JsonObject o;
  o.add("file", path)
      .add("version", uint64_t{info.version})
      .add("block_bits", uint64_t{p.layout.block_bits})
      .add("k", uint64_t{p.layout.k})
      .add("blocks", p.num_blocks)
      .add("seed", hex64(p.seed))
      .add("bytes", p.bytes())
      .add("set_bits", state.set_bits)
      .add("total_bits", state.total_bits)
      .add("fill", state.fill)
      .add("estimated_keys", state.estimated_keys)
      .add("current_fpr", state.current_fpr)
      .add("insertions", c.insertions)
      .add("planned_capacity", c.planned_capacity)
      .add("planned_fpr", c.planned_fpr);
  return o;
}

}  // namespace gdedup::cli
