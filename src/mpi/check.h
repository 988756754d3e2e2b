// MPI calls that fail throw Error naming the call, this rank and its host.
// The communicator returns errors (world.cpp sets MPI_ERRORS_RETURN) rather
// than ending the process in MPI's words.
#pragma once

#include <cstdint>
#include <exception>
#include <functional>
#include <string>
#include <vector>

#include "gdedup/frontend/mpi.h"

namespace gdedup::mpi {

// This rank, as join() found it.
const RankInfo& rank_info();

// Throws Error "MPI call `what` failed on rank R (HOST): MPI's text" unless
// `code` is MPI_SUCCESS.
void check(int code, const char* what);

// `count` as the int that MPI counts take; throws Error naming `what` when
// it does not fit.
int mpi_count(uint64_t count, const char* what);

// Collective. After a step only rank 0 takes: when it failed (`failure`,
// rank 0's; null on the others), every rank throws JobFailed, rank 0's
// holding its error.
void share_failure_of_rank0(const std::exception_ptr& failure);

// Collective. Rank 0's `text` on every rank.
void broadcast(std::string& text, const char* what);

// Collective. Rank 0's `values` on every rank, however many each rank has:
// each passes its own, and rank 0's are sent.
std::vector<uint64_t> values_of_rank0(const std::vector<uint64_t>& mine, const char* what);

// Collective. Runs `check` on every rank; when it threw on some, every rank
// throws JobFailed, the lowest failing one with its error.
void check_together(const std::function<void()>& check);

}  // namespace gdedup::mpi
