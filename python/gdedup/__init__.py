"""gdedup: batch deduplication with a blocked Bloom filter, on the CPU or a GPU,
or exactly, with a set.

The engine of the gdedup command, from Python. A Filter takes keys one at a
time or, much faster, many at once: a list or iterable of bytes or str, a
NumPy uint64 array of fingerprints, or an Arrow string/binary array (pyarrow,
polars, pandas), read in place. The GIL is released while the engine runs.

    import gdedup
    f = gdedup.Filter(capacity=10_000_000)
    seen = f.test_and_set([b"https://a.example/", b"https://b.example/"])
    f.save("urls.gdf")          # the command's filter file format

A Set has the same methods and takes the same keys (but no fingerprints) and
has no false positives: only the chance of two keys sharing 84 bits of their
XXH3-128 (Set.collision_chance), and no capacity to plan, as the command's
--exact.

Filters are shared with the command: a file saved here is used by
`gdedup dedup -f`, and one built by `gdedup build` is loaded by Filter.load.
gdedup.run("dedup", "urls.txt.gz", output="unique.txt", filter="seen.gdf")
runs the command's job itself, on files.
docs/PYTHON.md describes the API.
"""

import os
import re
from itertools import islice

from . import _errors
from ._core import DEFAULT_SEED, Filter, Set, _set_error_classes, fingerprint
from ._errors import (
    DamagedFileError,
    DeviceMemoryError,
    Error,
    FileError,
    FilterOverfullError,
    InputChangedError,
    InvalidArgumentError,
    IsCheckpointError,
    JobInterrupted,
    NoDeviceError,
    OtherModeError,
    OutOfMemoryError,
    PipeClosedError,
    PlanInfeasibleError,
    RecordTooLongError,
    ResumeMismatchError,
    SetFullError,
    ThreadLimitError,
    UnsupportedFormatError,
)

from ._run import JobResult, run

_set_error_classes(dict(_errors.BY_KIND))

__all__ = [
    "DEFAULT_SEED",
    "DamagedFileError",
    "DeviceMemoryError",
    "Error",
    "FileError",
    "Filter",
    "FilterOverfullError",
    "InputChangedError",
    "InvalidArgumentError",
    "IsCheckpointError",
    "JobInterrupted",
    "JobResult",
    "NoDeviceError",
    "OtherModeError",
    "OutOfMemoryError",
    "PipeClosedError",
    "PlanInfeasibleError",
    "RecordTooLongError",
    "ResumeMismatchError",
    "Set",
    "SetFullError",
    "ThreadLimitError",
    "UnsupportedFormatError",
    "dedup",
    "fingerprint",
    "run",
]


def _line_key(record):
    """The record without one trailing newline: the command's record."""
    if isinstance(record, bytes):
        return record[:-1] if record.endswith(b"\n") else record
    if isinstance(record, str):
        return record[:-1] if record.endswith("\n") else record
    return record  # test_and_set names the accepted types


def dedup(records, filter=None, *, batch=65536, **filter_args):
    """Yield each record whose key is new, in input order: `gdedup dedup`.

    records: an iterable of bytes or str, e.g. a file opened in binary mode
    (then the kept lines are exactly the command's output on that file; text
    mode turns CRLF into LF first). One trailing newline of a record is not
    part of its key. filter: the Filter to use (it keeps the keys seen, and
    can be saved), or a Set for exact dedup (no record lost to a false
    positive); otherwise a new one made from filter_args (capacity=,
    fpr=, key=, normalize=, ... as Filter takes them). Records are taken
    `batch` at a time, so the first ones are yielded before the input ends.
    A Set past its max_memory raises SetFullError after yielding the kept
    records before the refused one: its `answered` is then the number of
    records taken from the input, all in the set, so that a run with a
    larger set goes on from there and loses none.
    Files are gdedup.run's: a path given as records is refused (TypeError).
    """
    if isinstance(records, (str, bytes, bytearray, os.PathLike)):
        # A path would be taken for records, one per character: refused.
        shown = repr(os.fspath(records) if isinstance(records, os.PathLike) else records)
        shown = shown if len(shown) <= 80 else shown[:76] + "...'"
        raise TypeError(f"dedup() takes an iterable of records, not a {type(records).__name__}; "
                        f'to deduplicate a file, call gdedup.run("dedup", {shown}, output=...)')
    if filter is None:
        filter = Filter(**filter_args)
    elif filter_args:
        raise TypeError("dedup() takes either filter= or the arguments of a new Filter, not "
                        "both: " + ", ".join(sorted(filter_args)))
    if batch < 1:
        raise ValueError(f"batch={batch}: must be at least 1 record")
    return _kept(iter(records), filter, batch)


# The place a Filter's or Set's error gives a key of its call: "key N
# (counting from 0) has no key ...", "key N is a int; ...", "... and key N
# (counting from 0) of the call would make it grow ...".
_KEY_PLACE = re.compile(r"\bkey (\d+) (?=\(counting from 0\)|is a )")


def _kept(records, filter, batch):
    """dedup's records, `batch` at a time through filter."""
    before = 0  # records of the batches already through
    while True:
        chunk = list(islice(records, batch))
        if not chunk:
            return
        try:
            seen = filter.test_and_set([_line_key(r) for r in chunk])
        except (Error, TypeError) as e:
            # The engine names a record by its place in the batch; the
            # caller knows only its place in the records given to dedup.
            _count_from_input_start(e, before)
            if isinstance(e, SetFullError) and e.answers is not None:
                # The records before the refused one are in the set now:
                # the new ones among them are kept, or they would be lost
                # to the caller and taken for seen by a later run.
                answers, e.answered, e.answers = e.answers, before + e.answered, None
                for record, was_seen in zip(chunk, answers.tolist()):
                    if not was_seen:
                        yield record
            raise
        before += len(chunk)
        for record, was_seen in zip(chunk, seen.tolist()):
            if not was_seen:
                yield record


def _count_from_input_start(error, before):
    """Makes the record an error names by its place in a batch be named by
    its place in the whole input, `before` records earlier."""
    if error.args and isinstance(error.args[0], str):
        message = _KEY_PLACE.sub(lambda m: f"key {int(m[1]) + before} ", error.args[0], count=1)
        error.args = (message,) + error.args[1:]
