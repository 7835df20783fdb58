"""Synthetic cases and answers for scorer tests (no network, no evidence home).

:func:`make_case` builds a valid compiled fixed-article :class:`Case`: a seven-paragraph reference in
three regions, a reviewed ending, two stable groups and one page-identity pattern. The answer builders
render the same page as a provider might: Markdown, plain text or HTML. :func:`make_comment_case` adds a
comments v2 contract to that article (six displayed comments, :data:`COMMENTS`); :func:`make_post_case`
builds a post collection (a forum thread of six posts, :data:`POSTS`), with renderers for both.
"""

from __future__ import annotations

import hashlib
import re
from typing import Any

from lexbench.answer import ProviderResult, ResultMetadata
from lexbench.dataset.case import Case

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


# --- comments (SPEC §3.5) ------------------------------------------------------------------------------

# Six displayed comments (one is a reply): baseline 6, so the floor is 5.
COMMENTS = [
    ("c-101", "Ilse Marten", "My grandfather sailed past Cape Orra every winter and always spoke of the steady beam."),
    ("c-102", "Rob Tiernan", "Does anyone know whether the green-ink ledger is on display all year?"),
    ("c-103", "Mara Ilves", "It is, in the upper room of the museum, next to the old foghorn."),  # reply to c-102
    ("c-104", "kestrel_77", "Lovely piece. The part about counting rotations aloud stayed with me."),
    ("c-105", "Joan Abery", "We visited the cottage in 2004 and he showed us how he mended the nets."),
    ("c-106", "Pieter Vos", "Thank you for writing this before the last witnesses are gone."),
]
COMMENT_BASELINE = len(COMMENTS)
DELETED_NOTICE = "This comment was deleted."
RECOMMENDATIONS = [
    ("Harbour Master", "Ferry timetable changes for the summer season are now online."),
    ("Coast Desk", "Storm season review: what the new sea wall has changed."),
]


def comment_contract(**overrides: Any) -> dict[str, Any]:
    contract: dict[str, Any] = {
        "contract_version": 2,
        "baseline": COMMENT_BASELINE,
        "html": {
            "record": "li.comment",
            "author": ".comment-author",
            "text": ".comment-content",
            "record_id_attribute": "id",
        },
        "ignored_labels": ["Reply", "Like", "Report"],
        "unavailable_notices": [DELETED_NOTICE],
        "heading_labels": ["Comments", "Responses to"],
        # The page footer follows the comments: a reviewer records it as a standalone end label.
        "end_labels": ["Related articles", "Leave a Reply", FOOTER],
        "record_id_pattern": r"#comment-(c-\d+)$",
        "observed": "2026-01-10",
        "evidence": "six comments with author and text shown on first load, no interaction",
    }
    contract.update(overrides)
    return contract


def make_comment_case(**overrides: Any) -> Case:
    """The fixed article of :func:`make_case` with a comments v2 contract."""
    comments = overrides.pop("comments", None) or comment_contract()
    return make_case(comments=comments, **overrides)


def comments_markdown(records: list[tuple[str, str, str]] | None = None, *, style: str = "heading",
                      heading: str | None = "## 6 Comments", after: str = "") -> str:
    """Markdown rendering of the comment section in one of several author styles."""
    parts = [heading] if heading else []
    for record_id, author, text in COMMENTS if records is None else records:
        permalink = f"https://gazette.example/coast/last-lighthouse-keeper#comment-{record_id}"
        if style == "heading":
            parts.append(f"### {author}\n\n[March 3, 2026 at 4:12 pm]({permalink})\n\n{text}\n\nReply")
        elif style == "linked":
            parts.append(f"[{author}](https://people.example/{record_id}) says:\n\n{text}\n\n[Reply]({permalink})")
        elif style == "bold":
            parts.append(f"**{author}**\n\n{text}\n\nLike (3) · Reply")
        elif style == "list":
            parts.append(f"- **{author}** · March 3, 2026\n\n  {text}")
        elif style == "colon":
            parts.append(f"{author}: {text}")
        else:
            raise ValueError(style)
    return "\n\n".join(parts) + ("\n\n" + after if after else "")


def recommendations_markdown(label: str = "## Related articles") -> str:
    items = "\n\n".join(f"**{who}**\n\n{text}" for who, text in RECOMMENDATIONS)
    return f"{label}\n\n{items}\n"


def article_markdown_with(comment_section: str) -> str:
    body = "\n\n".join(PARAGRAPHS)
    return f"{NAVIGATION}\n\n# {TITLE}\n\n{ATTRIBUTION}\n\n{body}\n\n{comment_section}\n\n---\n\n{FOOTER}\n"


def comments_text(records: list[tuple[str, str, str]] | None = None, heading: str | None = "Comments") -> str:
    lines = [heading] if heading else []
    lines += [f"{author}: {text}" for _id, author, text in (COMMENTS if records is None else records)]
    return "\n".join(lines)


def article_text_with(comment_section: str) -> str:
    body = "\n".join(PARAGRAPHS)
    return f"{NAVIGATION}\n{TITLE}\n{ATTRIBUTION}\n{body}\n{comment_section}\n{FOOTER}\n"


def comment_li(record_id: str, author: str, text: str, *, author_attrs: str = "", text_attrs: str = "",
               li_attrs: str = "", children: str = "") -> str:
    return (
        f"<li class='comment' id='{record_id}'{li_attrs}><div class='comment-meta'>"
        f"<a class='comment-author' href='https://people.example/{record_id}'{author_attrs}>{author}</a> "
        f"<a href='#comment-{record_id}'>March 3, 2026</a></div>"
        f"<div class='comment-content'{text_attrs}><p>{text}</p></div><a class='reply'>Reply</a>{children}</li>"
    )


def comments_html(records: list[tuple[str, str, str]] | None = None, *, nest_reply: bool = True) -> str:
    records = COMMENTS if records is None else records
    items = []
    for index, (record_id, author, text) in enumerate(records):
        if nest_reply and record_id == "c-103":
            continue
        children = ""
        if nest_reply and record_id == "c-102":
            reply = next(r for r in records if r[0] == "c-103") if any(r[0] == "c-103" for r in records) else None
            if reply:
                children = f"<ol class='children'>{comment_li(*reply)}</ol>"
        items.append(comment_li(record_id, author, text, children=children))
    return f"<section id='comments'><h2>{len(records)} Comments</h2><ol class='comment-list'>{''.join(items)}</ol></section>"


# --- posts (SPEC §3.6) ---------------------------------------------------------------------------------

FORUM_TITLE = "Tide tables for Sella Bay: which source do you trust?"
FORUM_URL = "https://forum.harbour.example/t/sella-tides/4471"
POST_LINK_PATTERN = r"https://forum\.harbour\.example/t/sella-tides/4471/p/\d+"
POSTS = [
    (1, "skipper_ana", "The harbour office table and the app disagree by twenty minutes on spring tides."),
    (2, "Tom Farrell", "I go by the printed almanac; the app rounds to the nearest quarter hour."),
    (3, "gullwing", "Twenty minutes matters at the bar. Has anyone compared them against the tide gauge?"),
    (4, "Mara Ilves", "The gauge data is published weekly on the port authority site, in metres."),
    (5, "skipper_ana", "Thanks, that settles it: the office table matched the gauge all of last month."),
    (6, "Olek Brandt", "Worth adding that the office table already includes the summer time shift."),
]
POST_BASELINE = len(POSTS)


def post_link(number: int) -> str:
    return f"{FORUM_URL}/p/{number}"


def profile(author: str) -> str:
    return "https://forum.harbour.example/u/" + author.replace(" ", "-").lower()


def post_contract(**overrides: Any) -> dict[str, Any]:
    contract: dict[str, Any] = {
        "contract_version": 2,
        "baseline": POST_BASELINE,
        "post_link_pattern": POST_LINK_PATTERN,
        "html": {
            "record": "article.post",
            "author": ".post-author",
            "text": ".post-body",
            "link": "a.permalink",
            "quote": "blockquote",
        },
        "ignored_labels": ["Reply", "Like", "Quote"],
        "unavailable_notices": ["This post was removed by a moderator."],
        "non_author_labels": ["Permalink", "Share"],
        "metadata_labels": ["Member", "Moderator", "Joined", "Posts"],
        "observed": "2026-01-12",
        "evidence": "six posts with author, text and permalink on two independent first loads",
    }
    contract.update(overrides)
    return contract


def make_post_case(**overrides: Any) -> Case:
    """A post_collection case: no body, a posts v2 contract, page identity and stable groups."""
    data: dict[str, Any] = {
        "id": "forum-002-en-sella-tides",
        "name": "Harbour Forum: Sella Bay tide tables thread",
        "url": FORUM_URL,
        "category": "forum",
        "track": "posts",
        "task_prompt": "Fetch the thread's readable content.",
        "kind": "post_collection",
        "lang": "en",
        "capture": {"path": "captures/forum-002.html", "sha256": "1" * 64},
        "title": FORUM_TITLE,
        "title_basis": "observed",
        "stable_text_review_defaults": {"basis": "forum chrome on two loads", "observed": "2026-01-12"},
        "stable_groups": [
            {"id": "forum-name", "region": "navigation", "phrases": ["Harbour Forum"], "location": "header"},
            {"id": "footer-links", "region": "footer", "phrases": ["Rules", "Contact"], "location": "footer"},
        ],
        "page_identity": [re.escape("Tide tables for Sella Bay")],
        "posts": post_contract(),
    }
    data.update(overrides)
    return Case.model_validate(data)


def posts_markdown(posts: list[tuple[int, str, str]] | None = None, *, style: str = "linked",
                   extra: str = "") -> str:
    parts = ["[Harbour Forum](https://forum.harbour.example/) › Boats and tides", f"# {FORUM_TITLE}"]
    for number, author, text in POSTS if posts is None else posts:
        if style == "linked":
            parts.append(f"[{author}]({profile(author)}) · [3 days ago]({post_link(number)})\n\n{text}")
        elif style == "permalink-first":
            parts.append(f"## #{number} [Permalink]({post_link(number)})\n\n**{author}**\nMember\nPosts: 24\n\n{text}")
        elif style == "by-line":
            parts.append(f"[#{number}]({post_link(number)}) by [{author}]({profile(author)})\n\n{text}")
        else:
            raise ValueError(style)
    if extra:
        parts.append(extra)
    parts.append("Harbour Forum · Rules · Contact")
    return "\n\n".join(parts) + "\n"


def post_article(number: int, author: str, text: str, *, body_html: str | None = None, author_attrs: str = "") -> str:
    body = f"<p>{text}</p>" if body_html is None else body_html
    return (
        f"<article class='post' id='p{number}'><header><span class='post-author'{author_attrs}>{author}</span> "
        f"<span class='role'>Member</span> <a class='permalink' href='/t/sella-tides/4471/p/{number}'>#{number}</a>"
        f"</header><div class='post-body'>{body}</div></article>"
    )


def posts_html(posts: list[tuple[int, str, str]] | None = None, *, extra: str = "") -> str:
    items = "".join(post_article(*p) for p in (POSTS if posts is None else posts))
    return (
        "<!DOCTYPE html><html><head><title>Harbour Forum</title></head><body>"
        "<nav><a href='/'>Harbour Forum</a> › Boats and tides</nav>"
        f"<main><h1>{FORUM_TITLE}</h1>{items}{extra}</main>"
        "<footer>Harbour Forum · Rules · Contact</footer></body></html>"
    )
