"""gdedup.scrapy.BloomDupeFilter on its own: settings, saving, logging, errors.

The crawls themselves are in test_scrapy_crawl.py; here the filter is built
from a crawler's settings and fed requests directly, against a Python set
of Scrapy's fingerprints as the oracle.
"""

import logging
import os
import random
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from needs_gdedup import require_gdedup

require_gdedup()

from scrapy import Request  # noqa: E402
from scrapy.utils.test import get_crawler

import gdedup  # noqa: E402
from gdedup.scrapy import BloomDupeFilter  # noqa: E402


def make_filter(**settings):
    crawler = get_crawler(settings_dict=settings)
    return BloomDupeFilter.from_crawler(crawler), crawler


def requests(count, seed):
    """`count` requests to 300 distinct URLs, in random order, with repeats."""
    rng = random.Random(seed)
    return [Request("http://example.com/page/%d?x=%d" % (rng.randrange(300), 1)) for _ in range(count)]


@pytest.mark.parametrize("exact", [False, True])
@pytest.mark.parametrize("key", ["fingerprint", "url"])
def test_answers_are_those_of_a_set_of_keys(key, exact):
    dupefilter, crawler = make_filter(GDEDUP_KEY=key, GDEDUP_CAPACITY=100000, GDEDUP_EXACT=exact)
    fingerprinter = crawler.request_fingerprinter
    exact = set()
    for request in requests(2000, seed=13):
        exact_key = fingerprinter.fingerprint(request) if key == "fingerprint" else request.url
        assert dupefilter.request_seen(request) == (exact_key in exact)
        exact.add(exact_key)
    dupefilter.close("finished")


def test_fingerprint_key_follows_the_crawlers_fingerprinter():
    dupefilter, _ = make_filter()
    assert not dupefilter.request_seen(Request("http://example.com/a?y=2&x=1"))
    # Scrapy's fingerprint canonicalizes: query order and fragment ignored.
    assert dupefilter.request_seen(Request("http://example.com/a?x=1&y=2#top"))
    # The method is part of the fingerprint, not of the URL key.
    assert not dupefilter.request_seen(Request("http://example.com/a?x=1&y=2", method="POST"))
    url_filter, _ = make_filter(GDEDUP_KEY="url")
    assert not url_filter.request_seen(Request("http://example.com/a"))
    assert url_filter.request_seen(Request("http://example.com/a", method="POST"))


def test_url_key_with_normalization_drops_spelling_variants():
    dupefilter, _ = make_filter(GDEDUP_KEY="url", GDEDUP_NORMALIZE="url,sort-query")
    assert not dupefilter.request_seen(Request("http://example.com/a?b=2&a=1"))
    assert dupefilter.request_seen(Request("http://Example.COM:80/%61?a=1&b=2#x"))


def test_without_jobdir_the_seen_set_is_in_memory_only(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    dupefilter, _ = make_filter()
    assert not dupefilter.request_seen(Request("http://example.com/"))
    assert dupefilter.request_seen(Request("http://example.com/"))
    dupefilter.close("finished")
    assert list(tmp_path.iterdir()) == []


def test_close_saves_a_filter_that_holds_every_request(tmp_path):
    dupefilter, crawler = make_filter(JOBDIR=str(tmp_path))
    batch = requests(500, seed=2)
    for request in batch:
        dupefilter.request_seen(request)
    dupefilter.close("finished")
    saved = gdedup.Filter.load(str(tmp_path / "gdedup-fingerprints.gdf"))
    assert all(crawler.request_fingerprinter.fingerprint(r) in saved for r in batch)
    resumed, _ = make_filter(JOBDIR=str(tmp_path))
    assert all(resumed.request_seen(r) for r in batch)
    resumed.close("finished")


def test_a_closed_filter_refuses_requests_and_saves_no_more(tmp_path):
    """After close the job directory is unlocked (another crawl may lock it):
    request_seen raises, and a second close does nothing, as a file's."""
    dupefilter, _ = make_filter(JOBDIR=str(tmp_path), GDEDUP_SAVE_EVERY_REQUESTS=1)
    dupefilter.request_seen(Request("http://example.com/a"))
    dupefilter.close("finished")
    saved = tmp_path / "gdedup-fingerprints.gdf"
    saved.unlink()
    with pytest.raises(ValueError, match="closed"):
        dupefilter.request_seen(Request("http://example.com/b"))
    dupefilter.close("finished")
    assert not saved.exists()
    other, _ = make_filter(JOBDIR=str(tmp_path))  # the lock was released once
    other.close("finished")


def test_saves_every_n_new_requests(tmp_path):
    dupefilter, crawler = make_filter(JOBDIR=str(tmp_path), GDEDUP_SAVE_EVERY_REQUESTS=3)
    path = tmp_path / "gdedup-fingerprints.gdf"
    urls = ["http://example.com/%d" % i for i in range(4)]
    for url in urls[:2] + urls[:2]:
        dupefilter.request_seen(Request(url))
    assert not path.exists()  # two new requests, and two repeats that do not count
    dupefilter.request_seen(Request(urls[2]))
    saved = gdedup.Filter.load(str(path))
    assert all(crawler.request_fingerprinter.fingerprint(Request(u)) in saved for u in urls[:3])
    dupefilter.close("finished")


def test_saves_every_t_seconds(tmp_path, monkeypatch):
    clock = [1000.0]
    monkeypatch.setattr("gdedup.scrapy.time.monotonic", lambda: clock[0])
    dupefilter, _ = make_filter(JOBDIR=str(tmp_path), GDEDUP_SAVE_EVERY_SECONDS=30)
    path = tmp_path / "gdedup-fingerprints.gdf"
    dupefilter.request_seen(Request("http://example.com/1"))
    assert not path.exists()
    clock[0] += 31
    dupefilter.request_seen(Request("http://example.com/2"))
    assert path.exists()
    dupefilter.close("finished")


def test_a_failed_save_is_logged_and_the_crawl_goes_on_then_close_raises(tmp_path, caplog):
    folder = tmp_path / "gone"
    folder.mkdir()
    dupefilter, _ = make_filter(GDEDUP_FILTER=str(folder / "seen.gdf"), GDEDUP_SAVE_EVERY_REQUESTS=1)
    shutil.rmtree(folder)  # as a full disk or a removed folder would fail the save
    with caplog.at_level(logging.ERROR, logger="gdedup.scrapy"):
        assert not dupefilter.request_seen(Request("http://example.com/1"))
    assert "could not save the seen requests" in caplog.text
    assert dupefilter.request_seen(Request("http://example.com/1"))
    with pytest.raises(gdedup.Error, match="seen.gdf"):
        dupefilter.close("finished")


def test_filter_in_a_missing_folder_is_refused_at_start(tmp_path):
    with pytest.raises(gdedup.Error, match="missing"):
        make_filter(GDEDUP_FILTER=str(tmp_path / "missing" / "seen.gdf"))


@pytest.mark.parametrize(
    "settings, message",
    [
        ({"GDEDUP_KEY": "body"}, "GDEDUP_KEY is 'body'"),
        ({"GDEDUP_NORMALIZE": "url"}, "URL normalization applies to URL keys only"),
        ({"GDEDUP_SAVE_EVERY_REQUESTS": -1}, "must be 0"),
        ({"GDEDUP_SAVE_EVERY_SECONDS": -5}, "must be 0"),
        ({"GDEDUP_KEY": "url", "GDEDUP_NORMALIZE": "url,nonsense"}, "nonsense"),
        ({"GDEDUP_FPR": 2}, "2"),
        ({"GDEDUP_EXACT": True, "GDEDUP_FPR": 1e-6}, "GDEDUP_FPR is 1e-06 but GDEDUP_EXACT"),
        ({"GDEDUP_EXACT": True, "GDEDUP_BACKEND": "gpu"}, "GDEDUP_BACKEND is 'gpu' but GDEDUP_EXACT"),
    ],
)
def test_wrong_settings_are_refused_with_the_setting_named(settings, message):
    with pytest.raises(gdedup.InvalidArgumentError, match=message):
        make_filter(**settings)


def test_a_jobdir_of_the_other_key_is_refused(tmp_path):
    dupefilter, _ = make_filter(JOBDIR=str(tmp_path), GDEDUP_KEY="url")
    dupefilter.request_seen(Request("http://example.com/"))
    dupefilter.close("finished")
    with pytest.raises(gdedup.InvalidArgumentError, match="gdedup-urls.gdf holds keys of GDEDUP_KEY = .url."):
        make_filter(JOBDIR=str(tmp_path))


def test_a_seen_filter_that_is_not_a_filter_file_is_refused(tmp_path):
    bogus = tmp_path / "urls.txt"
    bogus.write_text("http://example.com/\n")
    with pytest.raises(gdedup.Error, match="urls.txt"):
        make_filter(GDEDUP_KEY="url", GDEDUP_SEEN_FILTERS=[str(bogus)])


def test_a_seen_filter_is_read_not_written(tmp_path):
    seen_path = tmp_path / "seen.gdf"
    built = gdedup.Filter(capacity=1000)
    built.add(["http://example.com/old"])
    built.save(str(seen_path))
    before = seen_path.read_bytes()
    dupefilter, _ = make_filter(GDEDUP_KEY="url", GDEDUP_SEEN_FILTERS=[str(seen_path)], JOBDIR=str(tmp_path / "job"))
    assert dupefilter.request_seen(Request("http://example.com/old"))
    assert not dupefilter.request_seen(Request("http://example.com/new"))
    assert dupefilter.request_seen(Request("http://example.com/new"))
    dupefilter.close("finished")
    assert seen_path.read_bytes() == before
    own = gdedup.Filter.load(str(tmp_path / "job" / "gdedup-urls.gdf"))
    assert "http://example.com/new" in own and "http://example.com/old" not in own


def mapped_paths():
    """The files this process maps, from /proc/self/maps."""
    with open("/proc/self/maps") as maps:
        return {line.split(None, 5)[5].strip() for line in maps if len(line.split(None, 5)) == 6}


def test_a_seen_filter_is_mapped_and_an_older_file_read(tmp_path):
    # A version 4 file is mapped: crawls on one machine share its pages.
    seen_path = tmp_path / "seen.gdf"
    built = gdedup.Filter(capacity=1000)
    built.add(["http://example.com/old"])
    built.save(str(seen_path))
    dupefilter, _ = make_filter(GDEDUP_KEY="url", GDEDUP_SEEN_FILTERS=[str(seen_path)])
    assert str(seen_path) in mapped_paths()
    assert dupefilter.request_seen(Request("http://example.com/old"))
    dupefilter.close("finished")
    # A file of an older version cannot be mapped: it is read instead.
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
    from test_save_load import as_version3
    old_path = tmp_path / "old.gdf"
    old_path.write_bytes(as_version3(seen_path.read_bytes()))
    dupefilter, _ = make_filter(GDEDUP_KEY="url", GDEDUP_SEEN_FILTERS=[str(old_path)])
    assert str(old_path) not in mapped_paths()
    assert dupefilter.request_seen(Request("http://example.com/old"))
    assert not dupefilter.request_seen(Request("http://example.com/new"))
    dupefilter.close("finished")


@pytest.mark.parametrize("debug, logged", [(False, 1), (True, 3)])
def test_duplicates_are_logged_as_dupefilter_debug_says(caplog, debug, logged):
    dupefilter, crawler = make_filter(DUPEFILTER_DEBUG=debug)
    spider = crawler._create_spider("test")
    request = Request("http://example.com/")
    dupefilter.request_seen(request)
    with caplog.at_level(logging.DEBUG, logger="gdedup.scrapy"):
        for _ in range(3):
            assert dupefilter.request_seen(request)
            dupefilter.log(request, spider)
    assert caplog.text.count("Filtered duplicate request") == logged
    assert crawler.stats.get_value("dupefilter/filtered") == 3


def test_close_logs_the_counts(caplog):
    dupefilter, crawler = make_filter()
    for url in ["http://example.com/1", "http://example.com/2", "http://example.com/1"]:
        dupefilter.request_seen(Request(url))
    with caplog.at_level(logging.INFO, logger="gdedup.scrapy"):
        dupefilter.close("finished")
    assert "3 requests checked: 2 new, 1 dropped as duplicates, 0 as already in" in caplog.text
    assert crawler.stats.get_value("gdedup/new") == 2


def test_a_resume_with_other_normalization_is_refused(tmp_path):
    dupefilter, _ = make_filter(JOBDIR=str(tmp_path), GDEDUP_KEY="url", GDEDUP_NORMALIZE="url")
    dupefilter.request_seen(Request("http://example.com/"))
    dupefilter.close("finished")
    with pytest.raises(gdedup.InvalidArgumentError, match="gdedup-urls.gdf was built with key rules"):
        make_filter(JOBDIR=str(tmp_path), GDEDUP_KEY="url", GDEDUP_NORMALIZE="url,sort-query")
    with pytest.raises(gdedup.InvalidArgumentError, match="gdedup-urls.gdf was built with key rules"):
        make_filter(JOBDIR=str(tmp_path), GDEDUP_KEY="url")
    # The refusals released the job directory's lock: the right settings go on.
    resumed, _ = make_filter(JOBDIR=str(tmp_path), GDEDUP_KEY="url", GDEDUP_NORMALIZE="url")
    assert resumed.request_seen(Request("http://EXAMPLE.com/"))
    resumed.close("finished")


def test_a_seen_filter_of_one_field_is_refused(tmp_path):
    fields = gdedup.Filter(capacity=1000, key="field:2")
    fields.add(["x\thttp://example.com/"])
    fields.save(str(tmp_path / "fields.gdf"))
    with pytest.raises(gdedup.InvalidArgumentError, match="fields.gdf"):
        make_filter(GDEDUP_KEY="url", GDEDUP_SEEN_FILTERS=[str(tmp_path / "fields.gdf")])


@pytest.mark.parametrize("suffix", [".crawl-lock", ".running"])
def test_a_link_planted_at_a_file_of_the_job_is_not_followed(tmp_path, suffix):
    target = tmp_path / "elsewhere"
    target.write_bytes(b"not ours")
    job = tmp_path / "job"
    job.mkdir()
    (job / ("gdedup-fingerprints.gdf" + suffix)).symlink_to(target)
    try:
        dupefilter, _ = make_filter(JOBDIR=str(job), GDEDUP_SAVE_EVERY_REQUESTS=1)
        dupefilter.request_seen(Request("http://example.com/"))
        dupefilter.close("finished")
    except gdedup.Error as error:
        assert suffix in str(error)
    assert target.read_bytes() == b"not ours"


def gdedup_command():
    binary = os.environ.get("GDEDUP_BIN")
    assert binary, "GDEDUP_BIN must name the gdedup command (ctest sets it)"
    return binary


def built_from_yesterdays_urls(tmp_path, name, *flags):
    """tmp_path/name as `gdedup build FLAGS --normalize url` makes it from a
    dump of one URL, http://example.com/old once normalized; and the
    command's path."""
    binary = gdedup_command()
    dump = tmp_path / "yesterday.txt"
    dump.write_text("HTTP://Example.com/old#x\n")
    path = tmp_path / name
    subprocess.run([binary, "build", *flags, str(dump), "-f", str(path), "--normalize", "url"],
                   check=True, capture_output=True)
    return path, binary


def test_gdedup_filter_may_start_from_a_file_built_by_the_cli_and_extends_it(tmp_path):
    path, binary = built_from_yesterdays_urls(tmp_path, "seen.gdf")
    settings = {"GDEDUP_FILTER": str(path), "GDEDUP_KEY": "url", "GDEDUP_NORMALIZE": "url"}
    dupefilter, _ = make_filter(**settings)
    assert dupefilter.request_seen(Request("http://example.com/old"))
    assert not dupefilter.request_seen(Request("http://example.com/new"))
    dupefilter.close("finished")
    query = subprocess.run(
        [binary, "query", "-", "-f", str(path), "--normalize", "url", "--absent"],
        input=b"http://example.com/old\nhttp://example.com/new\nhttp://example.com/other\n",
        capture_output=True,
        check=True,
    )
    assert query.stdout == b"http://example.com/other\n"


def scrapy_variants(count, seed):
    """GET requests to spellings of 50 pages: case, default ports, escapes,
    query order and blank values, fragments, dot segments."""
    rng = random.Random(seed)
    out = []
    for _ in range(count):
        page = rng.randrange(50)
        host = rng.choice(["example.com", "EXAMPLE.com", "Example.COM"])
        port = rng.choice(["", ":80", ":8080"])
        path = rng.choice(["/p/%d" % page, "/p/./%d" % page, "/q/../p/%d" % page,
                           "/%%70/%d" % page])
        params = ["a=%d" % (page % 7), "b=", "c=%d" % (page % 3)][: 1 + page % 3]
        rng.shuffle(params)
        fragment = rng.choice(["", "#top", "#"])
        out.append(Request("http://%s%s%s?%s%s" % (host, port, path, "&".join(params), fragment)))
    return out


def test_scrapy_normalization_agrees_with_the_fingerprint_filter_and_the_command(tmp_path):
    """GDEDUP_KEY url with GDEDUP_NORMALIZE scrapy drops exactly the GET
    requests Scrapy's fingerprints drop, and `gdedup query` on the crawl's
    filter file finds the URLs it saw."""
    binary = gdedup_command()
    url_filter, crawler = make_filter(JOBDIR=str(tmp_path), GDEDUP_KEY="url",
                                      GDEDUP_NORMALIZE="scrapy", GDEDUP_CAPACITY=10000)
    fingerprinter = crawler.request_fingerprinter
    seen = set()
    urls = []
    for request in scrapy_variants(3000, seed=29):
        fingerprint = fingerprinter.fingerprint(request)
        assert url_filter.request_seen(request) == (fingerprint in seen), request.url
        seen.add(fingerprint)
        urls.append(request.url)
    url_filter.close("finished")
    probe = urls[:50] + ["http://example.com/p/%d?a=0" % n for n in range(50, 60)]
    query = subprocess.run([binary, "query", "-", "-f", str(tmp_path / "gdedup-urls.gdf"),
                            "--normalize", "scrapy"],
                           input="".join(u + "\n" for u in probe).encode(),
                           capture_output=True, check=True)
    assert query.stdout.decode().splitlines() == urls[:50]


def test_an_exact_seen_set_is_saved_as_a_set_file_the_command_reads(tmp_path):
    """GDEDUP_EXACT keeps the seen set in JOBDIR as the command's set file:
    `gdedup query --exact` finds every URL the crawl requested, and a
    resumed crawl takes them all for seen."""
    binary = gdedup_command()
    settings = {"JOBDIR": str(tmp_path), "GDEDUP_KEY": "url", "GDEDUP_EXACT": True,
                "GDEDUP_SAVE_EVERY_REQUESTS": 100}
    dupefilter, _ = make_filter(**settings)
    batch = requests(1000, seed=31)
    for request in batch:
        dupefilter.request_seen(request)
    dupefilter.close("finished")
    path = tmp_path / "gdedup-urls.gds"
    assert not (tmp_path / "gdedup-urls.gdf").exists()
    urls = sorted({r.url for r in batch})
    probe = urls + ["http://example.com/never"]
    query = subprocess.run([binary, "query", "--exact", "-", "-f", str(path)],
                           input="".join(u + "\n" for u in probe).encode(),
                           capture_output=True, check=True)
    assert query.stdout.decode().splitlines() == urls
    resumed, _ = make_filter(**settings)
    assert all(resumed.request_seen(r) for r in batch)
    assert not resumed.request_seen(Request("http://example.com/never"))
    resumed.close("finished")


@pytest.mark.parametrize("first_exact", [False, True])
def test_a_jobdir_kept_with_the_other_kind_of_set_is_refused(tmp_path, first_exact):
    dupefilter, _ = make_filter(JOBDIR=str(tmp_path), GDEDUP_EXACT=first_exact)
    dupefilter.request_seen(Request("http://example.com/"))
    dupefilter.close("finished")
    name = "gdedup-fingerprints." + ("gds" if first_exact else "gdf")
    with pytest.raises(gdedup.InvalidArgumentError, match=name + " holds keys of GDEDUP_KEY"):
        make_filter(JOBDIR=str(tmp_path), GDEDUP_EXACT=not first_exact)
    # A GDEDUP_FILTER of the other kind is refused by its load, naming it.
    path = str(tmp_path / name)
    with pytest.raises(gdedup.InvalidArgumentError, match=name):
        make_filter(GDEDUP_FILTER=path, GDEDUP_EXACT=not first_exact)


def test_a_set_file_is_taken_as_a_seen_filter(tmp_path):
    seen_path, _ = built_from_yesterdays_urls(tmp_path, "seen.gds", "--exact")
    before = seen_path.read_bytes()
    for exact in (False, True):
        dupefilter, crawler = make_filter(GDEDUP_KEY="url", GDEDUP_EXACT=exact,
                                          GDEDUP_SEEN_FILTERS=[str(seen_path)])
        assert dupefilter.request_seen(Request("http://example.com/old"))
        assert not dupefilter.request_seen(Request("http://example.com/new"))
        assert dupefilter.request_seen(Request("http://example.com/new"))
        dupefilter.close("finished")
        assert crawler.stats.get_value("gdedup/seen_filters_hits") == 1
    assert seen_path.read_bytes() == before


def test_a_set_too_large_for_this_machine_names_the_settings():
    with pytest.raises(gdedup.OutOfMemoryError, match="GDEDUP_EXACT and GDEDUP_CAPACITY .* make no set"):
        make_filter(GDEDUP_EXACT=True, GDEDUP_CAPACITY=10**15)


def test_close_logs_an_exact_sets_counts(caplog):
    dupefilter, _ = make_filter(GDEDUP_EXACT=True)
    for url in ["http://example.com/1", "http://example.com/2", "http://example.com/1"]:
        dupefilter.request_seen(Request(url))
    with caplog.at_level(logging.INFO, logger="gdedup.scrapy"):
        dupefilter.close("finished")
    assert "3 requests checked: 2 new, 1 dropped as duplicates" in caplog.text
    assert "exact set" in caplog.text and "2 keys" in caplog.text
