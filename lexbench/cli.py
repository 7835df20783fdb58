"""The ``lexbench`` command (SPEC §1): one verb per pipeline step; the benchmark itself runs under pytest."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

from lexbench.errors import LexbenchError

Handler = Callable[[argparse.Namespace], int]


def _import_corpus(args: argparse.Namespace) -> int:
    from lexbench.dataset.importers import import_corpus

    report = import_corpus(args.format, Path(args.source), Path(args.output), limit=args.limit, keep_going=args.keep_going)
    print(report.summary())
    return 0


def build_parser() -> argparse.ArgumentParser:
    """The argument parser with every verb; each sub-parser's ``handler`` runs it."""
    parser = argparse.ArgumentParser(prog="lexbench", description="lexbench: a benchmark for Web Fetch providers")
    verbs = parser.add_subparsers(dest="verb", required=True, metavar="VERB")

    p = verbs.add_parser("import-corpus", help="turn a folder of ../shared/corpus into a suite directory")
    p.add_argument("--format", required=True, help="corpus format, e.g. scrapinghub-aeb, mozilla-readability, magic-html-bench")
    p.add_argument("--source", required=True, help="the corpus folder, e.g. ../shared/corpus/scrapinghub-aeb")
    p.add_argument("--output", required=True, help="a new directory for the suite (outside git)")
    p.add_argument("--limit", type=int, default=None, help="import only the first N pages (in the corpus index order)")
    p.add_argument("--keep-going", action="store_true", help="skip bad pages (listed in import-report.json) instead of stopping")
    p.set_defaults(handler=_import_corpus)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point; returns the process exit code (0 ok, 1 check failed, 2 bad input)."""
    parser = build_parser()
    args = parser.parse_args(argv)
    handler: Handler = args.handler
    try:
        return handler(args)
    except LexbenchError as exc:
        print(f"lexbench {args.verb}: error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
