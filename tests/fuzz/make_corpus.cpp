// Writes the seed corpus of every fuzz target into CORPUS_DIR/<target>/:
//   fuzz_make_corpus tests/fuzz/corpus
// Deterministic: the same files every time. Each seed is small (a few KiB at
// most). Findings are added by hand next to these, named regress-*.
#include <sys/stat.h>
#include <zlib.h>
#include <zstd.h>

#include <cstdint>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "../codec_util.h"
#include "format/file_writer.h"
#include "format/filter_file_format.h"
#include "gdedup/backend.h"
#include "gdedup/checkpoint.h"
#include "gdedup/filter.h"
#include "gdedup/filter_file.h"
#include "gdedup/key_set.h"
#include "gdedup/layered_filter.h"
#include "gdedup/set_file.h"

namespace {

namespace ff = gdedup::filter_file;

std::string g_root;

void put(const std::string& target, const std::string& name, const std::string& bytes) {
  const std::string dir = g_root + "/" + target;
  ::mkdir(g_root.c_str(), 0755);
  ::mkdir(dir.c_str(), 0755);
  std::ofstream out(dir + "/" + name, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  if (!out) {
    std::fprintf(stderr, "cannot write %s/%s\n", dir.c_str(), name.c_str());
    std::exit(1);
  }
}

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

std::string gzip(const std::string& data) {
  z_stream z{};
  deflateInit2(&z, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY);
  std::string out(deflateBound(&z, data.size()) + 32, '\0');
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));
  z.avail_in = static_cast<uInt>(data.size());
  z.next_out = reinterpret_cast<Bytef*>(out.data());
  z.avail_out = static_cast<uInt>(out.size());
  deflate(&z, Z_FINISH);
  out.resize(z.total_out);
  deflateEnd(&z);
  return out;
}

std::string zstd(const std::string& data) {
  std::string out(ZSTD_compressBound(data.size()), '\0');
  out.resize(ZSTD_compress(out.data(), out.size(), data.data(), data.size(), 3));
  return out;
}

void filter_seeds() {
  const std::string tmp = "/tmp/gdedup-make-corpus.gdf";
  const gdedup::Layout layouts[] = {{256, 8}, {256, 16}, {512, 16}, {512, 32}};
  int n = 0;
  for (const auto& layout : layouts) {
    for (uint64_t blocks : {uint64_t{1}, uint64_t{3}}) {
      gdedup::Filter f(gdedup::FilterParams{blocks, layout, gdedup::kDefaultSeed + n});
      const uint64_t words = f.params().words();
      for (uint64_t i = 0; i < words; i += 3) f.words()[i] = 0x01010101u * static_cast<uint32_t>(i + 1);
      f.counters().insertions = 5 * blocks;
      f.counters().planned_capacity = 10 * blocks;
      f.counters().planned_fpr = 1e-4;
      // Version 1, as earlier releases wrote: still read.
      gdedup::format::write_file(tmp, "cannot save " + tmp,
                                 {ff::kMagic, ff::kVersion1, f.words(), f.params(), f.counters(),
                                  "", {}, {}});
      const std::string file = read_file(tmp);
      const std::string id = std::to_string(layout.block_bits) + "-" + std::to_string(layout.k) +
                             "-" + std::to_string(blocks);
      put("filter_file", "valid-" + id, std::string(1, '\0') + file);
      if (blocks == 1) {
        put("filter_file", "reseal-all-" + id, std::string(1, '\2') + file);
        std::string truncated = file.substr(0, file.size() - 5);
        put("filter_file", "truncated-" + id, std::string(1, '\0') + truncated);
      }
      ++n;
    }
  }
  std::remove(tmp.c_str());
  // Headers whose numbers are absurd, with valid checksums (mode 1 reseals).
  std::string base = read_file(g_root + "/filter_file/valid-256-8-1").substr(1);
  auto forged = [&](const std::string& name, uint64_t blocks, uint64_t payload) {
    std::string file = base.substr(0, ff::kHeaderBytes);
    auto* h = reinterpret_cast<unsigned char*>(file.data());
    ff::put_u64(h + ff::kOffNumBlocks, blocks);
    ff::put_u64(h + ff::kOffPayloadBytes, payload);
    put("filter_file", name, std::string(1, '\1') + file);
  };
  forged("huge-2e60-blocks", uint64_t{1} << 60, uint64_t{1} << 62);
  forged("big-2e40-blocks", uint64_t{1} << 40, uint64_t{1} << 45);
  forged("zero-blocks", 0, 0);
  forged("wrapping-payload", uint64_t{1} << 59, 0);
  put("filter_file", "not-a-filter", std::string(1, '\0') + "http://example.com/\n");
  put("filter_file", "magic-only", std::string(1, '\0') + "GDEDUPBF");
  put("filter_file", "empty", std::string(1, '\0'));
}

// Version 4: a fixed filter with key rules of NUL-separated records, and a
// growing one of several small layers, each as it is, resealed (mode 2) and
// truncated. The v2-* and v3-* seeds beside them, written the same way by
// versions 2 and 3, stay as they are: those versions are still read.
void filter_v4_seeds() {
  const std::string tmp = "/tmp/gdedup-make-corpus-v4.gdf";
  gdedup::Filter fixed(gdedup::FilterParams{2, {512, 16}, gdedup::kDefaultSeed});
  fixed.words()[3] = 0x80000001u;
  gdedup::KeyRules rules;
  rules.keys = gdedup::KeyOptions::parse("field:2", "comma", "url,drop-params:utm_*");
  rules.record_separator = '\0';
  gdedup::save_filter(fixed, tmp, rules);
  const std::string fixed_file = read_file(tmp);
  put("filter_file", "v4-fixed-rules", std::string(1, '\0') + fixed_file);
  put("filter_file", "v4-reseal-fixed-rules", std::string(1, '\2') + fixed_file);

  gdedup::GrowthRule rule;
  rule.first_capacity = 16;
  rule.check_every = 16;
  rule.target_fpr = 0.01;
  gdedup::LayeredFilter growing(rule, gdedup::kDefaultSeed, [](gdedup::Filter& layer) {
    return gdedup::make_cpu_backend(layer);
  });
  std::vector<uint64_t> keys;
  for (uint64_t i = 0; i < 100; ++i) keys.push_back(i * 0x9e3779b97f4a7c15ull);
  std::vector<uint8_t> present(keys.size());
  growing.test_and_set(keys.data(), keys.size(), present.data());
  growing.sync_to_host();
  gdedup::save_filter(growing, tmp, gdedup::KeyRules{});
  const std::string file = read_file(tmp);
  put("filter_file", "v4-growing", std::string(1, '\0') + file);
  put("filter_file", "v4-reseal-growing", std::string(1, '\2') + file);
  put("filter_file", "v4-truncated-growing", std::string(1, '\0') + file.substr(0, file.size() - 9));
  std::remove(tmp.c_str());
}

// Framing, batch bytes (2), batch records, largest piece, seed, layout.
std::string reader_header(int framing, uint16_t batch_bytes, uint8_t records, uint8_t piece,
                          uint8_t seed, uint8_t layout) {
  std::string h;
  h += static_cast<char>(framing);
  h += static_cast<char>(batch_bytes & 0xff);
  h += static_cast<char>(batch_bytes >> 8);
  h += static_cast<char>(records);
  h += static_cast<char>(piece);
  h += static_cast<char>(seed);
  h += static_cast<char>(layout);
  return h;
}

void reader_seeds() {
  std::string urls;
  for (int i = 0; i < 60; ++i) {
    urls += "https://example.com/page/" + std::to_string(i % 17) + "?q=" + std::to_string(i) + "\n";
  }
  std::string long_line(3000, 'x');
  const std::vector<std::pair<std::string, std::string>> payloads = {
      {"urls", urls},
      {"no-final-newline", "a\nbb\nccc"},
      {"empty-lines", "\n\n\n\nx\n\n"},
      {"crlf-nul", std::string("a\r\nb\0c\r\n\xff\xfe\n", 11)},
      {"long-line", "short\n" + long_line + "\nend\n"},
      {"one-byte", "z"},
      {"empty", ""},
  };
  int i = 0;
  for (const auto& [name, payload] : payloads) {
    for (int framing = 0; framing < 3; ++framing) {
      const uint16_t batch_bytes = static_cast<uint16_t>(1 + (i * 37) % 200);
      put("record_reader", "f" + std::to_string(framing) + "-" + name,
          reader_header(framing, batch_bytes, static_cast<uint8_t>(i * 29), 7,
                        static_cast<uint8_t>(i), static_cast<uint8_t>(i * 5)) + payload);
      ++i;
    }
  }
  // The decoders added later, over the same payloads: a loop of their own,
  // so that the seeds above keep their bytes.
  int j = 0;
  for (const auto& [name, payload] : payloads) {
    for (int framing : {5, 6, 7}) {
      const uint16_t batch_bytes = static_cast<uint16_t>(1 + (j * 37) % 200);
      put("record_reader", "f" + std::to_string(framing) + "-" + name,
          reader_header(framing, batch_bytes, static_cast<uint8_t>(j * 29), 7,
                        static_cast<uint8_t>(j), static_cast<uint8_t>(j * 5)) + payload);
      ++j;
    }
  }
  // Real xz, bzip2 and lz4 streams for their decoders, intact and damaged.
  const std::pair<const char*, std::string> streams[] = {
      {"xz", gdedup::test::xz(urls)}, {"bzip2", gdedup::test::bzip2(urls)},
      {"lz4", gdedup::test::lz4(urls)}};
  int raw_framing = 8;
  for (const auto& [format, bytes] : streams) {
    const std::string h = reader_header(raw_framing++, 64, 200, 31, 1, 0);
    const std::string f = format;
    put("record_reader", f + "-intact", h + bytes);
    put("record_reader", f + "-two-streams", h + bytes + bytes);
    put("record_reader", f + "-truncated", h + bytes.substr(0, bytes.size() / 2));
    std::string damaged = bytes;
    damaged[damaged.size() / 2] ^= 0x20;
    put("record_reader", f + "-flipped", h + damaged);
    put("record_reader", f + "-trailing-garbage", h + bytes + "garbage");
  }
  // Headers asking for more memory than a decoder may take (refused before
  // anything is allocated), and the most xz and zstd write (taken: within
  // fuzz.sh's allocation limit for this target).
  const std::string xz = gdedup::test::xz(urls);
  put("record_reader", "xz-dictionary-4gib", reader_header(8, 64, 200, 31, 1, 0) +
                                                 gdedup::test::with_xz_dictionary(xz, 40));
  put("record_reader", "xz-dictionary-1536mib", reader_header(8, 64, 200, 31, 1, 0) +
                                                    gdedup::test::with_xz_dictionary(xz, 37));
  put("record_reader", "zstd-window-4gib",
      reader_header(4, 64, 200, 31, 1, 0) + gdedup::test::zstd_with_window("a\nb\n", 0xb0));
  put("record_reader", "zstd-window-2gib",
      reader_header(4, 64, 200, 31, 1, 0) + gdedup::test::zstd_with_window("a\nb\n", 0xa8));
  put("record_reader", "lz4-legacy-frame",
      reader_header(10, 64, 200, 31, 1, 0) + std::string("\x02\x21\x4c\x18\x05\x00\x00\x00", 8));
  // Real compressed streams for the decoders, intact and damaged.
  const std::string gz = gzip(urls);
  const std::string zs = zstd(urls);
  const std::string h3 = reader_header(3, 64, 200, 31, 1, 0);
  const std::string h4 = reader_header(4, 64, 200, 31, 1, 0);
  put("record_reader", "gzip-intact", h3 + gz);
  put("record_reader", "gzip-two-members", h3 + gz + gzip("tail\n"));
  put("record_reader", "gzip-truncated", h3 + gz.substr(0, gz.size() / 2));
  std::string flipped = gz;
  flipped[flipped.size() / 2] ^= 0x20;
  put("record_reader", "gzip-flipped", h3 + flipped);
  put("record_reader", "gzip-trailing-garbage", h3 + gz + "garbage");
  put("record_reader", "zstd-intact", h4 + zs);
  put("record_reader", "zstd-two-frames", h4 + zs + zstd("tail\n"));
  put("record_reader", "zstd-truncated", h4 + zs.substr(0, zs.size() / 2));
  flipped = zs;
  flipped[flipped.size() / 2] ^= 0x20;
  put("record_reader", "zstd-flipped", h4 + flipped);
  // A skippable frame (magic 0x184D2A50, 4-byte length) before the data.
  put("record_reader", "zstd-skippable",
      h4 + std::string("\x50\x2a\x4d\x18\x03\x00\x00\x00" "abc", 11) + zs);
  put("record_reader", "gzip-magic-only", h3 + "\x1f\x8b");
  put("record_reader", "gzip-zero-padding", h3 + gz + std::string(700, '\0'));
  put("record_reader", "gzip-zero-padding-then-junk", h3 + gz + std::string(70, '\0') + "j");
}

void key_seeds() {
  auto field = [](char delimiter, uint8_t n, uint8_t rules, const std::string& record) {
    std::string s;
    s += '\0';
    s += delimiter;
    s += static_cast<char>(n);
    s += static_cast<char>(rules);
    return s + record;
  };
  put("key_extract", "tab-field2", field('\t', 2, 0, "a\tbb\tccc"));
  put("key_extract", "tab-field4-missing", field('\t', 4, 0, "a\tbb\tccc"));
  put("key_extract", "comma-empty-fields", field(',', 2, 0, ",,x,"));
  put("key_extract", "url-field", field('\t', 2, 1, "id\t HTTP://Example.COM:80/%7ea#x \tz"));
  put("key_extract", "aggressive-field",
      field('|', 1, 2, "https://www.a.com/b/?utm_source=x&b=2&a=1|rest"));
  put("key_extract", "nul-delimiter", field('\0', 3, 3, std::string("a\0b\0c\0d", 7)));
  put("key_extract", "huge-field", field(';', 201, 0, "a;b;c"));
  put("key_extract", "whole", field('\t', 0, 4, "  MiXeD Case  "));
  auto text = [](const std::string& t) { return std::string(1, '\1') + t; };
  put("key_extract", "spec-field", text("field:12"));
  put("key_extract", "spec-max", text("field:4294967295"));
  put("key_extract", "spec-over", text("field:4294967296"));
  put("key_extract", "spec-whole", text("whole"));
  put("key_extract", "delim-hex", text("\\x1f"));
  put("key_extract", "delim-newline", text("\\x0a"));
  put("key_extract", "rules-list", text("url,sort-query,drop-params:utm_*|REF"));
  put("key_extract", "rules-aggressive", text("url-aggressive,none"));
}

// Hostile JSON and CDXJ (fuzz_structured_key.cpp): the mode byte picks the
// path (0 url, 1 a.b, 2 a.0, 3 0, 4 u\.rl, 5 a.b.c.0.d), CDXJ fields (6) or
// a spec's text (7).
void structured_key_seeds() {
  auto json = [](int path, const std::string& record) {
    return std::string(1, static_cast<char>(path)) + record;
  };
  std::string deep = "{\"url\":";
  for (int i = 0; i < 1100; ++i) deep += '[';
  deep += "\"x\"";
  for (int i = 0; i < 1100; ++i) deep += ']';
  deep += '}';
  put("structured_key", "plain", json(0, R"({"id":1,"url":"http://example.com/a"})"));
  put("structured_key", "spaces-and-escapes",
      json(0, R"( { "u\u0072l" : "http:\/\/a\/\u00e9\ud83d\ude00\u0000\"" } )"));
  put("structured_key", "duplicate-names", json(0, R"({"url":"first","url":"second"})"));
  put("structured_key", "object-value",
      json(0, R"({"url":{ "b" : [1 , 2.50, -0e+7, true, null], "a":{"a":1,"a":2} }})"));
  put("structured_key", "huge-numbers",
      json(0, R"({"url":123456789012345678901234567890123456789e99999})"));
  put("structured_key", "deep-nesting", json(0, deep));
  put("structured_key", "invalid-utf8", json(0, "{\"url\":\"\xff\xfe\",\"a\":\"\xc0\xaf\"}"));
  put("structured_key", "lone-surrogate", json(0, R"({"url":"\ud800"})"));
  put("structured_key", "broken-after", json(0, R"({"url":"a","b":tru,"c":[})"));
  put("structured_key", "trailing-garbage", json(0, R"({"url":"a"} x)"));
  put("structured_key", "nested-path", json(1, R"({"a":{"x":1,"b":"v"}})"));
  put("structured_key", "array-index", json(2, R"({"a":["zero","one"]})"));
  put("structured_key", "root-array", json(3, R"([{"u":1},2])"));
  put("structured_key", "dot-in-name", json(4, R"({"u.rl":"dotted","u":{"rl":"nested"}})"));
  put("structured_key", "long-path", json(5, R"({"a":{"b":{"c":[{"d":"deep"}]}}})"));
  put("structured_key", "not-json", json(0, "not json \x01\x02"));
  put("structured_key", "cdxj-line",
      json(6, R"(com,example)/a 20240101120000 {"url": "http://example.com/a", "status": "200"})"));
  put("structured_key", "cdxj-short", json(6, "com,example)/a"));
  put("structured_key", "spec-escapes", json(7, R"(json:a\.b[0].c\[\]\\)"));
  put("structured_key", "spec-cdxj-member", json(7, R"(cdxj:\surt)"));
  put("structured_key", "spec-bad", json(7, "json:a..b[x"));
  // More than one value, and values that are not JSON where the default
  // reading skips them but the strict one reads them.
  put("structured_key", "glued-records", json(0, R"({"url":"a"}{"url":"b"})"));
  put("structured_key", "not-json-before-key",
      json(0, R"({"v":[1,,2],"w":'single',"x":-NaN,"url":"a"})"));
  // Numbers past a double's range, which the DOM parser refuses: JSON.
  put("structured_key", "numbers-past-doubles",
      json(0, R"({"n":1e999,"m":-123456789012345678901234567890,"url":"a"})"));
  put("structured_key", "number-in-the-value", json(0, R"({"url":{"n":1.50e+3}})"));
  // A value nested 1024 deep (the most a record may hold) and one deeper.
  for (const int depth : {1024, 1025}) {
    const std::string record = "{\"d\":" + std::string(depth - 1, '[') + "1" +
                               std::string(depth - 1, ']') + ",\"url\":\"a\"}";
    put("structured_key", "nested-" + std::to_string(depth), json(0, record));
  }
}

void checkpoint_seeds() {
  const std::string tmp = "/tmp/gdedup-make-corpus.ckpt";
  gdedup::Filter f(gdedup::FilterParams{2, gdedup::Layout{256, 8}, gdedup::kDefaultSeed});
  for (uint64_t i = 0; i < f.params().words(); i += 2) f.words()[i] = 0x80402010u >> (i % 4);
  f.counters().insertions = 7;
  f.counters().planned_capacity = 100;
  f.counters().planned_fpr = 1e-3;
  gdedup::ResumeState state;
  state.keys = gdedup::KeyOptions::parse("field:2", "comma", "url");
  state.record_separator = '\0';
  state.output = "out.txt";
  state.output_temporary = "out.txt.tmp.x7k2qa";
  state.inputs.push_back({"a.txt.gz", true, 1234, 1700000000123456789, 0x1122334455667788});
  state.inputs.push_back({"-", false, 0, 0, 0});
  state.position = {10, 300, 1, 20};
  state.output_offset = 250;
  state.records = 10;
  state.kept = 7;
  state.dropped = 3;
  state.input_bytes = 300;
  gdedup::save_checkpoint(f, state, tmp);
  const std::string file = read_file(tmp);
  put("checkpoint_file", "valid", std::string(1, '\0') + file);
  put("checkpoint_file", "reseal-lengths", std::string(1, '\3') + file);
  put("checkpoint_file", "truncated-state", std::string(1, '\2') + file.substr(0, file.size() - 9));
  // The filter file the job saves to, noted (format version 6).
  gdedup::ResumeState noted = state;
  noted.filter_file = {true, true, {"seen.gdf", true, 4224, 1700000000987654321, 0x0102030405060708}};
  gdedup::save_checkpoint(f, noted, tmp);
  put("checkpoint_file", "filter-file", std::string(1, '\0') + read_file(tmp));
  gdedup::ResumeState empty;
  empty.mode = gdedup::Mode::kBuild;
  gdedup::save_checkpoint(f, empty, tmp);
  put("checkpoint_file", "build-no-inputs", std::string(1, '\0') + read_file(tmp));
  // A growing filter of three small layers, so mutations reach the growth
  // section and the later layers' section.
  gdedup::Checkpoint grown{std::move(f), state, {}};
  gdedup::GrowthState growth;
  growth.rule.first_capacity = 16;
  growth.rule.check_every = 8;
  growth.max_bytes = 1 << 20;
  growth.keys_offered = 40;
  grown.state.growth = growth;
  for (uint64_t blocks : {uint64_t{3}, uint64_t{5}}) {
    gdedup::Filter layer(gdedup::FilterParams{blocks, gdedup::Layout{256, 8}, gdedup::kDefaultSeed});
    layer.words()[blocks] = 0x01020408u;
    layer.counters().insertions = blocks;
    grown.later_layers.push_back(std::move(layer));
  }
  gdedup::save_checkpoint(grown, tmp);
  const std::string layered = read_file(tmp);
  put("checkpoint_file", "layers", std::string(1, '\0') + layered);
  put("checkpoint_file", "layers-resealed", std::string(1, '\2') + layered);
  put("checkpoint_file", "layers-truncated", std::string(1, '\2') + layered.substr(0, layered.size() - 5));
  std::remove(tmp.c_str());
  put("checkpoint_file", "not-a-checkpoint", std::string(1, '\0') + "GDEDUPBF");
}

// Exact mode's set files and set checkpoints: a few keys across the 84-bit
// range, none, and the checkpoint state above.
void set_seeds() {
  const std::string tmp = "/tmp/gdedup-make-corpus.gds";
  const std::vector<gdedup::Key84> keys = {0, 1, 5, gdedup::key84_of(0x0123456789abcdefull, 0),
                                           gdedup::key84_of(~0ull, ~0ull)};
  gdedup::KeySet set;
  set.insert(keys.data(), keys.size());
  gdedup::KeyRules rules;
  rules.keys = gdedup::KeyOptions::parse("field:2", "comma", "url");
  gdedup::save_set_file(set, rules, tmp);
  const std::string file = read_file(tmp);
  put("set_file", "valid", std::string(1, '\0') + file);
  put("set_file", "reseal-lengths", std::string(1, '\3') + file + std::string(3, '\xff'));
  put("set_file", "truncated-keys", std::string(1, '\2') + file.substr(0, file.size() - 2));
  gdedup::save_set_file(gdedup::KeySet(), gdedup::KeyRules{}, tmp);
  put("set_file", "empty-set", std::string(1, '\0') + read_file(tmp));
  gdedup::ResumeState state;
  state.output = "out.txt";
  state.inputs.push_back({"a.txt", true, 1234, 1700000000123456789, 0x1122334455667788});
  state.records = 9;
  state.kept = 5;
  state.dropped = 4;
  gdedup::save_set_checkpoint(set, rules, state, tmp);
  put("set_file", "checkpoint", std::string(1, '\0') + read_file(tmp));
  std::remove(tmp.c_str());
  put("set_file", "bloom-filter", std::string(1, '\0') + "GDEDUPBF");
}

// Crafted keys (fuzz_set_keys): `shared` top bits of `base` and `n` keys of
// 6 bytes each, counting up from `first` in steps of `step`.
std::string set_keys_seed(unsigned shared, const std::string& base, unsigned n, uint64_t first,
                          uint64_t step) {
  std::string seed(1, static_cast<char>(shared));
  seed += base;
  for (unsigned i = 0; i < n; ++i) {
    const uint64_t v = first + i * step;
    for (int b = 5; b >= 0; --b) seed += static_cast<char>((v >> (8 * b)) & 0xff);
  }
  return seed;
}

void set_keys_seeds() {
  const std::string base("\xa5\xc3\xf0\x0d\x12\x34\xab\xcd\x55\xaa\x01", 11);
  const std::string top(11, '\xff');
  put("set_keys", "share-76-bits", set_keys_seed(76, base, 200, 0, 1));
  put("set_keys", "share-20-bits", set_keys_seed(20, base, 130, 0x123456, 0x9e3779b97f4b));
  put("set_keys", "share-40-bits-at-the-top", set_keys_seed(40, top, 600, 7, 0x10001));
  put("set_keys", "spread", set_keys_seed(0, base, 1000, 1, 0x9e3779b97f4b));
  put("set_keys", "one-key", set_keys_seed(84, base, 3, 0, 1));
}

void url_seeds() {
  auto seed = [](uint16_t bits, uint8_t params, const std::string& key) {
    std::string s;
    s += static_cast<char>(bits & 0xff);
    s += static_cast<char>(bits >> 8);
    s += static_cast<char>(params);
    return s + key;
  };
  const uint16_t url = 0x3fd;   // the url preset: trim and every URL rule but the last four
  const uint16_t all = 0x1fff;  // every flag
  const std::vector<std::string> keys = {
      " HTTP://User@Example.COM.:80/%7euser/a%2fb?Q=%41#top\r",
      "HTTPS://www.Example.com/Shop/?utm_source=news&b=2&fbclid=x&a=1#reviews",
      "http://[::1]:8080/a?b=1&&a=&c",
      "ftp://a:021/",
      "foo://a:/x//",
      "http://a?q",
      "http://www.com/",
      "%%34%31",
      "http://a/%zz%4%",
      "mailto:x@y",
      "//host/path",
      "http://a.b.c.../?a=1&a=0&b",
      "http://u:p@h@x.com:443/",
      "ws://a:80",
      "http://[v1.x]x/",
      "",
  };
  // The rule scrapy on hosts that are not ASCII: each step of w3lib's IDNA
  // and its fallbacks (docs/KEYS.md).
  const uint16_t scrapy = 0x2000;
  const std::vector<std::string> idna_keys = {
      "http://www.b\xc3\xbc" "cher.de?q=b\xc3\xbc" "cher",
      "http://user@\xe4\xbe\x8b\xe3\x81\x88.jp/path",
      "http://.\xc3\xa9xampl\xc3\xa9.com/r\xc3\xa9sum\xc3\xa9?q=r\xc3\xa9sum\xc3\xa9",
      "HTTP://\xef\xbc\xa2\xc3\x9c\xe3\x80\x82\xef\xbc\xa4:80/",
      "http://a\xe2\x80\x8d\xc3\x9f\xce\xa3.\xce\x8c\xce\xa3/",
      "http://a\xd7\x90.xn--\xc3\xbc.\xef\xbc\x8f/",
      "http://\xff\xc3\xbc%41\xc3\t\xbc.de./#f",
      "http://[v1.\xc3\x9c]/",
      std::string("http://a\0\xc3\xbc.com/", 16),
      "http://" + std::string(300, 'a') + "\xc3\xbc" + std::string(300, '.') + "/",
  };
  int i = 0;
  for (const auto& key : idna_keys) {
    put("url_normalize", "scrapy-idna-" + std::to_string(i), seed(scrapy, 0, key));
    ++i;
  }
  i = 0;
  for (const auto& key : keys) {
    put("url_normalize", "url-" + std::to_string(i), seed(url, 0, key));
    put("url_normalize", "all-" + std::to_string(i), seed(all, 0xff, key));
    put("url_normalize", "mixed-" + std::to_string(i),
        seed(static_cast<uint16_t>(i * 0x2a5), static_cast<uint8_t>(i * 0x35), key));
    ++i;
  }
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s CORPUS_DIR\n", argv[0]);
    return 2;
  }
  g_root = argv[1];
  filter_seeds();
  filter_v4_seeds();
  reader_seeds();
  key_seeds();
  structured_key_seeds();
  url_seeds();
  checkpoint_seeds();
  set_seeds();
  set_keys_seeds();
  return 0;
}
