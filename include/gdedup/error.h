// Exceptions thrown by the library. Messages are whole sentences meant for the
// user: they name the value or file that was wrong and what was wrong with it,
// in the library's own terms (parameters, not command-line flags). What to do
// next depends on the caller, so each error also has a kind and the numbers
// involved: the command line adds the flag to change from the kind, and a
// language binding maps the kind to an exception class.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <system_error>

namespace gdedup {

// What went wrong, one kind per remedy. needed() and available() hold the
// numbers where the kind says so (0 where unknown).
enum class ErrorKind {
  // A failure with no remedy of its own: a failed device call, a bug.
  failure,
  // A value that can never work as given (UsageError's default).
  invalid_argument,
  // The system refused a read, write, open or other file operation.
  io,
  // A file or stream is not what it claims: bad magic, checksum, truncation,
  // damaged compressed data.
  damaged,
  // A checkpoint was given where a filter file belongs.
  is_checkpoint,
  // A file of the other mode: an exact set or its checkpoint where a Bloom
  // filter's file or checkpoint belongs, or the other way round. The
  // message names the file and what it is; the front end says how to use
  // it (the command: with or without --exact), as the library has no words
  // for the caller's mode.
  other_mode,
  // Host memory ran out. needed: the bytes asked for.
  out_of_memory,
  // The system refused a thread. needed: the threads asked for.
  thread_limit,
  // No filter for the capacity reaches the false-positive rate within the
  // 128 TiB size limit. needed: more than available; available: the limit in
  // bytes.
  plan_infeasible,
  // The filter and the device's batch buffers do not fit in the device's free
  // memory. needed: bytes of filter, smallest buffers and the reserve
  // together; available: free bytes.
  device_memory,
  // The device backend cannot run here: not built, no driver, an older
  // driver, no device, kernels not loadable on it.
  no_device,
  // A record is longer than the record length limit, or than memory allows
  // below it. needed: the bytes the record needs at least; available: the
  // limit.
  record_too_long,
  // The reader of the output went away (EPIPE): not a failure of ours; a
  // command line ends quietly (`gdedup ... | head`).
  broken_pipe,
  // An input is in a format gdedup does not decode (lz4's legacy format,
  // Unix compress, lzip); a decompressor in front of it would do.
  unsupported_format,
  // An input changed while it was being read: its records may be mixed
  // from two versions of it.
  input_changed,
  // A resume does not match the run its checkpoint was taken of: an input,
  // the output, an option or the filter differs from what it recorded.
  resume_mismatch,
  // Filters whose keys were made by different key rules (selection,
  // normalization, separator, input format, seed), merged or used together:
  // their keys would not meet.
  key_rules_mismatch,
  // A filter far past its plan, which would take new keys for old ones in
  // every job that used it: not saved unless the caller insists.
  filter_overfull,
  // An exact set would grow past the memory it may take. needed: the bytes
  // it would take; available: the cap.
  set_full,
  // A decoder (gzip, bzip2, xz, zstd, lz4) could not get the memory for its
  // state or for the window or dictionary its stream's header asks for (at
  // most 2 GiB, docs/HARDENING.md): the process's memory limit, or the
  // memory left beside the filter, is too small for the input.
  decoder_memory,
};

// A failure while doing the work: I/O, a damaged file, no device.
class Error : public std::runtime_error {
 public:
  explicit Error(const std::string& what, ErrorKind kind = ErrorKind::failure,
                 uint64_t needed = 0, uint64_t available = 0)
      : std::runtime_error(what), kind_(kind), needed_(needed), available_(available) {}
  // The same failure told with more context (`what` replaces the message):
  // kind and numbers are kept.
  Error(const std::string& what, const Error& cause)
      : std::runtime_error(what),
        kind_(cause.kind_),
        needed_(cause.needed_),
        available_(cause.available_) {}

  ErrorKind kind() const noexcept { return kind_; }
  uint64_t needed() const noexcept { return needed_; }
  uint64_t available() const noexcept { return available_; }

 private:
  ErrorKind kind_;
  uint64_t needed_;
  uint64_t available_;
};

// A request that can never succeed as stated: a parameter out of range,
// filters with different layouts. The command line exits with status 2.
class UsageError : public Error {
 public:
  explicit UsageError(const std::string& what, ErrorKind kind = ErrorKind::invalid_argument,
                      uint64_t needed = 0, uint64_t available = 0)
      : Error(what, kind, needed, available) {}
  UsageError(const std::string& what, const UsageError& cause) : Error(what, cause) {}
};

// `text` followed by the sentence `more`, for a message told with more
// context (what a failed job's files now hold): `text` gets a period unless
// it ends a sentence already, then one space and `more` (its leading spaces
// dropped). `text` alone when `more` is blank.
inline std::string add_sentence(std::string text, const std::string& more) {
  const size_t start = more.find_first_not_of(' ');
  if (start == std::string::npos) return text;
  while (!text.empty() && text.back() == ' ') text.pop_back();
  if (!text.empty() && text.back() != '.' && text.back() != '!' && text.back() != '?') {
    text += '.';
  }
  return text + (text.empty() ? "" : " ") + more.substr(start);
}

// Whether `e`, from std::thread, is the system refusing a new thread for
// want of resources (EAGAIN, ENOMEM: no memory for its stack under a limit
// such as ulimit -v, or the process limit reached).
inline bool is_thread_refusal(const std::system_error& e) {
  return e.code() == std::errc::resource_unavailable_try_again ||
         e.code() == std::errc::not_enough_memory;
}

// The Error (thread_limit, `threads` needed) for such a refusal, naming what
// could not start ("the CPU backend's 9 threads").
inline Error thread_refused(const std::string& what, const std::system_error& e,
                            uint64_t threads = 0) {
  return Error("cannot start " + what + ": the system refused a thread (" + e.code().message() +
                   "), for lack of memory (a limit such as ulimit -v) or over the process "
                   "limit; fewer threads or more memory would do.",
               ErrorKind::thread_limit, threads);
}

}  // namespace gdedup
