// A growable array of plain values in a backend's host memory
// (Backend::host_buffer): the batches' fingerprints and answers, which the
// GPU backend then copies from and to directly instead of through its own
// staging buffers. The part of std::vector's interface the batches use;
// elements are not initialised, and contents are kept when it grows. It
// grows to at least twice its size, like std::vector, so a stream of
// batches of varying length reallocates (a pinned allocation locks its
// pages, which is slow) only a few times.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <utility>

#include "gdedup/backend.h"
#include "gdedup/host_buffer.h"

namespace gdedup::pipeline {

template <class T>
class HostArray {
  static_assert(std::is_trivially_copyable_v<T>, "HostArray holds plain values");

 public:
  // The backend must outlive the array's allocations (not the array); null:
  // plain memory.
  explicit HostArray(const Backend* backend) : backend_(backend) {}

  void reserve(uint64_t count) {
    if (count <= capacity_) return;
    constexpr uint64_t kMaxCount = UINT64_MAX / sizeof(T);
    const uint64_t grown = std::max(count, std::min(2 * capacity_, kMaxCount));
    // A count no memory could hold asks for the most bytes there are, which
    // fails with out_of_memory like any other size too large.
    const uint64_t bytes = grown > kMaxCount ? UINT64_MAX : grown * sizeof(T);
    HostBuffer larger = backend_ ? backend_->host_buffer(bytes) : HostBuffer::plain(bytes);
    if (size_ > 0) std::memcpy(larger.data(), buffer_.data(), size_ * sizeof(T));
    buffer_ = std::move(larger);
    capacity_ = grown;
  }
  void resize(uint64_t count) {
    reserve(count);
    size_ = count;
  }

  uint64_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  T* data() { return static_cast<T*>(buffer_.data()); }
  const T* data() const { return static_cast<const T*>(buffer_.data()); }
  T& operator[](uint64_t i) { return data()[i]; }
  const T& operator[](uint64_t i) const { return data()[i]; }
  T* begin() { return data(); }
  T* end() { return data() + size_; }
  const T* begin() const { return data(); }
  const T* end() const { return data() + size_; }
  // Whether the memory is pinned (HostBuffer::pinned).
  bool pinned() const { return buffer_.pinned(); }

 private:
  const Backend* backend_;
  HostBuffer buffer_;
  uint64_t size_ = 0;
  uint64_t capacity_ = 0;
};

}  // namespace gdedup::pipeline
