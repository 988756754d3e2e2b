// What identifies an input across a crash: size, modification time and a
// hash of sampled bytes (docs/CHECKPOINT.md, "Inputs").
#pragma once

#include <cstdint>
#include <string>

#include "gdedup/checkpoint.h"

namespace gdedup::pipeline {

// "-", pipes and devices get regular = false and nothing else. Throws Error
// naming the path when it cannot be opened or read.
InputIdentity identify_input(const std::string& path);

// Throws Error naming the input and what changed (size, modification time,
// content) unless `now` is the input `saved` described. `number` counts from 1.
void check_same_input(const InputIdentity& saved, const InputIdentity& now, size_t number);
// The same for the size alone (nothing to compare for a stream).
void check_same_size(const InputIdentity& saved, uint64_t size, size_t number);

}  // namespace gdedup::pipeline
