"""gdedup.scrapy.BloomDupeFilter in real crawls of a site on 127.0.0.1.

Each crawl is `python -m scrapy runspider` in its own process, as a user
runs one, so a pause and its resume share nothing but JOBDIR. The oracle is
the site's own count of requests per page: a crawl stopped part-way and
resumed must have requested every reachable page exactly once.
"""

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from needs_gdedup import require_gdedup
from scrapy_site import Site, page_of

require_gdedup()

SPIDER = str(Path(__file__).with_name("scrapy_spider.py"))


def crawl_command(site, jobdir, **settings):
    base = {
        "DUPEFILTER_CLASS": "gdedup.scrapy.BloomDupeFilter",
        "JOBDIR": str(jobdir),
        "LOG_LEVEL": "INFO",
        "ROBOTSTXT_OBEY": "False",
        "TELNETCONSOLE_ENABLED": "False",
        "CONCURRENT_REQUESTS": "4",
    }
    base.update({name: str(value) for name, value in settings.items()})
    command = [sys.executable, "-m", "scrapy", "runspider", SPIDER, "-a", "root=%s/p/0" % site.url]
    for name, value in base.items():
        command += ["-s", "%s=%s" % (name, value)]
    return command


def crawl(site, jobdir, **settings):
    return subprocess.run(
        crawl_command(site, jobdir, **settings), capture_output=True, text=True, timeout=120
    )


def start_crawl(site, jobdir, **settings):
    return subprocess.Popen(
        crawl_command(site, jobdir, **settings),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def reachable(site, seen=()):
    """Pages reachable from /p/0 without passing through the pages in `seen`."""
    found, todo = set(), ["/p/0"]
    while todo:
        page = todo.pop()
        if page in found or page in seen:
            continue
        found.add(page)
        if page.startswith("/p/"):
            todo += [page_of(link) for link in site.links(int(page[3:]))]
        else:
            todo.append("/p/0")
    return found


def assert_ok(result):
    assert result.returncode == 0, result.stderr[-4000:]


def assert_each_page_once(site, pages):
    assert dict(site.counts) == {page: 1 for page in pages}


@pytest.mark.parametrize(
    "settings",
    [
        {},
        {"GDEDUP_KEY": "url", "GDEDUP_NORMALIZE": "url,sort-query"},
        {"GDEDUP_KEY": "url", "GDEDUP_NORMALIZE": "url,sort-query", "GDEDUP_EXACT": True},
    ],
    ids=["fingerprint", "url", "url-exact"],
)
def test_paused_and_resumed_crawl_requests_every_page_once(tmp_path, settings):
    with Site() as site:
        first = crawl(site, tmp_path / "job", CLOSESPIDER_PAGECOUNT=8, **settings)
        assert_ok(first)
        assert "closespider_pagecount" in first.stderr
        assert 8 <= sum(site.counts.values()) < len(site.all_pages())
        resumed = crawl(site, tmp_path / "job", **settings)
        assert_ok(resumed)
        assert "gdedup: resuming from the seen requests" in resumed.stderr
        assert "gdedup: " in resumed.stderr and "requests checked" in resumed.stderr
        if settings.get("GDEDUP_EXACT"):
            assert "seen set (%s): exact set" % (tmp_path / "job" / "gdedup-urls.gds") in \
                resumed.stderr
        assert_each_page_once(site, site.all_pages())


def test_crawl_stopped_by_sigterm_mid_page_resumes_without_repeats(tmp_path):
    with Site(hold="/p/9") as site:
        # One request at a time: while /p/9 is held nothing else is fetched,
        # so the crawl is surely stopped half-way (with more, the other
        # requests could finish the site before the signal lands).
        running = start_crawl(site, tmp_path / "job", CONCURRENT_REQUESTS=1)
        assert site.held_event.wait(60), running.communicate()[1][-4000:]
        running.send_signal(signal.SIGTERM)
        time.sleep(0.5)  # the graceful shutdown waits for the held page
        site.release()
        _, stderr = running.communicate(timeout=60)
        assert running.returncode == 0, stderr[-4000:]
        assert sum(site.counts.values()) < len(site.all_pages())
        assert_ok(crawl(site, tmp_path / "job"))
        assert_each_page_once(site, site.all_pages())


def test_filter_built_by_the_cli_drops_the_pages_it_holds(tmp_path):
    binary = os.environ.get("GDEDUP_BIN")
    assert binary, "GDEDUP_BIN must name the gdedup command (ctest sets it)"
    with Site() as site:
        seen_pages = {"/p/5", "/p/6", "/p/17", "/q?a=10&b=11"}
        # Spelled as yesterday's dump would: other case, fragment, query order.
        dump = tmp_path / "yesterday.txt"
        dump.write_text(
            "%s/p/5\n%s/p/6#x\n%s/p/%%317\n%s/q?b=11&a=10\n"
            % (site.url.replace("http:", "HTTP:"), site.url, site.url, site.url)
        )
        seen_filter = tmp_path / "yesterday.gdf"
        built = subprocess.run(
            [binary, "build", str(dump), "-f", str(seen_filter), "--normalize", "url,sort-query"],
            capture_output=True,
            text=True,
        )
        assert built.returncode == 0, built.stderr
        built_bytes = seen_filter.read_bytes()
        result = crawl(
            site,
            tmp_path / "job",
            GDEDUP_KEY="url",
            GDEDUP_NORMALIZE="url,sort-query",
            GDEDUP_SEEN_FILTERS=str(seen_filter),
        )
        assert_ok(result)
        assert_each_page_once(site, reachable(site, seen=seen_pages))
        assert seen_filter.read_bytes() == built_bytes


def test_damaged_filter_file_stops_the_crawl_and_is_left_as_it_was(tmp_path):
    with Site() as site:
        assert_ok(crawl(site, tmp_path / "job", CLOSESPIDER_PAGECOUNT=5))
        saved = tmp_path / "job" / "gdedup-fingerprints.gdf"
        damaged = bytearray(saved.read_bytes())
        damaged[len(damaged) // 2] ^= 0x40
        saved.write_bytes(bytes(damaged))
        before = dict(site.counts)
        result = crawl(site, tmp_path / "job")
        assert result.returncode != 0
        assert str(saved) in result.stderr
        assert saved.read_bytes() == bytes(damaged)
        assert dict(site.counts) == before


def test_second_crawl_on_the_same_jobdir_is_refused(tmp_path):
    with Site(hold="/p/3") as site:
        running = start_crawl(site, tmp_path / "job")
        assert site.held_event.wait(60), running.communicate()[1][-4000:]
        second = crawl(site, tmp_path / "job")
        site.release()
        _, stderr = running.communicate(timeout=60)
        assert running.returncode == 0, stderr[-4000:]
        assert second.returncode != 0
        assert "in use by another crawl" in second.stderr
        assert_each_page_once(site, site.all_pages())


def test_resume_after_a_kill_past_a_periodic_save_is_refused_until_accepted(tmp_path):
    with Site(hold="/p/6") as site:
        running = start_crawl(site, tmp_path / "job", GDEDUP_SAVE_EVERY_REQUESTS=1)
        assert site.held_event.wait(60), running.communicate()[1][-4000:]
        running.kill()
        running.communicate()
        site.release()
        refused = crawl(site, tmp_path / "job")
        assert refused.returncode != 0
        assert "did not close cleanly" in refused.stderr
        assert "GDEDUP_RESUME_AFTER_KILL" in refused.stderr
        accepted = crawl(site, tmp_path / "job", GDEDUP_RESUME_AFTER_KILL="True")
        assert_ok(accepted)
        # Pages are not requested twice; some may be lost, as the refusal said.
        assert max(site.counts.values()) == 1
