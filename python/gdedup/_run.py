"""gdedup.run: a job of the gdedup command (dedup, build, query) run by the
library's job layer, the one the command runs, from Python."""

import os
from dataclasses import dataclass

from . import _core
from ._errors import FilterOverfullError, JobInterrupted

# The keyword arguments that name files, handed to the engine as bytes
# (os.fsencode), so that any path the system takes gets through.
_PATHS = ("files_from", "output", "output_parts", "filter", "stats", "checkpoint")


@dataclass(frozen=True)
class JobResult:
    """What a job did: the counts of --stats, and the filter it ended with.

    status: "complete", or "output_closed" when the reader of standard
    output went away (the other ends raise). records, kept, dropped,
    missing_keys (records without their json: or cdxj: key, kept or dropped
    by missing_key=), input_bytes (uncompressed), output_bytes, seconds, checkpoints written;
    inputs read and inputs_skipped (skip_missing); resumed_records: of
    records, those counted before the checkpoint a resume started from.
    backend: what ran the filter. filter_layers, filter_bytes, filter_fill,
    filter_estimated_keys, filter_current_fpr: the filter at the end;
    filter_saved: whether filter= now holds it (a set file with exact=True).
    exact: whether the job kept an exact set (exact=True); set_keys,
    set_bytes, set_load and collision_chance: that set at the end (None
    without exact=True). For a filter far past its
    plan (FilterOverfullError, never saved): probably_lost, the unique
    records it took for seen ones (at least that many when it is too full
    to tell), and capacity_needed, a capacity that would have served; else
    None.
    summary: the line the command prints; message: why a job did not
    complete (FilterOverfullError, JobInterrupted)."""

    status: str
    message: str
    summary: str
    records: int
    kept: int
    dropped: int
    missing_keys: int
    input_bytes: int
    output_bytes: int
    seconds: float
    checkpoints: int
    inputs: int
    inputs_skipped: int
    resumed_records: int
    backend: str
    filter_layers: int
    filter_bytes: int
    filter_fill: float
    filter_estimated_keys: float
    filter_current_fpr: float
    filter_saved: bool
    probably_lost: object
    capacity_needed: object
    exact: bool
    set_keys: object
    set_bytes: object
    set_load: object
    collision_chance: object


def _paths(inputs):
    if isinstance(inputs, (str, bytes, os.PathLike)):
        return [os.fsencode(inputs)]
    try:
        paths = [os.fsencode(p) for p in inputs]
    except TypeError:
        raise TypeError("inputs: a path (str, bytes or os.PathLike) or a list of paths, not "
                        f"{type(inputs).__name__}; records in memory go to gdedup.dedup() "
                        "or a Filter") from None
    return paths


def run(command, inputs=(), *, output=None, output_parts=None, output_format=None, filter=None,
        stats=None, files_from=None, null_list=False, recursive=False, skip_missing=False,
        capacity=None, fpr=None, memory=None, block_bits=None, allow_high_fpr=False,
        grow=True, max_memory=None, exact=False,
        key=None, delimiter=None, normalize=None, missing_key=None, strict_json=False,
        ignore_key_rules=False, input_format="text", null_data=False,
        backend="auto", threads=None, filter_threads=None, device=None, batch_records=None,
        compressed_piece_bytes=None, parquet_compression=None, row_group_rows=None,
        checkpoint=None, checkpoint_every_seconds=None, checkpoint_every_records=None,
        resume=False, replayable_stdin=False,
        duplicates=False, absent=False, progress=None):
    """Run `gdedup COMMAND` (dedup, build or query) on files, as the command
    runs it: the same job layer, so the same outputs, filter files,
    checkpoints and statistics, and the same refusals. Returns a JobResult.

    inputs: a path or a list of paths (gzip, zstd, bz2, xz and lz4 files
    are read decompressed; "-" is standard input; a folder with
    recursive=True). Each argument is the command's flag of that name
    (docs/CLI.md): output= (-o; "-" for standard output), output_format=
    ("parquet" or "lines", for Parquet input: --output-format), filter= (-f),
    stats= (--stats), grow=False (--no-grow), exact=True (--exact: an exact
    set, no false positives; filter= names a set file), batch_records= (--batch),
    compressed_piece_bytes= (--compressed-piece-bytes, for tests and tuning),
    parquet_compression= and row_group_rows= (--parquet-compression,
    --row-group-rows: Parquet input's output),
    checkpoint_every_seconds= and
    checkpoint_every_records= (--checkpoint-every), missing_key= ("error",
    "keep" or "drop", for key="json:PATH" and "cdxj:..."), strict_json=True
    (--strict-json: such keys only from records that are JSON throughout),
    duplicates= and absent= (dedup --duplicates, query --absent); sizes are
    ints of bytes.
    progress: a callable, given a dict of counts after each batch.

    Raises the gdedup.Error classes for what fails (InvalidArgumentError for
    what the command exits 2 for); FilterOverfullError when the filter
    ended far past its plan (exit status 4; everything is written);
    JobInterrupted (a KeyboardInterrupt) when Ctrl-C stopped a job at a
    checkpoint (exit status 3). Without a checkpoint, Ctrl-C ends the job at
    its next batch, leaving the output and filter as they were, and raises
    KeyboardInterrupt. An exception raised by progress ends the job the
    same way and is raised again. Once the job has read all its input and
    puts its results in place (the last progress call comes then), either
    lets it complete and is raised after, with a note naming the files that
    hold its result."""
    arguments = {
        "files_from": files_from, "null_list": null_list, "recursive": recursive,
        "skip_missing": skip_missing, "output": output, "output_parts": output_parts,
        "output_format": output_format,
        "filter": filter, "stats": stats, "capacity": capacity, "fpr": fpr, "memory": memory,
        "block_bits": block_bits, "allow_high_fpr": allow_high_fpr, "grow": grow,
        "max_memory": max_memory, "exact": exact, "key": key, "delimiter": delimiter, "normalize": normalize,
        "missing_key": missing_key, "strict_json": strict_json,
        "ignore_key_rules": ignore_key_rules, "input_format": input_format,
        "null_data": null_data, "backend": backend, "threads": threads,
        "filter_threads": filter_threads, "device": device, "batch_records": batch_records,
        "compressed_piece_bytes": compressed_piece_bytes,
        "parquet_compression": parquet_compression, "row_group_rows": row_group_rows,
        "checkpoint": checkpoint,
        "checkpoint_every_seconds": checkpoint_every_seconds,
        "checkpoint_every_records": checkpoint_every_records, "resume": resume,
        "replayable_stdin": replayable_stdin, "duplicates": duplicates, "absent": absent,
    }
    for name in _PATHS:
        if arguments[name] is not None:
            arguments[name] = os.fsencode(arguments[name])
    paths = _paths(inputs)
    if not paths and files_from is None:
        raise TypeError('run() needs inputs: a path, a list of paths, "-" for standard input, '
                        "or files_from=")
    if command in ("dedup", "query") and output is None and output_parts is None:
        raise TypeError(f'run("{command}", ...) needs output= (a path, or "-" for standard '
                        "output) or output_parts=")
    if command == "build" and (output is not None or output_parts is not None):
        raise TypeError('run("build", ...) writes no records, only filter=; leave out output= '
                        "and output_parts=")
    if progress is not None and not callable(progress):
        raise TypeError(f"progress= takes a callable, not {type(progress).__name__}")
    values = _core._run(command, paths, arguments, progress)
    raised = values.pop("raised", None)
    completed = values.pop("completed", None)
    result = JobResult(**values)
    if isinstance(raised, KeyboardInterrupt) and result.status == "interrupted":
        raise JobInterrupted(result.message, result) from raised
    if raised is not None:
        if completed is not None and hasattr(raised, "add_note"):  # Python 3.11 on
            raised.add_note(f"gdedup: this came as the job was finishing, so it completed: "
                            f"{completed}")
        raise raised
    if result.status == "overfull":
        raise FilterOverfullError(result.message, result)
    if result.status == "interrupted":
        raise JobInterrupted(result.message, result)
    return result
