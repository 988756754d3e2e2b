// Which rank reads which input piece, and which of the records read so far a
// round applies (docs/SCALE-OUT.md, "Rounds"). Every rank keeps the same
// plan and advances it with the same reports, so all agree without asking.
//
// A rank holds one piece at a time, the pieces going to free ranks in input
// order (rank order among those freed by the same round). Each round a rank
// reads a chunk more of its piece, up to its read-ahead budget: a plain
// range whole, a whole input (a compressed file, standard input) a chunk of
// decoded bytes at a time, so that no piece is ever held whole. The round
// then applies, in input order, everything read of the first piece not yet
// applied (the cursor), and of the pieces after it as long as each one
// before was read to its end: the order one process reads them in. A rank
// whose piece is not yet reached keeps what it read for a later round; the
// budget bounds that read-ahead.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

namespace gdedup::mpi {

// What a rank says of its piece after reading, the same on every rank once
// exchanged.
struct PieceReport {
  bool holds = false;     // it holds a piece
  bool read_all = false;  // that piece is read to its end (or to a failure)
  bool failed = false;    // its reading failed; the records before it count
};

class RoundPlan {
 public:
  // `pieces` pieces over `ranks` ranks; a piece whose `rank0_only` entry
  // is true (standard input, which reaches rank 0 only) goes to rank 0, and
  // the pieces after it wait for it. Hands out the first pieces.
  RoundPlan(size_t pieces, unsigned ranks, std::vector<bool> rank0_only = {});

  // The piece `rank` holds.
  std::optional<size_t> held(unsigned rank) const { return held_[rank]; }
  // The rank that holds `piece`, if any does.
  std::optional<unsigned> holder(size_t piece) const;
  // The first piece not applied to its end: pieces before it are done.
  size_t cursor() const { return cursor_; }
  bool done() const { return cursor_ == pieces_; }
  // Whether the cursor piece was applied in part (its rank stopped inside it).
  bool cursor_started() const { return cursor_started_; }

  // The ranks whose records this round applies, in input order, from every
  // rank's report: the cursor piece's rank, then the next piece's while
  // each piece before it was read to its end and did not fail.
  std::vector<unsigned> applied(const std::vector<PieceReport>& reports) const;

  // After the round applied `order` (applied()'s result for `reports`):
  // frees the ranks whose pieces it finished, moves the cursor, and hands
  // the next pieces to free ranks.
  void advance(const std::vector<unsigned>& order, const std::vector<PieceReport>& reports);

 private:
  void hand_out();

  size_t pieces_;
  std::vector<bool> rank0_only_;
  std::vector<std::optional<size_t>> held_;  // by rank
  size_t cursor_ = 0;
  bool cursor_started_ = false;
  size_t next_ = 0;  // the next piece to hand out
};

}  // namespace gdedup::mpi
