"""``advise`` states the table it assumed: the players, the scores and tokens, and the roll-out
strategies with the values they play (each strategy's preset for the table's player count, as every
command plays it); hand sizes that make another table than ``--players`` are refused."""
import pytest

from llama_sim import api
from llama_sim.core.errors import UsageError
from llama_sim.core.registry import get, with_values
from cli_helpers import call

LAMA_2P = dict(hand="2 2 6 L", top="4", hand_sizes="3", pile=20, scores="3,10")


def test_cli_header_names_players_scores_and_the_strategy_values(capsys):
    code, out, err = call(capsys, "advise", "--game", "lama", "--hand", "2 2 6 L", "--top", "4", "--hand-sizes",
                          "3,5", "--pile", "20", "--scores", "0,12,5", "--rollouts", "4", "--threads", "1",
                          "--policy", "smart", "--opponents", "greedy,threshold")
    assert code == 0, err
    first, second = out.splitlines()[:2]
    assert "advice for 3 players" in first and "scores, yours first: 0, 12, 5" in first
    # smart and threshold play their 3-player values (the 4-player presets: the nearest, ties to the larger)
    smart = with_values("smart", {p.name: get("lama", "smart").values_at(3)[p.name][0]
                                  for p in get("lama", "smart").params})
    assert f"seats {smart} / greedy / threshold quit_at=2" in second


def test_kadabra_header_names_tokens_magic_token_and_stage():
    res = api.advise("kadabra", hand="1 2d 4 5 L", top="4", hand_sizes="4,5", pile=8, ones="3,2,5", tens="0,1,0",
                     magic="2", stage="1,1", rollouts=2, threads=1)
    line = res.table_line()
    assert line.startswith("3 players")
    assert "3x1+0x10, 2x1+1x10, 5x1+0x10 (scores 3, 12, 5)" in line
    assert "magic token player 2's" in line and "stage 1x1+1x10" in line


@pytest.mark.parametrize("players, strategy, preset", [(2, "smart", 2), (5, "smart", 6), (6, "threshold", 6)])
def test_roll_outs_play_the_preset_of_the_tables_count(players, strategy, preset):
    sizes = ",".join(["3"] * (players - 1))
    res = api.advise("lama", hand="2 2 6 L", top="4", hand_sizes=sizes, pile=10, rollouts=2, threads=1,
                     policy=strategy)
    declared = get("lama", strategy)
    expected = {p.name: declared.presets[preset].get(p.name, p.default) for p in declared.params}
    assert res.strategy_values == [with_values(strategy, expected)] * players
    given = api.advise("lama", hand="2 2 6 L", top="4", hand_sizes=sizes, pile=10, rollouts=2, threads=1,
                       policy=f"{strategy}:quit_at=3")  # a value given is played as given
    assert "quit_at=3" in given.strategy_values[0]


def test_default_roll_out_policy_is_the_strongest_at_the_count():
    from llama_sim.core.advice import advice_of, default_policy_at
    from llama_sim.core.ruleset import get_game

    two = api.advise("lama", **LAMA_2P, rollouts=2, threads=1)
    assert two.strategy_values[0] == with_values("threshold", {"quit_at": 8.0})  # its 2-player preset
    kadabra = advice_of(get_game("kadabra"))  # (the table's count picks it: no roll-out needed to see which)
    assert [default_policy_at(kadabra, n) for n in range(2, 7)] == ["climber", "chart", "climber", "climber", "climber"]


def test_chart_plays_the_preset_of_its_count():
    res = api.chart("lama", players=2, policy="smart", games=2, threads=1)
    declared = get("lama", "smart")
    assert res.policy_values == {p.name: declared.presets[2].get(p.name, p.default) for p in declared.params}


def test_hand_sizes_that_make_another_table_are_refused(capsys):
    with pytest.raises(UsageError, match="players: the position gives a table of 2 players"):
        api.advise("lama", **LAMA_2P, players=5, rollouts=2)
    code, out, err = call(capsys, "advise", "--game", "lama", "--hand", "2 2 6 L", "--top", "4", "--hand-sizes",
                          "3,5", "--pile", "20", "--players", "5")
    assert code == 2 and out == ""
    assert err.strip().splitlines() == ["llamasim: error: players: the position gives a table of 3 players (you and "
                                        "2 other hands), not 5: give one hand size per other player"]
    code, out, err = call(capsys, "advise", "--game", "dice", "--row", "2 5 L", "--rows", "1 2 3;4 4 L",
                          "--players", "4")
    assert code == 2 and "you and 2 other rows" in err
    ok = api.advise("lama", **LAMA_2P, players=2, rollouts=2, threads=1)
    assert ok.position.n == 2


def test_points_answer_says_what_to_use_for_winning():
    round_ = api.advise("lama", **LAMA_2P, rollouts=2, threads=1)
    game = api.advise("lama", **LAMA_2P, rollouts=2, threads=1, horizon="game")
    assert round_.for_winning().strip().startswith("For winning, ask with --horizon game (the win rate):")
    assert game.for_winning() == ""
