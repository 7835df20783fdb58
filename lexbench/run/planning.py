"""Where each xdist worker runs: the CPU plan made from plain values, not from xdist's option objects.

The controller expands the gateway specs (``-n 4`` gives ``["popen"] * 4``) and, when every worker is
a local ``popen`` process, pins worker ``gwK`` to the K-th CPU of
:func:`~lexbench.providers.policy.worker_cpus`' plan.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Sequence

from lexbench.providers.policy import worker_cpus


def expand_gateway_specs(tx: Iterable[object]) -> list[str]:
    """xdist's gateway specs with ``N*spec`` expanded: ``["2*popen", "ssh=host"]`` →
    ``["popen", "popen", "ssh=host"]``. Pass ``[]`` when the session does not distribute."""
    specs: list[str] = []
    for spec in tx:
        count, star, rest = str(spec).partition("*")
        specs += [rest] * int(count) if star and count.isdigit() else [str(spec)]
    return specs


def planned_worker_cpus(gateways: Sequence[str], families: Iterable[str], allowed: Collection[int] | None, *,
                        pinning: bool) -> list[int] | None:
    """The CPU of each worker, by index, or ``None`` (run unpinned).

    ``gateways``: the expanded gateway specs; ``families``: each selected provider's declared family
    (``"undeclared"`` when it declares none); ``allowed``: the CPUs this process may use, ``None`` where
    the platform cannot pin. Remote or customised gateways are never pinned: their CPUs are not ours."""
    if not pinning or allowed is None or any(spec != "popen" for spec in gateways):
        return None
    return worker_cpus(len(gateways), families, allowed)


def worker_cpu(cpus: Sequence[int] | None, gateway_id: str) -> int | None:
    """The CPU for the worker named ``gateway_id`` (``"gw0"``…), or ``None``. A worker that replaces a
    crashed one gets an id past the first N: it runs unpinned, since the CPU it should take is not known."""
    index = gateway_id.removeprefix("gw")
    return cpus[int(index)] if cpus and index.isdigit() and int(index) < len(cpus) else None
