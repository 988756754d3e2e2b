"""A small web site on 127.0.0.1 for the Scrapy tests, counting requests.

Pages /p/0 .. /p/N-1 and /q?a=I&b=J. Every page links to several others,
each in more than one spelling that names the same page: with a fragment,
with a digit percent-encoded (%33 for 3), and a query with its parameters
in the other order. So a crawl that requests each page once has deduplicated
both repeated links and links that are equal only after normalization.
"""

import threading
import urllib.parse
from collections import Counter
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


def page_of(raw_path):
    """The page a request path names: its path decoded, its query sorted."""
    parts = urllib.parse.urlsplit(raw_path)
    path = urllib.parse.unquote(parts.path)
    query = "&".join(sorted(parts.query.split("&"))) if parts.query else ""
    return path + ("?" + query if query else "")


class Site:
    """Serves `pages` pages in a thread; counts requests per page.

    `hold` names a page whose response waits until release() is called,
    and held_event is set once that page has been requested, so a test can
    stop a crawl while it is known to be half-way.
    """

    def __init__(self, pages=40, hold=None):
        self.pages = pages
        self.counts = Counter()
        self.hold = hold
        self.held_event = threading.Event()
        self._release = threading.Event()
        self._lock = threading.Lock()
        site = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self):
                site._serve(self)

            def log_message(self, *args):
                pass

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def url(self):
        return "http://127.0.0.1:%d" % self._server.server_address[1]

    def all_pages(self):
        paths = ["/p/%d" % i for i in range(self.pages)]
        queries = ["/q?a=%d&b=%d" % (i, i + 1) for i in range(0, self.pages, 5)]
        return set(paths + queries)

    def links(self, i):
        """The links on page /p/i, duplicates and variant spellings included."""
        links = []
        for j in (i + 1, i + 2, (i * 7) % self.pages):
            j %= self.pages
            encoded = "".join("%%%02X" % ord(c) for c in str(j)[:1]) + str(j)[1:]
            links += ["/p/%d" % j, "/p/%d#top" % j, "/p/" + encoded, "/p/%d" % j]
        if i % 5 == 0:
            links += ["/q?a=%d&b=%d" % (i, i + 1), "/q?b=%d&a=%d" % (i + 1, i)]
        return links

    def _serve(self, handler):
        page = page_of(handler.path)
        with self._lock:
            self.counts[page] += 1
        if page not in self.all_pages():
            handler.send_error(404)
            return
        if page == self.hold:
            self.held_event.set()
            self._release.wait(30)
        if page.startswith("/p/"):
            links = self.links(int(page[3:]))
        else:
            links = ["/p/0"]
        body = "<html><body>%s</body></html>" % "".join(
            '<a href="%s">x</a>' % link for link in links
        )
        data = body.encode()
        handler.send_response(200)
        handler.send_header("Content-Type", "text/html")
        handler.send_header("Content-Length", str(len(data)))
        handler.end_headers()
        handler.wfile.write(data)

    def release(self):
        self._release.set()

    def __enter__(self):
        self._thread.start()
        return self

    def __exit__(self, *exc):
        self.release()
        self._server.shutdown()
        self._server.server_close()
