#include "mpi/round_plan.h"

#include <utility>

namespace gdedup::mpi {

RoundPlan::RoundPlan(size_t pieces, unsigned ranks, std::vector<bool> rank0_only)
    : pieces_(pieces), rank0_only_(std::move(rank0_only)), held_(ranks) {
  rank0_only_.resize(pieces, false);
  hand_out();
}

void RoundPlan::hand_out() {
  for (unsigned r = 0; r < held_.size() && next_ < pieces_; ++r) {
    if (held_[r]) continue;
    // In input order: a piece for rank 0 alone holds back the ones after it.
    if (rank0_only_[next_] && r != 0) break;
    held_[r] = next_++;
  }
}

std::optional<unsigned> RoundPlan::holder(size_t piece) const {
  for (unsigned r = 0; r < held_.size(); ++r) {
    if (held_[r] == piece) return r;
  }
  return std::nullopt;
}

std::vector<unsigned> RoundPlan::applied(const std::vector<PieceReport>& reports) const {
  std::vector<unsigned> order;
  for (size_t piece = cursor_; piece < pieces_; ++piece) {
    // Pieces are handed out in order: the first one not held is not yet
    // handed out, and neither is any after it.
    const std::optional<unsigned> rank = holder(piece);
    if (!rank) break;
    order.push_back(*rank);
    const PieceReport& report = reports[*rank];
    if (!report.read_all || report.failed) break;
  }
  return order;
}

void RoundPlan::advance(const std::vector<unsigned>& order, const std::vector<PieceReport>& reports) {
  for (unsigned rank : order) {
    const size_t piece = *held_[rank];
    if (reports[rank].read_all) {
      held_[rank].reset();
      cursor_ = piece + 1;
      cursor_started_ = false;
    } else {
      cursor_ = piece;
      cursor_started_ = true;
    }
  }
  hand_out();
}

}  // namespace gdedup::mpi
