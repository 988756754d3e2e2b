// Host memory that a backend hands out for the fingerprints and answers a
// caller passes it over and over (Backend::host_buffer). The GPU backend
// gives page-locked (pinned) memory, which its copies to and from the device
// read and write directly; from ordinary (pageable) memory it first copies
// each batch through pinned staging buffers of its own, 9 bytes a key more
// per call. Other backends give plain memory. Any host memory works with
// every backend: these buffers only save that copy.
//
// Defined here, inline, because both the engine and each GPU backend
// library (linked after it) make them.
#pragma once

#include <cstdint>
#include <cstdlib>
#include <string>
#include <utility>

#include "gdedup/error.h"

namespace gdedup {

class HostBuffer {
 public:
  // Frees memory a backend allocated; called once, with data().
  using Release = void (*)(void* data) noexcept;

  // Memory of `bytes` (at least 1 is allocated) aligned to 64 bytes, a
  // cache line, from the C++ heap. Throws Error of kind out_of_memory, with
  // the size, when none can be had.
  static HostBuffer plain(uint64_t bytes) {
    constexpr uint64_t kAlignment = 64;
    // aligned_alloc wants a multiple of the alignment; a size past what
    // rounding can hold is refused like any other too large for memory.
    const uint64_t rounded =
        bytes == 0 ? kAlignment : (bytes + kAlignment - 1) / kAlignment * kAlignment;
    void* data = rounded >= bytes ? std::aligned_alloc(kAlignment, rounded) : nullptr;
    if (data == nullptr) {
      throw Error("cannot allocate " + std::to_string(bytes) +
                      " bytes of host memory for a batch of fingerprints and answers; a "
                      "smaller batch size needs less",
                  ErrorKind::out_of_memory, bytes);
    }
    return HostBuffer(data, bytes, false, [](void* p) noexcept { std::free(p); });
  }

  HostBuffer() = default;
  // Takes over `data`, `bytes` long, which `release` frees.
  HostBuffer(void* data, uint64_t bytes, bool pinned, Release release) noexcept
      : data_(data), bytes_(bytes), pinned_(pinned), release_(release) {}
  HostBuffer(HostBuffer&& other) noexcept
      : data_(std::exchange(other.data_, nullptr)),
        bytes_(std::exchange(other.bytes_, 0)),
        pinned_(std::exchange(other.pinned_, false)),
        release_(std::exchange(other.release_, nullptr)) {}
  HostBuffer& operator=(HostBuffer&& other) noexcept {
    HostBuffer taken(std::move(other));
    std::swap(data_, taken.data_);
    std::swap(bytes_, taken.bytes_);
    std::swap(pinned_, taken.pinned_);
    std::swap(release_, taken.release_);
    return *this;
  }
  HostBuffer(const HostBuffer&) = delete;
  HostBuffer& operator=(const HostBuffer&) = delete;
  ~HostBuffer() {
    if (data_ != nullptr && release_ != nullptr) release_(data_);
  }

  void* data() const { return data_; }
  uint64_t bytes() const { return bytes_; }
  // True for page-locked memory from a device runtime; false for plain
  // memory, also where a device backend could not have pinned memory and
  // gave plain memory instead.
  bool pinned() const { return pinned_; }

 private:
  void* data_ = nullptr;
  uint64_t bytes_ = 0;
  bool pinned_ = false;
  Release release_ = nullptr;
};

}  // namespace gdedup
