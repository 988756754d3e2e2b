"""A Scrapy duplicate filter (``DUPEFILTER_CLASS``) on a gdedup Bloom filter
or exact set.

    DUPEFILTER_CLASS = "gdedup.scrapy.BloomDupeFilter"

It holds the seen set of a crawl in about 3 bytes per request (a Bloom
filter at FPR 1e-4), or with GDEDUP_EXACT in a gdedup.Set that never takes
a new request for a seen one, instead of Scrapy's in-memory set of 20-byte
fingerprints; keeps it in the job directory across a pause and resume
(``-s JOBDIR=...``); and can also drop requests already present in
read-only filters or sets built elsewhere, for instance by ``gdedup
build`` from yesterday's URL dump. docs/PYTHON.md has the recipe; the
settings are:

GDEDUP_KEY (``"fingerprint"``)
    What the filter holds for a request: ``"fingerprint"``, the crawler's
    request fingerprint (REQUEST_FINGERPRINTER_CLASS: canonical URL, method
    and body, as Scrapy's own RFPDupeFilter), or ``"url"``, the bytes of
    ``request.url`` (method and body ignored), which is what a filter built
    by the command line from a URL list holds.
GDEDUP_NORMALIZE (None)
    gdedup's URL normalization rules for a new filter with GDEDUP_KEY "url"
    (docs/KEYS.md: ``"url"``, ``"url,sort-query"``, ...; ``"scrapy"`` is
    the canonical URL Scrapy's fingerprinter hashes). A loaded filter keeps
    the rules recorded in its file.
GDEDUP_EXACT (False)
    True: the seen set is an exact set (gdedup.Set, the command's
    ``--exact``): no request is ever taken for a seen one (but for a chance
    of about 3e-8 in a billion requests), in 9 to 17 bytes a request. It
    runs on the CPU, and takes no GDEDUP_FPR.
GDEDUP_CAPACITY (None), GDEDUP_FPR (1e-4)
    The size of a new filter: distinct requests expected and the false
    positive rate (a request wrongly taken for a seen one, so never made).
    None: a growing filter that adds layers as requests arrive, keeping
    the rate. A loaded filter keeps its own plan. With GDEDUP_EXACT,
    GDEDUP_CAPACITY sizes the set from the start (it grows past it).
GDEDUP_FILTER (None)
    Where the seen set is kept. None: ``JOBDIR/gdedup-fingerprints.gdf`` (or
    ``-urls.gdf`` with GDEDUP_KEY "url"; ``.gds`` with GDEDUP_EXACT) when
    JOBDIR is set, otherwise in memory only. The file is loaded if it
    exists and saved on close.
GDEDUP_SAVE_EVERY_REQUESTS (100000), GDEDUP_SAVE_EVERY_SECONDS (600)
    Also save after that many new requests or seconds since the last save
    (0: only on close).
GDEDUP_SEEN_FILTERS ([])
    Filter or set files whose keys count as already seen (yesterday's
    URLs, built by `gdedup build`, with or without ``--exact``): loaded
    read-only, never written or locked, so several crawls may share one.
    Their keys must be made as GDEDUP_KEY says; their own normalization
    rules apply.
GDEDUP_BACKEND ("cpu")
    gdedup's backend for a Bloom filter. The CPU is the right place for one
    request at a time.
GDEDUP_RESUME_AFTER_KILL (False)
    Resume a job whose last run was killed after a periodic save (see
    ``_UNCLEAN_SUFFIX``).
DUPEFILTER_DEBUG (False)
    Log every filtered request, not only the first.

Every save goes through ``Filter.save`` (``Set.save``): a temporary file
beside the target, fsync, rename, so a crash never leaves a damaged file. A file that cannot be
read is an error that stops the crawl; it is never replaced by an empty
filter.
"""

from __future__ import annotations

import fcntl
import logging
import os
import time
from pathlib import Path

from scrapy.dupefilters import BaseDupeFilter
from scrapy.utils.job import job_dir
from scrapy.utils.request import referer_str

import gdedup

logger = logging.getLogger(__name__)

# GDEDUP_KEY's values, and the name of the seen set's file in JOBDIR for
# each, and for GDEDUP_EXACT or not: the name says which keys a file holds
# and in what, so a resume with the other GDEDUP_KEY or GDEDUP_EXACT finds
# another file and is refused.
_KEYS = ("fingerprint", "url")
_FILE_NAMES = {
    (key, exact): f"gdedup-{key}s.{'gds' if exact else 'gdf'}"
    for key in _KEYS
    for exact in (False, True)
}
_DEFAULT_FPR = 1e-4

# Scrapy keeps its request queue in JOBDIR and records where it stands only
# when the crawl closes cleanly; after a kill it resumes from the last clean
# close. A filter saved periodically during the killed run holds requests
# that the resumed queue no longer has, and those pages would never be
# fetched. This file beside the filter marks "saved while running, not yet
# closed cleanly"; a resume that finds it stops and says so.
_UNCLEAN_SUFFIX = ".running"


class BloomDupeFilter(BaseDupeFilter):
    """Scrapy duplicate filter on gdedup (settings in the module's doc)."""

    def __init__(
        self,
        *,
        fingerprinter,
        key="fingerprint",
        normalize=None,
        capacity=None,
        fpr=None,
        exact=False,
        backend="cpu",
        path=None,
        jobdir=None,
        save_every_requests=100000,
        save_every_seconds=600.0,
        seen_filters=(),
        resume_after_kill=False,
        debug=False,
        stats=None,
    ):
        _check_key(key)
        if normalize and key != "url":
            raise gdedup.InvalidArgumentError(
                f"GDEDUP_NORMALIZE is {normalize!r} but GDEDUP_KEY is "
                f"{key!r}: URL normalization applies to URL keys only; set "
                "GDEDUP_KEY = 'url' or leave GDEDUP_NORMALIZE unset"
            )
        if exact and fpr is not None:
            raise gdedup.InvalidArgumentError(
                f"GDEDUP_FPR is {fpr} but GDEDUP_EXACT is set: an exact set has "
                "no false positives to plan; leave GDEDUP_FPR unset"
            )
        if exact and backend != "cpu":
            raise gdedup.InvalidArgumentError(
                f"GDEDUP_BACKEND is {backend!r} but GDEDUP_EXACT is set: the exact "
                "set runs on the CPU; leave GDEDUP_BACKEND unset"
            )
        if fpr is None:
            fpr = _DEFAULT_FPR
        if save_every_requests < 0 or save_every_seconds < 0:
            raise gdedup.InvalidArgumentError(
                f"GDEDUP_SAVE_EVERY_REQUESTS ({save_every_requests}) and "
                f"GDEDUP_SAVE_EVERY_SECONDS ({save_every_seconds}) must be "
                "0 (save on close only) or more"
            )
        self._fingerprinter = fingerprinter
        self._key = key
        self._path = path
        self._queue_in_jobdir = jobdir is not None
        self._save_every_requests = save_every_requests
        self._save_every_seconds = save_every_seconds
        self._debug = debug
        self._stats = stats
        self._logged_first_duplicate = False
        self._requests = 0
        self._new = 0
        self._seen_elsewhere = 0
        self._new_since_save = 0
        self._last_save = time.monotonic()
        self._lock = None
        self._closed = False

        self._seen_filters = [_open_seen_filter(seen, backend) for seen in seen_filters]
        if path is None:
            self._filter = _new_filter(capacity, fpr, exact, backend, normalize)
            return
        self._lock = _lock_for_crawl(path)
        try:
            self._filter = _open_saved_filter(
                path, resume_after_kill, capacity, fpr, exact, backend, normalize
            )
        except BaseException:
            os.close(self._lock)
            raise

    @classmethod
    def from_crawler(cls, crawler):
        settings = crawler.settings
        key = settings.get("GDEDUP_KEY", "fingerprint")
        _check_key(key)
        exact = settings.getbool("GDEDUP_EXACT")
        jobdir = job_dir(settings)
        path = settings.get("GDEDUP_FILTER")
        if path is None and jobdir is not None:
            path = str(Path(jobdir, _FILE_NAMES[key, exact]))
            _refuse_other_files(jobdir, key, exact)
        return cls(
            fingerprinter=crawler.request_fingerprinter,
            key=key,
            normalize=_unset_as_none(settings.get("GDEDUP_NORMALIZE")),
            capacity=_capacity(settings.get("GDEDUP_CAPACITY")),
            fpr=(None if _unset_as_none(settings.get("GDEDUP_FPR")) is None
                 else settings.getfloat("GDEDUP_FPR")),
            exact=exact,
            backend=settings.get("GDEDUP_BACKEND", "cpu"),
            path=path,
            jobdir=jobdir,
            save_every_requests=settings.getint("GDEDUP_SAVE_EVERY_REQUESTS", 100000),
            save_every_seconds=settings.getfloat("GDEDUP_SAVE_EVERY_SECONDS", 600.0),
            seen_filters=settings.getlist("GDEDUP_SEEN_FILTERS"),
            resume_after_kill=settings.getbool("GDEDUP_RESUME_AFTER_KILL"),
            debug=settings.getbool("DUPEFILTER_DEBUG"),
            stats=crawler.stats,
        )

    def request_seen(self, request):
        if self._closed:
            # Its job directory is unlocked: a save now could replace the
            # file of another crawl that locked it since.
            raise ValueError("gdedup: request_seen() on a BloomDupeFilter that is closed; "
                             "make a new one (from_crawler) to check more requests")
        key = self._fingerprinter.fingerprint(request) if self._key == "fingerprint" else request.url
        self._requests += 1
        if any(key in seen for seen in self._seen_filters):
            self._seen_elsewhere += 1
            return True
        if self._filter.test_and_set(key):
            return True
        self._new += 1
        self._new_since_save += 1
        self._save_if_due()
        return False

    def _save_if_due(self):
        if self._path is None:
            return
        due_by_count = (
            self._save_every_requests and self._new_since_save >= self._save_every_requests
        )
        due_by_time = (
            self._save_every_seconds
            and time.monotonic() - self._last_save >= self._save_every_seconds
        )
        if not (due_by_count or due_by_time):
            return
        try:
            if self._queue_in_jobdir:
                _create_empty(self._path + _UNCLEAN_SUFFIX)
            self._save()
        except (gdedup.Error, OSError) as error:
            # The last saved file is intact (saves replace it by rename), and
            # the seen set is still whole in memory: keep crawling, try again
            # at the next interval and on close.
            logger.error("gdedup: could not save the seen requests: %s", error)
            self._last_save = time.monotonic()
            self._new_since_save = 0

    def _save(self):
        self._filter.save(self._path)
        self._last_save = time.monotonic()
        self._new_since_save = 0

    def close(self, reason):
        # Once only, as a file's close: a second would save without the lock.
        if self._closed:
            return
        self._closed = True
        try:
            self._log_stats()
            if self._path is not None:
                self._save()
                Path(self._path + _UNCLEAN_SUFFIX).unlink(missing_ok=True)
        finally:
            if self._lock is not None:
                os.close(self._lock)
                self._lock = None

    def _log_stats(self):
        where = self._path or "memory only"
        logger.info(
            "gdedup: %d requests checked: %d new, %d dropped as duplicates, %d as "
            "already in GDEDUP_SEEN_FILTERS; seen set (%s): %s",
            self._requests,
            self._new,
            self._requests - self._new - self._seen_elsewhere,
            self._seen_elsewhere,
            where,
            _describe(self._filter),
        )
        if self._stats is not None:
            self._stats.set_value("gdedup/new", self._new)
            self._stats.set_value("gdedup/seen_filters_hits", self._seen_elsewhere)

    def log(self, request, spider):
        if self._debug:
            logger.debug(
                "Filtered duplicate request: %(request)s (referer: %(referer)s)",
                {"request": request, "referer": referer_str(request)},
                extra={"spider": spider},
            )
        elif not self._logged_first_duplicate:
            logger.debug(
                "Filtered duplicate request: %(request)s - no more duplicates "
                "will be shown (see DUPEFILTER_DEBUG to show all duplicates)",
                {"request": request},
                extra={"spider": spider},
            )
            self._logged_first_duplicate = True
        spider.crawler.stats.inc_value("dupefilter/filtered")


def _check_key(key):
    if key not in _KEYS:
        raise gdedup.InvalidArgumentError(
            f"GDEDUP_KEY is {key!r}; it must be 'fingerprint' (Scrapy's "
            "request fingerprint) or 'url' (the request's URL)"
        )


def _open_saved_filter(path, resume_after_kill, capacity, fpr, exact, backend, normalize):
    """The seen set saved at `path`, or a new one where there is none."""
    if os.path.exists(path + _UNCLEAN_SUFFIX) and not resume_after_kill:
        raise gdedup.Error(
            f"{path} was saved by a crawl that did not close cleanly "
            "(killed, or out of memory): Scrapy's request queue in the "
            "job directory went back to its last clean close, and the "
            "requests found since are in the filter but not in the "
            "queue, so those pages would never be fetched. Start the "
            "crawl again with an empty JOBDIR, or set "
            "GDEDUP_RESUME_AFTER_KILL = True to resume and accept that "
            f"loss (removing {path + _UNCLEAN_SUFFIX} does the same)"
        )
    if not os.path.exists(path):
        return _new_filter(capacity, fpr, exact, backend, normalize)
    # The file's key rules must be the settings' (the engine refuses
    # others): keys normalized another way would never match. A file of the
    # other kind (a Bloom filter for GDEDUP_EXACT, a set without it) is
    # refused by the load, naming it.
    rules = {"key": "whole", "normalize": normalize or "none"}
    if exact:
        saved = gdedup.Set.load(path, **rules)
    else:
        saved = gdedup.Filter.load(path, backend=backend, **rules)
    logger.info("gdedup: resuming from the seen requests in %s", path)
    return saved


def _new_filter(capacity, fpr, exact, backend, normalize):
    try:
        if exact:
            return gdedup.Set(capacity=capacity, normalize=normalize)
        return gdedup.Filter(capacity=capacity, fpr=fpr, backend=backend, normalize=normalize)
    except (gdedup.InvalidArgumentError, gdedup.OutOfMemoryError) as error:
        settings = (
            f"GDEDUP_EXACT and GDEDUP_CAPACITY ({capacity})"
            if exact
            else f"GDEDUP_CAPACITY ({capacity}), GDEDUP_FPR ({fpr}), GDEDUP_BACKEND "
            f"({backend!r})"
        )
        raise type(error)(
            f"{settings} and GDEDUP_NORMALIZE ({normalize!r}) make no "
            f"{'set' if exact else 'filter'}: {error}"
        ) from error


def _describe(f):
    if isinstance(f, gdedup.Set):
        return (
            f"exact set, {f.nbytes / 2**20:.1f} MiB, {len(f):,} keys, chance of "
            f"any collision {f.collision_chance():.2e}"
        )
    layers = "1 layer" if f.layers == 1 else f"{f.layers} layers"
    return (
        f"{f.nbytes / 2**20:.1f} MiB in {layers}, {f.fill:.2%} full, "
        f"~{f.estimated_keys:,.0f} keys, FPR now {f.current_fpr:.2e}"
    )


def _open_seen_filter(path, backend):
    """A filter or set of GDEDUP_SEEN_FILTERS: read-only, with its file's
    own normalization. key="whole": a request's URL is the whole key; a
    filter of one field of delimited lines (--key field:N) is refused by
    the engine. A set file (gdedup build --exact) is read into memory.

    Mapped where the file allows it (version 4 and later), so that every
    crawl on the machine that reads the same seen filter shares one copy in
    the page cache; an older file is read into memory instead (a load that
    fails for another reason fails the same way unmapped, with its message).
    """
    if gdedup._core._is_set_file(path):
        return gdedup.Set.load(path, read_only=True, key="whole")
    try:
        return gdedup.Filter.load(path, mmap=True, read_only=True, backend=backend, key="whole")
    except gdedup.InvalidArgumentError:
        return gdedup.Filter.load(path, read_only=True, backend=backend, key="whole")


def _unset_as_none(value):
    """None for a setting left unset, or set to "" or "None" by -s."""
    return None if value in (None, "", "None") else value


def _capacity(value):
    """GDEDUP_CAPACITY as a count; None for a growing filter."""
    if _unset_as_none(value) is None:
        return None
    try:
        count = float(value)
    except ValueError:
        count = -1.0
    if count < 1 or count != int(count):
        raise gdedup.InvalidArgumentError(
            f"GDEDUP_CAPACITY is {value!r}; it must be a whole number of "
            "distinct requests (50000000 or 5e7), or None for a growing filter"
        )
    return int(count)


def _create_empty(path):
    """Creates `path` if missing, following no link planted at its name."""
    os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o644))


def _lock_for_crawl(path):
    """Holds an exclusive lock on PATH.crawl-lock for the crawl's life.

    Two crawls saving one filter would each overwrite the other's requests;
    the second is refused at start instead. The lock file stays (empty)
    after the crawl; O_NOFOLLOW so that a link planted at its name is not
    followed.
    """
    lock_path = path + ".crawl-lock"
    try:
        fd = os.open(lock_path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o644)
    except OSError as error:
        raise gdedup.Error(
            f"cannot create {lock_path} to lock the seen requests' file "
            f"{path}: {error.strerror}; check that its folder exists and is writable"
        ) from None
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(fd)
        raise gdedup.Error(
            f"{path} is in use by another crawl (it holds {lock_path}); "
            "two crawls on one JOBDIR or GDEDUP_FILTER would overwrite each "
            "other's seen requests: wait for it to finish or give this crawl "
            "its own JOBDIR"
        ) from None
    return fd


def _refuse_other_files(jobdir, key, exact):
    """Refuses a JOBDIR whose seen set was kept with other settings: this
    crawl would start an empty one beside it and make its requests again."""

    def settings(key, exact):
        return f"GDEDUP_KEY = {key!r}" + (", GDEDUP_EXACT = True" if exact else "")

    for (other_key, other_exact), name in _FILE_NAMES.items():
        if (other_key, other_exact) != (key, exact) and Path(jobdir, name).exists():
            raise gdedup.InvalidArgumentError(
                f"{Path(jobdir, name)} holds keys of {settings(other_key, other_exact)}, "
                f"from a crawl with those settings, but this crawl has "
                f"{settings(key, exact)}; resume with the settings of that crawl, or "
                "start with an empty JOBDIR"
            )
