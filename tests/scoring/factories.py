"""Synthetic cases and answers for scorer tests (no network, no evidence home).

:func:`make_case` builds a valid compiled fixed-article :class:`Case`: a seven-paragraph reference in
three regions, a reviewed ending, two stable groups and one page-identity pattern. The answer builders
render the same page as a provider might: Markdown, plain text or HTML.
"""

from __future__ import annotations

import hashlib
from typing import Any

from lexbench.dataset.case import Case
from lexbench.providers.result import ProviderResult, ResultMetadata

TITLE = "The Last Lighthouse Keeper of Valmora"

# One paragraph per line. The first sentence repeats the title inside a longer sentence on purpose.
PARAGRAPHS = [
    # Region 1 "Opening": lines 1-2
    "When people speak of The Last Lighthouse Keeper of Valmora, they usually mean Teodor Brask, who "
    "climbed the iron stairs at Cape Orra every evening for thirty-one years.",
    "He kept a ledger of passing ships in green ink, noting the hour, the wind and whether the crews "
    "waved back at the tower when the weather allowed it.",
    # Region 2 "Storm years": lines 3-4
    "The winter of 1987 brought eleven storms in nine weeks; twice the generator failed and Brask "
    "turned the great lens by hand until dawn, counting the rotations aloud.",
    "Fishermen from Sella Bay still describe the night the trawler Margit drifted toward the reef and "
    "a single steady beam guided her crew into the narrow harbour mouth.",
    # Region 3 "Closing": lines 5-7 (line 7 is the reviewed ending)
    "Automation arrived in 1998, and a sealed cabinet of relays replaced the keeper's routine of oil, "
    "brass polish and careful notes about clouds over the northern ridge.",
    "Brask moved to a cottage below the cliff, where visitors found him repairing nets, reading old "
    "almanacs and answering letters from sailors who remembered his light.",
    "He died in the spring of 2009, and the ledger now rests in the village museum.",
]
REGIONS = [("Opening", 1, 2), ("Storm years", 3, 4), ("Closing", 5, 7)]
ENDING = PARAGRAPHS[-1]
NAVIGATION = "Home | Coast | Weather | Archive"
ATTRIBUTION = "By Mara Ilves, Coastal Desk"
FOOTER = "Valmora Gazette: Letters to the editor"
IDENTITY = r"lighthouse\s+at\s+Cape Orra|stairs at Cape Orra"

# A sibling article from the same site: same navigation and footer, different story.
OTHER_TITLE = "Ferry Timetable Changes for the Summer Season"
OTHER_PARAGRAPHS = [
    "From the first of June the morning ferry to Sella Bay leaves twenty minutes earlier, the harbour "
    "office announced on Tuesday after a long consultation with residents.",
    "Passengers with bicycles must now book a place in advance, and the evening crossing on Sundays "
    "will be operated by the smaller vessel while the main ship is serviced.",
    "The office expects queues during the festival weekend and recommends arriving early with tickets "
    "printed or saved on a phone.",
]


def reference_text() -> str:
    return "\n".join(PARAGRAPHS)


def make_case(**overrides: Any) -> Case:
    """A valid compiled fixed-article case; keyword overrides replace top-level fields."""
    text = reference_text()
    data: dict[str, Any] = {
        "id": "article-001-en-valmora-lighthouse",
        "name": "Valmora lighthouse keeper",
        "url": "https://gazette.example/coast/last-lighthouse-keeper",
        "category": "article",
        "track": "news",
        "task_prompt": "Fetch the article's readable content.",
        "kind": "fixed_article",
        "lang": "en",
        "capture": {"path": "captures/article-001.html", "sha256": "0" * 64},
        "title": TITLE,
        "title_basis": "observed",
        "body": {
            "contract_version": 4,
            "reference": {
                "path": "references/article-001.txt",
                "sha256": hashlib.sha256(text.encode("utf-8")).hexdigest(),
                "chars": len(text),
                "opening": text[:40],
                "ending": text[-40:],
            },
            "reference_scope": {"kind": "complete", "end": ENDING},
            "regions": [{"label": label, "first_line": a, "last_line": b} for label, a, b in REGIONS],
        },
        "stable_text_review_defaults": {"basis": "site chrome seen on three visits", "observed": "2026-01-10"},
        "stable_groups": [
            {"id": "byline-desk", "region": "attribution", "phrases": ["Coastal Desk"], "location": "under the title"},
            {
                "id": "footer-letters",
                "region": "footer",
                "phrases": ["Valmora Gazette", "Letters to the editor"],
                "location": "page footer",
            },
        ],
        "page_identity": [IDENTITY],
        "reference_text": text,
    }
    data.update(overrides)
    return Case.model_validate(data)


def answer(content: str, content_format: str | None = "markdown", **fields: Any) -> ProviderResult:
    """A successful provider result (upstream 200) unless ``fields`` say otherwise."""
    metadata = fields.pop("metadata", None) or ResultMetadata(api_http_status=200, upstream_status=200)
    return ProviderResult(
        success=fields.pop("success", True),
        content=content,
        content_format=content_format,
        metadata=metadata,
        **fields,
    )


def markdown_page(paragraphs: list[str] | None = None, title: str = TITLE) -> str:
    body = "\n\n".join(PARAGRAPHS if paragraphs is None else paragraphs)
    return f"{NAVIGATION}\n\n# {title}\n\n{ATTRIBUTION}\n\n{body}\n\n---\n\n{FOOTER}\n"


def text_page(paragraphs: list[str] | None = None, title: str = TITLE) -> str:
    body = "\n".join(PARAGRAPHS if paragraphs is None else paragraphs)
    return f"{NAVIGATION}\n{title}\n{ATTRIBUTION}\n{body}\n{FOOTER}\n"


def html_page(paragraphs: list[str] | None = None, title: str = TITLE, extra_body: str = "") -> str:
    body = "\n".join(f"<p>{p}</p>" for p in (PARAGRAPHS if paragraphs is None else paragraphs))
    return (
        "<!DOCTYPE html><html><head><meta charset='utf-8'>"
        f"<title>{title} | Valmora Gazette</title>"
        "<style>.x{color:red}</style><script>var t = 'Cape Orra';</script></head><body>"
        f"<nav><a href='/'>Home</a> | <a href='/coast'>Coast</a> | Weather | Archive</nav>"
        f"<article><h1>{title}</h1><p class='byline'>{ATTRIBUTION}</p>{body}</article>{extra_body}"
        f"<footer>{FOOTER}</footer></body></html>"
    )
