"""gdedup.Set, the exact set, against an oracle (a Python set): every answer
must be the oracle's, since two distinct keys share 84 bits of their XXH3-128
only by a chance of about 1e-17 among these keys."""

import random
import re

import numpy as np
import pyarrow as pa
import pytest

import gdedup
from conftest import exact_seen, make_urls


def test_test_and_set_matches_a_set(urls):
    s = gdedup.Set()
    got = s.test_and_set(urls)
    assert got.dtype == np.bool_ and got.shape == (len(urls),)
    assert got.tolist() == exact_seen(urls)
    assert len(s) == len(set(urls))
    assert s.contains(urls).all()
    assert not s.contains([u + b"/other" for u in urls[:1000]]).any()


def test_growth_from_the_smallest_set_keeps_every_key():
    keys = make_urls(200000, 120000, seed=11)
    s = gdedup.Set()
    first = s.nbytes
    assert s.test_and_set(keys).tolist() == exact_seen(keys)
    assert len(s) == len(set(keys)) and s.growths > 0 and s.nbytes > first
    assert 0 < s.fill <= 1
    sized = gdedup.Set(capacity=120000)
    assert sized.test_and_set(keys).tolist() == exact_seen(keys)
    assert sized.growths == 0


@pytest.mark.parametrize("batch", [1, 7, 777])
def test_batches_give_the_answers_of_one_call(urls, batch):
    s = gdedup.Set()
    parts = [s.test_and_set(urls[i:i + batch]) for i in range(0, len(urls), batch)]
    assert np.concatenate(parts).tolist() == exact_seen(urls)


@pytest.mark.parametrize("threads", [1, 2, 4])
def test_every_thread_count_gives_the_same_answers(urls, threads):
    s = gdedup.Set(threads=threads)
    assert s.threads == threads
    assert s.test_and_set(urls).tolist() == exact_seen(urls)


def test_single_key_forms(urls):
    s = gdedup.Set()
    assert s.add(urls[0]) is True
    assert s.add(urls[0]) is False
    assert urls[0] in s and urls[1] not in s
    assert s.test_and_set(urls[1]) is False
    assert s.test_and_set(urls[1]) is True
    assert s.contains(urls[1]) is True and s.contains(urls[2]) is False
    assert len(s) == 2


def test_add_many_counts_the_new_keys(urls):
    s = gdedup.Set()
    assert s.add(urls) == len(set(urls))
    assert s.add(urls) == 0
    assert s.add(iter([b"new", b"new", b"newer"])) == 2


def test_odd_keys_are_keys_like_any_other():
    keys = [b"", b"\x00", b"\x00\x00", b"a\r", b"a", b"\xff\xfe", b"a\nb", b"x" * 100000, b""]
    s = gdedup.Set()
    assert s.test_and_set(keys).tolist() == exact_seen(keys)


def test_str_is_its_utf8_bytes():
    words = ["straße", "日本", "plain", "", "straße"]
    s = gdedup.Set()
    s.add(words)
    assert s.contains([w.encode() for w in words]).all()
    assert len(s) == 4


def test_numpy_arrays_of_bytes_and_str(urls):
    expected = exact_seen(urls)
    assert gdedup.Set().test_and_set(np.array(urls)).tolist() == expected  # dtype S
    assert gdedup.Set().test_and_set(np.array(urls, dtype=object)).tolist() == expected
    text = [u.decode() for u in urls]
    assert gdedup.Set().test_and_set(np.array(text)).tolist() == expected  # dtype U


def test_numpy_text_arrays_are_their_items_as_numpy_gives_them():
    # Read in place: the key of each item is the bytes (or str) NumPy gives
    # for it, without the NULs that pad it, whatever the strides or order.
    raw = [b"ab", b"c", b"a\x00b\x00", b"", b"ab", b"\x00", b"\xff\x00x"]
    text = ["straße", "日本", "a\x00b\x00", "", "😀x", "plain", "\x00", "straße"]
    arrays = [np.array(raw), np.array(raw)[::-1], np.array(raw)[::2], np.array(raw, dtype="S9"),
              np.array(text), np.array(text)[::-2], np.array(text, dtype=">U9"),
              np.array(text, dtype="U12")]
    for array in arrays:
        items = array.tolist()
        keys = [k.encode() if isinstance(k, str) else k for k in items]
        assert gdedup.Set().test_and_set(array).tolist() == exact_seen(keys)
        assert (gdedup.fingerprint(array) == gdedup.fingerprint(items)).all()
        f = gdedup.Filter(capacity=100, fpr=1e-9)
        assert f.test_and_set(array).tolist() == exact_seen(keys)
    assert gdedup.Set().test_and_set(np.array([], dtype="S3")).tolist() == []
    with pytest.raises(UnicodeEncodeError):
        gdedup.Set().add(np.array(["ok", "\udc80"]))


@pytest.mark.parametrize("arrow_type", [pa.binary(), pa.string(), pa.large_binary(),
                                        pa.large_string(), pa.binary_view(), pa.string_view()])
def test_arrow_arrays_give_the_answers_of_a_list(urls, arrow_type):
    values = urls if arrow_type in (pa.binary(), pa.large_binary(), pa.binary_view()) \
        else [u.decode() for u in urls]
    array = pa.array(values, type=arrow_type)
    assert gdedup.Set().test_and_set(array).tolist() == exact_seen(urls)
    # An offset slice and a chunked array read the right keys.
    assert gdedup.Set().test_and_set(array[100:]).tolist() == exact_seen(urls[100:])
    chunked = pa.chunked_array([array[:5000], array[5000:5000], array[5000:]])
    assert gdedup.Set().test_and_set(chunked).tolist() == exact_seen(urls)


def test_mixed_inputs_answer_as_a_python_set(urls):
    # Calls of every form on one set, each a few chunks of keys long, keys
    # given as bytes in one call and as str in another: the answers are a
    # Python set's over the keys as bytes.
    text = [u.decode() for u in urls]
    calls = [
        urls[:9000],                                        # list of bytes
        tuple(text[4000:13000]),                            # tuple of str
        (u for u in urls[12000:16000]),                     # generator
        [u if i % 2 else u.decode() for i, u in enumerate(urls[15000:])],  # bytes and str
        np.array(urls[2000:6000]),                          # NumPy S
        np.array(text[:3000]),                              # NumPy U
        pa.array(text[7000:17000], type=pa.large_string()),  # Arrow
        pa.chunked_array([pa.array(urls[:100]), pa.array(urls[19000:])]),
        [b"", "", b"\x00", "\x00", "straße".encode(), "straße", b"\xff"],
    ]
    seen, s = set(), gdedup.Set()
    for keys in calls:
        keys = list(keys) if not isinstance(keys, (np.ndarray, pa.Array, pa.ChunkedArray)) \
            else keys
        as_bytes = [k.encode() if isinstance(k, str) else bytes(k) for k in
                    (keys.to_pylist() if isinstance(keys, (pa.Array, pa.ChunkedArray)) else
                     keys.tolist() if isinstance(keys, np.ndarray) else keys)]
        expected = []
        for k in as_bytes:
            expected.append(k in seen)
            seen.add(k)
        assert s.test_and_set(keys).tolist() == expected
        assert s.contains(keys).all()
    assert len(s) == len(seen)
    assert s.add(list(seen)) == 0


# The keys of a list a Set of one thread hashes at a time
# (kChunkKeysOneThread, src/job/live_set.cpp).
CHUNK = 1 << 13
# More keys than a set of 1 MiB holds, in several chunks.
MANY_KEYS = 1 << 19


def test_a_key_that_is_not_bytes_or_str_is_named_by_its_place_in_the_call():
    keys = [b"%d" % i for i in range(3 * CHUNK + 10)] + [3]
    s = gdedup.Set()
    with pytest.raises(TypeError, match=f"key {3 * CHUNK + 10} is a int"):
        s.test_and_set(keys)
    # The chunks before its own were answered and added, as from an Arrow
    # array; none of its chunk.
    assert len(s) == 3 * CHUNK


def test_a_list_another_thread_changes_is_read_safely():
    # The GIL is let go between chunks of keys: another thread may change
    # the list then. Each call gives the answers of the whole list or
    # refuses it, never anything read from freed objects.
    import threading
    keys = [b"key %d" % i for i in range(MANY_KEYS + 1000)]
    stop = threading.Event()

    def change():
        while not stop.is_set():
            keys.append(b"more")
            keys.pop()

    thread = threading.Thread(target=change)
    thread.start()
    try:
        n = MANY_KEYS + 1000
        for _ in range(3):
            s = gdedup.Set()
            try:
                got = s.test_and_set(keys)
            except RuntimeError as e:
                assert re.search(f"the list of keys changed from ({n}|{n + 1}) to ({n}|{n + 1}) "
                                 "keys during the call", str(e))
                continue
            assert len(got) in (n, n + 1) and not got.any()
    finally:
        stop.set()
        thread.join()


def test_arrow_nulls_are_refused():
    s = gdedup.Set()
    with pytest.raises(gdedup.InvalidArgumentError, match="1 nulls"):
        s.add(pa.array([b"a", None, b"b"]))
    assert len(s) == 0


def test_key_rules_select_and_normalize_as_the_filter_does(urls):
    records = [u + b"\t" + str(i % 50).encode() for i, u in enumerate(urls)]
    by_field = gdedup.Set(key="field:2").test_and_set(records)
    assert by_field.tolist() == exact_seen([r.split(b"\t")[1] for r in records])
    # The same key rules give the same keys as the command's filter (whose
    # rate here makes a false positive among these keys unlikely).
    messy = [u.replace(b"https://host", b"HTTPS://Host") + b"#frag" for u in urls] + urls
    s = gdedup.Set(normalize="url")
    f = gdedup.Filter(capacity=len(messy), fpr=1e-9, normalize="url")
    got = s.test_and_set(messy)
    assert got.tolist() == f.test_and_set(messy).tolist()
    assert got[len(urls):].all()  # each URL is its messy form, normalized
    assert s.key_rules == f.key_rules


@pytest.mark.parametrize("bad, message", [
    (None, "keys must be bytes or str"),
    (5, "keys must be bytes or str"),
    ([b"a", 3], "key 1 is a int"),
    ([None], "key 0 is a NoneType"),
    (np.arange(4, dtype=np.uint64), "84 bits"),
    (np.arange(4, dtype=np.int32), "dtype int32"),
    (np.zeros(3, dtype=">u8"), "not an array of numbers"),
    (pa.array([1, 2]), "holds no keys"),
])
def test_what_is_not_keys_is_refused_with_a_type_error(bad, message):
    s = gdedup.Set()
    for call in (s.add, s.test_and_set, s.contains):
        with pytest.raises(TypeError, match=message) as raised:
            call(bad)
        # What a set takes, not a filter's fingerprints.
        assert "NumPy uint64 array of fingerprints" not in str(raised.value)
    assert len(s) == 0


def test_in_takes_one_key():
    s = gdedup.Set()
    with pytest.raises(TypeError, match="`in` takes one key"):
        [b"a"] in s
    with pytest.raises(TypeError, match="`in` takes one key"):
        3 in s


def test_merge_is_the_union(urls):
    a, b = gdedup.Set(), gdedup.Set()
    a.add(urls[:12000])
    b.add(urls[8000:])
    a.merge(b)
    assert len(a) == len(set(urls))
    assert a.contains(urls).all()
    assert len(b) == len(set(urls[8000:]))  # other is unchanged
    a.merge(a)
    assert len(a) == len(set(urls))


def test_merge_past_max_memory_merges_nothing():
    mine = [b"mine %d" % i for i in range(50000)]
    theirs = [b"theirs %d" % i for i in range(50000)]
    a = gdedup.Set(threads=2)
    a.add(mine)
    b = gdedup.Set()
    b.add(theirs + mine[:100])
    nbytes, growths = a.nbytes, a.growths
    capped = gdedup.Set(threads=2, max_memory=nbytes)
    capped.add(mine)
    with pytest.raises(gdedup.SetFullError, match="nothing was merged"):
        capped.merge(b)
    assert (len(capped), capped.nbytes, capped.growths) == (len(mine), nbytes, growths)
    assert capped.contains(mine).all()
    assert not capped.contains(theirs).any()
    a.merge(b)
    assert len(a) == len(mine) + len(theirs)


def test_merge_refuses_other_key_rules():
    a, b = gdedup.Set(), gdedup.Set(key="field:2")
    b.add([b"x\ty"])
    with pytest.raises(gdedup.InvalidArgumentError, match="different rules"):
        a.merge(b)
    assert len(a) == 0
    with pytest.raises(TypeError):
        a.merge(gdedup.Filter())


def test_collision_chance_is_the_birthday_bound():
    s = gdedup.Set()
    assert s.collision_chance() == 0.0
    s.add([b"a", b"b", b"c"])
    assert s.collision_chance() == s.collision_chance(3)
    n = 10**9
    assert s.collision_chance(n) == pytest.approx(n * (n - 1) / 2 / 2.0**84, rel=1e-3)
    assert s.collision_chance(10**6) < s.collision_chance(10**9) < 1e-7


def test_max_memory_that_holds_no_set_is_refused():
    with pytest.raises(gdedup.InvalidArgumentError, match="max_memory=0: a cap of 0 bytes holds no filter or set"):
        gdedup.Set(max_memory=0)
    with pytest.raises(gdedup.InvalidArgumentError,
                       match="a set sized for capacity=10000000 takes .* more than "
                             "max_memory=1048576 allows; give a smaller capacity"):
        gdedup.Set(capacity=10**7, max_memory=1 << 20)
    # Checked before the set is made: a trillion keys' terabytes are never asked for.
    with pytest.raises(gdedup.InvalidArgumentError, match="capacity=1000000000000 takes"):
        gdedup.Set(capacity=10**12, max_memory=1 << 20)
    with pytest.raises(gdedup.InvalidArgumentError, match="the smallest set takes"):
        gdedup.Set(max_memory=1024)
    assert gdedup.Set().max_memory is None
    assert gdedup.Set(max_memory=1 << 30).max_memory == 1 << 30


def test_a_capacity_no_machine_holds_is_out_of_memory():
    with open("/proc/sys/vm/overcommit_memory") as f:
        if f.read().strip() == "1":
            pytest.skip("vm.overcommit_memory=1 grants any allocation")
    with pytest.raises(gdedup.OutOfMemoryError, match="capacity=1000000000000000 needs about"):
        gdedup.Set(capacity=10**15)


def test_past_max_memory_the_set_refuses_keys_and_keeps_the_ones_before():
    s = gdedup.Set(max_memory=1 << 20)
    keys = [b"key %d" % i for i in range(MANY_KEYS + 1000)]
    try:
        s.add(keys)
    except gdedup.SetFullError as e:
        assert e.kind == "set_full"
        assert 0 < len(s) < len(set(keys))
        # Named by its place in the call (the keys are distinct: those
        # before it are the set's), and by the argument that caps it.
        assert f"key {len(s)} (counting from 0) of the call" in str(e)
        assert f"past max_memory={1 << 20}" in str(e)
        assert s.nbytes <= 1 << 20
        # The keys before the one that did not fit were added, in order,
        # and the error answers them.
        assert s.contains(keys[:len(s)]).all()
        assert e.answered == len(s) and e.answers.dtype == bool
        assert len(e.answers) == len(s) and not e.answers.any()
        with pytest.raises(gdedup.SetFullError):
            s.add(keys[len(s):])
        return
    pytest.fail(f"{len(s)} keys in {s.nbytes} bytes held under max_memory=1 MiB")


def test_dedup_names_the_key_past_max_memory_by_its_place_in_the_input():
    s = gdedup.Set(max_memory=1 << 20)
    keys = [b"key %d" % i for i in range(MANY_KEYS + 1000)]
    with pytest.raises(gdedup.SetFullError) as raised:
        list(gdedup.dedup(keys, filter=s, batch=1000))
    # The keys are distinct: those before the refused one are the set's.
    assert len(s) > 1000
    assert f"key {len(s)} (counting from 0) of the call" in str(raised.value)
    assert raised.value.kind == "set_full" and raised.value.available == 1 << 20


def test_a_call_of_many_keys_takes_room_for_them_once():
    # After its first 65,536 keys a call takes room for the rest, as many
    # new ones as among those: the set ends as large as one grown key by key
    # (or sized for them), with a third of the doublings.
    keys = [b"k%d" % i for i in range(1_000_000)]
    whole, in_calls = gdedup.Set(), gdedup.Set()
    assert whole.add(keys) == len(keys)
    for i in range(0, len(keys), 50_000):
        in_calls.add(keys[i:i + 50_000])
    assert whole.nbytes == in_calls.nbytes == gdedup.Set(capacity=len(keys)).nbytes
    assert whole.growths * 3 <= in_calls.growths
    assert whole.contains(keys).all() and len(whole) == len(keys)


@pytest.mark.parametrize("threads", [1, 2])
def test_dedup_past_max_memory_yields_every_record_the_set_took(threads):
    # Repeated keys, refused in the middle of a batch: the new records
    # before the refused one are in the set, so they must be yielded, or
    # a run that goes on with a larger set would take them for seen.
    rng = random.Random(28)
    records = [b"key %d" % rng.randrange(400_000) for _ in range(MANY_KEYS + 1000)]
    s = gdedup.Set(max_memory=1 << 20, threads=threads)
    batch = 5000 if threads == 1 else 200_000  # calls a pass of two threads answers
    kept = []
    with pytest.raises(gdedup.SetFullError) as raised:
        for record in gdedup.dedup(records, filter=s, batch=batch):
            kept.append(record)
    taken = raised.value.answered
    assert taken % batch != 0 and raised.value.answers is None
    assert f"key {taken} (counting from 0)" in str(raised.value)
    assert kept == [r for r, seen in zip(records[:taken], exact_seen(records[:taken])) if not seen]
    assert len(s) == len(kept) and s.contains(kept).all()
    larger = gdedup.Set()
    larger.merge(s)
    kept += gdedup.dedup(records[taken:], filter=larger, batch=batch)
    assert kept == [r for r, seen in zip(records, exact_seen(records)) if not seen]


def test_one_key_past_max_memory_is_answered_by_none():
    s = gdedup.Set(max_memory=1 << 20)
    with pytest.raises(gdedup.SetFullError):
        for i in range(MANY_KEYS):
            s.test_and_set(b"key %d" % i)
    held = len(s)
    with pytest.raises(gdedup.SetFullError) as raised:
        s.test_and_set(b"key %d" % i)  # its part of the set is still full
    assert raised.value.answered == 0 and len(raised.value.answers) == 0
    assert len(s) == held == i


def test_dedup_with_a_set_keeps_every_first_occurrence(urls):
    lines = [u + b"\n" for u in urls]
    kept = list(gdedup.dedup(lines, filter=gdedup.Set(), batch=1000))
    assert kept == [r for r, seen in zip(lines, exact_seen(urls)) if not seen]
