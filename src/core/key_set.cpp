#include "gdedup/key_set.h"

#include <algorithm>
#include <vector>

#include "core/exact_set.h"
#include "gdedup/error.h"

namespace gdedup {

struct KeySet::Impl {
  ExactSet table;
  KeySetOptions options;
};

KeySet::KeySet(uint64_t expected_keys, const KeySetOptions& options)
    : impl_(std::make_unique<Impl>(Impl{ExactSet(expected_keys), options})) {}
KeySet::~KeySet() = default;
KeySet::KeySet(KeySet&&) noexcept = default;
KeySet& KeySet::operator=(KeySet&&) noexcept = default;

uint64_t KeySet::test_and_insert(const Key84* keys, uint64_t n, uint8_t* answers) {
  return impl_->table.test_and_insert(keys, n, answers);
}

void KeySet::contains(const Key84* keys, uint64_t n, uint8_t* answers) const {
  impl_->table.contains(keys, n, answers);
}

uint64_t KeySet::insert(const Key84* keys, uint64_t n) {
  std::vector<uint8_t> answers(n);
  return test_and_insert(keys, n, answers.data());
}

uint64_t KeySet::size() const { return impl_->table.size(); }
uint64_t KeySet::bytes() const { return impl_->table.bytes(); }
double KeySet::load() const { return impl_->table.load(); }
uint64_t KeySet::growths() const { return impl_->table.growths(); }
const KeySetOptions& KeySet::options() const { return impl_->options; }

KeySet KeySet::clone() const {
  KeySet copy;
  *copy.impl_ = *impl_;
  return copy;
}
void KeySet::set_max_bytes(uint64_t max_bytes) { impl_->options.max_bytes = max_bytes; }

void KeySet::for_each_sorted(const std::function<void(const Key84*, size_t)>& f) const {
  const std::vector<Key84> keys = impl_->table.sorted_keys();
  constexpr size_t kPiece = size_t{1} << 16;
  for (size_t i = 0; i < keys.size(); i += kPiece) {
    f(keys.data() + i, std::min(kPiece, keys.size() - i));
  }
}

double KeySet::collision_chance(uint64_t keys) { return ExactSet::collision_chance(keys); }

uint64_t KeySet::bytes_for(uint64_t keys) { return ExactSet::bytes_for(keys); }

}  // namespace gdedup
