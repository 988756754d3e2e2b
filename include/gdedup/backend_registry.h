// Backends by name. The command's --backend, its help and its errors, and
// `gdedup bench --list-backends` all read this list, so a new backend (one
// that spreads a filter over shards, a binding's own) is one
// register_backend call away from every one of them.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "gdedup/backend.h"
#include "gdedup/filter.h"

namespace gdedup {

// What a backend may be asked for; each takes the fields that apply to it.
struct BackendOptions {
  unsigned threads = 1;  // CPU threads; 0 = one per hardware thread
  int device = 0;        // GPU device number
};

// A backend made from an entry, and a line for the console that says what
// runs it: "cpu (AVX3, 2 threads)".
struct MadeBackend {
  std::unique_ptr<Backend> backend;
  std::string description;
};

struct BackendEntry {
  std::string name;     // how callers choose it: "cpu"
  std::string summary;  // a phrase for help and listings: "the processor's cores"
  // It runs on the device BackendOptions::device names (a front end says
  // how that number is chosen).
  bool uses_device = false;
  // It can hold an exact set (gdedup/key_set.h) as well as run a filter.
  bool holds_sets = false;
  // Whether it can run here; when not, *why_not (if given) gets a sentence
  // saying why.
  std::function<bool(const BackendOptions&, std::string* why_not)> available;
  // Throws Error, saying what does not fit, unless a filter of
  // `filter_bytes` and what the backend needs beside it fit.
  std::function<void(uint64_t filter_bytes, const BackendOptions&)> check_fits;
  // The backend for `filter`, which must outlive it. Throws Error when it
  // cannot run.
  std::function<MadeBackend(Filter&, const BackendOptions&)> make;
};

// Every registered backend, in the order `auto` tries them: gpu, then cpu,
// which is always available, then those registered later.
const std::vector<BackendEntry>& backend_registry();

// The entry named `name`, or null.
const BackendEntry* find_backend(const std::string& name);

// The registered names, comma-separated in registry order: "gpu, cpu".
std::string backend_names();

// Adds `entry` after the built-in backends. Throws Error when the name is
// taken or is "auto". Not thread-safe: register before choosing.
void register_backend(BackendEntry entry);

// A backend that auto passed over, and why ("no CUDA device is present").
struct SkippedBackend {
  std::string name;
  std::string why;
};

// The first backend in registry order that is available and fits a filter
// of `filter_bytes`; *skipped (if given) gets those passed over. Throws
// Error when none is.
const BackendEntry& first_usable_backend(uint64_t filter_bytes, const BackendOptions& options,
                                         std::vector<SkippedBackend>* skipped = nullptr);

// The backend `which` names ("auto", or a registered name) for `filter`,
// with the defaults every front end gets: threads 0 means the hardware
// threads less the pipeline's two (at least 1). "auto" takes the first
// backend that is available and fits the filter's held bytes, and its
// description says why it passed over the others; a name insists (Error
// when that backend cannot run). `given` is how the front end names the
// choice in a refusal ("--backend foo"): UsageError when no backend has
// that name.
MadeBackend choose_backend(const std::string& which, BackendOptions options, Filter& filter,
                           const std::string& given);

// The name of the backend that holds an exact set: `which` itself when it
// names one, or for "auto" the first available entry in registry order
// that holds sets (the GPU before the CPU). A backend named but unusable
// fails when the set is made there, with the reason; the job refuses
// names that hold no set before it asks.
std::string choose_set_backend(const std::string& which, const BackendOptions& options);

}  // namespace gdedup
