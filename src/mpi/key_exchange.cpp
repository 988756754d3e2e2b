#include "mpi/key_exchange.h"

#include <mpi.h>

#include <algorithm>

#include "mpi/check.h"

namespace gdedup::mpi {
namespace {

// Counts and displacements of one Alltoallv, from counts per rank.
struct Layout {
  std::vector<int> counts;
  std::vector<int> displacements;
  uint64_t total = 0;
};

Layout layout_of(const std::vector<uint64_t>& counts, const char* what) {
  Layout out;
  for (uint64_t c : counts) {
    out.counts.push_back(mpi_count(c, what));
    out.displacements.push_back(mpi_count(out.total, what));
    out.total += c;
  }
  mpi_count(out.total, what);
  return out;
}

}  // namespace

template <typename Owners>
KeyExchangeOf<Owners>::KeyExchangeOf(const Owners& owners) : owners_(owners) {
  static_assert(sizeof(Key) % 8 == 0);
  check(MPI_Type_contiguous(sizeof(Key) / 8, MPI_UINT64_T, &key_type_), "MPI_Type_contiguous");
  check(MPI_Type_commit(&key_type_), "MPI_Type_commit");
}

template <typename Owners>
KeyExchangeOf<Owners>::~KeyExchangeOf() {
  MPI_Type_free(&key_type_);
}

template <typename Owners>
uint64_t KeyExchangeOf<Owners>::run(const Key* fingerprints, uint64_t count, bool answered,
                          uint8_t* answers, const std::vector<unsigned>& order,
                          const Apply& apply) {
  const unsigned ranks = owners_.owners();
  owner_of_key_.resize(count);
  detail::partition_by_owner(owners_, fingerprints, 0, count, row_, owner_of_key_.data());

  std::vector<uint64_t> send_counts(ranks), receive_counts(ranks);
  sent_keys_.clear();
  for (unsigned o = 0; o < ranks; ++o) {
    send_counts[o] = row_[o].fingerprints.size();
    sent_keys_.insert(sent_keys_.end(), row_[o].fingerprints.begin(), row_[o].fingerprints.end());
  }
  check(MPI_Alltoall(send_counts.data(), 1, MPI_UINT64_T, receive_counts.data(), 1,
                     MPI_UINT64_T, MPI_COMM_WORLD),
        "MPI_Alltoall");
  const Layout out = layout_of(send_counts, "the keys a rank sends in one round");
  const Layout in = layout_of(receive_counts, "the keys a rank receives in one round");
  received_keys_.resize(in.total);
  check(MPI_Alltoallv(sent_keys_.data(), out.counts.data(), out.displacements.data(),
                      key_type_, received_keys_.data(), in.counts.data(),
                      in.displacements.data(), key_type_, MPI_COMM_WORLD),
        "MPI_Alltoallv");

  // The buffer holds rank 0's keys, then rank 1's, ...: applied source by
  // source in input order.
  received_answers_.resize(answered ? in.total : 0);
  uint64_t result = 0;
  for (unsigned source : order) {
    if (in.counts[source] == 0) continue;
    const auto at = static_cast<uint64_t>(in.displacements[source]);
    result += apply(received_keys_.data() + at, static_cast<uint64_t>(in.counts[source]),
                    answered ? received_answers_.data() + at : nullptr);
  }
  if (!answered) return result;

  sent_answers_.resize(out.total);
  check(MPI_Alltoallv(received_answers_.data(), in.counts.data(), in.displacements.data(),
                      MPI_UINT8_T, sent_answers_.data(), out.counts.data(),
                      out.displacements.data(), MPI_UINT8_T, MPI_COMM_WORLD),
        "MPI_Alltoallv");
  for (unsigned o = 0; o < ranks; ++o) {
    const uint8_t* from = sent_answers_.data() + out.displacements[o];
    row_[o].answers.assign(from, from + out.counts[o]);
  }
  detail::scatter_answers(row_, owner_of_key_.data(), 0, count, answers);
  return result;
}

template class KeyExchangeOf<detail::BlockOwners>;
template class KeyExchangeOf<KeyRanges>;

}  // namespace gdedup::mpi
