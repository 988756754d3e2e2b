"""Filter operations against an exact oracle (a Python set), at a rate low
enough (1e-9) that a false positive among these keys is not expected."""

import os

import numpy as np
import pyarrow as pa
import pytest

import gdedup
from conftest import exact_seen


def test_test_and_set_matches_a_set(urls):
    f = gdedup.Filter(capacity=len(urls), fpr=1e-9)
    got = f.test_and_set(urls)
    assert got.dtype == np.bool_ and got.shape == (len(urls),)
    assert got.tolist() == exact_seen(urls)
    assert f.contains(urls).all()
    assert f.insertions == len(set(urls))


def test_batches_give_the_answers_of_one_call(urls):
    whole = gdedup.Filter(capacity=len(urls), fpr=1e-9).test_and_set(urls)
    f = gdedup.Filter(capacity=len(urls), fpr=1e-9)
    parts = [f.test_and_set(urls[i:i + 777]) for i in range(0, len(urls), 777)]
    assert np.concatenate(parts).tolist() == whole.tolist()


def test_single_key_forms(urls):
    f = gdedup.Filter(capacity=1000, fpr=1e-9)
    assert f.add(urls[0]) is True          # new
    assert f.add(urls[0]) is False         # already there
    assert urls[0] in f
    assert urls[1] not in f
    assert f.test_and_set(urls[1]) is False
    assert f.test_and_set(urls[1]) is True
    assert f.contains(urls[1]) is True


def test_add_many_counts_the_new_keys(urls):
    f = gdedup.Filter(capacity=len(urls), fpr=1e-9)
    assert f.add(urls) == len(set(urls))
    assert f.add(urls) == 0


def test_str_is_its_utf8_bytes():
    words = ["straße", "日本", "plain", "", "straße"]
    a = gdedup.Filter(capacity=100, fpr=1e-9)
    b = gdedup.Filter(capacity=100, fpr=1e-9)
    assert a.test_and_set(words).tolist() == b.test_and_set([w.encode() for w in words]).tolist()
    assert (gdedup.fingerprint(words) == gdedup.fingerprint([w.encode() for w in words])).all()


def test_list_tuple_iterable_numpy_and_arrow_agree(urls):
    strings = [u.decode() for u in urls]
    forms = {
        "list": urls,
        "tuple": tuple(urls),
        "generator": (u for u in urls),
        "numpy objects": np.array(urls, dtype=object),
        "fingerprints": gdedup.fingerprint(urls),
        "arrow binary": pa.array(urls, type=pa.binary()),
        "arrow string": pa.array(strings, type=pa.string()),
        "arrow large_string": pa.array(strings, type=pa.large_string()),
        "arrow large_binary": pa.array(urls, type=pa.large_binary()),
        "arrow string_view": pa.array(strings, type=pa.string_view()),
        "arrow sliced": pa.array([b"x"] * 5 + urls, type=pa.binary()).slice(5),
        "arrow chunked": pa.chunked_array([urls[:5000], urls[5000:5001], urls[5001:]],
                                          type=pa.binary()),
    }
    expected = exact_seen(urls)
    for name, keys in forms.items():
        f = gdedup.Filter(capacity=len(urls), fpr=1e-9)
        assert f.test_and_set(keys).tolist() == expected, name
        assert f.contains(keys).all(), name


def test_strided_fingerprints_are_read_as_given(urls):
    fps = gdedup.fingerprint(urls)
    doubled = np.repeat(fps, 2)[::2]   # a view with stride 2
    f = gdedup.Filter(capacity=len(urls), fpr=1e-9)
    assert f.test_and_set(doubled).tolist() == exact_seen(urls)


def test_empty_batches():
    f = gdedup.Filter(capacity=10)
    assert f.test_and_set([]).shape == (0,)
    assert f.contains(pa.array([], type=pa.string())).shape == (0,)
    assert f.add(np.array([], dtype=np.uint64)) == 0


def test_a_growing_filter_grows():
    f = gdedup.Filter(capacity=2000, fpr=1e-6)
    assert f.grows and f.layers == 1
    keys = [str(i).encode() for i in range(50000)]
    assert f.test_and_set(keys).sum() == 0    # distinct keys; a rare false positive
    assert f.layers > 1
    assert f.plan["grows"] and len(f.plan["layers"]) == f.layers
    assert f.contains(keys).all()
    assert f.current_fpr < 1e-6


def test_a_fixed_filter_stays_fixed():
    f = gdedup.Filter(capacity=2000, grow=False)
    with pytest.warns(RuntimeWarning):
        f.add([str(i).encode() for i in range(50000)])
    assert not f.grows and f.layers == 1
    assert f.current_fpr > 1e-2    # far past its plan


def test_properties_follow_the_keys(urls):
    distinct = len(set(urls))
    f = gdedup.Filter(capacity=distinct, grow=False)
    assert f.fill == 0 and f.estimated_keys == 0 and f.current_fpr == 0
    f.add(urls)
    assert abs(f.estimated_keys - distinct) < 0.05 * distinct
    assert 0 < f.fill < 1
    assert f.current_fpr == pytest.approx(f.plan["fpr"], rel=0.5)
    assert f.plan["capacity"] == distinct and f.nbytes == f.plan["bytes"]


def test_memory_sizes_a_fixed_filter():
    f = gdedup.Filter(memory=1 << 20)
    assert not f.grows and f.nbytes <= 1 << 20


def test_threads_give_the_same_answers(urls):
    one = gdedup.Filter(capacity=len(urls), threads=1, backend="cpu")
    two = gdedup.Filter(capacity=len(urls), threads=2, backend="cpu")
    assert one.test_and_set(urls).tolist() == two.test_and_set(urls).tolist()


def test_merge_refuses_what_the_command_refuses():
    a = gdedup.Filter(capacity=1000)
    with pytest.raises(gdedup.InvalidArgumentError, match="one grows and the other is fixed"):
        a.merge(gdedup.Filter(capacity=1000, grow=False))
    with pytest.raises(gdedup.InvalidArgumentError, match="different rules"):
        a.merge(gdedup.Filter(capacity=2000))
    with pytest.raises(gdedup.InvalidArgumentError, match="different rules"):
        a.merge(gdedup.Filter(capacity=1000, normalize="url"))
    with pytest.raises(gdedup.InvalidArgumentError, match="block counts"):
        gdedup.Filter(capacity=1000, grow=False).merge(gdedup.Filter(capacity=5000, grow=False))
    with pytest.raises(TypeError):
        a.merge([b"not a filter"])


def test_merge_keeps_the_merged_filter_usable(urls):
    a = gdedup.Filter(capacity=len(urls), fpr=1e-9, grow=False)
    b = gdedup.Filter(capacity=len(urls), fpr=1e-9, grow=False)
    a.add(urls[::2])
    b.add(urls[1::2])
    a.merge(b)
    assert a.contains(urls).all()
    assert a.test_and_set(urls).all()
    assert not a.test_and_set([b"a key never added"])[0]


def test_a_filter_merged_with_itself_is_itself(tmp_path):
    # Counted twice, its 1500 keys would take it past its plan of 2000.
    a = gdedup.Filter(capacity=2000, grow=False)
    a.add([b"key %d" % i for i in range(1500)])
    a.save(str(tmp_path / "before.gdf"))
    a.merge(a)
    a.save(str(tmp_path / "after.gdf"))
    assert (tmp_path / "before.gdf").read_bytes() == (tmp_path / "after.gdf").read_bytes()


def test_past_its_plan_a_filter_that_cannot_grow_warns_once():
    keys = [str(i).encode() for i in range(3000)]
    fixed = gdedup.Filter(capacity=2000, grow=False)
    with pytest.warns(RuntimeWarning, match="planned for, and it cannot grow"):
        fixed.add(keys)
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        fixed.add([b"more"])                        # once only
        grows = gdedup.Filter(capacity=2000)
        grows.add(keys)                             # grows instead
    capped = gdedup.Filter(capacity=2000, max_memory=gdedup.Filter(capacity=2000).nbytes)
    with pytest.warns(RuntimeWarning, match="max_memory"):
        capped.add([str(i).encode() for i in range(5000)])
    assert capped.layers == 1
    # A cap of no bytes is refused, never taken for no cap (None).
    with pytest.raises(gdedup.InvalidArgumentError, match="max_memory=0: a cap of 0 bytes holds no filter or set"):
        gdedup.Filter(capacity=2000, max_memory=0)


@pytest.mark.skipif(os.environ.get("GDEDUP_BIG_TESTS") != "1",
                    reason="a 2 GiB key: about 10 s and 4 GiB of memory; set GDEDUP_BIG_TESTS=1")
def test_a_key_past_2_gib_is_hashed_whole():
    """Sizes past 31 and 32 bits: the key is hashed whole (the command's
    record limit does not apply to keys handed over one by one), and a
    field key past byte 2**31 is found where it is."""
    big = b"\tX".rjust((1 << 31) + 10, b"a")  # one record, fields a...a and X
    f = gdedup.Filter(capacity=10)
    assert f.add(big) and big in f and not f.add([big])
    assert b"a" * 100 not in f
    assert gdedup.fingerprint(big.decode()) == gdedup.fingerprint(big)
    field = gdedup.Filter(capacity=10, key="field:2")
    assert field.add([big]) == 1
    assert b"other\tX" in field  # the same second field
    assert gdedup.fingerprint([big], key="field:2")[0] == gdedup.fingerprint(b"X")


@pytest.mark.parametrize("threads", [0, 4097])
@pytest.mark.parametrize("make", [
    lambda threads: gdedup.Filter(capacity=100, threads=threads),
    lambda threads: gdedup.Set(threads=threads),
], ids=["Filter", "Set"])
def test_thread_counts_a_job_refuses_are_refused(make, threads):
    with pytest.raises(gdedup.InvalidArgumentError, match=f"threads={threads}: give 1 to 4096"):
        make(threads)
