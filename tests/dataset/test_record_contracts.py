"""Comment, post and anchor contracts are validated at load (SPEC §2, §3.5–§3.7)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from pydantic import ValidationError

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "scoring"))
from factories import comment_contract, make_case, make_comment_case, make_post_case, post_contract  # noqa: E402

from lexbench.dataset.case import CommentContract, PostContract, minimum_records  # noqa: E402


def error_text(exc: pytest.ExceptionInfo[ValidationError]) -> str:
    return str(exc.value)


@pytest.mark.parametrize(("baseline", "minimum"), [(1, 1), (5, 5), (6, 5), (7, 6), (10, 8), (11, 9), (40, 32)])
def test_minimum_is_the_baseline_up_to_five_then_eighty_percent_rounded_up(baseline: int, minimum: int) -> None:
    assert minimum_records(baseline) == minimum
    assert CommentContract.model_validate(comment_contract(baseline=baseline)).minimum == minimum


@pytest.mark.parametrize("field", ["ignored_labels", "unavailable_notices", "heading_labels", "end_labels"])
def test_omitted_comment_lists_are_rejected(field: str) -> None:
    data = comment_contract()
    del data[field]
    with pytest.raises(ValidationError) as exc:
        CommentContract.model_validate(data)
    assert f"{field} is required" in error_text(exc) and "an empty list is valid" in error_text(exc)


@pytest.mark.parametrize("field", ["ignored_labels", "unavailable_notices", "non_author_labels", "metadata_labels"])
def test_omitted_post_lists_are_rejected(field: str) -> None:
    data = post_contract()
    del data[field]
    with pytest.raises(ValidationError) as exc:
        PostContract.model_validate(data)
    assert f"{field} is required" in error_text(exc)


def test_empty_lists_are_valid() -> None:
    contract = CommentContract.model_validate(comment_contract(ignored_labels=[], unavailable_notices=[],
                                                               heading_labels=[], end_labels=[]))
    assert contract.ignored_labels == []
    assert PostContract.model_validate(post_contract(non_author_labels=[], metadata_labels=[])).non_author_labels == []


@pytest.mark.parametrize(
    ("field", "labels"),
    [("ignored_labels", ["Reply", "reply"]), ("ignored_labels", ["Like", "**Like**"]),
     ("unavailable_notices", ["Comment deleted", "Comment  deleted"]), ("end_labels", ["Related", "Ｒｅｌａｔｅｄ"])],
)
def test_labels_equal_after_normalisation_are_rejected(field: str, labels: list[str]) -> None:
    with pytest.raises(ValidationError) as exc:
        CommentContract.model_validate(comment_contract(**{field: labels}))
    assert "the same label after normalisation" in error_text(exc)
    with pytest.raises(ValidationError):
        PostContract.model_validate(post_contract(non_author_labels=["#", "Permalink", "PERMALINK"]))


@pytest.mark.parametrize("model", [CommentContract, PostContract])
def test_version_one_contracts_are_rejected_as_unsupported(model: type) -> None:
    data = comment_contract() if model is CommentContract else post_contract()
    with pytest.raises(ValidationError) as exc:
        model.model_validate({**data, "contract_version": 1})
    assert "version 1 is a pre-release format and unsupported" in error_text(exc)
    with pytest.raises(ValidationError) as exc:
        model.model_validate({**data, "contract_version": 3})
    assert "unknown" in error_text(exc)


def test_body_contract_version_one_is_rejected_and_legacy_v3_still_loads() -> None:
    case = make_case()
    with pytest.raises(ValidationError) as exc:
        make_case(body={**case.body.model_dump(mode="json"), "contract_version": 1})
    assert "unsupported" in error_text(exc)
    legacy = make_case(body={**case.body.model_dump(mode="json"), "contract_version": 3, "segmentation_version": 2})
    assert legacy.body.contract_version == 3


def test_selectors_and_patterns_must_parse() -> None:
    with pytest.raises(ValidationError) as exc:
        CommentContract.model_validate(comment_contract(html={"record": "li[", "author": "a", "text": "p"}))
    assert "does not parse" in error_text(exc)
    with pytest.raises(ValidationError):
        PostContract.model_validate(post_contract(post_link_pattern="https://(unclosed"))
    with pytest.raises(ValidationError):
        CommentContract.model_validate(comment_contract(record_id_pattern="#comment-("))


def test_contracts_belong_to_their_case_kind() -> None:
    with pytest.raises(ValidationError) as exc:
        make_post_case(posts=None)
    assert "needs a posts contract" in error_text(exc)
    with pytest.raises(ValidationError):
        make_case(posts=post_contract())
    with pytest.raises(ValidationError) as exc:
        make_post_case(comments=comment_contract())
    assert "belongs to fixed_article" in error_text(exc)
    assert make_comment_case().comments is not None


@pytest.mark.parametrize("attribute", ["aria-label", "title", "alt", "data-label"])
def test_visible_control_anchor_accepts_only_placeholder_or_value(attribute: str) -> None:
    with pytest.raises(ValidationError) as exc:
        make_case(anchors={"visible_controls": [{"id": "q", "label": "Search", "selector": "input",
                                                  "attribute": attribute, "location": "header"}]})
    assert "not visible text" in error_text(exc)


def test_anchors_must_not_be_empty_and_ids_unique() -> None:
    with pytest.raises(ValidationError):
        make_case(anchors={})
    floor = {"id": "a", "href_pattern": "https://x/.*", "minimum": 2, "location": "rail"}
    with pytest.raises(ValidationError):
        make_case(anchors={"link_floors": [floor, floor]})
