#include <charconv>
#include <system_error>

#include <CLI/CLI.hpp>

#include "cli/options.h"

#include "cli/backend_help.h"
#include "gdedup/backend_registry.h"
#include "gdedup/error.h"
#include "gdedup/job.h"
#include "gdedup/key_options.h"

namespace gdedup::cli {

void add_input_options(CLI::App& app, JobOptions& options) {
  app.add_option("INPUT", options.inputs,
                 "Input files, plain, gzip, zstd, xz, bzip2 or lz4 (detected from their first "
                 "bytes); '-' or none reads standard input")
      ->type_name("")
      ->group(kGroupInput);
  app.add_option(flag::kFilesFrom.names(), options.input_list.files_from,
                 "Also read the inputs listed in FILE, one path per line ('-': standard input), "
                 "after the INPUT arguments; the list is read once, at the start")
      ->type_name("FILE")
      ->group(kGroupInput);
  app.add_flag(flag::kNullList.names(), options.input_list.null_list,
               "The " + flag::kFilesFrom + " list separates paths with NUL bytes (find -print0), "
               "so a path may hold a newline")
      ->group(kGroupInput);
  app.add_flag(flag::kRecursive.names(), options.input_list.recursive,
               "An input that is a folder stands for the regular files under it, in byte "
               "order of their paths; links inside it are not followed")
      ->group(kGroupInput);
  app.add_flag(flag::kSkipMissing.names(), options.input_list.skip_missing,
               "Leave out, with a warning each, inputs that do not exist instead of stopping "
               "before the job starts")
      ->group(kGroupInput);
  app.add_option(flag::kInputFormat.names(), options.input_format,
                 "text: one record per line; u64: records are 8-byte little-endian "
                 "fingerprints, used as they are (output in the same format)")
      ->type_name("text|u64")
      ->check(CLI::IsMember({"text", "u64"}).description(""))
      ->group(kGroupInput);
  app.add_option(flag::kMaxRecordLength.names(), options.max_record_length,
                 "Longest record accepted (default 64MiB): a longer line stops the job with "
                 "an error naming it, after the records before it (K/M/G are powers of 1024)")
      ->type_name("BYTES")
      ->group(kGroupInput);
  app.add_flag(flag::kNullData.names(), options.null_data,
               "Records end with a NUL byte instead of a newline (find -print0, sort -z), so "
               "they may hold newlines; the output separates them with NUL too")
      ->group(kGroupInput);
}

void add_output_options(CLI::App& app, JobOptions& options, bool with_output) {
  if (with_output) {
    CLI::Option* output = app.add_option(flag::kOutput.names(), options.output,
                                         "Write the records here instead of standard output")
                              ->type_name("FILE")
                              ->group(kGroupOutput);
    app.add_option(flag::kOutputParts.names(), options.output_parts,
                   "Write the records as part files in DIR (created if missing) and list them, "
                   "in order, in DIR/MANIFEST: their concatenation is what " + flag::kOutput +
                       " would hold. Under " + flag::kMpi +
                       " each rank writes its own parts, so no file is shared")
        ->type_name("DIR")
        ->excludes(output)
        ->group(kGroupOutput);
    app.add_option(flag::kOutputFormat.names(), options.output_format,
                   "Parquet input: write the kept rows as Parquet (the default), or the key "
                   "column's values, one a line (strings as they are, binary values in hex, "
                   "integers in decimal)")
        ->type_name("parquet|lines")
        ->check(CLI::IsMember({"parquet", "lines"}).description(""))
        ->group(kGroupOutput);
    app.add_option(flag::kParquetCompression.names(), options.parquet_compression,
                   "Parquet input: compress the output with CODEC (uncompressed, snappy, gzip, "
                   "brotli, zstd or lz4) instead of the first input's codec")
        ->type_name("CODEC")
        ->group(kGroupOutput);
    app.add_option(flag::kRowGroupRows.names(), options.row_group_rows,
                   "Parquet input: end an output row group at N rows; by default, and always, "
                   "one ends where its input row group does")
        ->type_name("N")
        ->group(kGroupOutput);
  }
  app.add_option(flag::kStats.names(), options.stats_path,
                 "Write counts, throughput and filter fill as JSON to FILE at the end")
      ->type_name("FILE")
      ->group(kGroupOutput);
  app.add_flag(flag::kQuiet.names(), options.quiet,
               "No plan, backend or summary lines on stderr (warnings and errors remain)")
      ->group(kGroupOutput);
  app.add_flag(flag::kProgress.names(), options.progress,
               "Show the progress line even when stderr is not a terminal")
      ->group(kGroupOutput);
  app.add_flag(flag::kNoProgress.names(), options.no_progress,
               "Never show the progress line (default: shown when stderr is a terminal)")
      ->group(kGroupOutput);
}

void add_sizing_options(CLI::App& app, SizingOptions& options) {
  app.add_option(flag::kCapacity.names(), options.capacity,
                 "Distinct keys to plan for: 1000000, 1e9, 500M, 2G (K/M/G/T are powers of "
                 "1000). Default for files: estimated from the input size")
      ->type_name("N")
      ->group(kGroupSizing);
  app.add_option(flag::kFpr.names(), options.fpr,
                 "Target false-positive rate at the capacity (default 1e-4)")
      ->type_name("P")
      ->group(kGroupSizing);
  app.add_option(flag::kMemory.names(), options.memory,
                 "Filter size instead of a target rate: 4G, 512MiB, 1.5GiB (K/M/G/T are powers "
                 "of 1024); the expected rate is reported. Not with " + flag::kFpr)
      ->type_name("BYTES")
      ->group(kGroupSizing);
  app.add_option(flag::kBlockBits.names(), options.block_bits,
                 "Force 256- or 512-bit blocks (default: whichever needs less memory)")
      ->type_name("256|512")
      ->group(kGroupSizing);
  app.add_flag(flag::kAllowHighFpr.names(), options.allow_high_fpr,
               "Run with a new filter whose expected false-positive rate is above 0.5 (a " +
                   flag::kMemory + " far too small for the input): refused without this")
      ->group(kGroupSizing);
}

void add_growth_options(CLI::App& app, JobOptions& options) {
  app.add_flag(flag::kNoGrow.names(), options.no_grow,
               "Keep the filter at its planned size instead of adding layers as keys arrive")
      ->group(kGroupSizing);
  add_max_memory_option(app, options,
                        "Add no layer past this many bytes of filter: 4G, 512MiB (powers of "
                        "1024); past it the job ends with exit status 4 if keys were probably "
                        "lost")
      ->group(kGroupSizing);
}

CLI::Option* add_max_memory_option(CLI::App& app, JobOptions& options, const std::string& help) {
  return app.add_option(flag::kMaxMemory.names(), options.max_memory, help)->type_name("BYTES");
}

void add_exact_option(CLI::App& app, JobOptions& options) {
  app.add_flag(flag::kExact.names(), options.exact,
               "Keep every key seen in an exact set instead of a Bloom filter: no record is "
               "dropped for a false positive (only for two keys sharing 84 bits of their "
               "128-bit hash, a chance gdedup plan " + flag::kExact + " states), no capacity "
               "to plan; the set grows as keys come (" + flag::kMaxMemory + " caps it: past it "
               "the job ends with exit status 4). " + flag::kFilter + " names a set file")
      ->group(kGroupFilter);
}

void add_key_options(CLI::App& app, KeyFlags& flags) {
  app.add_option(flag::kKey.names(), flags.key,
                 "What is deduplicated: whole (the record), field:N (the N-th field, from 1), "
                 "json:PATH (a JSON record's value, PATH such as url or meta.links.0), "
                 "cdxj:PATH (the same in a CDXJ line's JSON), cdxj:surt or cdxj:timestamp, "
                 "column:NAME (a column of Parquet input, NAME such as url or meta.url); "
                 "the whole record is still written; see docs/KEYS.md")
      ->type_name("whole|field:N|json:PATH|cdxj:PATH|column:NAME")
      ->group(kGroupKeys);
  app.add_option(flag::kDelimiter.names(), flags.delimiter,
                 "Field separator for " + flag::kKey + " field:N: one byte, a name (tab, "
                 "comma, space, pipe, semicolon, colon) or an escape (\\t, \\xHH); default tab")
      ->type_name("C")
      ->group(kGroupKeys);
  app.add_option(flag::kNormalize.names(), flags.normalize,
                 "Rewrite keys before hashing, comma-separated rules or presets (url, "
                 "url-aggressive); see docs/KEYS.md. Rules: " + keys::normalize_rule_names())
      ->type_name("RULES")
      ->group(kGroupKeys);
  app.add_option(flag::kMissingKey.names(), flags.missing_key,
                 "A record without its json: or cdxj: key, or not one JSON value: error (the "
                 "default; the job fails naming it), keep (written as a key seen nowhere "
                 "else) or drop (left out); " + flag::kStats + " counts them")
      ->type_name("error|keep|drop")
      ->group(kGroupKeys);
  app.add_flag(flag::kStrictJson.names(), flags.strict_json,
               "A json: or cdxj: key only from a record whose JSON is one value, all of it "
               "valid JSON; by default the values before the key are skipped by their "
               "brackets and quotes and those after it by their brackets; see docs/KEYS.md")
      ->group(kGroupKeys);
  app.add_flag(flag::kIgnoreKeyRules.names(), flags.ignore_key_rules,
               "Use a filter file whose keys were made by other key rules (" + flag::kKey +
                   ", " + flag::kDelimiter + ", " + flag::kNormalize + ", " +
                   flag::kInputFormat + ", " + flag::kNullData +
                   ") than this command's; such keys do not match")
      ->group(kGroupKeys);
}

namespace {

// A whole number that `T` holds; the job checks its range (check_job_spec),
// so that every front end refuses the same counts in the same words.
template <class T>
CLI::Validator whole_number() {
  return CLI::Validator(
      [](std::string& value) -> std::string {
        T number{};
        const char* end = value.data() + value.size();
        const auto [at, error] = std::from_chars(value.data(), end, number);
        if (error == std::errc() && at == end) return "";
        return "Value " + value + " is not a whole number";
      },
      "", "whole number");
}

}  // namespace

CLI::Option* add_threads_option(CLI::App& app, const Flag& flag, unsigned& threads,
                                const std::string& help) {
  return app.add_option(flag.names(), threads, help)
      ->type_name("N")
      ->check(whole_number<unsigned>())
      ->group(kGroupBackend);
}

void add_backend_options(CLI::App& app, JobOptions& options) {
  std::vector<std::string> choices{"auto"};
  std::string names = "auto";
  for (const BackendEntry& e : backend_registry()) {
    choices.push_back(e.name);
    names += "|" + e.name;
  }
  app.add_option(flag::kBackend.names(), options.backend,
                 "Where the filter runs: " + backend_choices_help() + ". auto says which it "
                 "took and why")
      ->type_name(names)
      ->check(CLI::IsMember(choices).description(""))
      ->group(kGroupBackend);
  app.add_option(flag::kDevice.names(), options.device,
                 "GPU backend: the CUDA device to run on, from 0 (default 0)")
      ->type_name("N")
      ->check(whole_number<int>())
      ->group(kGroupBackend);
  add_threads_option(app, flag::kThreads, options.threads,
                     "Front-end workers: threads that read, decompress, split and hash the "
                     "input, each a piece at a time (1: one reads, one hashes); never changes "
                     "the output. Default: the hardware threads less " + flag::kFilterThreads);
  add_threads_option(app, flag::kFilterThreads, options.filter_threads,
                     "CPU backend threads. Default: a third of the hardware threads (at least "
                     "1), or those " + flag::kThreads + " leaves");
  app.add_option(flag::kBatch.names(), options.batch,
                 "Advanced: records per batch (default " +
                     std::to_string(PipelineOptions{}.batch_records) +
                     "); changes speed and memory, never the output")
      ->type_name("N")
      ->group(kGroupBackend);
  CLI::Option* mpi = app.add_flag(
      flag::kMpi.names(), options.mpi,
      "Run as one rank of an MPI job (mpirun -np R gdedup ...): each rank holds 1/R of the "
      "filter and reads its share of the input; the output and the filter file are those of "
      "one process (docs/SCALE-OUT.md). The default where mpirun, mpiexec or srun started "
      "several processes")
      ->group(kGroupBackend);
  app.add_flag(flag::kNoMpi.names(), options.no_mpi,
               "Run this process alone, even where an MPI launcher started several (each then "
               "runs its own job, which must write files of its own)")
      ->excludes(mpi)
      ->group(kGroupBackend);
  // Hidden (no group): tests cut small inputs into many pieces with it.
  app.add_option(flag::kPieceBytes.names(), options.piece_bytes,
                 "Advanced: the byte ranges large plain files are read in")
      ->type_name("SIZE")
      ->group("");
  app.add_option(flag::kCompressedPieceBytes.names(), options.compressed_piece_bytes,
                 "Advanced: the compressed bytes a part of a gzip or zstd file holds at least")
      ->type_name("SIZE")
      ->group("");
}

KeyOptions parse_key_flags(const KeyFlags& flags) {
  return KeyOptions::parse(flags.key, flags.delimiter, flags.normalize);
}

InputFormat parse_input_format(const std::string& text) {
  if (text == "text") return InputFormat::kText;
  if (text == "u64") return InputFormat::kU64;
  throw UsageError(flag::kInputFormat + " " + text + ": expected text or u64");
}

std::set<JobOption> given_options(const CLI::App& command) {
  std::set<JobOption> given;
  for (int i = 0; i < kJobOptionCount; ++i) {
    const auto option = static_cast<JobOption>(i);
    const CLI::Option* typed = command.get_option_no_throw(flag_of(option).name);
    if (typed != nullptr && typed->count() > 0) given.insert(option);
  }
  return given;
}

void refuse_options_taken_as_files(CLI::App& app) {
  for (CLI::App* command : app.get_subcommands([](CLI::App*) { return true; })) {
    for (CLI::Option* option : command->get_options()) {
      const std::string type = option->get_type_name();
      if ((type.rfind("FILE", 0) != 0 && type != "DIR") || option->get_positional()) continue;
      const std::string name = option->get_name();
      option->check(CLI::Validator(
          [name, type](std::string& value) -> std::string {
            // An empty path would read as the option left out: -f "" as
            // no filter file, its keys never saved.
            if (value.empty()) return "the path is empty: give " + name + " a " + type + " path";
            if (value.size() < 2 || value[0] != '-') return "";
            return "'" + value + "' looks like the next option, not a file: give " + name +
                   " its " + type + " (./" + value + " for a file named " + value + ")";
          },
          "", "not an option"));
    }
  }
}

}  // namespace gdedup::cli
