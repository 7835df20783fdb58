"""Hosted fetch APIs: one adapter per service on the shared HTTP boundary (SPEC §3.1, §5).

:mod:`~lexbench.providers.hosted.base` holds :class:`HostedProvider`, the base every adapter builds on
(an adapter writes ``build_request`` and ``parse_response``).

Every adapter sends the case URL as it is to the service (no filtering by track), never downloads the
page itself and never substitutes a local browser; rendering and retries inside the service are the
service's own.
"""

from __future__ import annotations

from lexbench.providers.hosted.base import HostedProvider, OptionType, excerpt, json_body, member, number, status_code

__all__ = ["HostedProvider", "OptionType", "excerpt", "json_body", "member", "number", "status_code"]
