"""The run fetches its served-fetch log from the public replay server and keeps what it can believe
(SPEC §7, issue 27 item 7).

Whoever answers at ``--replay-public-url`` (the operator's server, a tunnel, or something else there)
could push a 400 MB log, hold the end of the session for a minute, or plant entries. So the log is
fetched through the providers' HTTP boundary with a ceiling (:data:`LOG_MAX_BYTES`) and one deadline for
the whole answer (:data:`LOG_DEADLINE_S`; a drip does not extend it; a redirect off its origin is not
followed), and each line is checked with :func:`lexbench.replay_log.checked_entry`: an entry for another
run's prefix, a provider this run handed no URL to, a case not in the suite, or of any other shape is
refused and counted, and the text fields of the rest are cleaned of control characters, ANSI escape
sequences and NULs. What was refused, and what the server itself dropped (over its bounds), is said.
"""

from __future__ import annotations

import io
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from lexbench.jsonfile import InvalidJson, decode_json
from lexbench.providers.call import Deadline, FetchError
from lexbench.providers.http import HttpBoundary, HttpRequest
from lexbench.replay import SERVED_FETCHES
from lexbench.replay_log import checked_entry, entry_line
from lexbench.run.rundir import append_file

LOG_MAX_BYTES = 64_000_000
"""Largest served-fetch log read (bytes): a run's log holds at most 20,000 entries of about 400 bytes per
provider (:data:`lexbench.replay_log.MAX_ENTRIES_PER_PROVIDER`)."""
LOG_DEADLINE_S = 20.0
"""Seconds for the whole log, connection to last byte."""
SERVED_FETCHES_FILE = f"{SERVED_FETCHES}.jsonl"


@dataclass
class ServedFetches:
    """What :func:`keep_served_fetches` did: ``kept`` entries appended, ``refused`` lines by reason,
    ``dropped`` entries the server did not keep, by provider; ``problem``: why no log was read."""

    kept: int = 0
    refused: Counter[str] = field(default_factory=Counter)
    dropped: dict[str, int] = field(default_factory=dict)
    problem: str | None = None

    def message(self) -> str | None:
        """One line for the terminal when anything was not kept, else ``None``."""
        if self.problem:
            return self.problem
        parts = []
        if self.refused:
            reasons = "; ".join(f"{count} {reason}" for reason, count in self.refused.most_common())
            parts.append(f"{sum(self.refused.values())} line(s) of the served-fetch log refused ({reasons})")
        if self.dropped:
            parts.append("the replay server did not keep " + ", ".join(
                f"{count} fetch(es) by {name}" for name, count in sorted(self.dropped.items())) + " (over its bounds)")
        return f"{'; '.join(parts)}; {self.kept} entries kept in {SERVED_FETCHES_FILE}" if parts else None


def keep_served_fetches(url: str, shown_url: str, run_dir: Path, *, prefix: str, providers: frozenset[str],
                        cases: frozenset[str], max_bytes: int = LOG_MAX_BYTES,
                        deadline_s: float = LOG_DEADLINE_S) -> ServedFetches:
    """Fetch run ``prefix``'s log from ``url`` (which holds the log token: messages show ``shown_url``)
    and append the entries it can believe to ``run_dir/served-fetches.jsonl`` (a resumed run adds its
    own). ``providers`` are the ones handed public URLs, ``cases`` the suite's. Never raises for what
    the server answers: the outcome says it."""
    outcome = ServedFetches()
    try:
        response = HttpBoundary(max_body_bytes=max_bytes).send(
            HttpRequest("GET", url, headers={"Accept": "application/x-ndjson"}), Deadline.after(deadline_s))
    except FetchError as exc:
        outcome.problem = f"the served-fetch log could not be read from {shown_url}: {exc}; nothing kept"
        return outcome
    if response.status != 200:
        outcome.problem = f"the served-fetch log at {shown_url} answered HTTP {response.status}; nothing kept"
        return outcome
    kept = bytearray()
    for line in io.BytesIO(response.body):
        if not line.strip():
            continue
        try:
            value = decode_json(line)
        except InvalidJson:
            outcome.refused["not JSON"] += 1
            continue
        if _dropped_line(value, prefix, providers):
            outcome.dropped[value["provider"]] = outcome.dropped.get(value["provider"], 0) + value["dropped"]
            continue
        try:
            kept += entry_line(checked_entry(value, prefix=prefix, providers=providers, cases=cases))
        except ValueError as exc:
            outcome.refused[str(exc)] += 1
            continue
        outcome.kept += 1
    if kept:
        append_file(run_dir / SERVED_FETCHES_FILE, bytes(kept))
    return outcome


def _dropped_line(value: object, prefix: str, providers: frozenset[str]) -> bool:
    """Whether ``value`` is the server's count of a provider's entries it did not keep."""
    return (isinstance(value, dict) and set(value) == {"prefix", "provider", "dropped"} and value["prefix"] == prefix
            and value["provider"] in providers and isinstance(value["dropped"], int)
            and not isinstance(value["dropped"], bool) and 0 < value["dropped"] <= 10**9)
