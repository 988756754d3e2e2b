// RoundPlan (mpi/round_plan.h) against the order one process reads in: ranks
// that read chunks of random pieces with random budgets must apply every
// chunk exactly once, in piece and chunk order, and never hold more than
// their budget while they wait.
#include "mpi/round_plan.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <utility>
#include <vector>

namespace gdedup::mpi {
namespace {

struct Rank {
  std::optional<size_t> piece;
  size_t read = 0;     // chunks of its piece read
  size_t applied = 0;  // of them applied
};

// Runs the plan to its end over pieces of `chunks[p]` chunks, each rank
// reading one chunk a round while it holds fewer than `budget` unapplied;
// returns the (piece, chunk) pairs in the order the rounds applied them.
std::vector<std::pair<size_t, size_t>> simulate(const std::vector<size_t>& chunks, unsigned ranks,
                                                size_t budget, std::vector<bool> rank0_only,
                                                size_t& rounds) {
  RoundPlan plan(chunks.size(), ranks, rank0_only);
  std::vector<Rank> state(ranks);
  std::vector<std::pair<size_t, size_t>> applied;
  rounds = 0;
  while (!plan.done()) {
    EXPECT_LT(++rounds, 100000u) << "no progress";
    if (rounds >= 100000) break;
    std::vector<PieceReport> reports(ranks);
    for (unsigned r = 0; r < ranks; ++r) {
      Rank& me = state[r];
      if (plan.held(r) != me.piece) me = Rank{plan.held(r), 0, 0};
      if (!me.piece) continue;
      if (rank0_only[*me.piece]) {
        EXPECT_EQ(r, 0u) << "piece " << *me.piece;
      }
      if (me.read < chunks[*me.piece] && me.read - me.applied < budget) ++me.read;
      EXPECT_LE(me.read - me.applied, budget);
      reports[r] = PieceReport{true, me.read == chunks[*me.piece], false};
    }
    const std::vector<unsigned> order = plan.applied(reports);
    for (unsigned r : order) {
      Rank& me = state[r];
      for (; me.applied < me.read; ++me.applied) applied.emplace_back(*me.piece, me.applied);
    }
    plan.advance(order, reports);
  }
  return applied;
}

TEST(RoundPlan, AppliesEveryChunkOnceInInputOrder) {
  std::mt19937_64 random(20261202);
  for (int trial = 0; trial < 300; ++trial) {
    const unsigned ranks = 1 + random() % 6;
    const size_t pieces = random() % 20;
    const size_t budget = 1 + random() % 4;
    std::vector<size_t> chunks(pieces);
    std::vector<bool> rank0_only(pieces);
    std::vector<std::pair<size_t, size_t>> expected;
    for (size_t p = 0; p < pieces; ++p) {
      // Mostly one-chunk pieces (plain ranges), some long streams, some empty.
      const int kind = static_cast<int>(random() % 4);
      chunks[p] = kind == 0 ? 1 + random() % 12 : kind == 1 ? 0 : 1;
      rank0_only[p] = random() % 8 == 0;
      for (size_t c = 0; c < chunks[p]; ++c) expected.emplace_back(p, c);
    }
    size_t rounds = 0;
    EXPECT_EQ(simulate(chunks, ranks, budget, rank0_only, rounds), expected)
        << "trial " << trial << ": " << pieces << " pieces on " << ranks << " ranks";
  }
}

TEST(RoundPlan, RanksReadTheirPiecesSideBySide) {
  // 8 one-chunk pieces on 4 ranks: two rounds, each applying 4 pieces.
  size_t rounds = 0;
  simulate(std::vector<size_t>(8, 1), 4, 1, std::vector<bool>(8), rounds);
  EXPECT_EQ(rounds, 2u);
  // 4 streams of 5 chunks each on 4 ranks with room to read ahead: the
  // ranks decode side by side, in 5 rounds instead of 20.
  simulate(std::vector<size_t>(4, 5), 4, 8, std::vector<bool>(4), rounds);
  EXPECT_EQ(rounds, 5u);
  // Without room, each stream waits for the one before it.
  simulate(std::vector<size_t>(4, 5), 4, 1, std::vector<bool>(4), rounds);
  EXPECT_EQ(rounds, 17u);
}

TEST(RoundPlan, AFailedPieceEndsTheRoundsAppliedWithIt) {
  RoundPlan plan(3, 3);
  std::vector<PieceReport> reports(3, PieceReport{true, true, false});
  reports[1].failed = true;
  EXPECT_EQ(plan.applied(reports), (std::vector<unsigned>{0, 1}));
}

TEST(RoundPlan, APieceStoppedInsideIsTheCursor) {
  RoundPlan plan(3, 2);
  std::vector<PieceReport> reports{{true, false, false}, {true, true, false}};
  const std::vector<unsigned> order = plan.applied(reports);
  EXPECT_EQ(order, (std::vector<unsigned>{0}));
  plan.advance(order, reports);
  EXPECT_EQ(plan.cursor(), 0u);
  EXPECT_TRUE(plan.cursor_started());
  EXPECT_EQ(plan.held(1), std::optional<size_t>(1));  // read, waiting
  reports[0].read_all = true;
  plan.advance(plan.applied(reports), reports);
  EXPECT_EQ(plan.cursor(), 2u);
  EXPECT_FALSE(plan.cursor_started());
  EXPECT_EQ(plan.held(0), std::optional<size_t>(2));
  EXPECT_EQ(plan.held(1), std::nullopt);
}

}  // namespace
}  // namespace gdedup::mpi
