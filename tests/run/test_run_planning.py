"""Worker CPU planning from plain values (lexbench.run.planning)."""

from lexbench.run.planning import expand_gateway_specs, planned_worker_cpus, worker_cpu


def test_gateway_specs_are_expanded():
    assert expand_gateway_specs(["2*popen", "ssh=host", "popen"]) == ["popen", "popen", "ssh=host", "popen"]
    assert expand_gateway_specs([]) == []
    assert expand_gateway_specs(["x*popen"]) == ["x*popen"]  # not a count: kept as written


def test_workers_are_pinned_only_when_local_popen_workers_match_the_cpus():
    two = ["popen", "popen"]
    assert planned_worker_cpus(two, ["local", "control"], {3, 1}, pinning=True) == [1, 3]
    assert planned_worker_cpus(two, ["local"], {0, 1}, pinning=False) is None  # --no-cpu-pinning
    assert planned_worker_cpus(two, ["local"], None, pinning=True) is None  # the platform cannot pin
    assert planned_worker_cpus(["popen", "ssh=host"], ["local"], {0, 1}, pinning=True) is None
    assert planned_worker_cpus(two, ["local", "hosted"], {0, 1}, pinning=True) is None
    assert planned_worker_cpus(two, ["local"], {0, 1, 2}, pinning=True) is None
    assert planned_worker_cpus([], ["local"], {0}, pinning=True) is None  # no xdist


def test_a_worker_takes_the_cpu_of_its_index_and_a_replacement_runs_unpinned():
    assert worker_cpu([4, 6], "gw1") == 6
    assert worker_cpu([4, 6], "gw2") is None  # replaces a crashed worker
    assert worker_cpu(None, "gw0") is None
