// ShardedFilter::reshard_older_layers: when a layer is added, the owners of
// keys change (they follow the newest layer's blocks), and with them the
// blocks of each older layer a rank needs to answer its keys alone. The
// ranges move by a block or two at their edges (sharding.h), so each rank
// keeps what it held of them and takes the few blocks it lacks from the
// first rank that held each, in one MPI_Alltoallv a layer.
#include <mpi.h>

#include <algorithm>
#include <cstring>
#include <vector>

#include "core/layer_stack.h"
#include "gdedup/frontend/mpi.h"
#include "mpi/check.h"
#include "mpi/sharding.h"

namespace gdedup::mpi {
namespace {

// Blocks [begin, end) that a rank takes from `source`.
struct Fetch {
  uint64_t begin;
  uint64_t end;
  unsigned source;
};

// What a rank that held `had` and now needs `wants` takes, and from whom:
// each block from the first rank that held it (`held`, of every rank).
std::vector<Fetch> fetches(const std::vector<BlockRange>& held, const BlockRange& had,
                           const BlockRange& wants) {
  std::vector<Fetch> out;
  auto take = [&](uint64_t begin, uint64_t end) {
    while (begin < end) {
      const unsigned source = holder_of(held, begin);
      const uint64_t stop = std::min(end, held[source].end);
      out.push_back(Fetch{begin, stop, source});
      begin = stop;
    }
  };
  take(wants.begin, std::min(wants.end, had.begin));
  take(std::max(wants.begin, had.end), wants.end);
  return out;
}

}  // namespace

void ShardedFilter::reshard_older_layers(const std::vector<uint64_t>& before) {
  const RankInfo& me = rank_info();
  const std::vector<uint64_t> after = layer_blocks();
  // The layer just frozen may have newer bits on a GPU; the older ones were
  // only read since their parts were made on the host.
  parts_->backend(before.size() - 1).sync_to_host();
  for (size_t i = 0; i + 1 < after.size(); ++i) {
    const std::vector<BlockRange> from = held_blocks(before, i, me.ranks);
    const std::vector<BlockRange> to = held_blocks(after, i, me.ranks);
    if (from == to) continue;
    const Filter& old = parts_->layer(i);
    const uint64_t block_bytes = old.params().layout.block_bits / 8;
    const auto* own = reinterpret_cast<const unsigned char*>(old.words());
    std::vector<uint64_t> send_counts(me.ranks), receive_counts(me.ranks);
    std::vector<unsigned char> sent;
    for (unsigned d = 0; d < me.ranks; ++d) {
      for (const Fetch& f : fetches(from, from[d], to[d])) {
        if (f.source != me.rank) continue;
        const unsigned char* at = own + (f.begin - from[me.rank].begin) * block_bytes;
        sent.insert(sent.end(), at, at + (f.end - f.begin) * block_bytes);
        send_counts[d] += (f.end - f.begin) * block_bytes;
      }
    }
    const std::vector<Fetch> mine = fetches(from, from[me.rank], to[me.rank]);
    for (const Fetch& f : mine) receive_counts[f.source] += (f.end - f.begin) * block_bytes;
    std::vector<int> sc(me.ranks), sd(me.ranks), rc(me.ranks), rd(me.ranks);
    uint64_t sent_total = 0, received_total = 0;
    for (unsigned r = 0; r < me.ranks; ++r) {
      sc[r] = mpi_count(send_counts[r], "the blocks a rank sends when a layer is added");
      sd[r] = mpi_count(sent_total, "the blocks a rank sends when a layer is added");
      rc[r] = mpi_count(receive_counts[r], "the blocks a rank takes when a layer is added");
      rd[r] = mpi_count(received_total, "the blocks a rank takes when a layer is added");
      sent_total += send_counts[r];
      received_total += receive_counts[r];
    }
    std::vector<unsigned char> received(received_total);
    check(MPI_Alltoallv(sent.data(), sc.data(), sd.data(), MPI_UNSIGNED_CHAR, received.data(),
                        rc.data(), rd.data(), MPI_UNSIGNED_CHAR, MPI_COMM_WORLD),
          "MPI_Alltoallv");

    const BlockRange had = from[me.rank];
    const BlockRange wants = to[me.rank];
    Filter part = Filter::part(old.params(), wants.begin, wants.size());
    auto* into = reinterpret_cast<unsigned char*>(part.words());
    const uint64_t keep_begin = std::max(had.begin, wants.begin);
    const uint64_t keep_end = std::min(had.end, wants.end);
    if (keep_begin < keep_end) {
      std::memcpy(into + (keep_begin - wants.begin) * block_bytes,
                  own + (keep_begin - had.begin) * block_bytes,
                  (keep_end - keep_begin) * block_bytes);
    }
    std::vector<uint64_t> taken(me.ranks);  // bytes placed so far, by source
    for (const Fetch& f : mine) {
      const uint64_t n = (f.end - f.begin) * block_bytes;
      std::memcpy(into + (f.begin - wants.begin) * block_bytes,
                  received.data() + rd[f.source] + taken[f.source], n);
      taken[f.source] += n;
    }
    parts_->replace(i, std::move(part));
  }
}

}  // namespace gdedup::mpi
