// Where a job's output goes (DESIGN rule 5). A regular file, or a name not
// taken yet, is written to a unique temporary file beside it, PATH.tmp.XXXXXX
// (created with O_EXCL | O_NOFOLLOW, so never through a link and never
// shared), and renamed over PATH only when the job completes: a job that
// fails, at its first record or its last, leaves the previous PATH as it
// was. A trusted symbolic link (fs::trusted_link, gdedup/frontend/paths.h) to a
// regular file leads to that file, which is replaced and the link kept.
// Standard output, devices and pipes are written where they are, as a
// stream. run_pipeline writes its output so; a caller uses this for other
// files it writes whole (the gdedup command's --stats).
//
// The temporary file lives as long as a checkpoint may name it: it is removed
// when the job fails (also by a signal that ends the process at once, through
// gdedup/frontend/live_temporaries.h) unless keep_for_resume() handed it to a
// checkpoint, and a resumed run reopens it with resume().
#pragma once

#include <string>

#include "gdedup/frontend/output_writer.h"

namespace gdedup::io {

class OutputFile {
 public:
  // Starts the output at `path` ("-" is standard output). A new file gets
  // mode 0666 less the umask, as any created file; a replaced one keeps the
  // permission bits of the file it replaces. `what` names it in messages.
  static OutputFile create(const std::string& path,
                           size_t buffer = OutputWriter::kDefaultBuffer,
                           const std::string& what = "output");
  // Continues the output of an interrupted run in `temporary`, its temporary
  // file: opened without following a link, it must be a regular file of the
  // user running the job that starts with `prefix`; it is cut to
  // prefix.bytes. Throws gdedup::Error naming it otherwise, leaving it alone.
  // When it is missing because the interrupted run renamed it over `path`
  // and was stopped before removing its checkpoint, it is made again, at
  // the same name, from `path`'s prefix, leaving `path` whole until its own
  // rename; one shorter than the prefix (a resume stopped while it made it)
  // is completed so. Either way the checkpoint names the only temporary
  // file the job has, however often it is stopped.
  static OutputFile resume(const std::string& path, const std::string& temporary,
                           const OutputPrefix& prefix,
                           size_t buffer = OutputWriter::kDefaultBuffer);

  OutputFile(OutputFile&& other) noexcept;
  OutputFile& operator=(OutputFile&&) = delete;
  OutputFile(const OutputFile&) = delete;
  OutputFile& operator=(const OutputFile&) = delete;
  // Removes the temporary file unless it was renamed or kept.
  ~OutputFile();

  OutputWriter& writer() { return writer_; }
  const OutputWriter& writer() const { return writer_; }
  // The name the output will have, and the file written meanwhile ("" when
  // written in place).
  const std::string& path() const { return path_; }
  const std::string& temporary() const { return temporary_; }
  bool in_place() const { return temporary_.empty(); }
  // True once keep_for_resume() was called or the run was resumed.
  bool kept() const { return kept_; }
  // True once commit() renamed the temporary file over the output.
  bool committed() const { return committed_; }

  // A checkpoint names the temporary file from now on: it outlives a failure
  // and a signal, for --resume.
  void keep_for_resume();
  // Undoes keep_for_resume() when no checkpoint came to name the file
  // after all (the first one failed): removes the temporary file now.
  void discard();
  // Flushes and closes; a temporary file is fsynced first.
  void close();
  // After close(): renames the temporary file over the output and fsyncs the
  // folder. Nothing to do for an output written in place.
  void commit();

 private:
  OutputFile(std::string what, std::string path, std::string target, std::string temporary,
             OutputWriter writer);

  std::string what_;       // "output", "statistics file": for messages
  std::string path_;       // as the user gave it
  std::string target_;     // what the rename replaces: path_, or a link's file
  std::string temporary_;  // "" when written in place
  OutputWriter writer_;
  int live_slot_ = -1;  // in the registry of live temporaries
  bool kept_ = false;
  bool committed_ = false;
  bool temporary_discarded_ = false;
};

// The file an output at `path` replaces: `path` itself, or the regular file
// a trusted link at `path` leads to; "" when the output is written in place
// (standard output, devices, pipes, a link to anything else).
std::string replaced_file(const std::string& path);

}  // namespace gdedup::io
