"""How the reports write a figure (SPEC §6): percentages, seconds, ratios, intervals, token counts and
costs as text, one function each, shared by the Markdown, HTML and terminal reports and the history."""

from __future__ import annotations


def pct(value: float | None) -> str:
    """A share as a percentage with one decimal (``–`` for ``None``)."""
    return "–" if value is None else f"{value * 100:.1f} %"


def unresolvable_text(share: float | None, self_reported: int) -> str:
    """The unresolvable share as shown beside a pass rate: ``12.5 %``, with ``(2 self-reported)`` when a
    user's test excused some of them itself."""
    return pct(share) + (f" ({self_reported} self-reported)" if self_reported else "")



def secs(value: float | None) -> str:
    """Seconds with three decimals (``–`` for ``None``)."""
    return "–" if value is None else f"{value:.3f}"



def ratio(value: float | None) -> str:
    """A ratio with two decimals and ``×`` (``–`` for ``None``)."""
    return "–" if value is None else f"{value:.2f}×"



def interval_text(interval: dict[str, float] | None) -> str:
    """``low–high`` as percentages (``–`` for ``None``)."""
    return "–" if interval is None else f"{interval['low'] * 100:.1f}–{interval['high'] * 100:.1f} %"



def signed_pct(value: float) -> str:
    """A difference of shares in percentage points, with its sign."""
    return f"{value * 100:+.1f} pp"



def tokens_text(value: float | None) -> str:
    """A median token count with thousands separators (``–`` for ``None``)."""
    return "–" if value is None else f"{value:,.0f}"



def cost_text(cost: dict[str, float] | None) -> str:
    """Summed cost per billing unit, e.g. ``0.0120 usd``; ``–`` when nothing was billed."""
    return "–" if not cost else ", ".join(f"{value:.4f} {unit}" for unit, value in cost.items())
