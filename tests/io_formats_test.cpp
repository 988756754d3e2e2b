// The compressed formats beyond gzip and zstd's plain frames: xz, bzip2 and
// lz4 are decoded, skippable frames (pzstd) are looked past, gzip's trailing
// zero padding is accepted, and formats that are recognised but not decoded
// are refused. Whatever the format, compressed bytes never come out as
// records.
#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <functional>
#include <random>
#include <string>
#include <vector>

#include "codec_util.h"
#include "file_util.h"
#include "gdedup/error.h"
#include "io/byte_source.h"
#include "io/decoder_source.h"
#include "test_util.h"

namespace gdedup::io {
namespace {

using Compressor = std::function<std::string(const std::string&)>;

class IoFormats : public test::TempDirTest {
 protected:
  IoFormats() : TempDirTest("io_formats") {}
  std::string write(const std::string& name, const std::string& bytes) {
    const std::string p = path(name);
    std::ofstream(p, std::ios::binary) << bytes;
    return p;
  }
};

std::string lines(uint64_t seed, size_t count) {
  std::mt19937_64 rng(seed);
  std::string s;
  for (size_t i = 0; i < count; ++i) s += "https://h" + std::to_string(rng() % 100000) + ".org/\n";
  return s;
}

// Everything `src` hands out, in reads of `chunk` bytes; *error gets the
// failure's message, if any.
std::string drain(ByteSource& src, size_t chunk, std::string* error = nullptr) {
  std::string out;
  std::vector<char> buf(chunk);
  try {
    while (size_t n = src.read(buf.data(), buf.size())) out.append(buf.data(), n);
  } catch (const Error& e) {
    if (error == nullptr) throw;
    *error = e.what();
  }
  return out;
}

const std::vector<std::pair<const char*, Compressor>>& decoded_formats() {
  static const std::vector<std::pair<const char*, Compressor>> formats = {
      {"xz", test::xz}, {"bzip2", test::bzip2}, {"lz4", test::lz4}};
  return formats;
}

TEST_F(IoFormats, DetectsEveryMagic) {
  const std::string text = "a\nb\n";
  EXPECT_EQ(detect_compression(test::xz(text).data(), 10), Compression::xz);
  EXPECT_EQ(detect_compression(test::bzip2(text).data(), 10), Compression::bzip2);
  EXPECT_EQ(detect_compression(test::bzip2("").data(), 10), Compression::bzip2);
  EXPECT_EQ(detect_compression(test::lz4(text).data(), 10), Compression::lz4);
  for (char low : {'\x50', '\x5a', '\x5f'}) {
    const std::string magic = std::string(1, low) + "\x2a\x4d\x18";
    EXPECT_EQ(detect_compression(magic.data(), 4), Compression::skippable) << int(low);
  }
  EXPECT_EQ(detect_compression("\x4f\x2a\x4d\x18", 4), Compression::none);
  EXPECT_EQ(detect_compression("\x02\x21\x4c\x18", 4), Compression::lz4_legacy);
  EXPECT_EQ(detect_compression("\x1f\x9d\x90", 3), Compression::unix_compress);
  EXPECT_EQ(detect_compression("LZIP\x01", 5), Compression::lzip);
  EXPECT_EQ(detect_compression("ARROW1\0\0", 8), Compression::arrow_ipc);
  EXPECT_EQ(detect_compression("ARROW", 5), Compression::none);
  // Text that only starts like bzip2 stays text.
  EXPECT_EQ(detect_compression("BZh9 is a line\n", 15), Compression::none);
  EXPECT_EQ(detect_compression("BZh9", 4), Compression::none);
}

TEST_F(IoFormats, XzBzip2AndLz4DecodeToTheSameBytes) {
  const std::string text = lines(1, 40000);
  const std::string part1 = text.substr(0, text.size() / 3), part2 = text.substr(text.size() / 3);
  for (const auto& [format, compress] : decoded_formats()) {
    // One stream, and two concatenated (what parallel compressors write).
    for (const std::string& bytes : {compress(text), compress(part1) + compress(part2)}) {
      const std::string p = write("in", bytes);
      for (size_t chunk : {size_t{1} << 20, size_t{7}}) {
        auto src = open_input(p);
        EXPECT_EQ(drain(*src, chunk), text) << format << " in chunks of " << chunk;
        EXPECT_EQ(src->raw_bytes_read(), bytes.size()) << format;
      }
    }
    EXPECT_EQ(drain(*open_input(write("empty", compress(""))), 64), "") << format;
  }
}

TEST_F(IoFormats, SkippableFramesBeforeTheDataAreLookedPast) {
  const std::string text = lines(2, 20000);
  // pzstd: a skippable frame with the frame's size, then the frame.
  const std::string zst = test::zstd(text);
  const std::string pz = test::skippable_frame(std::string(4, '\x11')) + zst;
  EXPECT_EQ(drain(*open_input(write("p.zst", pz)), 4096), text);
  // Several, and one before lz4 data: the first real frame decides.
  const std::string two = test::skippable_frame("meta") + test::skippable_frame("") + zst;
  EXPECT_EQ(drain(*open_input(write("two.zst", two)), 4096), text);
  const std::string lz = test::skippable_frame("x") + test::lz4(text);
  EXPECT_EQ(drain(*open_input(write("s.lz4", lz)), 4096), text);
  // Nothing but a skippable frame: no records, no error.
  EXPECT_EQ(drain(*open_input(write("only", test::skippable_frame("abc"))), 64), "");
}

TEST_F(IoFormats, TruncatedStreamsDeliverTheirStartThenFail) {
  const std::string text = lines(3, 60000);
  for (const auto& [format, compress] : decoded_formats()) {
    const std::string whole = compress(text);
    const std::string p = write("cut", whole.substr(0, whole.size() * 3 / 4));
    std::string error;
    const std::string got = drain(*open_input(p), 1 << 16, &error);
    EXPECT_LT(got.size(), text.size()) << format;
    EXPECT_EQ(text.compare(0, got.size(), got), 0) << format << ": not a prefix";
    EXPECT_EQ(error.rfind(p + ": " + format + " stream ends early (truncated)", 0), 0u)
        << format << ": " << error;
  }
}

TEST_F(IoFormats, DamageAndTrailingGarbageAreRefused) {
  const std::string text = lines(4, 30000);
  for (const auto& [format, compress] : decoded_formats()) {
    const std::string good = compress(text);
    std::string bad = good;
    for (size_t i = 0; i < 16; ++i) bad[bad.size() / 2 + i] ^= 0x5a;
    // Checksums are checked at the end of a block or frame, so bytes before
    // that may come out: the error must follow.
    std::string error;
    drain(*open_input(write("bad", bad)), 1 << 16, &error);
    EXPECT_NE(error.find(std::string(format) + " stream "), std::string::npos)
        << format << ": " << error;
    error.clear();
    drain(*open_input(write("junk", good + "junk after the end\n")), 1 << 16, &error);
    EXPECT_NE(error.find(std::string(format) + " stream is damaged"), std::string::npos)
        << format << ": " << error;
  }
}

// The bytes a refusal says the header asked for; 0 where it names none.
uint64_t asked_bytes(const std::string& error) {
  const size_t at = error.find(" asks for ");
  return at == std::string::npos ? 0 : std::stoull(error.substr(at + 10));
}

TEST_F(IoFormats, HeadersAskingForMoreMemoryThanTheCeilingAreRefused) {
  const std::string text = lines(9, 40);
  // What xz writes decodes: -9e (64 MiB), --lzma2=dict=1GiB, and its
  // largest dictionary, 1536 MiB. liblzma allocates it without touching it.
  const std::string xz = test::xz(text);
  for (uint8_t dictionary : {28, 36, 37}) {
    const std::string p = write("ok.xz", test::with_xz_dictionary(xz, dictionary));
    EXPECT_EQ(drain(*open_input(p), 4096), text) << int{dictionary};
  }
  // Past the ceiling (2 GiB, and 4 GiB - 1 the most a header can ask), it
  // is refused before liblzma allocates, also after a good stream.
  for (uint8_t dictionary : {38, 40}) {
    const std::string p = write("big.xz", xz + test::with_xz_dictionary(xz, dictionary));
    std::string error;
    EXPECT_EQ(drain(*open_input(p), 4096, &error), text);
    EXPECT_EQ(error.rfind(p + ": xz stream at compressed byte offset ", 0), 0u) << error;
    EXPECT_GT(asked_bytes(error), kDecoderMemoryCeiling) << error;
    EXPECT_GE(asked_bytes(error), (uint64_t{2} << 30) - (dictionary == 40)) << error;
    EXPECT_NE(error.find("more than the 2147483648 (2 GiB) a decoder may take"),
              std::string::npos) << error;
  }
  // zstd: a 2 GiB window (zstd --long=31) decodes; 2.25 GiB, 4 GiB, and the
  // most a header can ask, 3.75 TiB, are refused, naming that window.
  EXPECT_EQ(drain(*open_input(write("ok.zst", test::zstd_with_window(text, 0xa8))), 4096), text);
  for (const auto& [descriptor, window] :
       std::vector<std::pair<uint8_t, uint64_t>>{{0xa9, uint64_t{9} << 28},
                                                 {0xb0, uint64_t{1} << 32},
                                                 {0xff, uint64_t{15} << 38}}) {
    const std::string p =
        write("big.zst", test::zstd(text) + test::zstd_with_window(text, descriptor));
    std::string error;
    EXPECT_EQ(drain(*open_input(p), 4096, &error), text);
    EXPECT_EQ(error.rfind(p + ": zstd stream at compressed byte offset ", 0), 0u) << error;
    EXPECT_EQ(asked_bytes(error), window) << error;
  }
}

// What decoding `path` in a child whose address space is capped at 1 GiB
// gives: "out of memory: MESSAGE", "other: MESSAGE", or "decoded".
std::string decode_with_little_memory(const std::string& path) {
  int pipe_fds[2];
  if (::pipe(pipe_fds) != 0) return "pipe failed";
  const pid_t child = ::fork();
  if (child == 0) {
    ::close(pipe_fds[0]);
    rlimit limit{uint64_t{1} << 30, uint64_t{1} << 30};
    ::setrlimit(RLIMIT_AS, &limit);
    std::string got = "decoded";
    try {
      drain(*open_input(path), 4096);
    } catch (const Error& e) {
      got = (e.kind() == ErrorKind::decoder_memory ? "out of memory: " : "other: ") +
            std::string(e.what());
    }
    (void)!::write(pipe_fds[1], got.data(), got.size());
    ::_exit(0);
  }
  ::close(pipe_fds[1]);
  std::string got;
  char buffer[512];
  ssize_t n;
  while ((n = ::read(pipe_fds[0], buffer, sizeof buffer)) > 0) got.append(buffer, n);
  ::close(pipe_fds[0]);
  int status = 0;
  ::waitpid(child, &status, 0);
  return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? got : "child crashed";
}

TEST_F(IoFormats, AHeaderWithinTheCeilingTheMachineCannotMeetIsOutOfMemoryNotDamage) {
  if (test::kAddressSanitizer) {
    GTEST_SKIP() << "AddressSanitizer reserves more address space than the cap";
  }
  const std::string text = lines(10, 40);
  for (const auto& [name, bytes] : std::vector<std::pair<std::string, std::string>>{
           {"big.zst", test::zstd_with_window(text, 0xa8)},
           {"big.xz", test::with_xz_dictionary(test::xz(text), 37)}}) {
    const std::string p = write(name, bytes);
    const std::string got = decode_with_little_memory(p);
    EXPECT_EQ(got.rfind("out of memory: " + p + ": the ", 0), 0u) << got;
    EXPECT_NE(got.find(" decoder ran out of memory at compressed byte offset "),
              std::string::npos) << got;
  }
}

TEST_F(IoFormats, GzipZeroPaddingAfterTheLastMemberIsAccepted) {
  const std::string text = lines(5, 5000);
  const std::string gz = test::gzip(text);
  for (size_t zeros : {size_t{1}, size_t{512}, size_t{3} << 20}) {
    const std::string p = write("pad.gz", gz + std::string(zeros, '\0'));
    for (size_t chunk : {size_t{1} << 16, size_t{5}}) {
      EXPECT_EQ(drain(*open_input(p), chunk), text) << zeros << " zeros";
    }
  }
  // Padding followed by anything else is damage, reported where it is.
  std::string error;
  const std::string p = write("padjunk.gz", gz + std::string(100, '\0') + "x");
  EXPECT_EQ(drain(*open_input(p), 1 << 16, &error), text);
  EXPECT_EQ(error, p + ": gzip stream is damaged at compressed byte offset " +
                       std::to_string(gz.size() + 100) +
                       " (a non-zero byte in the zero padding after the last member).");
}

TEST_F(IoFormats, RecognisedButUndecodedFormatsAreRefused) {
  const std::pair<const char*, const char*> cases[] = {
      {"\x02\x21\x4c\x18\x10\x00\x00\x00", "lz4's legacy format"},
      {"\x1f\x9d\x90\x61\x0a", "Unix compress"},
      {"LZIP\x01\x0c\x00", "lzip"},
      {"ARROW1\0\0\xff\xff\xff\xff", "an Arrow IPC file"}};
  for (const auto& [bytes, what] : cases) {
    const std::string p = write("in", bytes);
    try {
      open_input(p);
      ADD_FAILURE() << what << " was opened";
    } catch (const Error& e) {
      EXPECT_EQ(std::string(e.what()).rfind(p + " is ", 0), 0u) << e.what();
      EXPECT_NE(std::string(e.what()).find(what), std::string::npos) << e.what();
    }
  }
}

}  // namespace
}  // namespace gdedup::io
