"""The private-network guard judges addresses, not spellings; its only exemption is one host:port (SPEC §5)."""

from __future__ import annotations

import pytest

from lexbench.answer import ErrorType
from lexbench.providers.call import FetchError
from lexbench.providers.guard import NetworkGuard, non_public_reason


@pytest.mark.parametrize(("address", "reason"), [
    ("127.0.0.1", "loopback"), ("127.8.9.10", "loopback"), ("::1", "loopback"),
    ("169.254.169.254", "link-local"), ("fe80::1%eth0", "link-local"),
    ("10.1.2.3", "private"), ("172.16.0.1", "private"), ("192.168.1.1", "private"), ("fd00::1", "private"),
    ("0.0.0.0", "unspecified"), ("224.0.0.1", "multicast"), ("100.64.0.1", "shared address space"),
    ("::ffff:127.0.0.1", "loopback (embedded 127.0.0.1)"), ("::ffff:169.254.169.254", "link-local (embedded 169.254.169.254)"),
    ("2002:7f00:1::1", "loopback (embedded 127.0.0.1)"), ("64:ff9b::a9fe:a9fe", "link-local (embedded 169.254.169.254)"),
])
def test_non_public_addresses_are_named(address, reason):
    assert non_public_reason(address) == reason


@pytest.mark.parametrize("address", ["93.184.215.14", "2606:2800:21f:cb07:6820:80da:af6b:8b2c", "8.8.8.8"])
def test_public_addresses_pass(address):
    assert non_public_reason(address) is None
    NetworkGuard().check_address("example.com", address, 443)


def test_the_exemption_is_exactly_one_host_and_port():
    guard = NetworkGuard.allowing(("127.0.0.1", 8123))
    guard.check_address("127.0.0.1", "127.0.0.1", 8123)
    for address, port in (("127.0.0.1", 8124), ("127.0.0.2", 8123), ("::1", 8123)):
        with pytest.raises(FetchError) as caught:
            guard.check_address("localhost", address, port)
        assert caught.value.error_type is ErrorType.BLOCKED_NETWORK


@pytest.mark.parametrize("url", ["file:///etc/passwd", "ftp://example.com/x", "http://user:pw@example.com/",
                                 "gopher://example.com/"])
def test_urls_that_are_not_plain_http_are_refused(url):
    with pytest.raises(FetchError) as caught:
        NetworkGuard().check_url(url)
    assert caught.value.error_type is ErrorType.BLOCKED_NETWORK
