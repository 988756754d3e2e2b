// A Parquet file written in segments, so that a checkpoint can hold its
// footer so far and a resumed job can continue the file (docs/CHECKPOINT.md,
// "Parquet input"). Arrow writes a file's footer (FileMetaData, with the
// absolute offset of every column chunk) only when its writer closes. So
// each write (the kept rows of one input row group) is a segment: one Arrow
// FileWriter on a stream of ours, closed at its end, its footer taken
// instead of written, parsed, and its row groups added to the footer so
// far; the next segment's writer reports positions that continue the file,
// and its leading "PAR1" is dropped. At the end the footer so far is
// written.
//
// Segments end at the same rows in every run, checkpointed or not, resumed
// or not, so the bytes are those of every run: each segment's page index
// (which Arrow writes at a writer's close) follows its row groups, and the
// footer is always one parsed and written again. Arrow sets no row group
// ordinals in files it does not encrypt, so a segment's writer numbering
// its row groups from 0 changes nothing.
#pragma once

#include <memory>
#include <string>

#include "columnar/parquet_arrow.h"

namespace parquet {
class FileMetaData;
class WriterProperties;
class ArrowWriterProperties;
namespace arrow {
class FileWriter;
}  // namespace arrow
}  // namespace parquet

namespace gdedup::columnar {

class SinkStream;

class SegmentedFile {
 public:
  // A new file, or the file `from` describes, continued: the sink then
  // holds its first from->offset bytes, with every row group of
  // from->footer. Throws gdedup::Error when that footer does not parse or
  // has another schema.
  SegmentedFile(ByteSink& sink, std::shared_ptr<arrow::Schema> schema,
                std::shared_ptr<parquet::WriterProperties> properties,
                std::shared_ptr<parquet::ArrowWriterProperties> arrow_properties,
                const ParquetContinuation* from);
  // Leaves the sink without a footer.
  ~SegmentedFile();
  SegmentedFile(const SegmentedFile&) = delete;
  SegmentedFile& operator=(const SegmentedFile&) = delete;

  // The segment's writer, which opens one if none is open: what the kept
  // rows of one input row group are written with. After each call on it,
  // check() its status.
  parquet::arrow::FileWriter& writer();
  // Throws the sink's failure, or gdedup::Error for a status not OK.
  void check(const arrow::Status& status) const;
  // Ends the segment, if one is open: its row groups are then all in the
  // sink and join the footer so far. Segments must end at the same rows in
  // every run: at each input row group's end.
  void end_segment();
  // The footer of every row group so far, every byte of which is then in
  // the sink. Only between segments (checkpoints come between input row
  // groups): throws gdedup::Error in one.
  std::string footer_so_far();
  // Ends the segment and writes the footer.
  void close();

 private:
  // A segment of no row groups: the file's "PAR1" and a first footer, for
  // a file that has none yet.
  void empty_segment();

  std::unique_ptr<SinkStream> stream_;
  std::shared_ptr<arrow::Schema> schema_;
  std::shared_ptr<parquet::WriterProperties> properties_;
  std::shared_ptr<parquet::ArrowWriterProperties> arrow_properties_;
  std::unique_ptr<parquet::arrow::FileWriter> writer_;  // the segment's; null between
  std::shared_ptr<parquet::FileMetaData> footer_;  // of the segments so far; null at first
};

}  // namespace gdedup::columnar
