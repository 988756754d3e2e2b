// max_memory= as every class and function of the module takes it.
#pragma once

#include <cstdint>
#include <optional>

namespace gdedup::python {

// The cap in bytes that the library takes: None is no cap (0 inside the
// library); 0 is refused, since a cap of no bytes holds nothing, as the
// command refuses --max-memory 0.
uint64_t memory_cap(std::optional<uint64_t> max_memory);

}  // namespace gdedup::python
