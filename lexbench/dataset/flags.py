"""The flag codes an importer or a run can put on a case or row, each with its one-line meaning (SPEC §4);
the reports show the meaning beside the flag."""

from __future__ import annotations

FLAG_EXPLANATIONS = {
    "capture_charset_mismatch": "the capture's bytes do not decode as the charset it declares but are valid UTF-8 "
                                "(a page re-saved with a stale meta tag): it is replayed as UTF-8",
    "capture_charset_unknown": "the capture declares a name that is no text encoding (a typo, 'undefined'): it is "
                               "replayed as UTF-8, the standard's fallback",
    "capture_not_decodable": "the capture's bytes decode neither as its declared charset nor as UTF-8: providers may "
                             "read some of its text as mojibake",
    "coverage_unknown": "the corpus index gives no readable coverage figure, so whether the reference is in the "
                        "page's static visible text is unknown",
    "ending_is_whole_short_reference": "the reference yields fewer than 10 fragments, so the whole reference is the "
                                       "ending contract",
    "ending_not_found_in_prose": "every line of the reference looked like trailing non-prose; the ending contract is "
                                 "taken from its last lines",
    "post_links_found_by_anchor_fragment": "the annotation names some posts' anchors, not their links: their "
                                           "permalinks are the page's links to those anchors",
    "posts_without_link_or_text_not_counted": "annotated posts without a user, text or a post link on the page are "
                                              "left out, so the posts baseline is below the annotation's count",
    "readability_not_readerable": "Readability's own metadata says the page is not readerable: its reference may not "
                                  "be the page's article",
    "reference_cp1252": "the reference was not UTF-8 and was decoded as cp1252",
    "reference_has_comments": "the source reference also holds the page's comments: only the body before them is "
                              "scored; the comment text is kept in probes.json",
    "reference_not_in_visible_text": "under 80 % of the reference's words are in the capture's static visible text "
                                     "(scripts may add them): a provider that runs no scripts can miss them",
    "response_not_saved": "the answer could not be saved (disk full or not writable): the verdict stands, with no "
                          "answer file to read",
    "self_reported": "a user's test reported this item unresolvable itself (a result it built as rate_limited, "
                     "auth…, or a pytest.skip): lexbench could not check the excuse, and a certified run refuses it",
    "thread_text_as_body_no_posts_contract": "a forum thread scored as one body text: the source gives no per-post "
                                             "author, link or boundary for a posts contract",
    "title_not_standalone_in_capture": "the annotated title is not a standalone line of the capture's visible text: "
                                       "its title contract needs review",
    "title_only_no_body_reference": "the source gives snippets, not a whole body: the case scores the title only",
    "url_unknown": "the source stores no URL for the page: the case has a placeholder .invalid URL and runs from the "
                   "replay only",
}
"""One line per flag code an importer or a run can put on a case or row (SPEC §4), shown beside the
flag in the reports."""

SELF_REPORTED = "self_reported"
"""The row flag of an ``unresolvable`` verdict a user's test gave about itself (issue 27 item 6): a result
it built as ``rate_limited``, ``auth``… or a ``pytest.skip``. lexbench cannot check the excuse, so the
reports show it apart and a certified run refuses it."""

UNEXPLAINED_FLAG = "a flag of this suite's own, which lexbench does not explain"


def flag_explanation(code: str) -> str:
    """The one-line meaning of flag ``code`` (:data:`FLAG_EXPLANATIONS`), or :data:`UNEXPLAINED_FLAG`."""
    return FLAG_EXPLANATIONS.get(code, UNEXPLAINED_FLAG)
