"""An answer's link targets read as the case's own URLs (SPEC §7: providers receive the replay URL, cases
keep their original URL for identity).

Behind the replay server a provider fetches ``http://127.0.0.1:PORT/replay/<case>/`` (or, through
``serve-replay``, ``https://HOST/<run>/<provider>/<token>/replay/<case>/``), not the case's URL. A provider
that writes the page's links as it found them (``news/x``) is read against the case's URL; one that makes
them absolute against the URL it fetched (crawl4ai, most hosted services) writes
``http://127.0.0.1:PORT/replay/<case>/news/x``. Post-detail links and named-link floors are patterns over
the case's URLs, so that second form would count as foreign. :class:`PageBase` maps a target under the
served page's directory onto the same path under the case URL's directory, and resolves relative targets
against the case URL: both forms give ``https://<case host>/news/x``. Pure.
"""

from __future__ import annotations

from urllib.parse import urljoin, urlsplit


class PageBase:
    """How link targets of one answer are resolved: against ``case_url``, with targets under
    ``served_url``'s directory (the URL the provider was handed, when it is not the case's) rebased onto
    ``case_url``'s directory. ``served_url`` ``None`` (live runs, users' own answers): plain resolution.

    >>> base = PageBase("https://ledger.example/", "http://127.0.0.1:4100/replay/home-024/")
    >>> base.absolute("http://127.0.0.1:4100/replay/home-024/news/a/"), base.absolute("news/a/")
    ('https://ledger.example/news/a/', 'https://ledger.example/news/a/')
    """

    def __init__(self, case_url: str, served_url: str | None = None) -> None:
        self.case_url = case_url
        self.served_url = served_url if served_url and served_url != case_url else None
        self._case_dir = urljoin(case_url, ".")
        self._served = _lower_origin(self.served_url) if self.served_url else None
        self._served_dir = _lower_origin(urljoin(self.served_url, ".")) if self.served_url else None

    def absolute(self, href: str) -> str:
        """``href`` (stripped) as an absolute URL of the case's page. Raises ``ValueError`` for a target
        that does not parse (as :func:`urllib.parse.urljoin` does)."""
        href = href.strip()
        if self._served is not None and self._served_dir is not None and href.lower().startswith(("http://", "https://")):
            folded = _lower_origin(href)
            bare = folded.split("#", 1)[0]
            if bare in (self._served, self._served.rstrip("/")):  # the served page itself (and its fragment)
                return urljoin(self.case_url, folded[len(bare):])
            if folded.startswith(self._served_dir):
                return self._case_dir + folded[len(self._served_dir):]
        return urljoin(self.case_url, href)


def _lower_origin(url: str) -> str:
    """``url`` with its scheme and host lowercased (hosts are case-insensitive; paths are not)."""
    parts = urlsplit(url)
    end = len(parts.scheme) + 3 + len(parts.netloc)  # "scheme://netloc", as written
    return url[:end].lower() + url[end:]
