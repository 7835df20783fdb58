"""The certification record a certified run writes at its end, and the checks a merge makes of it
(issue 27, item 5; SPEC §6).

When a ``--certified`` run (or shard) reaches certification, its manifest's ``certification`` gets

- ``record``: ``suite`` and ``dataset_sha256``; ``shard`` (``"K/N"``, ``null`` for a whole run);
  ``configuration_sha256``; ``code`` (the commit, git's tree hash and the sha256 over the checkout's
  loadable files, :mod:`lexbench.run.checkout`); ``loaded_sha256`` and ``distributions`` (the code the
  session loaded, :mod:`lexbench.run.provenance`); ``items`` and ``rows_sha256`` (sha256 of its rows,
  sorted by item, one JSON line each as ``results.jsonl`` holds them); a merged run adds ``shards``,
  the ``record_sha256`` of each shard it merged;
- ``record_sha256``: the canonical sha256 of ``record``.

:func:`record_problems` checks that a manifest claiming certification holds such a record, that the
record hashes to its ``record_sha256`` and that it describes this manifest and these rows: the same
shard, suite, configuration (which must hash to its ``configuration_sha256``), code and rows.
:func:`shared_code_problems` checks that the shards of one run were certified on one commit with one
set of distributions. ``lexbench report --merge`` keeps certification only when every shard verifies
(a shard that claims it and does not verify is refused), and writes the merged run's own record.

What it proves: a shard's rows, configuration and shard label are those its certified session
recorded, unchanged by an honest mistake or by an edit of the manifest or the rows alone — a shard
never run with ``--certified``, or relabelled with another shard's configuration, does not verify.
What it cannot prove: the hashes are not signatures. Whoever can write the run directory can also
recompute every hash of a forged record; the record binds the evidence together, it does not
authenticate who made it. Trust in a certified run rests on where its run directories were kept.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Protocol

from lexbench.jsonfile import canonical_sha256


class _Row(Protocol):
    case: str
    provider: str

    def model_dump_json(self) -> str: ...


def rows_sha256(rows: Iterable[_Row]) -> str:
    """sha256 of ``rows`` sorted by item (case, provider), each its JSON line as ``results.jsonl`` holds it:
    independent of the order the rows were appended in, so a shard's and its merge's agree."""
    ordered = sorted(rows, key=lambda row: (row.case, row.provider))
    return hashlib.sha256("".join(row.model_dump_json() + "\n" for row in ordered).encode("utf-8")).hexdigest()


def certification_record(manifest: Mapping[str, Any], rows: Sequence[_Row], *,
                         shards: Sequence[str] | None = None) -> dict[str, Any]:
    """The ``record`` of the module docstring for a run whose manifest is ``manifest`` (its
    ``certification`` holds ``tree`` and ``loaded``) and whose rows are ``rows``; ``shards``: a merged
    run's shards' ``record_sha256``."""
    certification = manifest.get("certification") or {}
    tree = certification.get("tree") or {}
    loaded = certification.get("loaded") or {}
    suite = manifest.get("suite") or {}
    record: dict[str, Any] = {
        "suite": suite.get("id"), "dataset_sha256": suite.get("dataset_sha256"),
        "shard": (manifest.get("run") or {}).get("shard"),
        "configuration_sha256": manifest.get("configuration_sha256"),
        "code": {key: tree.get(key) for key in ("commit", "tree", "loadable_sha256")},
        "loaded_sha256": loaded.get("sha256"), "distributions": loaded.get("distributions"),
        "items": len(rows), "rows_sha256": rows_sha256(rows),
    }
    if shards is not None:
        record["shards"] = list(shards)
    return record


def record_problems(manifest: Mapping[str, Any], rows: Sequence[_Row]) -> list[str]:
    """Why ``manifest``'s claim of certification does not verify against ``rows`` (see the module
    docstring); empty when it verifies or when the manifest does not claim certification."""
    certification = manifest.get("certification") or {}
    if certification.get("certified") is not True:
        return []
    record = certification.get("record")
    if not (manifest.get("run") or {}).get("certified_requested"):
        return ["claims certification but was not run with --certified (run.certified_requested)"]
    if not isinstance(record, Mapping):
        return ["claims certification but holds no certification record (manifest.json → certification.record), "
                "which a certified run writes at its end"]
    if certification.get("record_sha256") != canonical_sha256(record):
        return ["its certification record does not hash to its record_sha256: it was changed after it was written"]
    expected = certification_record(manifest, rows, shards=record.get("shards") if "shards" in record else None)
    problems = [f"its certification record names {field} {record.get(field)!r}, the run {expected[field]!r}"
                for field in ("suite", "dataset_sha256", "shard", "configuration_sha256", "code", "loaded_sha256",
                              "distributions")
                if record.get(field) != expected[field]]
    if canonical_sha256(manifest.get("configuration")) != manifest.get("configuration_sha256"):
        problems.append("its configuration does not hash to its configuration_sha256")
    if (record.get("items"), record.get("rows_sha256")) != (expected["items"], expected["rows_sha256"]):
        problems.append(f"its rows are not the rows it certified ({expected['items']} row(s), sha256 "
                        f"{expected['rows_sha256'][:12]}; the record: {record.get('items')} row(s), sha256 "
                        f"{str(record.get('rows_sha256'))[:12]})")
    return problems


def shared_code_problems(records: Sequence[tuple[str, Mapping[str, Any]]]) -> list[str]:
    """One line per shard (``(name, record)``) certified on other code (commit, tree, loadable files) or
    other distributions than the first: one run's shards run one program."""
    if not records:
        return []
    first_name, first = records[0]
    return [f"{name}: certified on other code than {first_name} (commit {str((record.get('code') or {}).get('commit'))[:12]}"
            f" vs {str((first.get('code') or {}).get('commit'))[:12]}, or other installed distributions)"
            for name, record in records[1:]
            if (record.get("code"), record.get("distributions")) != (first.get("code"), first.get("distributions"))]
