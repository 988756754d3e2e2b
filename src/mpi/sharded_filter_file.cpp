// ShardedFilter::save and ::load: one filter file, byte-identical to one
// process's, without any rank holding more than its own blocks; and the
// same for checkpoints, in one process's format. Saving, rank 0 writes the
// file (save_filter_streamed) and asks the ranks in turn for the bytes of
// each layer's blocks (a block two ranks hold, from the first), a piece of
// at most 64 MiB at a time; loading, each rank reads its blocks of each
// layer at their offset, and rank 0 reads each whole bit array once more to
// check the checksum that covers all of it.
#include <mpi.h>

#include <algorithm>
#include <cstring>
#include <functional>

#include "core/layer_stack.h"
#include "format/checkpoint_file.h"
#include "gdedup/checkpoint.h"
#include "gdedup/error.h"
#include "gdedup/filter_file.h"
#include "gdedup/frontend/mpi.h"
#include "mpi/check.h"
#include "mpi/sharding.h"

namespace gdedup::mpi {
namespace {

// Rank 0 to a rank: {layer, offset in its part, bytes}; 0 bytes: done.
constexpr int kRequestTag = 1;
constexpr int kBitsTag = 2;     // the bytes asked for

uint64_t block_bytes(const FilterParams& params) { return params.layout.block_bits / 8; }

// This rank's part of each layer, as bytes.
using OwnParts = std::vector<const unsigned char*>;

// Rank 0's side: bytes [offset, offset + length) of the bit array of layer
// `layer`, whose blocks the ranks hold as `held` says, from its own part
// and the other ranks'.
void gather_bits(uint64_t layer, const std::vector<BlockRange>& held, uint64_t bytes_per_block,
                 const unsigned char* own, uint64_t offset, uint64_t length,
                 unsigned char* into) {
  for (uint64_t done = 0; done < length;) {
    const uint64_t at = offset + done;
    const unsigned holder = holder_of(held, at / bytes_per_block);
    const uint64_t begin = held[holder].begin * bytes_per_block;
    const uint64_t end = held[holder].end * bytes_per_block;
    const uint64_t n = std::min(length - done, end - at);
    if (holder == 0) {
      std::memcpy(into + done, own + (at - begin), n);
    } else {
      const uint64_t request[3] = {layer, at - begin, n};
      check(MPI_Send(request, 3, MPI_UINT64_T, static_cast<int>(holder), kRequestTag,
                     MPI_COMM_WORLD),
            "MPI_Send");
      check(MPI_Recv(into + done, mpi_count(n, "a piece of the filter"), MPI_UNSIGNED_CHAR,
                     static_cast<int>(holder), kBitsTag, MPI_COMM_WORLD, MPI_STATUS_IGNORE),
            "MPI_Recv");
    }
    done += n;
  }
}

// The other ranks' side: answers rank 0's requests until it says done.
void serve_bits(const OwnParts& own) {
  for (;;) {
    uint64_t request[3] = {0, 0, 0};
    check(MPI_Recv(request, 3, MPI_UINT64_T, 0, kRequestTag, MPI_COMM_WORLD, MPI_STATUS_IGNORE),
          "MPI_Recv");
    if (request[2] == 0) return;
    check(MPI_Send(own.at(request[0]) + request[1], mpi_count(request[2], "a piece of the filter"),
                   MPI_UNSIGNED_CHAR, 0, kBitsTag, MPI_COMM_WORLD),
          "MPI_Send");
  }
}

}  // namespace

// Collective. Rank 0 calls `write` with a reader of each layer's whole bit
// array, which asks the ranks in turn for their blocks; the others serve
// them until rank 0 is done.
void ShardedFilter::write_on_rank0(
    const std::function<void(const std::vector<StreamedLayer>& layers)>& write) {
  OwnParts own;
  for (size_t i = 0; i < layers_.size(); ++i) {
    own.push_back(reinterpret_cast<const unsigned char*>(parts_->layer(i).words()));
  }
  // Collective: every rank sums its insertions.
  std::vector<FilterCounters> whole;
  for (size_t i = 0; i < layers_.size(); ++i) whole.push_back(counters(i));
  const RankInfo& me = rank_info();
  if (me.rank != 0) return serve_bits(own);
  std::vector<StreamedLayer> views;
  for (size_t i = 0; i < layers_.size(); ++i) {
    const FilterParams& params = layers_[i].params;
    views.push_back(StreamedLayer{
        params, whole[i],
        [i, &own, held = held_blocks(layer_blocks(), i, me.ranks),
         bytes = block_bytes(params)](uint64_t offset, uint64_t length, unsigned char* into) {
          gather_bits(i, held, bytes, own[i], offset, length, into);
        }});
  }
  write(views);
  const uint64_t done[3] = {0, 0, 0};
  for (unsigned r = 1; r < me.ranks; ++r) {
    check(MPI_Send(done, 3, MPI_UINT64_T, static_cast<int>(r), kRequestTag, MPI_COMM_WORLD),
          "MPI_Send");
  }
}

void ShardedFilter::save(const std::string& path, const std::optional<KeyRules>& keys) {
  write_on_rank0([&](const std::vector<StreamedLayer>& layers) {
    save_filter_streamed(layers, FilterRules{keys, growth_, growth_ ? keys_offered_ : 0}, path);
  });
}

void ShardedFilter::save_checkpoint(const ResumeState& state, const std::string& path) {
  write_on_rank0([&](const std::vector<StreamedLayer>& layers) {
    std::vector<format::LayerView> views;
    for (const StreamedLayer& layer : layers) {
      views.push_back(format::LayerView{nullptr, layer.params, layer.counters, layer.read});
    }
    ResumeState saved = state;
    saved.growth.reset();
    if (growth_) saved.growth = GrowthState{*growth_, max_bytes_, keys_offered_};
    format::write_checkpoint_file(views, saved, path);
  });
}

void ShardedFilter::hold_all_layers() {
  owners_ = std::make_unique<detail::BlockOwners>(block_owners(layers_.back().params.num_blocks));
  for (size_t i = 0; i < layers_.size(); ++i) hold(i);
}

ShardedFilter ShardedFilter::load(const std::string& path) {
  const FilterFileInfo info = read_filter_info(path);
  ShardedFilter filter;
  filter.growth_ = info.rules.growth;
  filter.keys_offered_ = info.rules.keys_offered;
  for (size_t i = 0; i < info.params.size(); ++i) {
    filter.layers_.push_back(Layer{info.params[i], info.counters[i]});
  }
  filter.hold_all_layers();
  for (size_t i = 0; i < filter.layers_.size(); ++i) {
    Filter& part = filter.parts_->layer(i);
    read_filter_slice(path, i, part.first_block() * block_bytes(part.params()), part.held_bytes(),
                      reinterpret_cast<unsigned char*>(part.words()), rank_info().rank == 0);
  }
  return filter;
}

ShardedFilter ShardedFilter::load_checkpoint(const std::string& path, ResumeState& state) {
  // The header alone first: the rank's share of the arrays is allocated
  // from numbers already verified.
  state = read_checkpoint_state(path);
  ShardedFilter filter;
  if (state.growth) {
    filter.growth_ = state.growth->rule;
    filter.max_bytes_ = state.growth->max_bytes;
    filter.keys_offered_ = state.growth->keys_offered;
  }
  filter.layers_.push_back(Layer{state.params, FilterCounters{}});
  for (const SavedLayer& layer : state.later_layers) {
    filter.layers_.push_back(Layer{layer.params, FilterCounters{}});
  }
  filter.hold_all_layers();
  for (size_t i = 0; i < filter.layers_.size(); ++i) {
    Filter& part = filter.parts_->layer(i);
    filter.layers_[i].counters = format::read_checkpoint_slice(
        path, i, part.first_block() * block_bytes(part.params()), part.held_bytes(),
        reinterpret_cast<unsigned char*>(part.words()), rank_info().rank == 0);
  }
  return filter;
}

}  // namespace gdedup::mpi
