"""Wrong types raise TypeError naming the accepted ones; the engine's errors
raise the gdedup.Error class of their kind with the engine's message."""

import os
import warnings

import numpy as np
import pyarrow as pa
import pytest

import gdedup


@pytest.mark.parametrize("keys", [[b"a", 1], [b"a", None], [bytearray(b"x")], [b"a", [b"b"]],
                                  [[[b"a"]]], (b"a", (b"b",)),
                                  np.array([b"a", None], dtype=object)])
def test_a_key_that_is_not_bytes_or_str(keys):
    f = gdedup.Filter(capacity=10)
    with pytest.raises(TypeError, match="must be bytes or str"):
        f.test_and_set(keys)
    assert f.insertions == 0     # nothing was added before the refusal


@pytest.mark.parametrize("keys", [42, 3.5, object(), None])
def test_keys_of_no_accepted_type(keys):
    f = gdedup.Filter(capacity=10)
    for op in (f.add, f.test_and_set, f.contains):
        with pytest.raises(TypeError, match="NumPy uint64 array"):
            op(keys)
    with pytest.raises(TypeError, match="one key, bytes or str"):
        keys in f


@pytest.mark.parametrize("array", [np.arange(3, dtype=np.int64),
                                   np.zeros((2, 2), dtype=np.uint64),
                                   np.zeros(3, dtype=np.float16),
                                   np.arange(3, dtype=">u8"),  # not the machine's byte order
                                   np.array(["2020-01-01"], dtype="datetime64[D]")])
def test_arrays_other_than_1d_uint64(array):
    f = gdedup.Filter(capacity=10)
    for op in (f.add, f.test_and_set, f.contains, gdedup.fingerprint):
        with pytest.raises(TypeError, match="1-dimensional NumPy uint64") as e:
            op(array)
        assert f"dtype {array.dtype}" in str(e.value)
    assert f.insertions == 0


def test_arrow_types_without_keys():
    f = gdedup.Filter(capacity=10)
    with pytest.raises(TypeError, match="int64"):
        f.add(pa.array([1, 2, 3]))
    with pytest.raises(TypeError, match="dictionary-encoded"):
        f.add(pa.array(["a", "b", "a"]).dictionary_encode())


def test_arrow_nulls_are_refused_before_any_key_is_added():
    f = gdedup.Filter(capacity=10)
    with pytest.raises(gdedup.InvalidArgumentError, match="1 nulls"):
        f.add(pa.array(["a", None, "b"]))
    assert f.insertions == 0


def test_bad_sizes_name_the_argument():
    with pytest.raises(gdedup.InvalidArgumentError, match="capacity=0"):
        gdedup.Filter(capacity=0)
    with pytest.raises(gdedup.InvalidArgumentError,
                       match="fpr=1.00e-03 and memory=1048576 cannot both be given"):
        gdedup.Filter(memory=1 << 20, fpr=1e-3)
    with pytest.raises(gdedup.InvalidArgumentError,
                       match="max_memory=1048576 caps a filter that grows, but grow=False"):
        gdedup.Filter(capacity=100, grow=False, max_memory=1 << 20)
    with pytest.raises(gdedup.InvalidArgumentError,
                       match="a fixed filter needs capacity= .* or memory="):
        gdedup.Filter(grow=False)
    with pytest.raises(ValueError):   # InvalidArgumentError is a ValueError
        gdedup.Filter(capacity=100, fpr=1.5)
    with pytest.raises(TypeError):
        gdedup.Filter(capacity="many")
    with pytest.raises(TypeError):
        gdedup.Filter(capacity=-1)


def test_absurd_plans_are_refused_and_costly_ones_warned_of(recwarn):
    """As the command plans them (plan_fixed_filter): a plan whose expected
    rate is above 0.5 is refused without allow_high_fpr=True; a memory
    budget that holds the rate above ten times 1e-4 is warned of."""
    with pytest.raises(gdedup.InvalidArgumentError,
                       match=r"expected false-positive rate.*allow_high_fpr=True"):
        gdedup.Filter(memory=64, capacity=1_000_000)
    with pytest.raises(gdedup.InvalidArgumentError,
                       match=r"fpr=0.9 would take about 90.*allow_high_fpr=True"):
        gdedup.Filter(fpr=0.9)      # a growing filter too, as the command's --fpr
    assert len(recwarn) == 0
    f = gdedup.Filter(memory=64, capacity=1_000_000, allow_high_fpr=True)
    assert f.plan["capacity"] == 1_000_000 and not f.grows
    with pytest.warns(RuntimeWarning, match=r"expected false-positive rate.*memory="):
        gdedup.Filter(memory=4096, capacity=10_000)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(RuntimeWarning):     # -W error: the warning fails the call
            gdedup.Filter(memory=4096, capacity=10_000)


def test_bad_key_rules_and_backend():
    with pytest.raises(gdedup.InvalidArgumentError, match="field:0|field"):
        gdedup.Filter(key="field:0")
    with pytest.raises(gdedup.InvalidArgumentError, match="no-such-rule"):
        gdedup.Filter(normalize="no-such-rule")
    with pytest.raises(gdedup.InvalidArgumentError, match='backend="quantum"'):
        gdedup.Filter(backend="quantum")


def test_file_errors(tmp_path):
    missing = tmp_path / "missing.gdf"
    with pytest.raises(gdedup.FileError) as e:
        gdedup.Filter.load(missing)
    assert isinstance(e.value, OSError) and str(missing) in str(e.value)
    assert e.value.kind == "io"

    damaged = tmp_path / "damaged.gdf"
    f = gdedup.Filter(capacity=1000)
    f.add([b"a", b"b"])
    f.save(damaged)
    data = bytearray(damaged.read_bytes())
    data[-1] ^= 0xFF
    damaged.write_bytes(bytes(data))
    with pytest.raises(gdedup.DamagedFileError, match=str(damaged)):
        gdedup.Filter.load(damaged)

    truncated = tmp_path / "truncated.gdf"
    truncated.write_bytes(bytes(data[:5000]))
    with pytest.raises(gdedup.DamagedFileError):
        gdedup.Filter.load(truncated)

    with pytest.raises(gdedup.FileError):
        f.save(tmp_path / "no-such-dir" / "f.gdf")


def test_read_only_refuses_changes(tmp_path):
    path = tmp_path / "f.gdf"
    gdedup.Filter(capacity=100).save(path)
    f = gdedup.Filter.load(path, read_only=True)
    assert f.read_only
    assert b"a" not in f
    with pytest.raises(gdedup.InvalidArgumentError, match="read_only"):
        f.add(b"a")
    with pytest.raises(gdedup.InvalidArgumentError, match="read_only"):
        f.test_and_set([b"a"])


def test_lone_surrogates_are_refused():
    with pytest.raises(UnicodeEncodeError):
        gdedup.Filter(capacity=10).add(["ok", "\udc80"])


def test_save_leaves_no_temporary_file(tmp_path):
    f = gdedup.Filter(capacity=100)
    f.save(tmp_path / "f.gdf")
    f.save(tmp_path / "f.gdf")
    assert os.listdir(tmp_path) == ["f.gdf"]


def test_a_delimiter_needs_a_field_key():
    with pytest.raises(gdedup.InvalidArgumentError, match="has no effect with key="):
        gdedup.Filter(delimiter="comma")
    with pytest.raises(gdedup.InvalidArgumentError, match="has no effect with key="):
        gdedup.fingerprint([b"a"], delimiter="comma")
