"""normalize="scrapy" against w3lib.url.canonicalize_url itself: on w3lib's
own test cases, on URL variants made from a fixed seed, and on hosts made of
each of many code points. Every key's fingerprint equals the fingerprint of
w3lib's canonical URL (of the key as it is where w3lib raises), except on the
kinds of keys docs/KEYS.md lists as known differences, and exactly those
kinds differ."""

import random
import re

import pytest
import w3lib.url as w3lib_url  # pinned by scripts/install-python-deps.sh

import gdedup


def utf8(text):
    """`text` as its UTF-8 bytes, one character each, as the tables here hold
    URLs (latin1() turns them back into those bytes)."""
    return text.encode().decode("latin-1")

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
         "-x-.com", "h%41st", "a_b.c~d"] + [utf8(h) for h in [
             # Hosts that are not ASCII: real ones (w3lib's tests), and ones that
             # take each step and fallback of w3lib's IDNA (docs/KEYS.md).
             "www.räksmörgås.se", "はじめよう.みんな", "кто.рф", "nic.شبكة", "www.贷款.在线",
             "例え.jp", "ＢÜＣＨＥＲ。ＤＥ", "bücher.de.", "bücher..de", ".éxamplé.com",
             "www." + "éxamplé" * 11 + ".com", "Straße.de", "a\u200db.com", "İ.com",
             "\u212a.com", "ΌΣΟΣ", ".ΌΣΟΣ.gr", "\u0345Σ.x", "a\u05d0.com", "\u05d0\u05d1.il",
             "xn--ü.com", "XN--bücher.de", "💩.la", "ex／ample.com", "Ⅻ.com", "ü\x00x.de",
             "ü%41.de", "Ü%C3%9C.de", "ᾼ\ufe0f\u0301.gr", "a\u035c\u034f\u0308.x", "[v1.ü]",
             "[v1.ü:1]", "[fe80::1%ü]", "\u3002.com", "ü\uff0ede", "ü\uff61de", "\ue000.com",
             "\U000e0001ü.com", "\u0378.com", "ü" * 70 + ".de"]]
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
    host = authority.rpartition(b"@")[2]
    if (b"[" in authority or b"]" in authority) and not host.startswith(b"["):
        return "brackets not around the host"
    return None


# docs/KEYS.md, "scrapy: known differences": keep both lists the same.
DOCUMENTED = {"brackets not around the host"}


def w3lib_key(url, keep_fragments):
    try:
        return w3lib_url.canonicalize_url(url, keep_fragments=keep_fragments).encode()
    except ValueError:
        return url


def undocumented_differences(urls, rule, keep):
    """The URLs whose key differs from w3lib's in a kind docs/KEYS.md does not
    list (with w3lib's key), and the count of each kind it lists."""
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
    return undocumented, kinds


@pytest.mark.parametrize("rule,keep", [("scrapy", False), ("scrapy,keep-fragments", True)])
def test_scrapy_matches_w3lib(rule, keep):
    undocumented, kinds = undocumented_differences(variants(100_000, seed=29), rule, keep)
    assert not undocumented[:20], f"{len(undocumented)} undocumented differences"
    assert set(kinds) == DOCUMENTED, kinds


# w3lib's own canonicalize_url cases (tests/test_url.py, TestCanonicalizeUrl)
# that use its default options, which Scrapy's fingerprints use: the URL
# (a str, or bytes as given there) and what canonicalize_url returns.
W3LIB_CASES = [
    ("http://www.example.com/", "http://www.example.com/"),
    ("http://www.example.com", "http://www.example.com/"),
    ("http://www.example.com/do?a=1&b=2&c=3", "http://www.example.com/do?a=1&b=2&c=3"),
    ("http://www.example.com/do?c=1&b=2&a=3", "http://www.example.com/do?a=3&b=2&c=1"),
    ("http://www.example.com/do?&a=1", "http://www.example.com/do?a=1"),
    ("http://www.example.com:8888/do?a=1&b=2&c=3", "http://www.example.com:8888/do?a=1&b=2&c=3"),
    ("http://www.example.com:/do?a=1&b=2&c=3", "http://www.example.com/do?a=1&b=2&c=3"),
    ("http://www.example.com/do?c=3&b=5&b=2&a=50", "http://www.example.com/do?a=50&b=2&b=5&c=3"),
    ("http://www.example.com/do?b=&a=2", "http://www.example.com/do?a=2&b="),
    ("http://www.example.com/do?b=&c&a=2", "http://www.example.com/do?a=2&b=&c="),
    ("http://www.example.com/do?1750,4", "http://www.example.com/do?1750%2C4="),
    ("http://www.example.com/do?q=a space&a=1", "http://www.example.com/do?a=1&q=a+space"),
    ("http://www.example.com/do?q=a+space&a=1", "http://www.example.com/do?a=1&q=a+space"),
    ("http://www.example.com/do?q=a%20space&a=1", "http://www.example.com/do?a=1&q=a+space"),
    ("http://www.example.com/résumé", "http://www.example.com/r%C3%A9sum%C3%A9"),
    ("http://www.example.com/résumé?q=résumé",
     "http://www.example.com/r%C3%A9sum%C3%A9?q=r%C3%A9sum%C3%A9"),
    ("http://exa\tmple.com/a\r\nb?q=a\tb", "http://example.com/ab?q=ab"),
    (b"http://exa\tmple.com/a\r\nb?q=a\tb", "http://example.com/ab?q=ab"),
    ("http://www.example.com/r%c3%a9sum%c3%a9", "http://www.example.com/r%C3%A9sum%C3%A9"),
    ("http://www.example.com/a%a3do", "http://www.example.com/a%A3do"),
    ("http://www.example.com/a%a3do?q=r%c3%a9sum%c3%a9",
     "http://www.example.com/a%A3do?q=r%C3%A9sum%C3%A9"),
    ("http://www.example.com/a%a3do?q=r%e9sum%e9", "http://www.example.com/a%A3do?q=r%E9sum%E9"),
    ("https://example.com/a%23b%2cc#bash", "https://example.com/a%23b,c"),
    ("http://www.example.com/do?k=b%a3", "http://www.example.com/do?k=b%A3"),
    ("http://www.example.com/do?k=r%c3%a9sum%c3%a9",
     "http://www.example.com/do?k=r%C3%A9sum%C3%A9"),
    ("http://www.example.com/a do?a=1", "http://www.example.com/a%20do?a=1"),
    ("http://www.example.com/a %20do?a=1", "http://www.example.com/a%20%20do?a=1"),
    ("http://www.example.com/a do£.html?a=1", "http://www.example.com/a%20do%C2%A3.html?a=1"),
    (b"http://www.example.com/a do\xc2\xa3.html?a=1",
     "http://www.example.com/a%20do%C2%A3.html?a=1"),
    ("http://www.example.com/do?price=£500&a=5&z=3",
     "http://www.example.com/do?a=5&price=%C2%A3500&z=3"),
    (b"http://www.example.com/do?price=\xc2\xa3500&a=5&z=3",
     "http://www.example.com/do?a=5&price=%C2%A3500&z=3"),
    (b"http://www.example.com/do?price(\xc2\xa3)=500&a=1",
     "http://www.example.com/do?a=1&price%28%C2%A3%29=500"),
    ("http://user:pass@www.example.com:81/do?now=1",
     "http://user:pass@www.example.com:81/do?now=1"),
    ("http://user:pass@www.example.com/do?a=1#frag", "http://user:pass@www.example.com/do?a=1"),
    ("http://[::1]/do?a=1#frag", "http://[::1]/do?a=1"),
    ("a#frag", "a"),
    ("a?b=1#frag", "a?b=1"),
    ("?b=1", "/?b=1"),
    ("http://www.simplybedrooms.com/White-Bedroom-Furniture/Bedroom-Mirror:-Josephine-Cheval"
     "-Mirror.html", "http://www.simplybedrooms.com/White-Bedroom-Furniture/Bedroom-Mirror:-"
     "Josephine-Cheval-Mirror.html"),
    ("http://www.example.com/caf%E9-con-leche.htm", "http://www.example.com/caf%E9-con-leche.htm"),
    ("http://www.EXAMPLE.com/", "http://www.example.com/"),
    ("sftp://UsEr:PaSsWoRd@www.EXAMPLE.com/", "sftp://UsEr:PaSsWoRd@www.example.com/"),
    ("http://www.bücher.de?q=bücher", "http://www.xn--bcher-kva.de/?q=b%C3%BCcher"),
    ("http://はじめよう.みんな/?query=サ&maxResults=5",
     "http://xn--p8j9a0d9c9a.xn--q9jyb4c/?maxResults=5&query=%E3%82%B5"),
    ("http://www.bücher.de:8080/?q=bücher", "http://www.xn--bcher-kva.de:8080/?q=b%C3%BCcher"),
    ("http://user@例え.jp/path", "http://user@xn--r8jz45g.jp/path"),
    ("http://user:pass@例え.jp:8080/p", "http://user:pass@xn--r8jz45g.jp:8080/p"),
    ("http://foo.com/AC%2FDC+rocks%3f/?yeah=1", "http://foo.com/AC%2FDC+rocks%3F/?yeah=1"),
    ("http://foo.com/AC%2FDC/", "http://foo.com/AC%2FDC/"),
    ("http://www.example.com/dir;x/a%7Eb", "http://www.example.com/dir;x/a~b"),
    ("http://www.bücher.de/résumé?q=résumé",
     "http://www.xn--bcher-kva.de/r%C3%A9sum%C3%A9?q=r%C3%A9sum%C3%A9"),
    ("http://www.xn--bcher-kva.de/r%C3%A9sum%C3%A9?q=r%C3%A9sum%C3%A9",
     "http://www.xn--bcher-kva.de/r%C3%A9sum%C3%A9?q=r%C3%A9sum%C3%A9"),
    ("http://.éxamplé.com/résumé?q=résumé",
     "http://.éxamplé.com/r%C3%A9sum%C3%A9?q=r%C3%A9sum%C3%A9"),
    (f"http://www.{'éxamplé' * 11}.com/résumé?q=résumé",
     f"http://www.{'éxamplé' * 11}.com/r%C3%A9sum%C3%A9?q=r%C3%A9sum%C3%A9"),
    ("http://www.example.com/path/to/%23/foo/bar", "http://www.example.com/path/to/%23/foo/bar"),
    ("http://www.example.com/path/to/%23/foo/bar#frag",
     "http://www.example.com/path/to/%23/foo/bar"),
    ("http://www.example.com/path/to/%23/foo/bar?url=http%3A%2F%2Fwww.example.com%2Fpath%2Fto"
     "%2F%23%2Fbar%2Ffoo", "http://www.example.com/path/to/%23/foo/bar?url=http%3A%2F%2Fwww."
     "example.com%2Fpath%2Fto%2F%23%2Fbar%2Ffoo"),
    (" https://example.com", "https://example.com/"),
    ("https://example.com ", "https://example.com/"),
    (" https://example.com ", "https://example.com/"),
]


@pytest.mark.parametrize("url,canonical", W3LIB_CASES)
def test_w3lib_canonicalize_url_cases(url, canonical):
    assert w3lib_url.canonicalize_url(url) == canonical  # the pinned w3lib agrees
    key = url if isinstance(url, bytes) else url.encode()
    assert (gdedup.fingerprint([key], normalize="scrapy")
            == gdedup.fingerprint([canonical.encode()])).all()


def code_point_hosts(seed):
    """URLs whose host holds one code point each, in one of several places
    (where IDNA takes it, where it fails, after a '%', beside a mark or a
    capital sigma, in the user info): every one up to U+3000, then every
    37th, all but the surrogates."""
    rng = random.Random(seed)
    places = ["http://a{}b.com/", "http://{}.com/", "http://.{}\u03a3.\xe9/",
              "http://.\u0391\u03a3{}.\xe9/", "http://a%41{}\xe9.com/",
              "http://\xe9\u034f{}\u0301.com/", "http://xn--{}\xe9.de/", "http://[v1.{}]/",
              "http://{}@h.com/", "http://\u1fbc{}\u0301.gr/"]
    points = [c for c in list(range(0x80, 0x3000)) + list(range(0x3000, 0x110000, 37))
              if not 0xD800 <= c <= 0xDFFF]
    return [rng.choice(places).format(chr(c)).encode() for c in points]


def test_scrapy_matches_w3lib_on_each_code_point_in_a_host():
    undocumented, _ = undocumented_differences(code_point_hosts(seed=31), "scrapy", False)
    assert not undocumented[:20], f"{len(undocumented)} undocumented differences"


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
