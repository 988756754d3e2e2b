// Reading either kind of gdedup file. A filter file and a checkpoint are both
// a 4096-byte header with the filter fields at the same offsets, the bit
// array, and for a checkpoint a trailer (the resume state) (docs/FORMAT.md).
// One verifier checks what they share -- magic, version, header size,
// reserved bytes, header checksum, filter parameters, bit array size, exact
// length, bit array checksum -- before anything the header's numbers decide
// is allocated or trusted, so both kinds refuse the same damage in the same
// words and the first problem found is the one reported.
#pragma once

#include <cstdint>
#include <string>

#include "format/filter_file_format.h"
#include "fs/file_ops.h"
#include "gdedup/error.h"

namespace gdedup::format {

// What tells the kinds apart, and the words their refusals use.
struct FileKind {
  std::string name;             // "filter file", "checkpoint"
  const char* magic;            // kMagic or kCheckpointMagic (8 bytes)
  uint32_t version;             // the newest version read
  uint32_t oldest_version = 0;  // the oldest version read; 0: `version` only
  size_t reserved_from;         // offset of the first reserved header byte
  std::string other_name;       // the kind a file of this kind is mistaken for
  const char* other_magic;
  // The kind of the refusal "is a gdedup OTHER, not a NAME".
  ErrorKind other_error = ErrorKind::damaged;
  std::string version_advice;   // follows "... but this program reads only version N; "
  std::string damage_advice;    // follows "is damaged: ..."; "" for none
  // A refusal reads: prefix + path + " " + problem + suffix.
  std::string prefix;
  std::string suffix;
};

// Throws Error of `error` kind: damage unless said otherwise.
[[noreturn]] void refuse(const FileKind& kind, const std::string& path,
                         const std::string& problem, ErrorKind error = ErrorKind::damaged);

struct VerifiedFile {
  fs::File file;
  unsigned char header[filter_file::kHeaderBytes];
  uint32_t version = 0;
  filter_file::FilterFields fields;  // headers that hold them (open_verified)
  uint64_t size = 0;  // bytes when it was opened
};

// Opens `path`, refusing what is not a regular file, and notes its size.
void open_regular(const FileKind& kind, const std::string& path, VerifiedFile& out);
// Reads up to `length` bytes from the start of the file; returns how many
// there were.
int64_t read_head(const FileKind& kind, const VerifiedFile& f, void* into, uint64_t length);

// Opens `path` and verifies what every version's header has: the magic, a
// version the kind reads, the header checksum and the header size. Throws
// Error (refuse()) naming the file and its first problem.
void open_header(const FileKind& kind, const std::string& path, VerifiedFile& out);

// Refuses a header with a nonzero byte from `from` to the header checksum.
void check_reserved(const FileKind& kind, const VerifiedFile& f, size_t from);

// Refuses filter fields whose parameters this program cannot use or whose
// bit array size disagrees with them; `subject` names whose fields they are
// ("layer 2"), "" for the header's.
void check_filter_fields(const FileKind& kind, const std::string& path,
                         const filter_file::FilterFields& f, const std::string& subject);

// open_header, then the reserved bytes from kind.reserved_from and the
// filter fields of a header that holds one filter (version 1 filter files,
// checkpoints).
void open_verified(const FileKind& kind, const std::string& path, VerifiedFile& out);

// Refuses a file that is not exactly its header, its bit array and
// `trailer_bytes` more, the trailer being called `trailer_name` ("" when the
// kind has none).
void check_length(const FileKind& kind, const VerifiedFile& f, uint64_t trailer_bytes,
                  const std::string& trailer_name);

// Reads `length` bytes at `offset` into `buffer`; refuses a file that
// became shorter since it was verified.
void read_exactly(const FileKind& kind, const VerifiedFile& f, void* buffer, uint64_t length,
                  uint64_t offset);

// Reads `bytes` bytes of a bit array at `offset` into `words`, refusing the
// file unless their XXH3-64 is `checksum`; `what` names the array in the
// refusal ("bit array", "layer 2's bit array").
void read_bit_array(const FileKind& kind, const VerifiedFile& f, uint64_t offset, uint64_t bytes,
                    uint64_t checksum, uint32_t* words, const std::string& what);

// Reads bytes [from, from + length) of the `bytes`-byte bit array at `offset`
// into `into`: the part a rank of an MPI job holds. With `verify_all` also
// reads the whole array once more, a piece at a time (nothing held), and
// refuses the file unless its XXH3-64 is `checksum`. Throws UsageError for a
// range outside the array.
void read_bit_array_slice(const FileKind& kind, const VerifiedFile& f, uint64_t offset,
                          uint64_t bytes, uint64_t checksum, uint64_t from, uint64_t length,
                          unsigned char* into, bool verify_all, const std::string& what);
// Refuses the file unless `got`, the XXH3-64 of a bit array read or mapped,
// is `checksum`; `what` names the array, as read_bit_array's do.
void check_bit_array(const FileKind& kind, const VerifiedFile& f, uint64_t got,
                     uint64_t checksum, const std::string& what);

// Reads the bit array that follows the header into `words`
// (fields.payload_bytes of them), checking its checksum.
void read_payload(const FileKind& kind, const VerifiedFile& f, uint32_t* words);

}  // namespace gdedup::format
