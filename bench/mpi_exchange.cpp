// mpi_exchange: what the sharded filter's rounds cost per key
// (docs/SCALE-OUT.md, "Measured"). Run under mpirun:
//   mpirun -np R bench/mpi_exchange [KEYS_PER_RANK_PER_ROUND [ROUNDS [FILTER_MIB]]]
// Each rank hands in KEYS random fingerprints a round (defaults 1,000,000
// keys, 8 rounds, a 64 MiB filter shared by the ranks) and times, as the
// slowest rank sees them:
//   exchange    the two MPI_Alltoallv (8 bytes out, 1 back per key) and the
//               partition by owner, with owners that answer without probing;
//   round       the same with each owner's test_and_set on its blocks: what
//               run_sharded_pipeline pays per key besides reading and hashing;
//   local       test_and_set of the same keys on a filter held whole by one
//               rank alone, the one-process figure to compare with.
#include <mpi.h>

#include <cstdio>
#include <cstdlib>
#include <vector>

#include "core/owner_partition.h"
#include "cpu/kernels.h"
#include "gdedup/filter.h"
#include "gdedup/mpi.h"
#include "mpi/key_exchange.h"
#include "mpi/sharding.h"

namespace {

uint64_t splitmix64(uint64_t& state) {
  uint64_t z = (state += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

// The slowest rank's seconds for `body`, run after a barrier.
template <class Body>
double slowest(Body body) {
  MPI_Barrier(MPI_COMM_WORLD);
  const double start = MPI_Wtime();
  body();
  const double mine = MPI_Wtime() - start;
  double all = 0;
  MPI_Allreduce(&mine, &all, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  return all;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace gdedup;
  const mpi::RankInfo me = mpi::join(&argc, &argv);
  const uint64_t keys = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 1000000;
  const int rounds = argc > 2 ? std::atoi(argv[2]) : 8;
  const uint64_t mib = argc > 3 ? std::strtoull(argv[3], nullptr, 10) : 64;
  const Layout layout{512, 16};
  const FilterParams params{(mib << 20) / (layout.block_bits / 8), layout, kDefaultSeed};

  std::vector<std::vector<uint64_t>> batches(rounds, std::vector<uint64_t>(keys));
  uint64_t state = 0x6764656475700000ull + me.rank;
  for (auto& batch : batches) {
    for (uint64_t& k : batch) k = splitmix64(state);
  }
  std::vector<uint8_t> answers(keys);
  const cpu::Kernels kernels(cpu::Arith::kSimd, "");

  mpi::ShardedFilter shard(params, FilterCounters{});
  const FilterRef ref = shard.part().ref();
  mpi::KeyExchange exchange(mpi::block_owners(params.num_blocks));
  std::vector<unsigned> order(me.ranks);  // every rank sends, in rank order
  for (unsigned r = 0; r < me.ranks; ++r) order[r] = r;
  const mpi::KeyExchange::Apply answer_only = [](const uint64_t*, uint64_t n, uint8_t* a) {
    for (uint64_t i = 0; i < n; ++i) a[i] = 0;
    return uint64_t{0};
  };
  const mpi::KeyExchange::Apply probe = [&](const uint64_t* k, uint64_t n, uint8_t* a) {
    return kernels.test_and_set_run({ref, k, n, a});
  };
  const double exchange_s = slowest([&] {
    for (auto& batch : batches) exchange.run(batch.data(), keys, true, answers.data(), order, answer_only);
  });
  const double round_s = slowest([&] {
    for (auto& batch : batches) exchange.run(batch.data(), keys, true, answers.data(), order, probe);
  });
  Filter whole(params);
  const double local_s = slowest([&] {
    for (auto& batch : batches) {
      kernels.test_and_set_run({whole.ref(), batch.data(), keys, answers.data()});
    }
  });

  if (me.rank == 0) {
    const double per_rank = static_cast<double>(keys) * rounds;
    auto line = [&](const char* what, double s) {
      std::printf("%-9s %8.1f ns/key  %7.2f M keys/s per rank  %7.2f M keys/s over %u ranks\n",
                  what, 1e9 * s / per_rank, per_rank / s / 1e6, per_rank * me.ranks / s / 1e6,
                  me.ranks);
    };
    std::printf("mpi_exchange: %u ranks on %s, %llu keys a rank a round, %d rounds, "
                "%llu MiB filter (512-bit blocks)\n",
                me.ranks, me.host.c_str(), static_cast<unsigned long long>(keys), rounds,
                static_cast<unsigned long long>(mib));
    line("exchange", exchange_s);
    line("round", round_s);
    line("local", local_s);
  }
  mpi::leave();
  return 0;
}
