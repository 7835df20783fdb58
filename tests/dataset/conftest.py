"""Fixtures of the dataset tests."""

from __future__ import annotations

import pytest

from tests.dataset.articles_evidence import articles_inputs


@pytest.fixture(scope="session")
def articles_input_dir(tmp_path_factory):
    """The ``articles`` suite's verified input directory (fetched when needed), or skip with the reason."""
    return articles_inputs(tmp_path_factory.mktemp("articles-inputs"))
