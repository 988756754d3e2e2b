#include "gdedup/filter_summary.h"

#include "gdedup/growth.h"
#include "gdedup/planner.h"

namespace gdedup {
namespace {

double fraction(uint64_t part, uint64_t whole) {
  return whole > 0 ? static_cast<double>(part) / static_cast<double>(whole) : 0;
}

}  // namespace

FilterSummary summarize(const Filter& filter) {
  return summarize(filter.params(), filter.counters(), filter.count_set_bits());
}

FilterSummary summarize(const FilterParams& p, const FilterCounters& c, uint64_t set_bits) {
  FilterSummary s;
  s.blocks = p.num_blocks;
  s.bytes = p.bytes();
  s.set_bits = set_bits;
  s.total_bits = p.bytes() * 8;
  s.fill = fraction(s.set_bits, s.total_bits);
  s.estimated_keys = estimated_keys(p, set_bits);
  s.current_fpr = fpr_at_fill(p, set_bits);
  s.expected_fpr = expected_fpr(p.layout, p.num_blocks, c.insertions);
  s.insertions = c.insertions;
  s.planned_capacity = c.planned_capacity;
  s.planned_fpr = c.planned_fpr;
  return s;
}

FilterSummary combine(const std::vector<FilterSummary>& layers) {
  if (layers.size() == 1) return layers[0];
  FilterSummary s;
  std::vector<double> current, expected, planned;
  for (const FilterSummary& layer : layers) {
    s.blocks += layer.blocks;
    s.bytes += layer.bytes;
    s.set_bits += layer.set_bits;
    s.total_bits += layer.total_bits;
    s.estimated_keys += layer.estimated_keys;
    s.insertions += layer.insertions;
    s.planned_capacity += layer.planned_capacity;
    current.push_back(layer.current_fpr);
    expected.push_back(layer.expected_fpr);
    planned.push_back(layer.planned_fpr);
  }
  s.layers = layers.size();
  s.fill = fraction(s.set_bits, s.total_bits);
  s.current_fpr = compound_fpr(current.data(), current.size());
  s.expected_fpr = compound_fpr(expected.data(), expected.size());
  s.planned_fpr = compound_fpr(planned.data(), planned.size());
  return s;
}

FilterSummary summarize(const std::vector<const Filter*>& layers) {
  std::vector<FilterSummary> each;
  for (const Filter* layer : layers) each.push_back(summarize(*layer));
  return combine(each);
}

FilterSummary summarize(const LayeredFilter& filter) {
  std::vector<const Filter*> layers;
  for (size_t i = 0; i < filter.layer_count(); ++i) layers.push_back(&filter.layer(i));
  return summarize(layers);
}

}  // namespace gdedup
