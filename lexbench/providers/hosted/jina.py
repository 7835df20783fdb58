"""Jina Reader: ``POST r.jina.ai/`` with ``{url}``, Markdown back as JSON (SPEC §5).

Request headers as Jina's own client (jina-cli 0.3.0, ``read_url``) sends them: ``Accept:
application/json``, ``X-Retain-Images: none``, ``Authorization: Bearer`` (optional at the service:
without an ``api_key`` option no key is sent), and **no** ``X-Return-Format``: Jina's default mode
converts the page's main content (Readability), while ``X-Return-Format: markdown`` converts the whole
page — that mode is the ``return_format`` option, a provider of its own (``jina-reader-markdown`` in
the example configuration). The client's ``X-Md-Link-Style: discarded`` is not copied: it drops link
targets, which the posts and anchor contracts count (SPEC §2, §3.6). Per option also ``X-Engine``,
``X-Timeout``, ``X-No-Cache`` (fresh fetches; the client leaves caching on), ``X-Proxy``. Answer
``{code, status, data: {title, description, url, content, warning?, usage: {tokens}}}``. The target's
status is reported only as text in ``data.warning`` ("Target URL returned error 404: …"), which becomes
``upstream_status``. Errors are ``{data: null, code, name, status, message, readableMessage}``, e.g. 402
``InsufficientBalanceError`` (``quota``).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from lexbench.answer import ErrorType, ProviderResult, ResultMetadata
from lexbench.providers.call import FetchError
from lexbench.providers.hosted.base import HostedProvider, json_body, member, number
from lexbench.providers.http import HttpRequest, HttpResponse

TARGET_ERROR = re.compile(r"Target URL returned error (\d{3})")
"""The warning text in which Jina reports the target's non-2xx status."""


class JinaReader(HostedProvider):
    """Jina Reader. Options: ``api_key`` (optional), ``return_format`` (``X-Return-Format``, not sent by
    default: main content, as the client asks; ``"markdown"`` converts the whole page), ``retain_images``
    (``X-Retain-Images``, default ``"none"`` as the client), ``engine`` (``X-Engine``), ``timeout_s``
    (``X-Timeout``), ``no_cache`` (``X-No-Cache``, default true: fresh fetches), ``proxy`` (``X-Proxy``),
    ``base_url``, ``path``."""

    type_name = "jina-reader"
    default_base_url = "https://r.jina.ai"
    default_path = "/"
    options_schema = {"api_key": str, "return_format": ("markdown", "html", "text"), "retain_images": str,
                      "engine": str, "timeout_s": int, "no_cache": bool, "proxy": str}
    defaults = {"no_cache": True, "retain_images": "none"}
    required_options = frozenset()  # the service answers without a key, at a lower rate limit

    def build_request(self, url: str, options: Mapping[str, Any]) -> HttpRequest:
        headers = {"Accept": "application/json"}
        if options.get("return_format"):
            headers["X-Return-Format"] = options["return_format"]
        if options.get("retain_images"):
            headers["X-Retain-Images"] = options["retain_images"]
        if options.get("api_key"):
            headers["Authorization"] = f"Bearer {options['api_key']}"
        if options.get("engine"):
            headers["X-Engine"] = options["engine"]
        if options.get("timeout_s"):
            headers["X-Timeout"] = str(options["timeout_s"])
        if options["no_cache"]:
            headers["X-No-Cache"] = "true"
        if options.get("proxy"):
            headers["X-Proxy"] = options["proxy"]
        return HttpRequest("POST", self.endpoint(options), json={"url": url}, headers=headers)

    def engine(self, options: Mapping[str, Any]) -> str:
        mode = [options[name] for name in ("return_format", "engine") if options.get(name)]
        return "/".join(["jina-reader", *mode])

    def parse_response(self, response: HttpResponse) -> ProviderResult:
        body = json_body(response)
        data = member(body, "data", dict, optional=True)
        if data is None:
            raise FetchError(ErrorType.SERVICE_ERROR if isinstance(body, dict) and body.get("name") else
                             ErrorType.MALFORMED_RESPONSE,
                             f"Jina answered without data: {member(body, 'readableMessage', str, optional=True) or body}")
        warning = member(data, "warning", str, optional=True)
        target = TARGET_ERROR.search(warning or "")
        tokens = number(member(data, "usage.tokens", int, optional=True), "'data.usage.tokens'")
        metadata = ResultMetadata(upstream_status=int(target.group(1)) if target else None,
                                  billing={"tokens": tokens} if tokens is not None else {},
                                  cost=tokens, cost_unit="tokens" if tokens is not None else None)
        fields = {"title": member(data, "title", str, optional=True), "final_url": member(data, "url", str, optional=True),
                  "metadata": metadata}
        content = member(data, "content", str, optional=True) or ""
        return self.answer(content, "markdown", **fields)
