// gpu.h for builds without the CUDA backend: every entry point says so, so
// that callers need no #ifdef. Compiled into gdedup only when CUDA is off.
#include <string>

#include "gdedup/error.h"
#include "gdedup/gpu.h"

namespace gdedup {
namespace {

const char kNotBuilt[] =
    "gdedup was built without the CUDA backend (configure with -DGDEDUP_CUDA=ON on a machine with the CUDA toolkit)";

}  // namespace

bool gpu_available(std::string* why_not, int /*device*/) {
  if (why_not != nullptr) *why_not = kNotBuilt;
  return false;
}

GpuDeviceInfo gpu_device_info(int /*device*/) { throw Error(kNotBuilt, ErrorKind::no_device); }

void check_gpu_fits(uint64_t /*filter_bytes*/, const GpuOptions& /*options*/) {
  throw Error(kNotBuilt, ErrorKind::no_device);
}

uint64_t gpu_device_bytes(uint64_t /*filter_bytes*/, uint64_t /*batch_keys*/) {
  throw Error(kNotBuilt, ErrorKind::no_device);
}

std::unique_ptr<Backend> make_gpu_backend(Filter& /*filter*/, const GpuOptions& /*options*/) {
  throw Error(kNotBuilt, ErrorKind::no_device);
}

struct GpuKeySet::Impl {};

GpuKeySet::GpuKeySet(uint64_t /*expected_keys*/, const GpuKeySetOptions& /*options*/) {
  throw Error(kNotBuilt, ErrorKind::no_device);
}
GpuKeySet::~GpuKeySet() = default;
GpuKeySet::GpuKeySet(GpuKeySet&&) noexcept = default;
GpuKeySet& GpuKeySet::operator=(GpuKeySet&&) noexcept = default;
// A GpuKeySet is never made here, so none of these is ever called.
uint64_t GpuKeySet::test_and_insert(const Key84*, uint64_t, uint8_t*) {
  throw Error(kNotBuilt, ErrorKind::no_device);
}
void GpuKeySet::contains(const Key84*, uint64_t, uint8_t*) const {
  throw Error(kNotBuilt, ErrorKind::no_device);
}
uint64_t GpuKeySet::size() const { return 0; }
uint64_t GpuKeySet::bytes() const { return 0; }
double GpuKeySet::load() const { return 0; }
uint64_t GpuKeySet::growths() const { return 0; }
void GpuKeySet::for_each_key(const std::function<void(const Key84*, size_t)>& /*f*/) const {
  throw Error(kNotBuilt, ErrorKind::no_device);
}

}  // namespace gdedup
