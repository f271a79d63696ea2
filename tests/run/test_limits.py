"""Each rule set's limit (``RuleSet.limit``, what ``llamasim bench`` measures its kernels against) plays
exactly the kernel's rounds: equal sums on the same seed, at every player count and rule variant it
deals."""
import numpy as np
import pytest

from llama_sim.core import registry
from llama_sim.core.errors import UsageError
from llama_sim.core.ruleset import RULE_SETS, all_games, get_game
from llama_sim.run.chunks import run_chunk
from llama_sim.run.designs import empty_tally, seat_plan

VARIANTS = {"party": [{"pink_llama": "plain"}, {"plus_cards": "plain"}],
            "kadabra": [{"magic_show": "off"}, {"magic_token": "off"}]}


def _sums(game, plan, blocks):
    tally = empty_tally(plan)
    s1, s2 = tally.s1.copy(), tally.s2.copy()
    game.limit(plan, 11, blocks, s1, s2)
    return s1, s2


@pytest.mark.parametrize("name", [g for g in all_games() if get_game(g).limit is not None])
def test_the_limit_plays_the_kernels_rounds(name):
    game = get_game(name)
    for options in [{}] + VARIANTS.get(name, []):
        for n in range(game.min_players, game.max_players + 1):
            if options and n != 4:
                continue
            cfg = game.config(**options)
            plan = seat_plan(game, [registry.parse_spec(name, game.bench_strategy)] * n, False, cfg)
            s1, s2 = _sums(game, plan, 300)
            k1, k2 = run_chunk(plan, 11, 0, 300)
            assert s1.sum() > 0 and np.array_equal(s1, k1) and np.array_equal(s2, k2), (name, n, options)


def test_every_rule_set_of_this_package_has_a_limit():
    own = [name for name, module in RULE_SETS.items() if module.startswith("llama_sim.rulesets.")]
    assert len(own) >= 4 and [name for name in own if get_game(name).limit is None] == []


@pytest.mark.parametrize("name", ["lama", "dice"])
def test_a_limit_plays_only_its_line_up(name):
    """The dice limit has ``threshold`` written in; a shedding limit reads its order of play from the
    strategy, which a strategy not playing by a fixed order would not follow: not its line-up."""
    game = get_game(name)
    other = "random"
    plan = seat_plan(game, [registry.parse_spec(name, other)] * 4, False, game.config())
    if name == "dice":
        with pytest.raises(UsageError, match="threshold line-up only"):
            _sums(game, plan, 10)
    else:
        s1, _ = _sums(game, plan, 200)
        assert not np.array_equal(s1, run_chunk(plan, 11, 0, 200)[0])
