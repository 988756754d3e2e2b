#include "cli/sizing.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <memory>
#include <vector>

#include "cli/console.h"
#include "cli/numbers.h"
#include "gdedup/error.h"
#include "io/byte_source.h"
#include "io/input_file.h"

namespace gdedup::cli {
namespace {

constexpr size_t kMinSample = size_t{1} << 20;
// Highly compressible inputs (10x and more for sorted URLs) would otherwise
// be decoded at length just to learn the ratio.
constexpr size_t kMaxSample = size_t{64} << 20;
// Inputs past this many use the ratio and record length measured on these.
constexpr size_t kMaxSampledInputs = 16;
// With --memory but no way to count the keys, the layout is chosen for a
// load typical of a 1e-4 filter.
constexpr double kAssumedBitsPerKey = 22.0;

struct Sample {
  uint64_t decoded = 0;   // uncompressed bytes looked at
  uint64_t raw = 0;       // file bytes they came from
  uint64_t records = 0;   // complete records among them
  bool whole = false;     // the input was read to its end
};

// Reads the start of `path`. A decoder pulls compressed bytes in large
// chunks, so the ratio is taken just before it asks for its second one: by
// then the bytes decoded are what the first chunk held.
Sample sample_input(const std::string& path, InputFormat format) {
  std::unique_ptr<io::ByteSource> source = io::open_input(path);
  std::vector<char> buf(size_t{64} << 10);
  Sample s;
  uint64_t newlines = 0;
  uint64_t first_raw = 0;
  bool ends_with_newline = true;
  for (;;) {
    const uint64_t decoded_before = s.decoded;
    const uint64_t raw_before = source->raw_bytes_read();
    const size_t n = source->read(buf.data(), buf.size());
    if (n == 0) {
      s.whole = true;
      s.raw = source->raw_bytes_read();
      break;
    }
    s.decoded += n;
    newlines += static_cast<uint64_t>(std::count(buf.data(), buf.data() + n, '\n'));
    ends_with_newline = buf[n - 1] == '\n';
    const uint64_t raw_now = source->raw_bytes_read();
    if (first_raw == 0) first_raw = raw_now;
    if (s.decoded >= kMinSample && (raw_now > first_raw || s.decoded >= kMaxSample)) {
      s.decoded = raw_now > first_raw && raw_before > 0 ? decoded_before : s.decoded;
      s.raw = raw_now > first_raw && raw_before > 0 ? raw_before : raw_now;
      break;
    }
  }
  if (format == InputFormat::kU64) {
    s.records = s.decoded / 8 + (s.whole && s.decoded % 8 != 0 ? 1 : 0);
  } else {
    s.records = newlines + (s.whole && !ends_with_newline && s.decoded > 0 ? 1 : 0);
  }
  return s;
}

std::string fixed(double value, int digits) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.*f", digits, value);
  return buf;
}

}  // namespace

SizingRequest parse_sizing(const SizingOptions& options) {
  SizingRequest r;
  // With a memory budget the rate is the outcome, not a target.
  if (!options.fpr.empty() && !options.memory.empty()) {
    throw UsageError("--fpr " + options.fpr + " and --memory " + options.memory +
                     " cannot both be given: --fpr sizes the filter for a rate, --memory fixes "
                     "its size (the rate is then reported)");
  }
  if (!options.capacity.empty()) {
    r.capacity = parse_count(options.capacity, "--capacity");
    if (*r.capacity == 0) {
      throw UsageError("--capacity " + options.capacity +
                       ": must be at least 1 (the distinct keys expected)");
    }
  }
  if (!options.memory.empty()) r.memory = parse_bytes(options.memory, "--memory");
  if (!options.fpr.empty()) r.fpr = parse_fpr(options.fpr, "--fpr");
  r.block_bits = options.block_bits;
  return r;
}

std::optional<RecordEstimate> estimate_records(const std::vector<std::string>& inputs,
                                               InputFormat format, std::string* why_not) {
  std::vector<uint64_t> sizes;
  for (const std::string& path : inputs) {
    const std::optional<uint64_t> size = io::input_size(path);
    if (!size) {
      if (why_not != nullptr) {
        *why_not = path == "-" ? std::string("standard input") : path + " (not a regular file)";
      }
      return std::nullopt;
    }
    sizes.push_back(*size);
  }
  // Totals over the inputs sampled only partly: their ratio and mean record
  // length stand for every input that was not read whole.
  uint64_t exact_records = 0;
  uint64_t raw_total = 0;
  uint64_t part_decoded = 0, part_raw = 0, part_records = 0;
  uint64_t unsampled_raw = 0;
  size_t sampled = 0;
  for (size_t i = 0; i < inputs.size(); ++i) {
    raw_total += sizes[i];
    if (sampled >= kMaxSampledInputs) {
      unsampled_raw += sizes[i];
      continue;
    }
    ++sampled;
    const Sample s = sample_input(inputs[i], format);
    if (s.whole) {
      exact_records += s.records;
      continue;
    }
    part_decoded += s.decoded;
    part_raw += s.raw;
    part_records += s.records;
    unsampled_raw += sizes[i] >= s.raw ? sizes[i] - s.raw : 0;
    exact_records += s.records;
  }
  RecordEstimate e;
  double estimated = static_cast<double>(exact_records);
  std::string how = "from " + human_bytes(raw_total) + " of input";
  if (unsampled_raw > 0) {
    if (part_raw == 0) {
      // Only whole inputs were sampled, so the rest is scaled by what they held.
      part_raw = 0;
      for (size_t i = 0; i < std::min(inputs.size(), kMaxSampledInputs); ++i) part_raw += sizes[i];
      part_records = exact_records;
      part_decoded = part_raw;
    }
    const double ratio = part_raw > 0 ? static_cast<double>(part_decoded) / part_raw : 1.0;
    const double mean = part_records > 0 ? static_cast<double>(part_decoded) / part_records
                                         : static_cast<double>(part_decoded);
    if (mean > 0) estimated += static_cast<double>(unsampled_raw) * ratio / mean;
    how += " (";
    if (ratio > 1.05) how += "compressed " + fixed(ratio, 1) + "x, ";
    how += format == InputFormat::kU64 ? std::string("8-byte records")
                                       : "mean record " + fixed(mean, 1) + " bytes";
    how += ", measured on the first " + human_bytes(part_decoded) + ")";
  } else {
    how += " (counted: every input was read to its end)";
  }
  e.records = static_cast<uint64_t>(std::ceil(estimated));
  e.how = how;
  return e;
}

Plan plan_job(const SizingRequest& request, const std::vector<std::string>& inputs,
              InputFormat format) {
  if (request.capacity) {
    return request.memory ? plan_for_memory(*request.memory, *request.capacity, request.block_bits)
                          : plan_for_capacity(*request.capacity, request.fpr, request.block_bits);
  }
  std::string why_not;
  const std::optional<RecordEstimate> estimate = estimate_records(inputs, format, &why_not);
  if (!estimate) {
    if (request.memory) {
      const double keys = static_cast<double>(*request.memory) * 8 / kAssumedBitsPerKey;
      const uint64_t assumed = std::max<uint64_t>(1, static_cast<uint64_t>(keys));
      Console::get().info("no --capacity given and the size of " + why_not +
                          " is unknown; the expected rate below assumes " + group_digits(assumed) +
                          " distinct keys");
      return plan_for_memory(*request.memory, assumed, request.block_bits);
    }
    throw UsageError("cannot size the filter: no --capacity or --memory given and the size of " +
                     why_not + " is unknown; give --capacity N (the distinct keys expected) or "
                     "--memory BYTES");
  }
  const uint64_t capacity = std::max<uint64_t>(1, estimate->records);
  Console::get().info("no --capacity given; estimated " + group_digits(estimate->records) +
                      " records " + estimate->how +
                      " and planned for all of them being distinct");
  return request.memory ? plan_for_memory(*request.memory, capacity, request.block_bits)
                        : plan_for_capacity(capacity, request.fpr, request.block_bits);
}

Plan plan_standalone(const SizingRequest& request) {
  if (!request.capacity) {
    throw UsageError("plan needs --capacity N (the distinct keys expected), with --fpr P or "
                     "--memory BYTES");
  }
  return request.memory ? plan_for_memory(*request.memory, *request.capacity, request.block_bits)
                        : plan_for_capacity(*request.capacity, request.fpr, request.block_bits);
}

}  // namespace gdedup::cli
