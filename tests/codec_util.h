// Compressors for the tests of the input decoders: each returns `in` as one
// complete stream of its format, made with the format's own library.
#pragma once

#include <bzlib.h>
#include <lz4frame.h>
#include <lzma.h>
#include <zlib.h>
#include <zstd.h>

#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

namespace gdedup::test {

inline std::string gzip(const std::string& in, int level = 6) {
  z_stream z{};
  if (deflateInit2(&z, level, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK) std::abort();
  std::string out(deflateBound(&z, in.size()) + 64, '\0');
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data()));
  z.avail_in = static_cast<uInt>(in.size());
  z.next_out = reinterpret_cast<Bytef*>(out.data());
  z.avail_out = static_cast<uInt>(out.size());
  if (deflate(&z, Z_FINISH) != Z_STREAM_END) std::abort();
  out.resize(z.total_out);
  deflateEnd(&z);
  return out;
}

inline std::string zstd(const std::string& in, bool checksum = false) {
  ZSTD_CCtx* c = ZSTD_createCCtx();
  ZSTD_CCtx_setParameter(c, ZSTD_c_compressionLevel, 3);
  ZSTD_CCtx_setParameter(c, ZSTD_c_checksumFlag, checksum ? 1 : 0);
  std::string out(ZSTD_compressBound(in.size()), '\0');
  const size_t n = ZSTD_compress2(c, out.data(), out.size(), in.data(), in.size());
  if (ZSTD_isError(n)) std::abort();
  ZSTD_freeCCtx(c);
  out.resize(n);
  return out;
}

inline std::string xz(const std::string& in) {
  std::string out(lzma_stream_buffer_bound(in.size()), '\0');
  size_t n = 0;
  if (lzma_easy_buffer_encode(1, LZMA_CHECK_CRC64, nullptr,
                              reinterpret_cast<const uint8_t*>(in.data()), in.size(),
                              reinterpret_cast<uint8_t*>(out.data()), &n, out.size()) != LZMA_OK) {
    std::abort();
  }
  out.resize(n);
  return out;
}

inline std::string bzip2(const std::string& in) {
  unsigned int n = static_cast<unsigned int>(in.size() + in.size() / 100 + 600);
  std::string out(n, '\0');
  if (BZ2_bzBuffToBuffCompress(out.data(), &n, const_cast<char*>(in.data()),
                               static_cast<unsigned int>(in.size()), 1, 0, 0) != BZ_OK) {
    std::abort();
  }
  out.resize(n);
  return out;
}

// With a content checksum, as the lz4 tool writes by default.
inline std::string lz4(const std::string& in) {
  LZ4F_preferences_t prefs{};
  prefs.frameInfo.contentChecksumFlag = LZ4F_contentChecksumEnabled;
  std::string out(LZ4F_compressFrameBound(in.size(), &prefs), '\0');
  const size_t n = LZ4F_compressFrame(out.data(), out.size(), in.data(), in.size(), &prefs);
  if (LZ4F_isError(n)) std::abort();
  out.resize(n);
  return out;
}

// A zstd/lz4 skippable frame of `payload`, as pzstd writes before its data.
inline std::string skippable_frame(const std::string& payload) {
  std::string frame("\x50\x2a\x4d\x18", 4);
  const auto size = static_cast<uint32_t>(payload.size());
  for (int i = 0; i < 4; ++i) frame.push_back(static_cast<char>(size >> (8 * i)));
  return frame + payload;
}

// `text` cut into chunks of `chunk` bytes (the last shorter).
inline std::vector<std::string> chunks(const std::string& text, size_t chunk) {
  std::vector<std::string> out;
  for (size_t at = 0; at < text.size(); at += chunk) out.push_back(text.substr(at, chunk));
  return out;
}

// `v` as `bytes` little-endian bytes.
inline std::string le(uint64_t v, int bytes) {
  std::string s;
  for (int i = 0; i < bytes; ++i) s.push_back(static_cast<char>(v >> (8 * i)));
  return s;
}

// One BGZF member (the SAM/BAM specification's block): a gzip member whose
// extra field "BC" holds the member's length less one.
inline std::string bgzf_member(const std::string& data) {
  z_stream z{};
  if (deflateInit2(&z, 6, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY) != Z_OK) std::abort();
  std::string deflated(deflateBound(&z, data.size()), '\0');
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));
  z.avail_in = static_cast<uInt>(data.size());
  z.next_out = reinterpret_cast<Bytef*>(deflated.data());
  z.avail_out = static_cast<uInt>(deflated.size());
  if (deflate(&z, Z_FINISH) != Z_STREAM_END) std::abort();
  deflated.resize(z.total_out);
  deflateEnd(&z);
  const size_t total = 18 + deflated.size() + 8;
  if (total > 65536) std::abort();
  const uLong crc = crc32(0, reinterpret_cast<const Bytef*>(data.data()),
                          static_cast<uInt>(data.size()));
  return std::string("\x1f\x8b\x08\x04\0\0\0\0\0\xff\x06\0BC\x02\0", 16) + le(total - 1, 2) +
         deflated + le(crc, 4) + le(data.size(), 4);
}

// What bgzip writes: members of at most 64 KiB of data, then an empty one.
inline std::string bgzf(const std::string& text, size_t chunk = 60000) {
  std::string out;
  for (const std::string& c : chunks(text, chunk)) out += bgzf_member(c);
  return out + bgzf_member("");
}

inline std::string gzip_members(const std::string& text, size_t chunk) {
  std::string out;
  for (const std::string& c : chunks(text, chunk)) out += test::gzip(c);
  return out;
}

// Frames of `chunk` bytes each; with `pzstd`, each after a skippable frame
// holding its size, as pzstd writes; with `seek_table`, followed by the
// seekable format's seek table (a skippable frame of sizes and a footer).
inline std::string zstd_frames(const std::string& text, size_t chunk, bool pzstd = false,
                               bool seek_table = false) {
  std::string out, table;
  uint32_t frames = 0;
  for (const std::string& c : chunks(text, chunk)) {
    const std::string frame = test::zstd(c, /*checksum=*/true);
    if (pzstd) out += test::skippable_frame(le(frame.size(), 4));
    out += frame;
    table += le(frame.size(), 4) + le(c.size(), 4);
    ++frames;
  }
  if (seek_table) {
    std::string frame = test::skippable_frame(table + le(frames, 4) + '\0' + le(0x8F92EAB1, 4));
    frame[0] = '\x5e';  // magic 0x184D2A5E
    out += frame;
  }
  return out;
}

// `xz` with the LZMA2 dictionary size byte of its (first) block header set
// to `dictionary`: (2 | b & 1) << (b / 2 + 11) bytes, 4 GiB - 1 at 40.
inline std::string with_xz_dictionary(std::string xz, uint8_t dictionary) {
  const size_t header = 12, size = (static_cast<uint8_t>(xz[header]) + 1) * 4;
  const uint8_t flags = static_cast<uint8_t>(xz[header + 1]);
  size_t at = header + 2;
  // Past the compressed and uncompressed sizes where given (variable-length
  // integers), to the one filter: LZMA2 (0x21) with one byte of properties.
  for (uint8_t given : {0x40, 0x80}) {
    if (flags & given) {
      while (xz[at++] & 0x80) {}
    }
  }
  if ((flags & 3) != 0 || xz.compare(at, 2, "\x21\x01") != 0) std::abort();
  xz[at + 2] = static_cast<char>(dictionary);
  const uint32_t crc =
      lzma_crc32(reinterpret_cast<const uint8_t*>(xz.data() + header), size - 4, 0);
  for (size_t i = 0; i < 4; ++i) xz[header + size - 4 + i] = static_cast<char>(crc >> (8 * i));
  return xz;
}

// One zstd frame of `text` (at most 128 KiB) in a raw block, whose header
// asks for the window its `descriptor` byte names.
inline std::string zstd_with_window(const std::string& text, uint8_t descriptor) {
  const uint32_t block = 1 | static_cast<uint32_t>(text.size()) << 3;  // last, raw
  return std::string("\x28\xb5\x2f\xfd\x00", 5) + static_cast<char>(descriptor) +
         static_cast<char>(block) + static_cast<char>(block >> 8) +
         static_cast<char>(block >> 16) + text;
}

}  // namespace gdedup::test
