"""What a certified run must satisfy before its first call (SPEC §6; provider contract, "Selected
native cohort").

A run started with ``--certified`` is refused unless

1. its provider selection is explicit (``--providers=a,b`` or ``--providers=configured``): the names
   are frozen in the manifest, never an implicit default;
2. it runs every item: no ``-k`` or ``-m`` subset (``--shard`` and ``--resume`` are fine — the merged
   or resumed run still covers every item);
3. its configuration is clean and recorded: the lexbench code is a committed revision — no file that
   pytest or Python could load differs from the commit (:func:`lexbench.run.checkout.loadable_tree`), no uncommitted change
   under ``lexbench/`` or ``providers/``, pytest's rootdir is the checkout and ``sys.path`` holds
   nothing outside the checkout and the Python environment — and every credential the selected
   providers name is set, so no item is lost to the operator's setup;
4. its suite is reviewed and its public bindings verify: every binding file is present and
   :func:`lexbench.dataset.checks.validate_suite` finds no problem.

At the end of the session the run is certified only if, in addition, every expected item has a
result (a killed run becomes certified once resumed to completion). ``--measure-only`` never
certifies.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from lexbench.dataset.bindings import BINDING_FILES
from lexbench.dataset.checks import validate_suite
from lexbench.dataset.suite import is_committed, registry_for
from lexbench.providers.credentials import missing_variables


def certification_problems(*, providers_option: str | None, keyword: str, markexpr: str, code: Mapping[str, Any],
                           credential_variables: Iterable[str], suite_root: Path, review_status: str,
                           environ: Mapping[str, str] | None = None,
                           project_root: Path | None = None) -> tuple[list[str], list[str]]:
    """Check the four requirements of the module docstring.

    ``code`` is :func:`lexbench.run.record.code_state`'s record; ``credential_variables`` the environment
    variables the selected providers name. Returns ``(checks, problems)``: one line per requirement
    met, and one actionable line per requirement not met (empty when the run may be certified).
    """
    checks: list[str] = []
    problems: list[str] = []
    if providers_option:
        checks.append(f"explicit provider selection: --providers={providers_option}")
    else:
        problems.append("the provider list is not explicit: pass --providers=a,b (or --providers=configured with "
                        "--provider-config=FILE) so the selection is frozen in the manifest")
    if keyword or markexpr:
        problems.append(f"-k/-m select a subset ({' '.join(filter(None, [keyword and f'-k {keyword!r}', markexpr and f'-m {markexpr!r}']))}); "
                        "a certified run covers every item of the suite × the providers")
    else:
        checks.append("every item selected (no -k/-m)")
    git = code.get("git")
    before = len(problems)
    if git and git.get("uncommitted"):
        changed = git["uncommitted"]
        problems.append(f"the checkout has untracked or uncommitted files that pytest or Python could load or that "
                        f"lexbench runs ({', '.join(changed[:5])}{', …' if len(changed) > 5 else ''}); commit or "
                        "remove them so the recorded revision is what ran")
    if git and git.get("outside_sys_path"):
        outside = git["outside_sys_path"]
        problems.append(f"sys.path holds folders outside the checkout and the Python environment "
                        f"({', '.join(outside[:3])}); unset PYTHONPATH and run pytest from the checkout")
    if git and git.get("root") and project_root is not None and Path(git["root"]) != Path(project_root).resolve():
        problems.append(f"pytest's rootdir {project_root} is not the lexbench checkout {git['root']}: its conftest.py "
                        "and configuration are not part of the recorded revision; run pytest from the checkout")
    if len(problems) == before:
        checks.append(f"clean code: {'commit ' + git['commit'][:12] if git else 'installed package'}")
    missing = missing_variables(sorted(set(credential_variables)), environ)
    if missing:
        problems.append(f"credential variable(s) {', '.join(missing)} unset or empty: their items would be "
                        "unresolvable")
    else:
        checks.append("every credential variable set")
    if review_status != "reviewed":
        problems.append(f"the suite is {review_status}, not reviewed")
    absent = [name for name in BINDING_FILES if not (suite_root / name).is_file()]
    if absent:
        problems.append(f"the suite has no public bindings ({', '.join(absent)}); publish them with "
                        f"lexbench publish --suite={suite_root}")
    else:
        binding_problems = validate_suite(suite_root, registry=registry_for(suite_root),
                                          committed=is_committed(suite_root))
        if binding_problems:
            problems.append(f"the suite's bindings do not verify ({len(binding_problems)} problem(s), first: "
                            f"{binding_problems[0]}); run lexbench validate --suite={suite_root}")
        else:
            checks.append("suite bindings verify")
    return checks, problems
