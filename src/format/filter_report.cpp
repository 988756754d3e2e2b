#include "gdedup/frontend/filter_report.h"

#include <cmath>
#include <cstdio>

#include "gdedup/filter_merge.h"
#include "gdedup/frontend/number_text.h"
#include "gdedup/frontend/path_text.h"

namespace gdedup {
namespace {

std::string fixed(double value, int digits) {
  char buf[48];
  std::snprintf(buf, sizeof buf, "%.*f", digits, value);
  return buf;
}


}  // namespace

std::string row(const std::string& name, const std::string& value) {
  std::string line = name;
  line.resize(14, ' ');
  // Values name paths, which may hold newlines: a row stays one line.
  return line + fs::printable(value) + "\n";
}

std::string layout_text(const Layout& layout) {
  return std::to_string(layout.block_bits) + "-bit blocks, k = " + std::to_string(layout.k);
}

std::string plan_text(const Plan& plan, double target_fpr) {
  std::string out;
  out += row("capacity", counted(plan.capacity, "distinct key"));
  if (target_fpr >= 0) out += row("target FPR", format_rate(target_fpr));
  out += row("layout", layout_text(plan.layout));
  out += row("blocks", group_digits(plan.num_blocks));
  out += row("memory", human_bytes(plan.bytes()) + " (" + group_digits(plan.bytes()) +
                           " bytes, " + fixed(plan.bits_per_key(), 2) + " bits per key)");
  out += row("expected FPR", format_rate(plan.expected_fpr) + " at " +
                                 counted(plan.capacity, "key"));
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

namespace {

// The memory of one filter planned for exactly `p.keys` at the target: what
// growing costs against knowing the count in advance.
uint64_t right_sized_bytes(const GrowthRule& rule, const GrowthPoint& p) {
  return plan_for_capacity(p.keys, rule.target_fpr, rule.block_bits).bytes();
}

}  // namespace

std::string growth_text(const GrowthRule& rule, const std::vector<GrowthPoint>& points) {
  const Plan first = plan_layer(rule, 0);
  std::string out = "growing: layers of " + std::to_string(rule.growth) + "x the keys at " +
                    fixed(rule.tightening, 2) + "x the rate of the one before; the first for " +
                    counted(first.capacity, "key") + " at " + format_rate(first.expected_fpr) +
                    ", target " + format_rate(rule.target_fpr) + "\n";
  out += "  keys                  layers  memory      FPR       one right-sized filter\n";
  for (const GrowthPoint& p : points) {
    std::string line = "  " + group_digits(p.keys);
    line.resize(24, ' ');
    line += std::to_string(p.layers);
    line.resize(32, ' ');
    line += human_bytes(p.bytes);
    line.resize(44, ' ');
    line += format_rate(p.fpr);
    line.resize(54, ' ');
    const uint64_t single = right_sized_bytes(rule, p);
    out += line + human_bytes(single) + " (growing takes " +
           fixed(static_cast<double>(p.bytes) / static_cast<double>(single), 2) + "x)\n";
  }
  return out;
}

JsonObject growth_json(const GrowthRule& rule, const std::vector<GrowthPoint>& points) {
  JsonObject o;
  o.add("first_capacity", rule.first_capacity)
      .add("growth", uint64_t{rule.growth})
      .add("tightening", rule.tightening)
      .add("check_every", rule.check_every);
  JsonObject at;
  for (const GrowthPoint& p : points) {
    JsonObject point;
    point.add("layers", uint64_t{p.layers})
        .add("bytes", p.bytes)
        .add("fpr", p.fpr)
        .add("right_sized_bytes", right_sized_bytes(rule, p));
    at.add(std::to_string(p.keys), std::move(point));
  }
  o.add("at_keys", std::move(at));
  return o;
}

std::string plan_summary(const Plan& plan) {
  return "new filter of " + human_bytes(plan.bytes()) + " (" + layout_text(plan.layout) + ", " +
         counted(plan.num_blocks, "block") + ", " + fixed(plan.bits_per_key(), 1) +
         " bits per key): expected FPR " + format_rate(plan.expected_fpr) + " at " +
         counted(plan.capacity, "distinct key");
}

std::string growth_summary(const GrowthRule& rule) {
  const Plan first = plan_layer(rule, 0);
  return "new growing filter: a first layer of " + human_bytes(first.bytes()) + " (" +
         layout_text(first.layout) + ") for " + counted(first.capacity, "distinct key") +
         ", then layers of " +
         std::to_string(rule.growth) + "x the keys as more arrive; expected FPR at most " +
         format_rate(rule.target_fpr) + " however many";
}

std::string filter_summary(const Filter& filter, const std::string& path) {
  const FilterParams& p = filter.params();
  const FilterCounters& c = filter.counters();
  std::string text = "filter " + fs::printable(path) + ": " + human_bytes(p.bytes()) + " (" +
                     layout_text(p.layout) + ", " + counted(p.num_blocks, "block") + ")";
  if (c.planned_capacity > 0) {
    text += ", planned for " + counted(c.planned_capacity, "key") + " at FPR " +
            format_rate(c.planned_fpr);
  }
  const double keys = filter.estimated_keys();
  // Not "(every bit is set) (FPR now 1)": one parenthesis at a time.
  text += ", holds " +
          (keys_estimable(keys) ? approx_keys(keys, "keys")
                                : "an unknown number of keys, every bit being set") +
          " (FPR now " +
          format_rate(filter.current_fpr()) + ")";
  return text;
}

std::string filter_summary(const LayeredFilter& filter, const std::string& path) {
  const FilterSummary state = summarize(filter);
  return "filter " + fs::printable(path) + ": growing, " +
         counted(filter.layer_count(), "layer") + " of " +
         human_bytes(filter.bytes()) + " in all, holds " +
         (keys_estimable(state.estimated_keys) ? approx_keys(state.estimated_keys, "keys")
                                                : "an unknown number of keys") +
         " (FPR now " + format_rate(state.current_fpr) + "), adds layers of " +
         std::to_string(filter.rule().growth) + "x the keys as more arrive";
}

namespace {

std::string memory_text(uint64_t bytes) {
  return human_bytes(bytes) + " (" + group_digits(bytes) + " bytes)";
}

// Fill, keys and insertions: the rows a layer and a whole filter share.
std::string content_rows(const FilterSummary& state) {
  std::string out;
  out += row("fill", format_percent(state.fill) + " (" + group_digits(state.set_bits) + " of " +
                         group_digits(state.total_bits) + " bits set)");
  const std::string keys = keys_estimable(state.estimated_keys)
                               ? approx_keys(state.estimated_keys, "distinct") +
                                     " (estimated from the fill)"
                               : "unknown: every bit is set";
  out += row("keys", keys);
  out += row("insertions", group_digits(state.insertions) + " (keys added or found new)");
  return out;
}

std::string planned_row(uint64_t capacity, double fpr, const std::string& how) {
  if (capacity == 0) return row("planned", "unknown");
  return row("planned", counted(capacity, "key") + how + " at FPR " + format_rate(fpr));
}

// `text`'s lines indented by two spaces.
std::string indented(const std::string& text) {
  std::string out;
  size_t start = 0;
  while (start < text.size()) {
    const size_t end = text.find('\n', start);
    const size_t stop = end == std::string::npos ? text.size() : end + 1;
    out += "  " + text.substr(start, stop - start);
    start = stop;
  }
  return out;
}

std::vector<FilterSummary> summaries_of(const std::vector<const Filter*>& layers) {
  std::vector<FilterSummary> each;
  for (const Filter* layer : layers) each.push_back(summarize(*layer));
  return each;
}

}  // namespace

std::string filter_rows(const FilterParams& p, const FilterSummary& state) {
  std::string out;
  out += row("layout", layout_text(p.layout));
  out += row("blocks", group_digits(p.num_blocks));
  out += row("seed", hex64(p.seed));
  out += row("memory", memory_text(p.bytes()));
  out += content_rows(state);
  out += row("FPR now", format_rate(state.current_fpr));
  return out + planned_row(state.planned_capacity, state.planned_fpr, "");
}

std::string whole_filter_rows(const std::vector<const Filter*>& layers) {
  const std::vector<FilterSummary> each = summaries_of(layers);
  if (layers.size() == 1) return filter_rows(layers[0]->params(), each[0]);
  const FilterSummary total = combine(each);
  std::string out = row("layers", std::to_string(layers.size()));
  out += row("seed", hex64(layers[0]->params().seed));
  out += row("memory", memory_text(total.bytes) + " in all");
  out += content_rows(total);
  out += row("FPR now", format_rate(total.current_fpr) + " (a query tests every layer)");
  out += row("expected FPR", format_rate(total.expected_fpr) + " for the insertions");
  out += planned_row(total.planned_capacity, total.planned_fpr, " across the layers");
  for (size_t i = 0; i < layers.size(); ++i) {
    out += "layer " + std::to_string(i + 1) + ":\n" +
           indented(filter_rows(layers[i]->params(), each[i]));
  }
  return out;
}

namespace {

// The fields a layer and a whole filter share: sizes, content and rates.
JsonObject& add_counted_fields(JsonObject& o, uint64_t seed, const FilterSummary& state) {
  return o.add("blocks", state.blocks)
      .add("seed", hex64(seed))
      .add("bytes", state.bytes)
      .add("set_bits", state.set_bits)
      .add("total_bits", state.total_bits)
      .add("fill", state.fill)
      .add("estimated_keys", state.estimated_keys)
      .add("current_fpr", state.current_fpr)
      .add("expected_fpr", state.expected_fpr)
      .add("insertions", state.insertions)
      .add("planned_capacity", state.planned_capacity)
      .add("planned_fpr", state.planned_fpr);
}

}  // namespace

JsonObject& add_filter_fields(JsonObject& o, const FilterParams& p, const FilterSummary& state) {
  o.add("block_bits", uint64_t{p.layout.block_bits}).add("k", uint64_t{p.layout.k});
  return add_counted_fields(o, p.seed, state);
}

JsonObject& add_whole_filter_fields(JsonObject& o, const std::vector<const Filter*>& layers) {
  const std::vector<FilterSummary> each = summaries_of(layers);
  const FilterSummary total = combine(each);
  o.add("layer_count", uint64_t{layers.size()});
  // Layers of a growing filter may have other layouts: then there is no
  // one block size, and each layer says its own.
  const Layout& first = layers[0]->params().layout;
  bool one_layout = true;
  for (const Filter* layer : layers) one_layout = one_layout && layer->params().layout == first;
  if (one_layout) o.add("block_bits", uint64_t{first.block_bits}).add("k", uint64_t{first.k});
  add_counted_fields(o, layers[0]->params().seed, total);
  std::vector<JsonObject> objects;
  for (size_t i = 0; i < layers.size(); ++i) {
    JsonObject layer;
    add_filter_fields(layer, layers[i]->params(), each[i]);
    objects.push_back(std::move(layer));
  }
  return o.add("layers", std::move(objects));
}

std::string key_rules_text(const FilterRules& rules, uint32_t version) {
  if (rules.keys) return rules.keys->to_string();
  return version == 1 ? "unknown (a version 1 file does not record them)"
                      : "unknown (saved without them)";
}

namespace {

std::string growth_rule_text(const FilterRules& rules) {
  if (!rules.growth) return "none: a fixed filter of one layer";
  const GrowthRule& g = *rules.growth;
  return "layers of " + std::to_string(g.growth) + "x the keys from " +
         counted(g.first_capacity, "key") + ", FPR at most " + format_rate(g.target_fpr) +
         " (tightening " + fixed(g.tightening, 2) + ", checked every " +
         counted(g.check_every, "key") + "); " + group_digits(rules.keys_offered) +
         " keys offered so far";
}

std::vector<const Filter*> layers_of(const FilterFile& file) {
  std::vector<const Filter*> layers;
  for (const Filter& layer : file.layers) layers.push_back(&layer);
  return layers;
}

}  // namespace

std::string info_text(const std::string& path, const FilterFile& file) {
  return row("file", path) + row("version", std::to_string(file.version)) +
         row("key rules", key_rules_text(file.rules, file.version)) +
         row("growth", growth_rule_text(file.rules)) + whole_filter_rows(layers_of(file));
}

JsonObject info_json(const std::string& path, const FilterFile& file) {
  JsonObject o;
  o.add("file", path)
      .add("kind", "filter")
      .add("info_version", kInfoJsonVersion)
      .add("version", uint64_t{file.version});
  o.add("key_rules", file.rules.keys ? file.rules.keys->to_string() : std::string());
  if (file.rules.growth) {
    const GrowthRule& g = *file.rules.growth;
    JsonObject growth;
    growth.add("first_capacity", g.first_capacity)
        .add("target_fpr", g.target_fpr)
        .add("growth", uint64_t{g.growth})
        .add("tightening", g.tightening)
        .add("block_bits", uint64_t{g.block_bits})
        .add("check_every", g.check_every)
        .add("keys_offered", file.rules.keys_offered);
    o.add("growth", std::move(growth));
  }
  return add_whole_filter_fields(o, layers_of(file));
}

std::string layers_text(size_t layers) {
  return std::to_string(layers) + (layers == 1 ? " layer" : " layers");
}

// "planned for N distinct keys, it took in about M, so its false-positive
// rate is now R (planned P)"
std::string past_plan(const Overfull& over, const char* took) {
  return "planned for " + group_digits(over.planned) + " distinct keys, it " + took + " " +
         keys_taken_text(over) + ", so its false-positive rate is now " +
         format_rate(over.fpr_now) + " (planned " + format_rate(over.planned_fpr) + ")";
}

std::string merged_past_plan_message(const Overfull& over, const std::string& what, size_t layer,
                                     size_t layers) {
  const std::string part = layer == 0 ? what
                                      : "layer " + std::to_string(layer) + " of the " +
                                            layers_text(layers) + " of " + what;
  return part + " is far past its plan (a merge adds up the keys of its inputs, which were "
         "full): " + past_plan(over, "holds") + "; jobs that use it will take new keys for "
         "ones already present that much more often. Build one filter from the inputs of the "
         "merged filters instead of merging them.";
}


}  // namespace gdedup
