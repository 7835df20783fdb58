"""Controls that prove a dynamic case (issue 28): one answers as a page that runs no script, one as a browser.

- :class:`StaticShell` (``static-shell``) answers with the page's HTML as first served — the capture, or a
  web archive's page record — without running any script and without a network call. A case marked
  ``needs_javascript`` must fail it on its body or records: that proves the case really needs a browser. On a
  ``file`` case it answers the bytes as first served (a file needs no script: it passes); on a ``resources``
  case the ``a[href]``/``img[src]`` URLs of that HTML, so a case whose links only a script draws fails it.
- :class:`RenderedControl` (``rendered-control``) renders the replayed page in Chromium over CDP
  (JavaScript on, the case's DOM completion honoured, same-origin iframes and open shadow roots inlined) and
  answers the completed DOM's HTML. It must pass every case: that proves a browser can.

Both are scored under the ``control`` output contract, beside ``reference-echo``
(:class:`lexbench.providers.local.ReferenceEcho`), never on a provider leaderboard.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from lexbench.answer import ProviderResult, ResultMetadata
from lexbench.providers.http import decode_text
from lexbench.dataset.case import Case
from lexbench.providers.base import OutputContract, Provider
from lexbench.providers.headless import HeadlessHtml, check_playwright, probe_version, resource_urls, which

RENDERED_DEFAULTS: Mapping[str, Any] = {"engine": "chromium-cdp", "binary": "/usr/bin/chromium",
                                        "expected_version": "any", "inline_frames": True, "inline_shadow_roots": True}
"""The rendered control's options unless configured: the system Chromium over CDP, any version (a control
proves the case, it does not rank the engine), same-origin frames and open shadow roots inlined."""


class StaticShell(Provider):
    """Control: the page's HTML as first served, no script run (see the module docstring). Its pages
    come from :meth:`bind_shells` (``{case id: (bytes, content type)}``, the page's own HTML)."""

    type_name = "static-shell"
    family = "control"
    output_contracts: ClassVar[tuple[OutputContract, ...]] = ("control",)
    needs_network = False
    deliveries = frozenset({"text", "file", "resources"})

    def bind_shells(self, pages: Mapping[str, tuple[bytes, str]]) -> None:
        """Give the control each case's page HTML as first served: ``{case id: (bytes, content type)}``."""
        self._captures = dict(pages)

    def fetch(self, case: Case, timeout: float, url: str) -> ProviderResult:
        data, content_type = getattr(self, "_captures", {})[case.id]
        meta = ResultMetadata(engine="static-shell", content_type=content_type)
        if case.file is not None:  # the bytes as first served: a file needs no script
            return ProviderResult(success=True, file=data, final_url=case.url, metadata=meta)
        if case.resources is not None:  # the links and images of the HTML as served, no script run
            urls = resource_urls(decode_text(data, content_type), case.url)
            return ProviderResult(success=True, content="\n".join(urls), content_format="text", final_url=case.url,
                                  resources=urls, metadata=meta)
        return ProviderResult(success=True, content=decode_text(data, content_type), content_format="html",
                              final_url=case.url, metadata=ResultMetadata(engine="static-shell"))


class RenderedControl(HeadlessHtml):
    """Control: Chromium over CDP renders the replayed page, JavaScript on, the case's DOM completion
    honoured, same-origin iframes and open shadow roots inlined; answers the completed DOM's HTML (see the module docstring).
    Options as ``headless-html`` (:class:`~lexbench.providers.headless.EngineOptions`), defaulting to
    :data:`RENDERED_DEFAULTS`; ``expected_version`` ``"any"`` accepts whichever Chromium is installed."""

    type_name = "rendered-control"
    family = "control"
    output_contracts: ClassVar[tuple[OutputContract, ...]] = ("control",)

    def __init__(self, name: str | None = None, options: Mapping[str, Any] | None = None, **kwargs: Any) -> None:
        super().__init__(name, {**RENDERED_DEFAULTS, **(options or {})}, **kwargs)

    @classmethod
    def validate_options(cls, options: Mapping[str, Any]) -> None:
        super().validate_options({**RENDERED_DEFAULTS, **options})

    def preflight(self) -> str:
        """Playwright and a Chromium of any version (unless one is configured); raises
        :class:`~lexbench.providers.headless.PreflightError`."""
        if self.config.expected_version != "any":
            return super().preflight()
        check_playwright()
        return probe_version(self.engine, which(self.config.binary) or self.config.binary, None)
