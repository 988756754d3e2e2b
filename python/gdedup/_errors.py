"""The exceptions the engine raises: one class per kind of failure.

Every class derives from gdedup.Error, and where a built-in exception means
the same, from that too (an invalid argument is a ValueError, a failed file
operation an OSError, exhausted memory a MemoryError), so code that catches
those keeps working. Each carries the engine's message and:

- kind: the engine's name for the failure ("damaged", "io", ...)
- needed, available: the numbers the kind involves (bytes, threads), 0 where
  unknown
"""


class Error(Exception):
    """A failure of the gdedup engine."""

    kind = "failure"
    needed = 0
    available = 0


class InvalidArgumentError(Error, ValueError):
    """A value that can never work as given: a bad size, key rule, backend."""


class FileError(Error, OSError):
    """The system refused a read, write, open or other file operation."""


class DamagedFileError(Error):
    """A file is not what it claims: bad magic, checksum, truncation."""


class IsCheckpointError(Error):
    """A checkpoint was given where a filter file belongs."""


class OtherModeError(InvalidArgumentError):
    """A file of the other mode: an exact set (or its checkpoint) where a
    Bloom filter's file belongs, or the other way round. The message says
    how to use it (gdedup.Set.load, exact=True)."""


class OutOfMemoryError(Error, MemoryError):
    """Host memory ran out; needed is the bytes asked for. kind is
    "decoder_memory" where a decoder could not get the memory its stream
    asks for (its window or dictionary), "out_of_memory" otherwise."""


class ThreadLimitError(Error):
    """The system refused a thread; needed is the threads asked for."""


class PlanInfeasibleError(InvalidArgumentError):
    """No filter within the size limit reaches the false-positive rate."""


class DeviceMemoryError(Error, MemoryError):
    """The filter does not fit in the GPU's free memory."""


class NoDeviceError(Error):
    """The GPU backend cannot run here (not built, no driver, no device)."""


class RecordTooLongError(Error):
    """A record is longer than the record length limit."""


class UnsupportedFormatError(Error):
    """An input is in a format gdedup does not decode."""


class InputChangedError(Error):
    """An input changed while it was being read."""


class ResumeMismatchError(Error):
    """A resume does not match the run its checkpoint was taken of."""


class PipeClosedError(Error, BrokenPipeError):
    """The reader of the output went away."""


class SetFullError(Error):
    """An exact set would grow past its max_memory (the command's exit
    status 4): the keys before the one that did not fit were added, that
    one and the rest not. needed and available are the bytes the set would
    take and its limit, where the engine gives them; answered is the place
    of the refused key in the call (the keys answered and added before it)
    and answers whether each of those was present, as test_and_set answers
    (from gdedup.dedup(): answered counts the records taken from its input,
    whose kept ones were yielded, and answers is None)."""

    answered = None
    answers = None


# The engine's kind names (include/gdedup/error.h, ErrorKind) to classes.
BY_KIND = {
    "failure": Error,
    "invalid_argument": InvalidArgumentError,
    "io": FileError,
    "damaged": DamagedFileError,
    "is_checkpoint": IsCheckpointError,
    "other_mode": OtherModeError,
    "out_of_memory": OutOfMemoryError,
    "thread_limit": ThreadLimitError,
    "plan_infeasible": PlanInfeasibleError,
    "device_memory": DeviceMemoryError,
    "no_device": NoDeviceError,
    "record_too_long": RecordTooLongError,
    "broken_pipe": PipeClosedError,
    "unsupported_format": UnsupportedFormatError,
    "input_changed": InputChangedError,
    "resume_mismatch": ResumeMismatchError,
    "key_rules_mismatch": InvalidArgumentError,
    "filter_overfull": None,  # FilterOverfullError, defined below
    "set_full": SetFullError,
    "decoder_memory": OutOfMemoryError,
}


class FilterOverfullError(Error):
    """A filter ended far past its plan (the command's exit status 4).

    From gdedup.run: everything was written, but records were probably lost
    to false positives, and the filter was not saved; result is the job's
    JobResult. From Filter.save: the filter was not saved (result is
    None)."""

    def __init__(self, message, result=None):
        super().__init__(message)
        self.result = result


BY_KIND["filter_overfull"] = FilterOverfullError


class JobInterrupted(KeyboardInterrupt):
    """A job stopped by a KeyboardInterrupt at a checkpoint (the command's
    exit status 3): the message says how to resume; result is its JobResult.
    A KeyboardInterrupt, so that Ctrl-C ends the program as it would."""

    def __init__(self, message, result=None):
        super().__init__(message)
        self.result = result
