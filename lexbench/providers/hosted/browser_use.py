"""Browser Use: refused at configuration — the service documents no fetch endpoint (SPEC §5).

Verified: the API base ``https://api.browser-use.com/api/v2`` and the ``X-Browser-Use-API-Key`` header.
No official client (Python ``browser-use-sdk`` v2–v4, the npm SDK) has a fetch or Markdown route: their
routes are browsers, sessions, tasks, profiles and skills. A ``/fetch`` route would answer 404 on every
item and lexbench would charge the provider ``fail/api_status`` for a route it invented, so the type is
kept only to say so: configuring it raises :attr:`BrowserUseFetch.refused`. None of the documented routes
fits (a task runs an Agent, which the benchmark's fetch contract excludes).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from lexbench.answer import ProviderResult
from lexbench.errors import ConfigError
from lexbench.providers.hosted.base import HostedProvider
from lexbench.providers.http import HttpRequest, HttpResponse


class BrowserUseFetch(HostedProvider):
    """Browser Use fetch: refused (no documented fetch endpoint; see the module docstring)."""

    type_name = "browser-use-fetch"
    default_base_url = "https://api.browser-use.com/api/v2"
    refused = ("Browser Use documents no fetch endpoint (its official clients, browser-use-sdk 3.12.1 and npm "
               "3.11.3, have only browsers, sessions, tasks, profiles and skills routes; a task runs an Agent). "
               "Remove this provider from the configuration.")

    def build_request(self, url: str, options: Mapping[str, Any]) -> HttpRequest:
        raise ConfigError(str(self.refused))

    def parse_response(self, response: HttpResponse) -> ProviderResult:
        raise ConfigError(str(self.refused))
