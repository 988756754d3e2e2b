"""normalize="scrapy" against w3lib.url.canonicalize_url itself, on URL
variants made from a fixed seed: every key's fingerprint equals the
fingerprint of w3lib's canonical URL (of the key as it is where w3lib raises),
except on the kinds of keys docs/KEYS.md lists as known differences, and
exactly those kinds differ."""

import random
import re

import pytest
import w3lib.url as w3lib_url  # pinned by scripts/install-python-deps.sh

import gdedup

SCHEMES = ["http", "HTTP", "https", "HtTpS", "ftp", "ws", "wss", "file", "mailto", "foo",
           "git+ssh", "tel", ""]
SEPARATORS = ["://", "://", "://", ":", ":/", ":///", ":\\\\", "//"]
USERINFOS = ["", "", "", "user@", "us%65r:p%40ss@", "a b@", "@", ":@", "u:@", "U:P:Q@",
             "\xc3\xa9@", "a%zz@"]
HOSTS = ["example.com", "EXAMPLE.com", "Www.Example.COM.", "127.0.0.1", "", "localhost",
         "[::1]", "[::0:1]", "[v1.x]", "[bad", "bad]", "[2001:DB8:0:0:8:800:200C:417A]",
         "[::ffff:1.2.3.4]", "[fe80::1%25Eth0]", "[fe80::1%eth0]", "[1:0:0:2:0:0:0:3]",
         "[::01.2.3.4]", "[1.2.3.4]", "[v1.x:Y]", "[V1.x]", "[0:0::]", "[1:2:3:4:5:6:7:8:9]",
         "[12345::]", "[::1]x", "x[::1]", "[]", "[1::2::3]", "[:1::]", "[1:2:3:4:5:6:7::]",
         "b\xc3\xbccher.de", "xn--bcher-kva.de", "ex\xffample.com", "exa\tmple.com", "a..b",
         "-x-.com", "h%41st", "a_b.c~d"]
PORTS = ["", "", "", ":80", ":443", ":21", ":8080", ":080", ":", ":99999", ":65535", ":x",
         ":0", ":1e3", ": 80"]
SEGMENTS = ["a", "B", ".", "..", "%2e", "%2E%2e", "%7E%7e", "%2f%2F", "%3b", "%3F", ";p",
            "x;y=1", "%zz", "%4", "%", "sp ace", "\xc3\xa9", "\xff\xfe", "[x]|y", "~!$&'()*+,=:@",
            "%25", "%2525", "a\\b", "", "%41%c3%a9", "'", '"<>`{}^', "\x7f", "%00"]
QUERY_FIELDS = ["a=1", "b=2", "a=", "a", "", "q=a+b%20c", "x=%ff%FF", "\xc3\xa9=\xff", "'q'=1",
                "k=v;w", "=x", "a=b=c", "%26=%3D", "c=%2B+", "z", "Z=1", "sp ace=1", "%zz=%4",
                "a=1#", "[]=|", "?=?"]
FRAGMENTS = ["", "", "#", "#frag", "#F%41 b", "#a?b", "#\xff", "#\xc3\xa9", "#a#b", "#%zz"]
WRAPS = [("", ""), ("", ""), ("", ""), (" ", ""), ("\t", "\n"), ("\x00", " \x01"), ("", "\r\n")]


def latin1(text):
    return text.encode("latin-1")


def variant(rng):
    """One URL as bytes: a random pick of each part, sometimes mutated."""
    scheme = rng.choice(SCHEMES)
    sep = rng.choice(SEPARATORS) if scheme else rng.choice(["//", "", "/"])
    path = "".join("/" + rng.choice(SEGMENTS) for _ in range(rng.randrange(4)))
    if rng.random() < 0.1:
        path = path.lstrip("/")
    query = ""
    if rng.random() < 0.6:
        query = "?" + "&".join(rng.choice(QUERY_FIELDS) for _ in range(rng.randrange(5)))
    head, tail = rng.choice(WRAPS)
    url = (head + scheme + sep + rng.choice(USERINFOS) + rng.choice(HOSTS) + rng.choice(PORTS)
           + path + query + rng.choice(FRAGMENTS) + tail)
    raw = bytearray(latin1(url))
    for _ in range(rng.choice([0, 0, 0, 1, 2])):
        at = rng.randrange(len(raw) + 1)
        if rng.random() < 0.5 and at < len(raw):
            raw[at] = ord(chr(raw[at]).swapcase()) if raw[at] < 128 else raw[at]
        else:
            raw[at:at] = rng.choice([b"%", b"%2", b"/", b"?", b"#", b"&", b"=", b";", b"\t",
                                     b"\\", b"@", b":", b"\x80", b"\xe2\x82\xac", b" ", b"+"])
    return bytes(raw)


def variants(count, seed):
    rng = random.Random(seed)
    return [variant(rng) for _ in range(count)]


AUTHORITY = re.compile(rb"^(?:[a-zA-Z][a-zA-Z0-9+.-]*:)?//([^/?#]*)")


def difference_kind(url):
    """The documented kind of key (docs/KEYS.md) that `url` is, or None."""
    text = url.strip(bytes(range(0x21))).translate(None, b"\t\n\r")
    scheme = re.match(rb"^([a-zA-Z][a-zA-Z0-9+.-]*):", text)
    if scheme and scheme.group(1).lower() in (b"http", b"https", b"ftp", b"file", b"ws", b"wss"):
        cut = min([i for i in (text.find(b"?"), text.find(b"#")) if i >= 0] or [len(text)])
        text = text[:cut].replace(b"\\", b"/") + text[cut:]
    m = AUTHORITY.match(text)
    if not m:
        return None
    authority = m.group(1)
    decoded = authority.decode("utf-8", errors="surrogateescape")
    if any(ord(c) >= 0x80 and not 0xDC80 <= ord(c) <= 0xDCFF for c in decoded):
        return "non-ASCII character in the authority"
    host = authority.rpartition(b"@")[2]
    if (b"[" in authority or b"]" in authority) and not host.startswith(b"["):
        return "brackets not around the host"
    return None


# docs/KEYS.md, "scrapy: known differences": keep both lists the same.
DOCUMENTED = {"non-ASCII character in the authority", "brackets not around the host"}


def w3lib_key(url, keep_fragments):
    try:
        return w3lib_url.canonicalize_url(url, keep_fragments=keep_fragments).encode()
    except ValueError:
        return url


@pytest.mark.parametrize("rule,keep", [("scrapy", False), ("scrapy,keep-fragments", True)])
def test_scrapy_matches_w3lib(rule, keep):
    urls = variants(100_000, seed=29)
    ours = gdedup.fingerprint(urls, normalize=rule)
    theirs = gdedup.fingerprint([w3lib_key(u, keep) for u in urls])
    kinds = {}
    undocumented = []
    for url, a, b in zip(urls, ours, theirs):
        if a == b:
            continue
        kind = difference_kind(url)
        if kind is None:
            undocumented.append((url, w3lib_key(url, keep)))
        else:
            kinds[kind] = kinds.get(kind, 0) + 1
    assert not undocumented[:20], f"{len(undocumented)} undocumented differences"
    assert set(kinds) == DOCUMENTED, kinds


def test_scrapy_rules_are_alone():
    with pytest.raises(Exception, match="scrapy"):
        gdedup.fingerprint(b"http://a/", normalize="scrapy,sort-query")
    with pytest.raises(Exception, match="keep-fragments"):
        gdedup.fingerprint(b"http://a/", normalize="keep-fragments")


def test_a_filter_file_records_the_scrapy_rule(tmp_path):
    f = gdedup.Filter(capacity=100, normalize="scrapy,keep-fragments")
    f.add("HTTP://Example.COM:80/b/../a?y=2&x=1#frag")
    f.save(tmp_path / "s.gdf")
    g = gdedup.Filter.load(tmp_path / "s.gdf")
    assert g.key_rules == f.key_rules
    assert "http://example.com:80/a?x=1&y=2#frag" in g
    assert "http://example.com:80/a?x=1&y=2" not in g
    for other in ("scrapy", "url", "none"):
        with pytest.raises(gdedup.InvalidArgumentError, match="normalize scrapy,keep-fragments"):
            gdedup.Filter.load(tmp_path / "s.gdf", normalize=other)
