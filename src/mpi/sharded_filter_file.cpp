// ShardedFilter::save and ::load: one filter file, byte-identical to one
// process's, without any rank holding more than its own blocks; and the
// same for checkpoints, in one process's format. Saving,
// rank 0 writes the file (save_filter_streamed) and asks each rank in turn
// for the bytes of its blocks, a piece of at most 64 MiB at a time; loading,
// each rank reads its blocks at their offset, and rank 0 reads the whole bit
// array once more to check the checksum that covers all of it.
#include <mpi.h>

#include <algorithm>
#include <cstring>
#include <functional>

#include "format/checkpoint_file.h"
#include "gdedup/checkpoint.h"
#include "gdedup/error.h"
#include "gdedup/filter_file.h"
#include "gdedup/mpi.h"
#include "mpi/check.h"
#include "mpi/sharding.h"

namespace gdedup::mpi {
namespace {

constexpr int kRequestTag = 1;  // rank 0 to a rank: {offset in its blocks, bytes}; 0 bytes: done
constexpr int kBitsTag = 2;     // the bytes asked for

uint64_t block_bytes(const FilterParams& params) { return params.layout.block_bits / 8; }

// Rank 0's side: bytes [offset, offset + length) of the whole bit array,
// from its own blocks and the other ranks'.
void gather_bits(const detail::BlockOwners& owners, uint64_t bytes_per_block,
                 const unsigned char* own, uint64_t offset, uint64_t length,
                 unsigned char* into) {
  for (uint64_t done = 0; done < length;) {
    const uint64_t at = offset + done;
    const unsigned owner = owners.owner_of_block(at / bytes_per_block);
    const uint64_t begin = owners.first_block(owner) * bytes_per_block;
    const uint64_t end = owners.first_block(owner + 1) * bytes_per_block;
    const uint64_t n = std::min(length - done, end - at);
    if (owner == 0) {
      std::memcpy(into + done, own + (at - begin), n);
    } else {
      const uint64_t request[2] = {at - begin, n};
      check(MPI_Send(request, 2, MPI_UINT64_T, static_cast<int>(owner), kRequestTag,
                     MPI_COMM_WORLD),
            "MPI_Send");
      check(MPI_Recv(into + done, mpi_count(n, "a piece of the filter"), MPI_UNSIGNED_CHAR,
                     static_cast<int>(owner), kBitsTag, MPI_COMM_WORLD, MPI_STATUS_IGNORE),
            "MPI_Recv");
    }
    done += n;
  }
}

// The other ranks' side: answers rank 0's requests until it says done.
void serve_bits(const unsigned char* own) {
  for (;;) {
    uint64_t request[2] = {0, 0};
    check(MPI_Recv(request, 2, MPI_UINT64_T, 0, kRequestTag, MPI_COMM_WORLD, MPI_STATUS_IGNORE),
          "MPI_Recv");
    if (request[1] == 0) return;
    check(MPI_Send(own + request[0], mpi_count(request[1], "a piece of the filter"),
                   MPI_UNSIGNED_CHAR, 0, kBitsTag, MPI_COMM_WORLD),
          "MPI_Send");
  }
}

// Collective. Rank 0 calls `write` with a reader of the whole bit array of
// `filter`, which asks each rank in turn for its blocks; the others serve
// them until rank 0 is done.
void write_on_rank0(ShardedFilter& filter,
                    const std::function<void(const format::BitReader& read)>& write) {
  const auto* own = reinterpret_cast<const unsigned char*>(filter.part().words());
  const RankInfo& me = rank_info();
  if (me.rank != 0) return serve_bits(own);
  const detail::BlockOwners owners = block_owners(filter.params().num_blocks);
  const uint64_t bytes_per_block = block_bytes(filter.params());
  write([&](uint64_t offset, uint64_t length, unsigned char* into) {
    gather_bits(owners, bytes_per_block, own, offset, length, into);
  });
  const uint64_t done[2] = {0, 0};
  for (unsigned r = 1; r < me.ranks; ++r) {
    check(MPI_Send(done, 2, MPI_UINT64_T, static_cast<int>(r), kRequestTag, MPI_COMM_WORLD),
          "MPI_Send");
  }
}

}  // namespace

void ShardedFilter::save(const std::string& path, const std::optional<KeyRules>& keys) {
  const FilterCounters whole = counters();
  write_on_rank0(*this, [&](const format::BitReader& read) {
    save_filter_streamed(params(), whole, path, keys, read);
  });
}

void ShardedFilter::save_checkpoint(const ResumeState& state, const std::string& path) {
  const FilterCounters whole = counters();
  write_on_rank0(*this, [&](const format::BitReader& read) {
    ResumeState fixed = state;
    fixed.growth.reset();
    format::write_checkpoint_file({format::LayerView{nullptr, params(), whole, read}}, fixed,
                                  path);
  });
}

ShardedFilter ShardedFilter::load(const std::string& path) {
  const FilterFileInfo info = read_filter_info(path);
  if (info.rules.growth) {
    throw UsageError("filter file " + path + " holds a growing filter, which ranks cannot share "
                     "yet; under --mpi use a fixed filter (one made with --memory or --no-grow)");
  }
  ShardedFilter filter(info.params[0], info.counters[0]);
  read_filter_slice(path, filter.part_.first_block() * block_bytes(filter.params()),
                    filter.part_.held_bytes(),
                    reinterpret_cast<unsigned char*>(filter.part_.words()),
                    rank_info().rank == 0);
  return filter;
}

ShardedFilter ShardedFilter::load_checkpoint(const std::string& path, ResumeState& state) {
  // The header alone first: the rank's share of the array is allocated
  // from numbers already verified.
  state = read_checkpoint_state(path);
  if (state.growth) {
    throw UsageError("checkpoint " + path + " holds a growing filter, which ranks cannot share "
                     "yet; resume it in one process");
  }
  ShardedFilter filter(state.params, FilterCounters{});
  filter.counters_ = format::read_checkpoint_slice(
      path, filter.part_.first_block() * block_bytes(filter.params()), filter.part_.held_bytes(),
      reinterpret_cast<unsigned char*>(filter.part_.words()), rank_info().rank == 0);
  return filter;
}

}  // namespace gdedup::mpi
