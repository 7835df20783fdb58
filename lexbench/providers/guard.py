"""The private-network guard: target fetches reach public addresses only (SPEC §5).

A page under test is untrusted: its URL, or any redirect it answers with, may point at loopback, the
cloud metadata service (169.254.169.254) or a private network. The shared HTTP boundary asks this
guard about every address a target host name resolves to *before* connecting, and again about the
peer address actually connected to. The only exception is the replay server's own ``host:port`` in
replay mode — exactly that pair, not its whole address range.

Operator-configured endpoints (a hosted API's base URL, a DoH resolver) are not page content and are
not guarded; they follow the configured ``dns_mode`` instead.
"""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass, field
from urllib.parse import urlsplit

import httpx

from lexbench.answer import ErrorType
from lexbench.providers.call import FetchError

_NAT64 = ipaddress.ip_network("64:ff9b::/96")
_SCHEMES = ("http", "https")

# Names that never lead to a public page: the special-use domain names that are not public (IANA's
# registry, https://www.iana.org/assignments/special-use-domain-names), by the RFC that reserves them.
# The Public Suffix List does not answer this: it omits these names but also lags real new TLDs.
_RESERVED_SUFFIXES = {
    "example": "RFC 2606", "example.com": "RFC 2606", "example.net": "RFC 2606", "example.org": "RFC 2606",
    "test": "RFC 2606", "invalid": "RFC 2606", "localhost": "RFC 6761", "local": "RFC 6762 (mDNS)",
    "onion": "RFC 7686", "home.arpa": "RFC 8375", "alt": "RFC 9476", "internal": "ICANN, private use",
}


def non_public_reason(address: str) -> str | None:
    """Why ``address`` (an IPv4/IPv6 literal, optionally with a ``%zone``) is not public, or ``None``.

    Reasons: ``loopback``, ``link-local``, ``site-local``, ``private``, ``multicast``, ``unspecified``, ``reserved``,
    ``shared address space`` or ``not globally routable``. IPv4 embedded in IPv6 (mapped, 6to4,
    Teredo, NAT64) is judged by the embedded address. An unparsable address is ``not an IP address``.
    """
    try:
        ip = ipaddress.ip_address(address.split("%", 1)[0])
    except ValueError:
        return "not an IP address"
    if isinstance(ip, ipaddress.IPv6Address):
        embedded = ip.ipv4_mapped or ip.sixtofour or (ip.teredo[1] if ip.teredo else None)
        if embedded is None and ip in _NAT64:
            embedded = ipaddress.IPv4Address(int(ip) & 0xFFFFFFFF)
        if embedded is not None:
            reason = non_public_reason(str(embedded))
            return f"{reason} (embedded {embedded})" if reason else None
    # fec0::/10 (site-local, deprecated by RFC 3879) is still routed inside sites; Python calls it global.
    site_local = isinstance(ip, ipaddress.IPv6Address) and ip.is_site_local
    for reason, flag in (("loopback", ip.is_loopback), ("link-local", ip.is_link_local), ("site-local", site_local),
                         ("unspecified", ip.is_unspecified), ("multicast", ip.is_multicast),
                         ("private", ip.is_private), ("reserved", ip.is_reserved)):
        if flag:
            return reason
    if not ip.is_global:
        return "shared address space" if ip in ipaddress.ip_network("100.64.0.0/10") else "not globally routable"
    return None


def numeric_ipv4(host: str) -> str | None:
    """The IPv4 address a browser reads in ``host`` (WHATWG URL host parsing): one to four dot-separated
    numbers in decimal, octal (leading ``0``) or hexadecimal (``0x``), the last filling the remaining
    bytes, a trailing dot allowed. ``"2130706433"``, ``"0x7f.1"`` and ``"0177.0.0.1"`` are all
    ``"127.0.0.1"``; ``None`` when ``host`` is a name (or an out-of-range number)."""
    parts = host.split(".")
    if parts and parts[-1] == "" and len(parts) > 1:
        parts.pop()
    if not 1 <= len(parts) <= 4:
        return None
    numbers = []
    for part in parts:
        if part[:2].lower() == "0x":
            digits, base, allowed = part[2:], 16, "0123456789abcdefABCDEF"
        elif len(part) > 1 and part[0] == "0":
            digits, base, allowed = part[1:], 8, "01234567"
        else:
            digits, base, allowed = part, 10, "0123456789"
        if base != 16 and not digits or not all(c in allowed for c in digits):
            return None
        numbers.append(int(digits, base) if digits else 0)
    *head, last = numbers
    if any(n > 255 for n in head) or last >= 256 ** (5 - len(numbers)):
        return None
    value = last + sum(n << (8 * (3 - i)) for i, n in enumerate(head))
    return str(ipaddress.IPv4Address(value))


def page_url_problem(url: str) -> str | None:
    """Why ``url`` cannot be a public page, or ``None`` when it may be one (SPEC §5; used before any
    ``--live`` call). Pure: nothing is resolved.

    Not public: a URL :meth:`NetworkGuard.check_url` refuses (unparsable, not http(s), no host,
    credentials); an IP literal that is not public (:func:`non_public_reason`; ``2130706433`` is read
    as ``127.0.0.1``); a single-label host (``intranet``); a host under a reserved special-use name
    (``.example``, ``example.com``, ``.test``, ``.invalid``, ``.localhost``, ``.local``, ``.onion``,
    ``home.arpa``, ``.alt``, ``.internal``). The reason names the host and the RFC."""
    try:
        host = httpx.URL(url).host.lower().rstrip(".")
    except (ValueError, httpx.InvalidURL):
        host = ""  # check_url says why
    reason = non_public_reason(numeric_ipv4(host) or host) if host else None
    if reason is not None and reason != "not an IP address":
        return f"{host} is not a public address ({reason})"
    try:
        NetworkGuard().check_url(url)
    except FetchError as refused:
        return str(refused).removeprefix("refused ")
    if reason is None:
        return None  # a public IP literal
    labels = host.split(".")
    for start in range(len(labels)):
        suffix = ".".join(labels[start:])
        if suffix in _RESERVED_SUFFIXES:
            return f"{host} is a reserved name (.{suffix}, {_RESERVED_SUFFIXES[suffix]}), never a public site"
    if len(labels) == 1:
        return f"{host} is a single-label host name, resolved only on a local network"
    return None


@dataclass(frozen=True)
class NetworkGuard:
    """Refuses non-public addresses for target fetches, except the exact ``(address, port)`` pairs in
    ``exempt`` (the replay server's). Every refusal raises :class:`FetchError` ``blocked_network``."""

    exempt: frozenset[tuple[str, int]] = field(default_factory=frozenset)

    @classmethod
    def allowing(cls, *pairs: tuple[str, int]) -> NetworkGuard:
        """A guard whose only exemptions are ``pairs`` of (IP literal, port)."""
        return cls(exempt=frozenset((str(ipaddress.ip_address(host)), int(port)) for host, port in pairs))

    def check_url(self, url: str) -> None:
        """Refuse URLs that do not parse (an octal ``0177.0.0.1``, full-width digits, a broken IPv6
        literal), that are not plain http(s), that name no host, or that carry credentials in their
        authority. A URL the HTTP client cannot read is refused here, before anything is resolved."""
        try:
            parts = urlsplit(url)
            host = httpx.URL(url).host
            parts.port  # noqa: B018 (raises ValueError for a port out of range)
        except (ValueError, httpx.InvalidURL) as exc:
            raise FetchError(ErrorType.BLOCKED_NETWORK, f"refused a URL that does not parse ({exc}); only well-formed "
                             "http and https URLs are fetched") from None
        if parts.scheme.lower() not in _SCHEMES:
            raise FetchError(ErrorType.BLOCKED_NETWORK, f"refused {parts.scheme or 'scheme-less'} URL: only http and https are fetched")
        if parts.username is not None or parts.password is not None:
            raise FetchError(ErrorType.BLOCKED_NETWORK, "refused a URL with credentials in it (user:password@host)")
        if not host:
            raise FetchError(ErrorType.BLOCKED_NETWORK, f"refused a URL without a host: {url[:200]!r}")
        numeric = numeric_ipv4(host)
        if numeric is not None:
            # A browser reads 2130706433, 0x7f.1 and 017700000001 as 127.0.0.1; judge them as that,
            # whatever the system resolver would make of them.
            self.check_address(host, numeric, parts.port or (443 if parts.scheme.lower() == "https" else 80))

    def check_address(self, host: str, address: str, port: int) -> None:
        """Refuse ``address`` (resolved from ``host``) unless it is public or exactly exempt."""
        normalised = address.split("%", 1)[0]
        try:
            normalised = str(ipaddress.ip_address(normalised))
        except ValueError:
            pass
        if (normalised, port) in self.exempt:
            return
        reason = non_public_reason(normalised)
        if reason is not None:
            where = host if host == normalised else f"{host} ({normalised})"
            raise FetchError(
                ErrorType.BLOCKED_NETWORK,
                f"refused to connect to {where}:{port}: {reason} address; target pages may reach public "
                "addresses only (the replay server's own address excepted)",
            )
