"""--key json:PATH and cdxj:... against an oracle built on Python's json
module: on hostile records made from fixed seeds (missing fields, nested
paths, escapes in names and values, \\u0000, surrogate pairs and lone
surrogates, duplicate names, numbers of any size as keys, invalid UTF-8,
broken JSON), the command keeps exactly the records the oracle keeps, and
its keys are the oracle's keys. With --strict-json (strict_json=True) the
oracle reads the whole record with json.loads, on records that also hold
JSONTestSuite's one-line documents (tests/data/json_suite.txt) before and
after the key, glued to other records and cut short.

The oracle reads a record with json.loads, keeping numbers as their text and
every member of an object, takes the first member of a name (docs/KEYS.md),
and writes a value that is not a string as its canonical text:
json.dumps(..., ensure_ascii=False, separators=(",", ":")). A record
json.loads refuses, or whose value holds a lone surrogate, has no key.

The keys themselves are checked without a way to print them: each record's
oracle key is written again as a probe, a record whose value is that key as
a string, after all the records. Probes have the key of the record they
were made from only if the command's key equals the oracle's; so with
every record written once (--exact, no false positives), the output holds
exactly the oracle's kept records and no probe when, and only when, the
command's keys are the oracle's."""

import json
import pathlib
import random

import pytest

RECORDS = 1_000_000


class Num(str):
    """A number as json.loads read it: its text."""


class Pairs(list):
    """An object as json.loads read it: every (name, value), in order."""


def no_constants(name):
    raise ValueError(f"{name} is not JSON")


def loads(record):
    return json.loads(record.decode("utf-8"), object_pairs_hook=Pairs, parse_int=Num,
                      parse_float=Num, parse_constant=no_constants)


def canonical(v):
    """The canonical text of a value; raises UnicodeEncodeError where it
    holds a lone surrogate, even in a member left out as a duplicate."""
    if isinstance(v, Num):
        return str(v)
    if v is True:
        return "true"
    if v is False:
        return "false"
    if v is None:
        return "null"
    if isinstance(v, str):
        text = json.dumps(v, ensure_ascii=False)
        text.encode("utf-8")
        return text
    if isinstance(v, list) and not isinstance(v, Pairs):
        return "[" + ",".join(canonical(x) for x in v) + "]"
    seen, parts = set(), []
    for name, x in v:
        text = canonical(x)
        json.dumps(name, ensure_ascii=False).encode("utf-8")
        if name in seen:
            continue
        seen.add(name)
        parts.append(json.dumps(name, ensure_ascii=False) + ":" + text)
    return "{" + ",".join(parts) + "}"


def step_into(v, step):
    """The first member named `step` (names before it must be UTF-8), or the
    element it numbers; KeyError when there is none."""
    if isinstance(v, Pairs):
        for name, x in v:
            name.encode("utf-8")
            if name == step:
                return x
        raise KeyError(step)
    if isinstance(v, list) and step.isdigit() and (step == "0" or step[0] != "0"):
        if int(step) < len(v):
            return v[int(step)]
    raise KeyError(step)


def oracle_key(json_bytes, path):
    """The key bytes, or None for a record without one."""
    try:
        v = loads(json_bytes)
        for step in path:
            v = step_into(v, step)
        if isinstance(v, str) and not isinstance(v, Num):
            return v.encode("utf-8")
        return canonical(v).encode("utf-8")
    except (ValueError, KeyError, RecursionError, UnicodeError):
        return None


def strict_oracle_key(json_bytes, path):
    """oracle_key for a record that must be JSON throughout: json.loads
    reads all of it, and no string in it, names included, holds a lone
    surrogate."""
    try:
        canonical(loads(json_bytes))
    except (ValueError, RecursionError, UnicodeError):
        return None
    return oracle_key(json_bytes, path)


def json_suite(kinds="ny"):
    """JSONTestSuite's one-line documents of `kinds`, "n" those to reject and
    "y" those to accept, as bytes (tests/data/make_json_suite.py says how
    they are written)."""
    suite = pathlib.Path(__file__).resolve().parents[2] / "tests" / "data" / "json_suite.txt"
    docs = []
    for line in suite.read_text(encoding="ascii").splitlines():
        if line and not line.startswith("#"):
            kind, _, text = line.split("\t", 2)
            if kind in kinds:
                docs.append(text.encode("latin-1").decode("unicode_escape").encode("latin-1"))
    return docs


# ---------------------------------------------------------------- records

STRING_PIECES = ["a", "Z", "/", "\\/", '\\"', "\\\\", "\\u0000", "\\u00e9", "\u00e9", "\U0001f600",
                 "\\ud83d\\ude00", "\\n", "\\t", "\\u001f", "\\b", "\\f", "\\r", " ", ".", "[",
                 "]", "\\u0041", "http://ex.com/p?q=1", "\x7f", "\\u2028"]
RARE_PIECES = ["\\ud800", "\\udc00x", "\\ud83d\\u0041"]  # lone surrogates
NUMBERS = ["0", "-0", "1", "1.0", "1.50", "-12", "1e5", "1E+5", "1e-999", "1e999", "0.1e1",
           "123456789012345678901234567890", "-0.0", "7"]
NAMES = ["url", "a", "b", "meta", "src", "u\\u0072l", "\\u0075rl", "x.y", "0", "1", ""]
BROKEN_VALUES = ["tru", "nul", "01", "1.", "+1", ".5", '"\\q"', "[1,]", '{"a" 1}', "NaN",
                 "Infinity", "-", '"\\u12"', "[1,", '"unclosed', '"a\x01b"', '"a\x00"', "\x01"]


def ws(rng):
    return rng.choice(["", "", "", " ", "  ", "\t"])


def string(rng):
    pieces = [rng.choice(STRING_PIECES) for _ in range(rng.randrange(6))]
    if rng.random() < 0.02:
        pieces.insert(rng.randrange(len(pieces) + 1), rng.choice(RARE_PIECES))
    return '"' + "".join(pieces) + '"'


def value(rng, depth=0):
    r = rng.random()
    if r < 0.45 or depth > 3:
        return string(rng)
    if r < 0.65:
        return rng.choice(NUMBERS)
    if r < 0.72:
        return rng.choice(["true", "false", "null"])
    if r < 0.85:
        items = [value(rng, depth + 1) for _ in range(rng.randrange(4))]
        return "[" + ws(rng) + ("," + ws(rng)).join(items) + ws(rng) + "]"
    return obj(rng, [(rng.choice(NAMES), value(rng, depth + 1))
                     for _ in range(rng.randrange(4))])


def obj(rng, members):
    return "{" + ws(rng) + ",".join(
        ws(rng) + '"' + name + '"' + ws(rng) + ":" + ws(rng) + text + ws(rng)
        for name, text in members) + ws(rng) + "}"


def target(rng):
    """The text of the value the path selects; some not JSON."""
    r = rng.random()
    if r < 0.5:
        return string(rng)
    if r < 0.8:
        return value(rng)
    if r < 0.9:
        return rng.choice(BROKEN_VALUES)
    depth = rng.choice([5, 50, 3000])
    return "[" * depth + string(rng) + "]" * depth


def spelled(step, rng):
    """A name as a record may spell it: escaped or not."""
    if step == "url" and rng.random() < 0.2:
        return rng.choice(["u\\u0072l", "\\u0075rl", "\\u0075\\u0072\\u006c"])
    return step.replace("\\", "\\\\").replace('"', '\\"')


def nest(rng, path, text):
    """A value holding `text` at `path`, with other members around it: a
    duplicate after it, a near miss before it."""
    if not path:
        return text
    inner = nest(rng, path[1:], text)
    step = path[0]
    r = rng.random()
    if step.isdigit():
        if r < 0.1:
            return "[" + ",".join(value(rng) for _ in range(int(step))) + "]"  # too short
        before = [value(rng) for _ in range(int(step))]
        after = [value(rng) for _ in range(rng.randrange(2))]
        return "[" + ",".join(before + [inner] + after) + "]"
    # Other names only: a member of the step's name before the value would be
    # taken instead, and a value the parse never reaches is not checked.
    others = [n for n in NAMES if json.loads('"' + n + '"') != step]
    members = [(rng.choice(others), value(rng, 2)) for _ in range(rng.randrange(3))]
    if r < 0.1:
        return obj(rng, members)  # no such member
    members.insert(rng.randrange(len(members) + 1), (spelled(step, rng), inner))
    if rng.random() < 0.1:
        members.append((spelled(step, rng), value(rng, 2)))  # a duplicate name
    return obj(rng, members)


def broken(rng, text):
    """A record that is not JSON as a whole, in a way read before the value,
    or more than one JSON value: records glued on one line."""
    r = rng.random()
    if r < 0.1:
        return text.encode("utf-8") + rng.choice([b"", b" ", b"\t"]) + rng.choice(
            [text.encode("utf-8"), b"{}", b"[]", b'{"url":"x"}'])
    if r < 0.25:
        # Cut short: its brackets do not balance.
        return text.encode("utf-8")[: rng.randrange(len(text))]
    if r < 0.4:
        return text.encode("utf-8") + rng.choice([b" x", b",", b" 1", b" {}x"])
    if r < 0.55:
        at = rng.randrange(len(text) + 1)
        bad = rng.choice([b"\xff", b"\xc0\xaf", b"\xed\xa0\x80", b"\xf8\x88\x80\x80\x80"])
        return text[:at].encode("utf-8") + bad + text[at:].encode("utf-8")
    return rng.choice([b"", b"not json", b"42", b'"url"', b"[1,2]", b"null", b"{}", b"[]",
                       b"\xef\xbb\xbf{}", b"{\"url\":\"a\"", b"  "])


def pool(path, seed, distinct, prefix=lambda rng: b""):
    rng = random.Random(seed)
    records = []
    for _ in range(distinct):
        text = nest(rng, path, target(rng))
        record = broken(rng, text) if rng.random() < 0.08 else text.encode("utf-8")
        records.append(prefix(rng) + record)
    # Records that share keys in other spellings: whitespace, escapes.
    for k in range(distinct // 4):
        records.append(prefix(rng) + nest(rng, path, rng.choice(
            ['"http://a/' + str(k % 50) + '"', '"http:\\/\\/a\\/' + str(k % 50) + '"',
             '{"a":' + str(k % 7) + "}", '{ "a" : ' + str(k % 7) + " }",
             "[1, 2, " + str(k % 5) + "]", str(k % 9)])).encode())
    return [r for r in records if b"\n" not in r and b"\r" not in r]


def probe(path, key):
    """A JSON record whose value at `path` is the string `key`."""
    text = json.dumps(key.decode("utf-8"), ensure_ascii=False)
    for step in reversed(path):
        text = "[" + "0," * int(step) + text + "]" if step.isdigit() else \
            "{" + json.dumps(step) + ":" + text + "}"
    return text.encode("utf-8")


def check(tmp_path, run_cli, records, keys, key_option, make_probe, policy, *options):
    """The command's output on the records and their probes against the
    oracle's kept records (a missing key kept as unique, or dropped)."""
    seen, expected, probes = set(), [], []
    for record, key in zip(records, keys):
        if key is None:
            if policy == "keep":
                expected.append(record)
        elif key not in seen:
            seen.add(key)
            expected.append(record)
            probes.append(make_probe(key))
    data = tmp_path / "records.jsonl"
    data.write_bytes(b"\n".join(records + probes) + b"\n")
    out = tmp_path / "kept.jsonl"
    run_cli("dedup", data, "-o", out, "--exact", "--key", key_option, "--missing-key", policy,
            "--threads", 2, "--quiet", *options)
    got = out.read_bytes().split(b"\n")[:-1]
    assert len(got) == len(expected)
    assert got == expected


@pytest.mark.parametrize("path, count, policy", [("url", RECORDS, "keep"),
                                                 ("meta.src.1", 200_000, "drop")])
def test_json_keys_and_kept_records_equal_the_oracle(tmp_path, run_cli, path, count, policy):
    steps = path.split(".")
    distinct = pool(steps, seed=29 + len(path), distinct=20_000)
    by_record = {r: oracle_key(r, steps) for r in distinct}
    rng = random.Random(2900 + len(path))
    records = rng.choices(distinct, k=count)
    keys = [by_record[r] for r in records]
    # The pool is hostile enough to matter.
    assert 0.05 < sum(k is None for k in by_record.values()) / len(by_record) < 0.5
    assert any(k is not None and not k.startswith(b"http") for k in by_record.values())
    check(tmp_path, run_cli, records, keys, "json:" + path, lambda key: probe(steps, key), policy)


def cdxj_prefix(rng):
    host = rng.choice(["example", "ex", "a-b", "xn--bcher-kva"])
    return f"com,{host})/{rng.randrange(100)} 2024{rng.randrange(10**10):010d} ".encode()


def test_cdxj_keys_and_kept_records_equal_the_oracle(tmp_path, run_cli):
    rng = random.Random(31)
    # Common Crawl's shape: the URL with the capture's other fields.
    records = []
    for line in pool(["url"], seed=30, distinct=20_000, prefix=cdxj_prefix):
        surt, stamp, text = (line.split(b" ", 2) + [b"", b""])[:3]
        if rng.random() < 0.5 and text.startswith(b"{") and text.endswith(b"}") and text != b"{}":
            text = (b'{"mime": "text/html", "status": "200", "digest": "sha1:AB", '
                    b'"length": "1234", "offset": "5678", "filename": "crawl-data/x.warc.gz", '
                    + text[1:])
        records.append(b" ".join([surt, stamp, text]))
    records += [b"", b"onlysurt", b"surt 2024", b" 2024 {}", b"surt  {}"]
    records = rng.choices(records, k=200_000)

    def split(record):
        parts = record.split(b" ", 2)
        return parts if len(parts) == 3 and parts[0] and parts[1] else None

    def url_key(record):
        parts = split(record)
        return oracle_key(parts[2], ["url"]) if parts else None

    url_keys = [url_key(r) for r in records]
    check(tmp_path, run_cli, records, url_keys, "cdxj:url",
          lambda key: b"s t " + probe(["url"], key), "keep")
    records = records[:50_000]
    for field, index in (("surt", 0), ("timestamp", 1)):
        keys = [split(r)[index] if split(r) else None for r in records]
        check(tmp_path, run_cli, records, keys, "cdxj:" + field,
              lambda key: key + b" t {}" if index == 0 else b"s " + key + b" {}", "drop")


def hostile_to_strict(rng, record, docs):
    """The record with a document of JSONTestSuite before or after its
    first member, glued to another record, or cut short."""
    r = rng.random()
    if r < 0.25 and record.startswith(b"{"):
        return b'{"v":' + rng.choice(docs) + b"," + record[1:]
    if r < 0.5 and record.endswith(b"}"):
        return record[:-1] + b',"w":' + rng.choice(docs) + b"}"
    if r < 0.6:
        return record + rng.choice([record, b"{}", b" 1", b' {"url":"glued"}'])
    if r < 0.7:
        return record[: rng.randrange(len(record) + 1)]
    return record


@pytest.mark.parametrize("key_option, prefix", [("json:url", lambda rng: b""),
                                                ("cdxj:url", cdxj_prefix)])
def test_strict_json_keys_equal_the_oracle_reading_the_whole_record(tmp_path, run_cli,
                                                                    key_option, prefix):
    rng = random.Random(37)
    docs = json_suite()
    distinct = []
    for record in pool(["url"], seed=36, distinct=20_000):
        distinct.append(hostile_to_strict(rng, record, docs))
    by_record = {}
    for record in distinct:
        key = strict_oracle_key(record, ["url"])
        by_record[prefix(rng) + record] = key
    records = rng.choices(list(by_record), k=200_000)
    keys = [by_record[r] for r in records]
    # Both kinds of record are many.
    assert 0.3 < sum(k is None for k in by_record.values()) / len(by_record) < 0.7
    make_probe = (lambda key: probe(["url"], key)) if key_option.startswith("json") else \
        (lambda key: b"s t " + probe(["url"], key))
    check(tmp_path, run_cli, records, keys, key_option, make_probe, "keep", "--strict-json")


def test_the_first_record_without_its_key_ends_the_job(tmp_path, run_cli):
    data = tmp_path / "in.jsonl"
    data.write_bytes(b'{"url":"a"}\n{"url":"a"}\n{"x":1}\n{"url":"b"}\n')
    out = tmp_path / "out.jsonl"
    proc = run_cli("dedup", data, "-o", out, "--key", "json:url", "--quiet", check=False)
    assert proc.returncode != 0
    message = proc.stderr.decode()
    assert f"{data}: record 3 (at byte offset 24) has no key json:url" in message
    assert "--missing-key keep" in message and "--missing-key drop" in message


JOB = b'{"url":"a"}\n{ "url" : "a" }\n{"x":1}\n{"url":"b"}\n'


@pytest.mark.parametrize("policy, kept, missing", [
    ("keep", b'{"url":"a"}\n{"x":1}\n{"url":"b"}\n', 1),
    ("drop", b'{"url":"a"}\n{"url":"b"}\n', 1)])
def test_run_takes_json_keys_and_the_missing_key_policy(tmp_path, policy, kept, missing):
    import gdedup
    data, out = tmp_path / "in.jsonl", tmp_path / "out.jsonl"
    data.write_bytes(JOB)
    result = gdedup.run("dedup", data, output=out, key="json:url", missing_key=policy)
    assert out.read_bytes() == kept
    assert result.missing_keys == missing
    assert result.kept + result.dropped == result.records == 4


@pytest.mark.parametrize("exact", [False, True])
def test_run_names_a_record_without_its_key_in_its_own_words(tmp_path, exact):
    import gdedup
    data = tmp_path / "in.jsonl"
    data.write_bytes(JOB)
    # A bad record, not a damaged file: the error a Filter or Set gives for
    # a key without its value, with the record's number in the input.
    with pytest.raises(gdedup.InvalidArgumentError) as raised:
        gdedup.run("dedup", data, output=tmp_path / "out", key="json:url", exact=exact)
    assert raised.value.kind == "invalid_argument"
    assert not isinstance(raised.value, gdedup.DamagedFileError)
    message = str(raised.value)
    assert "record 3 (at byte offset 28) has no key json:url" in message
    assert 'missing_key="keep"' in message or "missing_key=keep" in message
    with pytest.raises(gdedup.InvalidArgumentError, match="missing_key"):
        gdedup.run("dedup", data, output=tmp_path / "out", missing_key="keep")


def test_run_takes_strict_json(tmp_path):
    import gdedup
    data, out = tmp_path / "in.jsonl", tmp_path / "out.jsonl"
    data.write_bytes(b'{"url":"a"}\n{"v":[1,,2],"url":"b"}\n{"url":"a"}{"url":"c"}\n'
                     b'{"url":"b"}\n')
    result = gdedup.run("dedup", data, output=out, key="json:url", missing_key="drop",
                        strict_json=True)
    assert out.read_bytes() == b'{"url":"a"}\n{"url":"b"}\n'
    assert result.missing_keys == 2
    # By default the value before the key is skipped, not read.
    result = gdedup.run("dedup", data, output=out, key="json:url", missing_key="drop")
    assert out.read_bytes() == b'{"url":"a"}\n{"v":[1,,2],"url":"b"}\n'
    assert result.missing_keys == 1
    with pytest.raises(gdedup.InvalidArgumentError) as raised:
        gdedup.run("dedup", data, output=out, key="json:url", strict_json=True)
    assert "record 2 (at byte offset 12) has no key json:url: it lacks that value or is " \
           "not one JSON value. Give missing_key=" in str(raised.value)
    with pytest.raises(gdedup.InvalidArgumentError,
                       match=r"^strict_json=True has no effect with key="):
        gdedup.run("dedup", data, output=out, strict_json=True)


def test_a_filter_takes_json_keys_and_refuses_a_record_without_its_key():
    import gdedup
    f = gdedup.Filter(capacity=1000, fpr=1e-9, key="cdxj:url")
    seen = f.test_and_set([b's 1 {"url":"a"}', b't 2 { "url" : "a" }', b'u 3 {"url":"b"}'])
    assert list(seen) == [False, True, False]
    with pytest.raises(gdedup.InvalidArgumentError, match=r"key 1 \(counting from 0\) has no key"):
        f.test_and_set([b's 1 {"url":"c"}', b"s 1 not json"])
    with pytest.raises(gdedup.InvalidArgumentError, match="has no key"):
        f.add(b"no cdxj line")


def strict_and_default(make, **args):
    """A new Filter or Set with json:url keys read strictly, and one read
    by default."""
    import gdedup
    made = getattr(gdedup, make)
    return made(key="json:url", strict_json=True, **args), made(key="json:url", **args)


@pytest.mark.parametrize("make", ["Filter", "Set"])
def test_strict_json_refuses_what_every_parser_rejects_before_the_key(make):
    """JSONTestSuite's documents to reject, as the value before the key:
    read strictly, no such record has a key, in any call that keys records;
    by default most are skipped as the brackets and quotes say, and the
    record keyed (docs/KEYS.md)."""
    import gdedup
    strict, default = strict_and_default(make)
    assert (strict.strict_json, default.strict_json) == (True, False)
    refused = r"has no key json:url: it lacks that value or is not one JSON value \(docs"
    good = b'{"url":"good"}'
    keyed_by_default = 0
    for n, doc in enumerate(json_suite("n")):
        record = b'{"v":' + doc + b',"url":"k%d"}' % n
        calls = [lambda: strict.add(record), lambda: strict.test_and_set(record),
                 lambda: strict.contains(record), lambda: record in strict,
                 lambda: strict.add([record]), lambda: strict.contains([good, record]),
                 lambda: strict.test_and_set((good, record))]
        for call in calls:
            with pytest.raises(gdedup.InvalidArgumentError, match=refused):
                call()
        try:
            keyed_by_default += default.add(record)
        except gdedup.InvalidArgumentError as e:
            assert "as far as it was read" in str(e)
    # As the command keys them by default (docs/HARDENING.md): 115 of 182.
    assert keyed_by_default == 115
    # The calls refused added nothing.
    assert not strict.contains([b'{"url":"k0"}', good]).any()
    for n, doc in enumerate(json_suite("y")):
        record = b'{"v":' + doc + b',"url":"y%d"}' % n
        assert strict.add(record) and default.add(record) and default.contains(record)
        assert strict.contains(b'{"url":"y%d"}' % n)


@pytest.mark.parametrize("make", ["Filter", "Set"])
def test_strict_json_refuses_glued_cut_and_trailing_records(make):
    strict, default = strict_and_default(make)
    import gdedup
    for record in [b'{"url":"a"} x', b'{"url":"a"}{"url":"b"}', b'{"url":"a"', b'{"url":"a",}',
                   b'{"url":"a","w":[1,,2]}', b'{"url":"a","w":tru}']:
        with pytest.raises(gdedup.InvalidArgumentError, match="has no key json:url"):
            strict.add(record)
    assert strict.add(b' {"url":"a"} ') and not strict.add(b'{"url":"a","w":[1,2]}')
    # By default the values after the key are skipped by their brackets.
    assert default.add(b'{"url":"a","w":tru}')


def strict_records(count, seed):
    """JSON records, a third of them holding a document to reject
    somewhere, glued to another or cut short (hostile_to_strict), each
    several times."""
    rng = random.Random(seed)
    docs = json_suite()
    distinct = [hostile_to_strict(rng, r, docs) for r in pool(["url"], seed, count)]
    return rng.choices(distinct, k=count * 3)


@pytest.mark.parametrize("exact", [False, True])
def test_strict_json_answers_as_the_command_does(tmp_path, run_cli, exact):
    """A Set's or Filter's answers with strict_json=True keep what `gdedup
    dedup --strict-json` keeps, and none of the records it finds without a
    key; and Filter.load / Set.load take strict_json too."""
    import gdedup
    records = strict_records(4000, seed=41)
    data, out = tmp_path / "in.jsonl", tmp_path / "out.jsonl"
    data.write_bytes(b"\n".join(records) + b"\n")
    mode = ["--exact"] if exact else ["--fpr", "1e-9"]

    def command(*strict):
        run_cli("dedup", data, "-o", out, "--key", "json:url", "--missing-key", "drop", *mode,
                "--quiet", *strict)
        return out.read_bytes().split(b"\n")[:-1]

    def has_key(record):
        try:
            gdedup.fingerprint(record, key="json:url", strict_json=True)
            return True
        except gdedup.InvalidArgumentError:
            return False

    keyed = [r for r in records if has_key(r)]
    assert 0.3 < 1 - len(keyed) / len(records) < 0.8
    made = gdedup.Set(key="json:url", strict_json=True) if exact else \
        gdedup.Filter(capacity=len(records), fpr=1e-9, key="json:url", strict_json=True)
    seen = made.test_and_set(keyed)
    expected = command("--strict-json")
    assert [r for r, s in zip(keyed, seen) if not s] == expected
    # Strictly, some records lose the key the default reading finds.
    assert expected != command()
    # One at a time, from a saved and loaded one.
    saved = tmp_path / ("seen.gds" if exact else "seen.gdf")
    made.save(saved)
    loaded = getattr(gdedup, "Set" if exact else "Filter").load(saved, strict_json=True)
    assert loaded.strict_json and not type(loaded).load(saved).strict_json
    kept = []
    for record in records:
        try:
            if not loaded.contains(record):
                kept.append(record)
        except gdedup.InvalidArgumentError as e:
            assert not has_key(record) and "as far as it was read" not in str(e)
    assert kept == []
    assert all(loaded.contains(r) for r in expected)


@pytest.mark.parametrize("make", ["Filter", "Set", "fingerprint"])
def test_strict_json_is_refused_with_a_key_every_record_has(tmp_path, make):
    """As the command refuses --strict-json without a json: or cdxj: key."""
    import gdedup
    made = getattr(gdedup, make)
    args = ([b"s 1 {}"],) if make == "fingerprint" else ()
    for key in [None, "whole", "field:2"]:
        named = f"key={key or 'whole'}"
        with pytest.raises(gdedup.InvalidArgumentError) as raised:
            made(*args, key=key, strict_json=True)
        assert str(raised.value) == (
            f"strict_json=True has no effect with {named}, which every record has; it is for "
            "json: and cdxj: keys; drop strict_json=True")
    assert made(*args, key="cdxj:surt", strict_json=True) is not None
    if make == "fingerprint":
        return
    saved = tmp_path / "whole"
    made(key="field:1").save(saved)
    with pytest.raises(gdedup.InvalidArgumentError, match=r"^strict_json=True has no effect "
                       r"with key=field:1, which every record has"):
        made.load(saved, strict_json=True)
    made(key="json:a.b").save(saved)
    assert made.load(saved, strict_json=True).strict_json


def test_strict_json_is_refused_for_a_filter_of_fingerprints(tmp_path, run_cli):
    import gdedup
    data, saved = tmp_path / "in.u64", tmp_path / "f.gdf"
    data.write_bytes(bytes(range(16)))
    run_cli("build", data, "--input-format", "u64", "-f", saved, "--quiet")
    with pytest.raises(gdedup.InvalidArgumentError, match=r"^strict_json=True has no effect "
                       r"with input_format=u64, which every record has"):
        gdedup.Filter.load(saved, strict_json=True)


@pytest.mark.parametrize("make", ["Filter", "Set"])
def test_strict_json_is_read_only(make):
    import gdedup
    made = getattr(gdedup, make)(key="json:url", strict_json=True)
    with pytest.raises(AttributeError):
        made.strict_json = False
    assert made.strict_json


def test_dedup_takes_strict_json_for_its_filter():
    import gdedup
    records = [b'{"url":"a"}', b'{"v":[1,,2],"url":"b"}']
    assert list(gdedup.dedup(records, key="json:url")) == records
    with pytest.raises(gdedup.InvalidArgumentError, match=r"^key 1 \(counting from 0\) has no "):
        list(gdedup.dedup(records, key="json:url", strict_json=True))


@pytest.mark.parametrize("make", ["Filter", "Set"])
def test_dedup_names_a_record_without_its_key_by_its_place_in_the_input(make):
    """dedup takes records a batch at a time; the record is named as the
    caller counts, from the first record given, not within its batch."""
    import gdedup
    made = getattr(gdedup, make)(key="json:url")
    records = [b'{"url":"%d"}' % i for i in range(2500)] + [b'{"x":1}', b'{"url":"z"}']
    kept = gdedup.dedup(records, made, batch=1000)
    with pytest.raises(gdedup.InvalidArgumentError) as raised:
        list(kept)
    assert str(raised.value).startswith("key 2500 (counting from 0) has no key json:url: ")
    assert raised.value.kind == "invalid_argument"
    # One batch: the place is the same.
    with pytest.raises(gdedup.InvalidArgumentError, match=r"^key 2500 \(counting from 0\) "):
        list(gdedup.dedup(records, getattr(gdedup, make)(key="json:url"), batch=3000))


def test_dedup_names_a_record_of_the_wrong_type_by_its_place_in_the_input():
    import gdedup
    records = [b"%d" % i for i in range(1003)] + [7]
    with pytest.raises(TypeError, match=r"^key 1003 is a "):
        list(gdedup.dedup(records, batch=1000))


@pytest.mark.parametrize("exact", [[], ["--exact"]])
def test_records_without_their_key_in_every_mode(tmp_path, run_cli, exact):
    """keep: a key seen nowhere else; drop: never written; neither reaches
    the filter, so an empty-string key is not taken for them."""
    data = tmp_path / "in.jsonl"
    data.write_bytes(b'{"url":""}\n{"x":1}\n{"url":""}\n{"x":1}\n{"url":"a"}\n')
    out = tmp_path / "out"

    def run(*args):
        run_cli(*args, "-o", out, "--key", "json:url", "--quiet", *exact)
        return out.read_bytes()

    assert run("dedup", data, "--missing-key", "keep") == \
        b'{"url":""}\n{"x":1}\n{"x":1}\n{"url":"a"}\n'
    assert run("dedup", data, "--missing-key", "drop") == b'{"url":""}\n{"url":"a"}\n'
    stats = json.loads(run_cli("dedup", data, "-o", out, "--key", "json:url", "--missing-key",
                               "drop", "--stats", "-", "--quiet", *exact).stdout)
    assert (stats["missing_keys"], stats["kept"], stats["dropped"]) == (2, 2, 3)
    assert run("dedup", data, "--duplicates", "--missing-key", "keep") == b'{"url":""}\n'
    assert run("dedup", data, "--duplicates", "--missing-key", "drop") == b'{"url":""}\n'
    if exact:
        return  # a set file is exact mode's own business
    built = json.loads(run_cli("build", data, "-f", tmp_path / "f.bf", "--key", "json:url",
                               "--missing-key", "keep", "--stats", "-", "--quiet").stdout)
    # New keys: "" and "a"; the two records without a key are not keys.
    assert (built["kept"], built["missing_keys"]) == (2, 2)
    query = ["query", data, "-f", tmp_path / "f.bf"]
    assert run(*query, "--missing-key", "keep") == b'{"url":""}\n{"url":""}\n{"url":"a"}\n'
    assert run(*query, "--absent", "--missing-key", "keep") == b'{"x":1}\n{"x":1}\n'
    assert run(*query, "--absent", "--missing-key", "drop") == b""
