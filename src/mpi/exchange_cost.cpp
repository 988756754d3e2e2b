// measure_exchange (gdedup/frontend/mpi.h): what a round of the sharded filter costs
// per key, for gdedup bench --mpi.
#include <mpi.h>

#include <memory>
#include <vector>

#include "gdedup/backend.h"
#include "gdedup/frontend/mpi.h"
#include "mpi/check.h"
#include "mpi/key_exchange.h"
#include "mpi/sharding.h"

namespace gdedup::mpi {
namespace {

// The slowest rank's seconds for `body`, run after a barrier.
template <class Body>
double slowest(Body body) {
  check(MPI_Barrier(MPI_COMM_WORLD), "MPI_Barrier");
  const double start = MPI_Wtime();
  body();
  double mine = MPI_Wtime() - start, all = 0;
  check(MPI_Allreduce(&mine, &all, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD), "MPI_Allreduce");
  return all;
}

}  // namespace

ExchangeCosts measure_exchange(const FilterParams& params,
                               const std::vector<std::vector<uint64_t>>& batches,
                               const BackendMaker& make_backend) {
  const RankInfo& me = rank_info();
  ShardedFilter shard(params, FilterCounters{});
  KeyExchange exchange(shard.owners());
  std::vector<unsigned> order(me.ranks);  // every rank sends, in rank order
  for (unsigned r = 0; r < me.ranks; ++r) order[r] = r;
  std::vector<uint8_t> answers;
  const KeyExchange::Apply answer_only = [](const uint64_t*, uint64_t n, uint8_t* a) {
    for (uint64_t i = 0; i < n; ++i) a[i] = 0;
    return uint64_t{0};
  };
  auto exchange_all = [&] {
    for (const std::vector<uint64_t>& batch : batches) {
      answers.resize(batch.size());
      exchange.run(batch.data(), batch.size(), true, answers.data(), order, answer_only);
    }
  };
  // Once untimed: the exchange's buffers grow to their size on first use.
  exchange_all();
  ExchangeCosts costs;
  costs.exchange_seconds = slowest(exchange_all);
  shard.use_backends([&](Filter& part) {
    std::unique_ptr<Backend> backend = make_backend(part);
    costs.backend = backend->name();
    return backend;
  });
  costs.round_seconds = slowest([&] {
    const KeyExchange::Apply probe = [&](const uint64_t* keys, uint64_t n, uint8_t* a) {
      return shard.test_and_set(keys, n, a);
    };
    for (const std::vector<uint64_t>& batch : batches) {
      answers.resize(batch.size());
      exchange.run(batch.data(), batch.size(), true, answers.data(), order, probe);
    }
    shard.sync_to_host();
  });
  Filter whole(params);
  std::unique_ptr<Backend> alone = make_backend(whole);
  costs.whole_seconds = slowest([&] {
    for (const std::vector<uint64_t>& batch : batches) {
      answers.resize(batch.size());
      alone->test_and_set(batch.data(), batch.size(), answers.data());
    }
    alone->sync_to_host();
  });
  return costs;
}

}  // namespace gdedup::mpi
