"""``magic-html-forum``: the forum/Q&A part of the OpenDataLab magic-html benchmark (SPEC §3.6, §4).

Layout as in :mod:`lexbench.dataset.importers.magic_html`, part ``forum/``: ``forum/base.json`` =
``{"<sha256>": {"url", "content", "remark"?}}`` and ``forum/htmls/<sha256>.html.gz``. ``content`` is
the question and every reply or comment as plain text.

Why these threads are **not** post collections: a posts v2 contract (SPEC §3.6) counts owned post
links that carry an author, against a reviewed baseline count and a post-link pattern; this reference
gives no per-post author, no post link and no post boundary, so any such contract would be invented.
What the reference does support is the thread's text as displayed in the frozen capture: each thread
is imported as a ``fixed_article`` (category ``forum``) whose body reference is that text, flagged
``thread_text_as_body_no_posts_contract`` so that a review can replace it with a posts contract read
from the capture. The ending is the thread's last passage (usually the last reply). A live thread
changes (that is why SPEC §3.6 scores threads as post collections), so these bodies hold only against
the frozen capture served by replay, never against the live page.
"""

from __future__ import annotations

from lexbench.dataset.importers.magic_html import MagicHtmlArticlesFormat

THREAD_FLAG = "thread_text_as_body_no_posts_contract"


class MagicHtmlForumFormat(MagicHtmlArticlesFormat):
    """Importer for the forum part of a ``magic-html-bench`` corpus folder (thread text as body)."""

    name = "magic-html-forum"
    suite_id = "magic-html-forum"
    suite_name = "magic-html benchmark, forum and Q&A threads (imported, thread text as body)"
    part = "forum"
    category = "forum"
    flags = [THREAD_FLAG]
    description = (
        "Imported from the forum part of the OpenDataLab magic-html benchmark, "
        "https://github.com/opendatalab/magic-html at commit 47d4a7fed12030e906a093b074637f178cb46ef2 "
        "(benchmark/data/forum), Apache-2.0 licence; page HTML is copyright of the original sites. "
        "References are OpenDataLab's manual annotations (base.json content): the thread's question and replies "
        "as plain text, without per-post authors or links, so each thread is scored as the body text of its "
        "frozen capture, not as a post collection. Imported as-is and not reviewed: no stable groups, no page "
        "identity, no title contract, no posts contract."
    )
    notes = [
        "no posts contract: base.json gives no per-post author, post link or post boundary, which a posts v2 "
        "contract needs; each thread's text is its body reference instead (flag " + THREAD_FLAG + ").",
        "title not scored: base.json has no title field (title_basis not_in_source).",
        "the thread text holds only against the frozen capture (replay); a live thread changes.",
        "pages whose thread text sits only in <noscript>/<script> are flagged reference_not_in_visible_text.",
    ]


FORMAT = MagicHtmlForumFormat()
