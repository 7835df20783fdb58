"""Host name resolution at the shared HTTP boundary: ``dns_mode`` ``system`` or ``public_doh`` (SPEC §5).

``system`` asks the local resolver (``getaddrinfo``). ``public_doh`` sends RFC 8484 DNS-over-HTTPS
queries (A, then AAAA when there is no A record) to the configured resolver URL: exactly one query per
record type, no retry, and never a fall-back to the system resolver — a DoH failure is a ``dns``
failure of the call. Every resolution is recorded on the current attempt's trace. IP literals are not
resolved. A resolver URL with a host name is itself reached through the system resolver; give an IP
literal (e.g. ``https://1.1.1.1/dns-query``) to avoid that bootstrap.
"""

from __future__ import annotations

import ipaddress
import socket
from typing import TYPE_CHECKING, Protocol

import anyio
import httpx

from lexbench.answer import DnsMode, ErrorType, Resolution
from lexbench.providers.call import CURRENT_CALL, FetchError

if TYPE_CHECKING:
    import dns.rdatatype

_DOH_MAX_BYTES = 65_535  # a DNS message never exceeds this


class Resolver(Protocol):
    """Resolves a host name to IP address strings; raises :class:`FetchError` ``dns`` on failure."""

    mode: DnsMode

    async def resolve(self, host: str, port: int) -> list[str]: ...


def _literal(host: str) -> str | None:
    try:
        return str(ipaddress.ip_address(host.strip("[]")))
    except ValueError:
        return None


def _record(resolution: Resolution) -> None:
    context = CURRENT_CALL.get()
    if context is not None:
        context.trace.resolutions.append(resolution)


class SystemResolver:
    """The local resolver through ``getaddrinfo`` (run off the event loop by anyio)."""

    mode: DnsMode = "system"

    async def resolve(self, host: str, port: int) -> list[str]:
        literal = _literal(host)
        if literal is not None:
            return [literal]
        try:
            infos = await anyio.getaddrinfo(host, port, type=socket.SOCK_STREAM)
        except socket.gaierror as exc:
            _record(Resolution(host=host, via="system"))
            raise FetchError(ErrorType.DNS, f"cannot resolve {host}: {exc.strerror or exc} (system resolver)") from None
        addresses = list(dict.fromkeys(str(info[4][0]) for info in infos))
        _record(Resolution(host=host, via="system", addresses=addresses))
        return addresses


class DohResolver:
    """RFC 8484 DNS-over-HTTPS (POST ``application/dns-message``) to ``url``; no retry, no fallback."""

    mode: DnsMode = "public_doh"

    def __init__(self, url: str) -> None:
        self.url = url
        import dns.message  # noqa: F401  dnspython is imported by the first DoH resolver built, untimed,
        import dns.rcode  # noqa: F401  not by every process's start-up (~20 ms)

    async def resolve(self, host: str, port: int) -> list[str]:
        literal = _literal(host)
        if literal is not None:
            return [literal]
        import dns.rdatatype  # dnspython: only DoH needs it (see __init__)

        addresses: list[str] = []
        try:
            for rdtype in (dns.rdatatype.A, dns.rdatatype.AAAA):
                addresses = await self._query(host, rdtype)
                if addresses:
                    break
        except FetchError:
            _record(Resolution(host=host, via="doh", resolver=self.url))
            raise
        _record(Resolution(host=host, via="doh", resolver=self.url, addresses=addresses))
        if not addresses:
            raise FetchError(ErrorType.DNS, f"cannot resolve {host}: the DoH resolver {self.url} returned no A or AAAA "
                             "record (no fallback to system DNS)")
        return addresses

    async def _query(self, host: str, rdtype: dns.rdatatype.RdataType) -> list[str]:
        import dns.message  # dnspython: only DoH needs it (see __init__)
        import dns.rcode

        query = dns.message.make_query(host, rdtype)
        query.id = 0  # RFC 8484 §4.1: cache-friendly
        headers = {"Content-Type": "application/dns-message", "Accept": "application/dns-message"}
        fail = f"DoH query for {host} to {self.url} failed"
        try:
            async with httpx.AsyncClient(trust_env=False, timeout=None, follow_redirects=False) as client:
                async with client.stream("POST", self.url, content=query.to_wire(), headers=headers) as response:
                    body = bytearray()
                    async for chunk in response.aiter_bytes():
                        body += chunk
                        if len(body) > _DOH_MAX_BYTES:
                            raise FetchError(ErrorType.DNS, f"{fail}: the answer is larger than any DNS message")
        except httpx.HTTPError as exc:
            raise FetchError(ErrorType.DNS, f"{fail}: {type(exc).__name__}: {exc} (no fallback to system DNS)") from None
        if response.status_code != 200:
            raise FetchError(ErrorType.DNS, f"{fail}: the resolver answered HTTP {response.status_code} (no fallback to system DNS)")
        try:
            answer = dns.message.from_wire(bytes(body))
        except Exception as exc:  # dnspython raises many parse error types
            raise FetchError(ErrorType.DNS, f"{fail}: unreadable DNS message ({type(exc).__name__})") from None
        rcode = answer.rcode()
        if rcode == dns.rcode.NXDOMAIN:
            raise FetchError(ErrorType.DNS, f"cannot resolve {host}: NXDOMAIN from the DoH resolver {self.url} "
                             "(no fallback to system DNS)")
        if rcode != dns.rcode.NOERROR:
            raise FetchError(ErrorType.DNS, f"{fail}: {dns.rcode.to_text(rcode)} (no fallback to system DNS)")
        return [item.address for rrset in answer.answer if rrset.rdtype == rdtype for item in rrset]
