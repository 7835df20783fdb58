"""Calls run on a reused worker thread per provider (issue 10: a thread per call cost up to 0.5 ms per
item), without changing the policy: concurrent calls still run side by side, each call sees its own
context, and an abandoned worker is never reused."""

from __future__ import annotations

import threading

import pytest

from lexbench.answer import ProviderResult
from lexbench.dataset.suite import load_suite
from lexbench.providers import RuntimePolicy, call_provider
from lexbench.providers.base import Provider
from lexbench.providers.call import CURRENT_CALL
from tests.suite_factory import ARTICLES, write_suite


@pytest.fixture(scope="module")
def case(tmp_path_factory):
    return load_suite(str(write_suite(tmp_path_factory.mktemp("suite"), ARTICLES))).cases[0]


class Recording(Provider):
    """Answers with its worker thread's name and the attempt it sees; can wait at a barrier first."""

    type_name = "recording"
    needs_network = False

    def __init__(self, barrier: threading.Barrier | None = None, **kwargs) -> None:
        super().__init__(**kwargs)
        self.barrier = barrier

    def fetch(self, case, timeout, url):
        if self.barrier is not None:
            self.barrier.wait(timeout=10)  # only passes when two calls run at the same time
        context = CURRENT_CALL.get()
        return ProviderResult(success=True, content=f"{threading.current_thread().name} {context.attempt}",
                              content_format="text")


def test_sequential_calls_reuse_one_worker_and_see_their_own_attempt(case):
    provider = Recording()
    contents = [call_provider(provider, case, case.url, RuntimePolicy(retries=0)).content for _ in range(5)]
    assert {content.split()[0] for content in contents} == {f"lexbench-call-{provider.name}"}
    assert all(content.endswith(" 1") for content in contents)


def test_concurrent_calls_on_one_provider_still_run_side_by_side(case):
    provider = Recording(barrier=threading.Barrier(2))
    results: list[ProviderResult] = []
    threads = [threading.Thread(target=lambda: results.append(call_provider(provider, case, case.url,
                                                                             RuntimePolicy(retries=0))))
               for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    assert len(results) == 2 and all(result.success for result in results), results
