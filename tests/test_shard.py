"""``--shard=K/N`` deals every item to exactly one shard, evenly, with providers mixed (SPEC §6)."""

from collections import Counter

import pytest

from lexbench.shard import Shard, shard_of


@pytest.mark.parametrize(("cases", "providers", "count"), [(13, 4, 2), (13, 4, 4), (181, 4, 3), (5, 3, 7), (1, 1, 1)])
def test_every_item_once_and_balanced(cases, providers, count):
    shards = [Shard(k, count) for k in range(1, count + 1)]
    sizes = Counter()
    for c in range(cases):
        for p in range(providers):
            owners = [s for s in shards if s.holds(c, p, providers)]
            assert len(owners) == 1
            sizes[owners[0].index] += 1
    assert sum(sizes.values()) == cases * providers
    assert max(sizes.values(), default=0) - min((sizes[k] for k in range(1, count + 1)), default=0) <= 1


def test_providers_are_mixed_when_the_shard_count_divides_them():
    # A plain round-robin would give shard k only provider k here.
    for k in range(1, 5):
        mix = {p for c in range(8) for p in range(4) if shard_of(c, p, 4, 4) == k}
        assert mix == {0, 1, 2, 3}


def test_docstring_example():
    first = [(c, p) for c in range(3) for p in range(2) if shard_of(c, p, 2, 2) == 1]
    assert first == [(0, 0), (1, 1), (2, 0)]


@pytest.mark.parametrize("text", ["0/2", "3/2", "1/0", "a/b", "2", ""])
def test_bad_specs_say_the_accepted_form(text):
    with pytest.raises(ValueError, match="expected K/N|between 1 and N"):
        Shard.parse(text)


def test_parse_round_trips():
    assert str(Shard.parse(" 2 / 5 ")) == "2/5"
