// Compressors for the tests of the input decoders: each returns `in` as one
// complete stream of its format, made with the format's own library.
#pragma once

#include <bzlib.h>
#include <lz4frame.h>
#include <lzma.h>
#include <zlib.h>
#include <zstd.h>

#include <cstdlib>
#include <string>

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

}  // namespace gdedup::test
