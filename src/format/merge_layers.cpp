#include <utility>
#include <vector>

#include "gdedup/filter_file.h"

namespace gdedup {

void merge_layers(std::vector<Filter>& into, std::vector<Filter> other) {
  if (other.size() > into.size()) std::swap(other, into);
  for (size_t j = 0; j < other.size(); ++j) into[j].merge(other[j]);
}

}  // namespace gdedup
