"""What a provider hands back: :class:`ProviderResult` and its parts (SPEC §5).

A result keeps everything a reviewer needs to judge the call afterwards: the content (kept even when
it is an error page or an API error body), the API's own HTTP status and the target page's status as
separate fields, and every physical attempt with its own timing and cost.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

ContentFormat = Literal["markdown", "text", "html"]


class ErrorType(StrEnum):
    """Stable classes of call failure (SPEC §3.1, §5). The answer boundary maps them to verdicts."""

    TIMEOUT = "timeout"
    CONNECT = "connect"
    DNS = "dns"
    TLS = "tls"
    TOO_LARGE = "too_large"
    UPSTREAM_STATUS = "upstream_status"
    API_STATUS = "api_status"
    AUTH = "auth"
    QUOTA = "quota"
    RATE_LIMITED = "rate_limited"
    MALFORMED_RESPONSE = "malformed_response"
    EMPTY_CONTENT = "empty_content"
    SERVICE_ERROR = "service_error"
    BLOCKED_NETWORK = "blocked_network"
    CRASHED = "crashed"
    INFRASTRUCTURE = "infrastructure"
    MISSING_CREDENTIALS = "missing_credentials"
    UNSUPPORTED = "unsupported"


class Attempt(BaseModel):
    """One physical call: its own latency (seconds), statuses, error and cost."""

    model_config = ConfigDict(extra="forbid")

    latency_s: float = Field(ge=0)
    api_http_status: int | None = None
    upstream_status: int | None = None
    error_type: ErrorType | None = None
    error_message: str | None = None
    cost: float | None = None


class ResultMetadata(BaseModel):
    """Provider metadata (SPEC §5).

    ``api_http_status`` is the fetch service's own HTTP status; ``upstream_status`` the target page's
    status as the provider observed it, ``None`` when unknown — never copied from the API status.
    ``server_elapsed_s`` is the time the service says it spent; ``billing`` its cost/usage fields.
    """

    model_config = ConfigDict(extra="forbid")

    api_http_status: int | None = None
    upstream_status: int | None = None
    request_id: str | None = None
    engine: str | None = None
    server_elapsed_s: float | None = None
    billing: dict[str, Any] = Field(default_factory=dict)


class ProviderResult(BaseModel):
    """The normalised result of ``Provider.fetch`` (SPEC §5).

    ``latency_s`` is the final attempt's wall time in seconds, stopped after the response and its
    required decoding; ``attempts`` lists every physical call including the final one.
    """

    model_config = ConfigDict(extra="forbid")

    success: bool
    content: str = ""
    content_format: ContentFormat | None = None
    final_url: str | None = None
    title: str | None = None
    error_type: ErrorType | None = None
    error_message: str | None = None
    metadata: ResultMetadata = Field(default_factory=ResultMetadata)
    latency_s: float = Field(default=0.0, ge=0)
    attempts: list[Attempt] = Field(default_factory=list)
