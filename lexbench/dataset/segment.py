"""Split a reference body into paragraphs and natural regions (SPEC §2, segmentation v3).

A reference body is stored one paragraph per line. Its regions are labelled, contiguous, one-based
inclusive line ranges that cover every line in order; segmentation v3 allows at most five, and each
must yield at least one fragment (:data:`~lexbench.text.FRAGMENT_CHARS` normalised characters)
so that body contract v4 can measure its coverage. Lengths are counted in the scorer's normal form
(:func:`lexbench.text.normalise`).
"""

from __future__ import annotations

from lexbench.dataset.case import MAX_REGIONS, Region
from lexbench.errors import CorpusImportError
from lexbench.text import FRAGMENT_CHARS, normalise


def normalised_length(text: str) -> int:
    """Number of normalised characters in ``text`` (what fragments are cut from)."""
    return len(normalise(text))


def split_paragraphs(text: str) -> list[str]:
    """Turn plain text into paragraphs, one per non-empty line.

    Line endings of every kind (``\\r\\n``, ``\\r``, U+2028, ...) count as breaks; each line is
    stripped and its inner runs of whitespace (including no-break spaces) collapse to one space.
    Lines that are empty after that are dropped. Returns ``[]`` for blank text.
    """
    paragraphs = []
    for line in text.splitlines():
        collapsed = " ".join(line.split())
        if collapsed:
            paragraphs.append(collapsed)
    return paragraphs


def _check_has_fragment(lengths: list[int]) -> int:
    total = sum(lengths)
    if total < FRAGMENT_CHARS:
        raise CorpusImportError(
            f"the reference has only {total} normalised characters (letters/digits); it needs at least "
            f"{FRAGMENT_CHARS} to yield one body fragment"
        )
    return total


def _label(index: int, first: int, last: int) -> str:
    span = f"line {first}" if first == last else f"lines {first}-{last}"
    return f"part {index} ({span})"


def auto_regions(lines: list[str], max_regions: int = MAX_REGIONS) -> list[Region]:
    """Cut reference lines into at most ``max_regions`` contiguous regions of similar size.

    ``lines`` are the reference's paragraphs (line 1 = ``lines[0]``). Cuts fall on line boundaries
    and are placed as close as possible to equal shares of the normalised character count; a region
    with fewer than :data:`FRAGMENT_CHARS` normalised characters is merged into its smaller neighbour,
    so every region yields at least one fragment. Regions are labelled ``"part 1 (lines 1-7)"``.

    Returns one-based inclusive :class:`Region` objects covering lines ``1..len(lines)``.
    Raises :class:`CorpusImportError` when the whole reference has no fragment, and ``ValueError``
    when ``max_regions`` is below 1.
    """
    if max_regions < 1:
        raise ValueError(f"max_regions must be at least 1, got {max_regions}")
    lengths = [normalised_length(line) for line in lines]
    total = _check_has_fragment(lengths)
    count = max(1, min(max_regions, len(lines), total // FRAGMENT_CHARS))

    cumulative = []
    running = 0
    for length in lengths:
        running += length
        cumulative.append(running)

    # cuts[i] = number of lines before region i+1; place each near its equal share of characters.
    cuts: list[int] = []
    for part in range(1, count):
        target = total * part / count
        lower = (cuts[-1] if cuts else 0) + 1
        candidates = range(lower, len(lines))
        if not candidates:
            break
        best = min(candidates, key=lambda cut: (abs(cumulative[cut - 1] - target), cut))
        cuts.append(best)

    bounds = [0, *cuts, len(lines)]
    spans = [[bounds[i], bounds[i + 1]] for i in range(len(bounds) - 1)]

    def size(span: list[int]) -> int:
        return cumulative[span[1] - 1] - (cumulative[span[0] - 1] if span[0] else 0)

    # Merge fragment-less regions into a neighbour until every region yields a fragment.
    while len(spans) > 1:
        short = next((i for i, span in enumerate(spans) if size(span) < FRAGMENT_CHARS), None)
        if short is None:
            break
        if short == 0:
            neighbour = 1
        elif short == len(spans) - 1:
            neighbour = short - 1
        else:
            neighbour = short - 1 if size(spans[short - 1]) <= size(spans[short + 1]) else short + 1
        first, second = sorted((short, neighbour))
        spans[first:second + 1] = [[spans[first][0], spans[second][1]]]

    return [
        Region(label=_label(index, start + 1, end), first_line=start + 1, last_line=end)
        for index, (start, end) in enumerate(spans, start=1)
    ]
