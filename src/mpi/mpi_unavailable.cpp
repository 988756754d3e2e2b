// gdedup/frontend/mpi.h for builds without MPI: every entry point says so, so that
// the command needs no #ifdef. Compiled into gdedup_mpi only when MPI is off.
#include <string>

#include "core/layer_stack.h"
#include "core/owner_partition.h"
#include "gdedup/error.h"
#include "gdedup/frontend/mpi.h"

namespace gdedup::mpi {
namespace {

[[noreturn]] void not_built() {
  throw Error("gdedup was built without MPI, so a job cannot run on ranks (install "
              "libopenmpi-dev and configure with -DGDEDUP_MPI=ON)");
}

}  // namespace

bool built() { return false; }
RankInfo join(int*, char***) { not_built(); }
void leave() {}
void abort_job(const std::string&, int) { not_built(); }
int first_failure(bool, bool&) { not_built(); }
int max_status(int) { not_built(); }
bool same_everywhere(uint64_t) { not_built(); }
void check_same_inputs(const std::vector<std::string>&,
                       const std::vector<std::pair<std::string, std::string>>&) {
  not_built();
}

ShardedFilter::ShardedFilter() { not_built(); }
ShardedFilter::ShardedFilter(const FilterParams&, const FilterCounters&) { not_built(); }
ShardedFilter::ShardedFilter(const GrowthRule&, uint64_t, uint64_t) { not_built(); }
ShardedFilter::ShardedFilter(ShardedFilter&&) noexcept = default;
ShardedFilter::~ShardedFilter() = default;
ShardedFilter ShardedFilter::load(const std::string&) { not_built(); }
ShardedFilter ShardedFilter::load_checkpoint(const std::string&, ResumeState&) { not_built(); }
void ShardedFilter::save(const std::string&, const std::optional<KeyRules>&) { not_built(); }
void ShardedFilter::save_checkpoint(const ResumeState&, const std::string&) { not_built(); }
size_t ShardedFilter::layer_count() const { not_built(); }
const FilterParams& ShardedFilter::layer_params(size_t) const { not_built(); }
uint64_t ShardedFilter::bytes() const { not_built(); }
FilterCounters ShardedFilter::counters(size_t) const { not_built(); }
uint64_t ShardedFilter::count_set_bits(size_t) const { not_built(); }

PipelineStats run_sharded_pipeline(const PipelineOptions&, ShardedFilter&, const BackendMaker&) {
  not_built();
}

ShardedSet::ShardedSet(uint64_t, const KeySetOptions&, const KeySetSizeNames&) { not_built(); }
ShardedSet::ShardedSet(ShardedSet&&) noexcept = default;
ShardedSet::~ShardedSet() = default;
ShardedSet ShardedSet::load(const std::string&, const KeySetOptions&, KeyRules&) { not_built(); }
uint64_t ShardedSet::part_bytes_for(uint64_t) { not_built(); }
ShardedSet ShardedSet::load_checkpoint(const std::string&, const KeySetOptions&, KeyRules&,
                                       ResumeState&) {
  not_built();
}
void ShardedSet::save(const std::string&, const KeyRules&) const { not_built(); }
void ShardedSet::save_checkpoint(const ResumeState&, const KeyRules&, const std::string&) const {
  not_built();
}
ShardedSet::Totals ShardedSet::totals() const { not_built(); }

PipelineStats run_sharded_pipeline(const PipelineOptions&, ShardedSet&, const KeyRules&) {
  not_built();
}

ExchangeCosts measure_exchange(const FilterParams&, const std::vector<std::vector<uint64_t>>&,
                               const BackendMaker&) {
  not_built();
}

}  // namespace gdedup::mpi
