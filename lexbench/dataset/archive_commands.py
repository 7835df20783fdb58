"""The ``record-archive`` verb of the ``lexbench`` command (issue 28, SPEC §7): record a built page
directory, or every case of a built-site suite, as deterministic web archives.

Exit codes follow :func:`lexbench.cli.main`: 0 ok, 2 bad input. Playwright and the recorder are imported
inside the handler, so ``lexbench --help`` stays fast.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path


def _record_archive(args: argparse.Namespace) -> int:
    # per verb (module docstring): Playwright loads only here
    from datetime import date

    from lexbench.dataset.built_site import bind_captures, record_suite
    from lexbench.dataset.case import DomCompletion
    from lexbench.dataset.compile import sha256_bytes
    from lexbench.dataset.recorder import record_page
    from lexbench.dataset.suite import suite_root

    output = Path(args.output)
    if bool(args.suite) == bool(args.page):
        print("lexbench record-archive: error: give a page directory or --suite, one of them", file=sys.stderr)
        return 2
    if args.bind and not args.suite:
        print("lexbench record-archive: error: --bind writes a suite's rules.json: give --suite", file=sys.stderr)
        return 2
    if args.suite:
        import tempfile

        root = suite_root(args.suite)
        with tempfile.TemporaryDirectory(prefix="lexbench-record-") as work:
            recordings = record_suite(root, Path(work))
        output.mkdir(parents=True, exist_ok=True)
        if args.bind:
            changed = bind_captures(root / "rules.json", recordings)
            print(f"bound {len(changed)} capture sha256(s) in {root / 'rules.json'}"
                  + (f": {', '.join(changed)}" if changed else " (none changed)"))
    else:
        if not args.date:
            print("lexbench record-archive: error: --date (the review date, YYYY-MM-DD) is required with a page "
                  "directory", file=sys.stderr)
            return 2
        completion = None
        if args.selector:
            completion = DomCompletion(selector=args.selector, count=args.count, frame=args.frame,
                                       delay_ms=args.delay_ms, timeout_ms=args.timeout_ms)
        page = Path(args.page)
        recordings = {page.name: record_page(page, recorded=date.fromisoformat(args.date), completion=completion)}
        output.mkdir(parents=True, exist_ok=True)
    for name, recording in recordings.items():
        (output / f"{name}.warc.gz").write_bytes(recording.archive)
        (output / f"{name}.rendered.html").write_text(recording.rendered_html, encoding="utf-8")
        print(f"{name}: sha256 {sha256_bytes(recording.archive)}, {len(recording.records)} records"
              + (f", unreachable: {', '.join(recording.unreachable)}" if recording.unreachable else ""))
    print(f"wrote {len(recordings)} archive(s) and rendered DOM(s) to {output}/")
    return 0


def add_verbs(verbs: argparse._SubParsersAction) -> None:
    """Add ``record-archive`` to the ``lexbench`` sub-parsers."""
    p = verbs.add_parser("record-archive", help="record a built page directory's first load in Chromium as a "
                         "deterministic web archive (WARC), or every page of a built-site suite (--suite)")
    p.add_argument("page", nargs="?", default=None, help="the page directory (index.html and its resources)")
    p.add_argument("--suite", default=None, help="a built-site suite: build its site and record every case")
    p.add_argument("--output", required=True, help="directory for <name>.warc.gz and <name>.rendered.html")
    p.add_argument("--date", default=None, help="the review date every record carries (WARC-Date), YYYY-MM-DD")
    p.add_argument("--bind", action="store_true", help="with --suite: write each archive's sha256 into rules.json "
                   "(capture.sha256), for authors after a page changed; review the diff")
    p.add_argument("--selector", default=None, help="DOM completion: CSS selector to wait for")
    p.add_argument("--count", type=int, default=1, help="DOM completion: elements the selector must match (default 1)")
    p.add_argument("--frame", default=None, help="DOM completion: CSS selector of the same-origin iframe it applies to")
    p.add_argument("--delay-ms", type=int, default=0, help="DOM completion: milliseconds to wait after it holds")
    p.add_argument("--timeout-ms", type=int, default=30_000, help="DOM completion: how long it may take (default 30000)")
    p.set_defaults(handler=_record_archive)
