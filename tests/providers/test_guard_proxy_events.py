"""What a failed tunnel is reported as (issue 28, a flaky guard test): an engine that says only
``ERR_TUNNEL_CONNECTION_FAILED`` gets the proxy's refusal, even when the browser's own background calls
(public hosts, which fail on resolution here) reached the proxy after it — as they did on a loaded machine,
where ``chromium-dump-dom``'s redirect to ``https://169.254.169.254/`` read as ``dns``."""

from __future__ import annotations

from lexbench.answer import ErrorType
from lexbench.providers.guard import NetworkGuard
from lexbench.providers.guard_proxy import GuardProxy, ProxyEvent, proxy_failure

REFUSED = ProxyEvent("blocked_network", "https://169.254.169.254:443/", "refused: 169.254.169.254 is link-local")
BACKGROUND = [ProxyEvent("dns", "https://accounts.google.com:443/", "cannot resolve accounts.google.com"),
              ProxyEvent("dns", "http://update.googleapis.com/service/update2/json", "cannot resolve update.googleapis.com")]


def failure_after(events):
    proxy = GuardProxy(NetworkGuard())  # never started: only its record of events is read
    proxy.events.extend(events)
    return proxy_failure(proxy, "chromium-dump-dom could not open a tunnel")


def test_a_refusal_names_the_failure_whatever_background_calls_failed_after_it():
    for events in ([REFUSED], [REFUSED, *BACKGROUND], [BACKGROUND[0], REFUSED, BACKGROUND[1]]):
        error = failure_after(events)
        assert error.error_type is ErrorType.BLOCKED_NETWORK and "169.254.169.254" in str(error), events


def test_without_a_refusal_the_last_failure_names_it_and_without_any_it_is_a_connect_error():
    assert failure_after(BACKGROUND).error_type is ErrorType.DNS
    assert "update.googleapis.com" in str(failure_after(BACKGROUND))
    assert failure_after([]).error_type is ErrorType.CONNECT
