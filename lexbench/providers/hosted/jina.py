"""Jina Reader: ``POST r.jina.ai/`` with ``{url}``, Markdown back as JSON (SPEC §5).

Request headers: ``Accept: application/json``, ``X-Return-Format: markdown``, ``Authorization: Bearer``
(optional at the service: without an ``api_key`` option no key is sent), and per option ``X-Engine``,
``X-Timeout``, ``X-No-Cache``, ``X-Proxy``. Answer ``{code, status, data: {title, description, url,
content, warning?, usage: {tokens}}}``. The target's status is reported only as text in
``data.warning`` ("Target URL returned error 404: …"), which becomes ``upstream_status``. Errors are
``{data: null, code, name, status, message, readableMessage}``, e.g. 402 ``InsufficientBalanceError``
(``quota``).
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
    """Jina Reader. Options: ``api_key`` (optional), ``engine`` (``X-Engine``), ``timeout_s``
    (``X-Timeout``), ``no_cache`` (``X-No-Cache``, default true: fresh fetches), ``proxy`` (``X-Proxy``),
    ``base_url``, ``path``."""

    type_name = "jina-reader"
    default_base_url = "https://r.jina.ai"
    default_path = "/"
    options_schema = {"api_key": str, "engine": str, "timeout_s": int, "no_cache": bool, "proxy": str}
    defaults = {"no_cache": True}
    required_options = frozenset()  # the service answers without a key, at a lower rate limit

    def build_request(self, url: str, options: Mapping[str, Any]) -> HttpRequest:
        headers = {"Accept": "application/json", "X-Return-Format": "markdown"}
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
        return f"jina-reader/{options['engine']}" if options.get("engine") else "jina-reader"

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
