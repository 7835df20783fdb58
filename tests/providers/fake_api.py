"""A hosted adapter for the loopback fake API in :mod:`tests.providers.servers`: the shape every hosted
adapter has — build one request, parse one response — and nothing else."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any
from urllib.parse import quote

from lexbench.answer import ErrorType, ProviderResult, ResultMetadata
from lexbench.providers.call import FetchError
from lexbench.providers.hosted.base import HostedProvider, json_body
from lexbench.providers.http import HttpRequest, HttpResponse


class FakeFetchApi(HostedProvider):
    """``POST {base_url}/v1/fetch {"url"}`` with a bearer key (and, with ``key_in_query``, the key in the
    query string too, as some services want it)."""

    type_name = "fake-fetch-api"
    option_names = frozenset({"base_url", "api_key", "key_in_query"})
    secret_options = frozenset({"api_key"})

    def build_request(self, url: str, options: Mapping[str, Any]) -> HttpRequest:
        endpoint = options["base_url"].rstrip("/") + "/v1/fetch"
        if options.get("key_in_query"):
            endpoint += "?key=" + quote(options["api_key"], safe="")
        return HttpRequest("POST", endpoint, headers={"Authorization": f"Bearer {options['api_key']}"}, json={"url": url})

    def parse_response(self, response: HttpResponse) -> ProviderResult:
        body = json_body(response)
        if not isinstance(body, dict):
            raise FetchError(ErrorType.MALFORMED_RESPONSE, "the answer is not a JSON object")
        metadata = ResultMetadata(upstream_status=body.get("status_code"), request_id=body.get("request_id"),
                                  cost=body.get("cost"), cost_unit="usd", billing={"cost": body.get("cost")})
        if not body.get("success"):
            return ProviderResult.failure(ErrorType.SERVICE_ERROR, f"the service reported: {body.get('error')}",
                                          content=response.text(), content_format="text", metadata=metadata)
        return ProviderResult(success=True, content=body.get("content") or "", content_format="markdown",
                              title=body.get("title"), metadata=metadata)
