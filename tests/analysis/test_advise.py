"""``llamasim advise``: exact positions, an independent roll-out, the seat-view property, bad input."""
import json

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from llama_sim.analysis import advise as A
from llama_sim.rulesets import lama
from llama_sim.core.position import position_from_state
from llama_sim.core.errors import UsageError
from llama_sim.core.registry import at_table, parse_spec
from cli_helpers import call


def exact_values(res, metric="penalty_per_round"):
    t = res.table[res.table.metric == metric]
    assert (t.ci_low == t.value).all() and (t.ci_high == t.value).all(), t
    return dict(zip(t.action, t.value))


# ----------------------------------------------------------------------------- exact positions


def test_issue_example_alone_hand_3_4_4_on_a_3():
    # alone (everyone else quit), so no draw: play 3 plays out (0), play 4 leaves the 3 (3), quit 3+4
    res = A.advise("lama", hand="3 4 4", top="3", hand_sizes="5,4,6", quit="1,2,3", pile=20)
    assert exact_values(res) == {"play 3": 0.0, "play 4": 3.0, "quit": 7.0}
    assert res.ranking == ["play 3", "play 4", "quit"]
    assert exact_values(res, "went_out_rate") == {"play 3": 1.0, "play 4": 0.0, "quit": 0.0}
    assert res.sentence.endswith("so play 3.")


def test_a_position_with_nothing_left_to_chance_says_exact_and_needs_few_roll_outs(capsys):
    # pile 0 and no card fits: quitting is the only action, its value the hand's points
    res = A.advise("lama", hand="1 2", top="3", hand_sizes="3", pile=0)
    assert exact_values(res) == {"quit": 3.0} and res.rollouts == A.CHANCE_FREE_BATCH
    assert res.how().startswith("exact: nothing is left to chance after the only action (64 roll-outs, all equal)")
    assert "difference to" not in res.text()  # nothing to compare the lone action with
    code, out, _ = call(capsys, "advise", "--game", "lama", "--hand", "1 2", "--top", "3", "--hand-sizes", "3",
                        "--pile", "0", "-q")
    assert code == 0 and out.splitlines()[1].startswith("(exact: nothing is left to chance") and "2,048" not in out
    assert "paired" not in out
    # alone, every action is exact; with another player in and cards to draw, roll-outs as before
    alone = A.advise("lama", hand="3 4 4", top="3", hand_sizes="5", quit="1", pile=20)
    assert alone.rollouts == A.CHANCE_FREE_BATCH and alone.how().startswith("exact: nothing is left to chance after any")
    assert A.advise("lama", hand="3 4 4", top="3", hand_sizes="5", pile=20).how().startswith("roll-outs, ")


def test_lama_going_out_returns_the_largest_token():
    # alone with 14 points: playing out returns a 10 (-10); the 6 first strands the 5; quit scores 5 + 6
    res = A.advise("lama", hand="5 6", top="5", hand_sizes="2", quit="1", pile=0, scores="14,3")
    assert exact_values(res) == {"play 5": -10.0, "play 6": 5.0, "quit": 11.0}


def test_party_plus_card_gives_another_turn_and_the_pink_llama_doubles_llamas():
    # +3 on a 3 gives another turn, then the 4 goes out; the 4 first leaves +3 (a 3) on a 4: stuck
    res = A.advise("party", hand="+3 4", top="3", hand_sizes="3", quit="1", pile=10)
    assert exact_values(res) == {"play +3": 0.0, "play 4": 3.0, "quit": 7.0}
    # quitting with L and P scores the llamas once at 20
    res = A.advise("party", hand="L P", top="2", hand_sizes="3", quit="1", pile=10)
    assert exact_values(res) == {"play P": 0.0, "quit": 20.0}  # P, then the llama on it: out


def test_kadabra_alone_tokens_are_the_score():
    # three 1s: playing out returns a 1 (-1); the 4 first strands the 3 (+3); quit 3+4
    res = A.advise("kadabra", hand="3 4", top="3", hand_sizes="4", quit="1", pile=0)
    assert exact_values(res) == {"play 3": -1.0, "play 4": 3.0, "quit": 7.0}
    # the magic 3 takes the token (10 at scoring); going out then returns a 10: net 0. The pile has cards,
    # but alone without a draw symbol nobody draws, so the values are still exact.
    res = A.advise("kadabra", hand="3m 4", top="3", hand_sizes="4", quit="1", pile=12)
    assert exact_values(res) == {"play 3+magic": 0.0, "play 4": 3.0, "quit": 7.0}


def test_dice_alone_is_the_exact_solver_and_equals_solve_dice():
    from llama_sim.rulesets.dice.solver import solve_solo

    res = A.advise("dice", row="2 5 L", rows="1 2 3;4 4", quit="1,2")
    v = solve_solo("2 5 L", "1 2 3 4 5 6 L")
    assert res.method == "exact solver"
    assert exact_values(res) == {"roll": float(v.roll_value), "quit": float(v.quit_value)}
    assert res.best == v.best_action == "roll"


def test_dice_alone_counts_the_returned_tokens_at_the_players_score():
    """L L alone at score 10: rolling is worth 25508/3159 = 8.07 (test_solve derives it independently),
    quitting 10, so roll; at score 0 quit. --alone is the same position as giving the quit rows."""
    res = A.advise("dice", row="L L", rows="1 2", quit="1", scores="10,0")
    assert res.method == "exact solver" and res.best == "roll"
    assert exact_values(res) == pytest.approx({"roll": 25508 / 3159, "quit": 10.0}, abs=1e-12)
    assert "--score 10" in res.sentence
    alone = A.advise("dice", row="L L", alone=True, scores="10,0")
    assert exact_values(alone) == exact_values(res) and alone.position.players_in == 1
    assert A.advise("dice", row="L L", alone=True, scores="10,0,3").position.n == 3
    assert A.advise("dice", row="L L", alone=True).best == "quit"  # score 0: nothing to return
    with pytest.raises(UsageError, match="leave out --quit"):
        A.advise("dice", row="L L", rows="1", quit="1", alone=True)


def test_dice_alone_round_and_game_horizons_agree():
    """The game horizon plays the rest of the round with solo_optimal, now optimal at the score: its
    round penalty estimates the exact value, and both horizons say roll."""
    exact = 25508 / 3159
    game = A.advise("dice", row="L L", alone=True, scores="10,0", horizon="game", rollouts=3000, seed=5)
    t = game.table[game.table.metric == "penalty_per_round"].set_index("action")
    half = (t.loc["roll", "ci_high"] - t.loc["roll", "ci_low"]) / 2
    assert abs(t.loc["roll", "value"] - exact) < 1.5 * half
    assert game.best == "roll" == A.advise("dice", row="L L", alone=True, scores="10,0").best


def test_dice_quit_is_exact_with_others_in_and_roll_is_estimated():
    res = A.advise("dice", row="2 5 L", rows="1 2 3;4 4", rollouts=2000)
    t = res.table[res.table.metric == "penalty_per_round"].set_index("action")
    assert t.loc["quit", "value"] == t.loc["quit", "ci_low"] == t.loc["quit", "ci_high"] == 17.0
    assert t.loc["roll", "ci_low"] < t.loc["roll", "value"] < t.loc["roll", "ci_high"]


# ----------------------------------------------------------------------------- an independent roll-out


def _python_rollouts(hand, top, sizes, pile_n, actions, n_samples, seed):
    """The same roll-out model on the reference engine: deal the unseen cards uniformly (numpy's own
    generator), apply the action by hand, then every seat plays smart from the next seat on."""
    smart = at_table(parse_spec("lama", "smart"), len(sizes) + 1)
    players = [(smart.strategy.policy, smart.params)] * (len(sizes) + 1)
    deck = list(np.repeat(np.arange(7), 8))
    for c in hand + [top]:
        deck.remove(c)
    gen = np.random.default_rng(seed)
    out = {a: [] for a in actions}
    for i in range(n_samples):
        cards = list(gen.permutation(deck))
        hands, k = [list(hand)], 0
        for s in sizes:
            hands.append(cards[k:k + s])
            k += s
        pile, covered = cards[k:k + pile_n], cards[k + pile_n:]
        for a in actions:
            h = [list(x) for x in hands]
            p, disc, quit, start = list(pile), covered + [top], [False] * len(h), 1
            if a == lama.DRAW:
                h[0].append(p.pop(0))
            elif a == lama.QUIT:
                quit[0] = True
            else:
                h[0].remove(a)
                disc.append(a)
                if not h[0]:
                    out[a].append(0)
                    continue
            r = lama.Round(h, p, disc, players, [0] * len(h), start=start, quit=quit,
                           prng=np.array([i + 1, 7], np.uint64)).play()
            out[a].append(int(r.penalties[0]))
    return {a: np.array(v, float) for a, v in out.items()}


def test_kernel_roll_outs_agree_with_an_independent_reference_roll_out():
    hand, top, sizes, pile_n = [1, 3, 4, 6], 3, [2, 3], 6
    res = A.advise("lama", hand="2 4 5 L", top="4", hand_sizes="2,3", pile=pile_n, rollouts=4000, seed=5,
                   policy="smart")
    py = _python_rollouts(hand, top, sizes, pile_n, [3, 4, lama.DRAW, lama.QUIT], 1000, seed=9)
    names = {3: "play 4", 4: "play 5", lama.DRAW: "draw", lama.QUIT: "quit"}
    assert set(res.ranking) == set(names.values())
    t = res.table[res.table.metric == "penalty_per_round"].set_index("action")
    for a, values in py.items():
        row = t.loc[names[a]]
        se_k = (row.ci_high - row.ci_low) / (2 * 1.96)
        se_p = values.std(ddof=1) / np.sqrt(len(values))
        assert abs(row.value - values.mean()) <= 3.5 * np.hypot(se_k, se_p) + 1e-9, (names[a], row.value, values.mean())


def test_kadabra_roll_outs_agree_with_the_reference_engine_and_a_python_forced_first_action():
    from llama_sim.rulesets import kadabra as K

    res = A.advise("kadabra", hand="1 2d 4 5 L", top="4", hand_sizes="4,5", pile=8, ones="3,2,5", tens="0,1,0",
                   rollouts=3000, seed=2, policy="showman")
    pos = res.position
    showman = at_table(parse_spec("kadabra", "showman"), pos.n)
    pol, par = showman.strategy.policy, np.append(showman.params, 0.0)
    used = pos.hand + pos.discard
    used[pos.top] += 1
    unseen = np.repeat(np.arange(K.N_CODES), pos.deck_counts - used)
    gen = np.random.default_rng(11)
    t = res.table[res.table.metric == "penalty_per_round"].set_index("action")
    sums = {a: [] for a in t.index}
    names = K.ACTION_NAMES
    for i in range(500):
        cards = list(gen.permutation(unseen))
        hands, k = [[c for c in range(K.N_CODES) for _ in range(pos.hand[c])]], 0
        for size in pos.hand_sizes[1:]:
            hands.append(cards[k:k + size])
            k += size
        pile, covered = cards[k:k + pos.pile], cards[k + pos.pile:]
        for name in t.index:
            forced = [names.index(name)]

            def first_then_showman(obs, hand, legal, params, rng, forced=forced):
                if forced:
                    return forced.pop()
                return pol(obs, hand, legal, params, rng)

            players = [(first_then_showman, par)] + [(pol, par)] * (pos.n - 1)
            r = K.Round([list(h) for h in hands], list(pile), covered + [pos.top], players, list(pos.ones),
                        list(pos.tens), prng=np.array([i + 3, 5], np.uint64)).play()
            sums[name].append(int(r.penalties[0]))
    for name, values in sums.items():
        row = t.loc[name]
        se_k = (row.ci_high - row.ci_low) / (2 * 1.96)
        se_p = np.std(values, ddof=1) / np.sqrt(len(values))
        assert abs(row.value - np.mean(values)) <= 3.5 * np.hypot(se_k, se_p) + 1e-9, (name, row.value, np.mean(values))


def test_dice_roll_value_is_exactly_the_position_kernel_with_always_roll():
    # same streams per roll-out (policy and dice from (seed, i)): forcing a roll then always rolling is
    # what dice.simulate_position plays with always_roll, roll for roll
    from llama_sim.rulesets import dice as D
    from llama_sim.core.stats import estimate

    res = A.advise("dice", row="2 5 L", rows="1 2 3;4 4 6", policy="always_roll", actions=["roll"], rollouts=3000,
                   seed=8)
    tally, _ = D.simulate_position(res.position.rows, res.position.llama_row,
                                   [parse_spec("dice", "always_roll")] * 3, 3000, seed=8)
    assert res.value("roll") == pytest.approx(estimate(tally, "penalty_per_round", 0).value, abs=1e-12)


def test_game_horizon_adds_win_rates_and_opponents_are_per_seat():
    res = A.advise("lama", hand="2 2 6 L", top="4", hand_sizes="3,5,1", pile=20, scores="0,12,5,30",
                   horizon="game", opponents=["greedy", "smart", "threshold"], rollouts=400)
    t = res.table
    assert set(t.metric) >= {"win_rate", "win_rate_vs_best", "penalty_per_round"}
    wins = t[t.metric == "win_rate"].set_index("action").value
    assert res.best == wins.idxmax() and ((wins >= 0) & (wins <= 1)).all()
    assert res.strategies == ["climber", "greedy", "smart", "threshold"]  # climber: the strongest at 4


# ----------------------------------------------------------------------------- what the roll-outs start from


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(2, 5), st.integers(0, 2**32 - 1))
def test_roll_out_inputs_depend_only_on_what_the_seat_sees(deal_seed, n, perm_seed):
    gen = np.random.default_rng(deal_seed)
    deck = gen.permutation(np.repeat(np.arange(7), 8))
    sizes = gen.integers(1, 8, size=n)
    hands = np.zeros((n, 7), np.int64)
    k = 0
    for s in range(n):
        for c in deck[k:k + sizes[s]]:
            hands[s, c] += 1
        k += sizes[s]
    top, rest = int(deck[k]), deck[k + 1:]
    pile_n = int(gen.integers(0, len(rest) + 1))
    pos = position_from_state("lama", hands, top, pile_n)
    # permute every unseen card among the other hands, the pile and the covered discard
    hidden = np.concatenate([np.repeat(np.arange(7), hands[1:].sum(axis=0)), rest])
    hidden = np.random.default_rng(perm_seed).permutation(hidden)
    other = hands.copy()
    other[1:] = 0
    k = 0
    for s in range(1, n):
        for c in hidden[k:k + sizes[s]]:
            other[s, c] += 1
        k += sizes[s]
    pos2 = position_from_state("lama", other, top, pile_n)
    assert pos.canonical() == pos2.canonical()
    r1 = A.advise_position(pos, n_rollouts=16, seed=3)
    r2 = A.advise_position(pos2, n_rollouts=16, seed=3)
    assert r1.table.equals(r2.table)


def test_same_seed_same_numbers_for_any_thread_count():
    kw = dict(hand="2 3 6 L", top="4", hand_sizes="3,5,1", pile=20, precision=0.3, seed=4)
    r1 = A.advise("lama", threads=1, **kw)
    r2 = A.advise("lama", threads=2, **kw)
    assert r1.table.equals(r2.table) and r1.rollouts > A.FIRST_BATCH


# ----------------------------------------------------------------------------- CLI


def test_cli_json_rows_have_exactly_the_keys(capsys):
    code, out, err = call(capsys, "advise", "-g", "lama", "--hand", "2 2 6 L", "--top", "4", "--hand-sizes", "3,5,1",
                          "--pile", "20", "--scores", "0,12,5,30", "--format", "json")
    assert code == 0, err
    rows = json.loads(out)
    assert all(list(r) == ["game", "action", "metric", "value", "ci_low", "ci_high", "n", "seed", "best"] for r in rows)
    assert {r["action"] for r in rows} == {"draw", "quit"}
    best = {r["action"] for r in rows if r["best"]}
    assert best == {"draw"}
    quit = [r for r in rows if r["action"] == "quit" and r["metric"] == "penalty_per_round"][0]
    assert quit["value"] == quit["ci_low"] == quit["ci_high"] == 18.0


def test_position_file_toml_and_json_give_the_same_answer(capsys, tmp_path):
    toml = tmp_path / "p.toml"
    toml.write_text('hand = "2 2 6 L"\ntop = "4"\nhand-sizes = [3, 5, 1]\npile = 20\nscores = [0, 12, 5, 30]\n')
    js = tmp_path / "p.json"
    js.write_text(json.dumps({"hand": "2 2 6 L", "top": "4", "hand_sizes": "3,5,1", "pile": 20, "scores": "0,12,5,30"}))
    outs = [call(capsys, "advise", "-g", "lama", "--position", str(f), "--format", "json", "--rollouts", "300")
            for f in (toml, js)]
    direct = call(capsys, "advise", "-g", "lama", "--hand", "2 2 6 L", "--top", "4", "--hand-sizes", "3,5,1",
                  "--pile", "20", "--scores", "0,12,5,30", "--format", "json", "--rollouts", "300")
    assert outs[0] == outs[1] == direct and direct[0] == 0


def test_plot_writes_a_figure(tmp_path, capsys):
    png = tmp_path / "a.png"
    code, out, err = call(capsys, "advise", "-g", "lama", "--hand", "2 3 L", "--top", "4", "--hand-sizes", "3,5",
                          "--pile", "10", "--rollouts", "500", "--plot", str(png))
    assert code == 0, err
    assert png.stat().st_size > 5000


@pytest.mark.parametrize("args, needle", [
    (["-g", "lama", "--hand", "4 4 4 4 4", "--top", "4", "--hand-sizes", "3", "--pile", "5", "--discard", "4 4 4"],
     "cards 4"),
    (["-g", "lama", "--hand", "1 2", "--top", "3", "--hand-sizes", "30,30", "--pile", "0"], "unseen"),
    (["-g", "lama", "--hand", "1 2", "--top", "P", "--hand-sizes", "3", "--pile", "5"], "in no lama deck"),
    (["-g", "party", "--hand", "1 2", "--top", "+7", "--hand-sizes", "3", "--pile", "5"], "in no party deck"),
    (["-g", "lama", "--hand", "1 2", "--top", "3", "--hand-sizes", "3", "--pile", "60"], "larger than"),
    (["-g", "lama", "--hand", "1 2", "--top", "3", "--hand-sizes", "3", "--pile", "0", "--action", "draw"],
     "draw is not allowed"),
    (["-g", "lama", "--hand", "1 2", "--top", "3", "--hand-sizes", "3", "--quit", "1", "--pile", "5",
      "--action", "draw"], "nobody else"),
    (["-g", "lama", "--hand", "1 2", "--top", "5", "--hand-sizes", "3", "--pile", "5", "--action", "play 1"],
     "not allowed"),
    (["-g", "lama", "--hand", "1 2", "--top", "3", "--hand-sizes", "3", "--pile", "5", "--quit", "2"], "numbered"),
    (["-g", "lama", "--hand", "1 2", "--top", "3", "--hand-sizes", "3,1,1,1,1,1", "--pile", "5"], "2 to 6"),
    (["-g", "lama", "--hand", "", "--top", "3", "--hand-sizes", "3", "--pile", "5"], "empty"),
    (["-g", "kadabra", "--hand", "L", "--top", "L", "--hand-sizes", "3", "--pile", "5", "--show"], "show"),
    (["-g", "kadabra", "--hand", "1 2", "--top", "3", "--hand-sizes", "3", "--pile", "5", "--ones", "3"], "expected 2"),
    (["-g", "dice", "--row", "2 2 2 2 2 2", "--rows", "2"], "impossible position"),
    (["-g", "dice", "--row", "2 5", "--hand", "3"], "not a dice option"),
    (["-g", "lama", "--hand", "1 2", "--top", "3", "--hand-sizes", "3", "--pile", "5", "--threads", "0"], "threads"),
    (["-g", "lama", "--hand", "1 2", "--top", "3", "--hand-sizes", "3", "--pile", "5", "--action", "fly"], "unknown action"),
])
def test_impossible_positions_exit_2_with_one_line(capsys, args, needle):
    code, out, err = call(capsys, "advise", *args)
    assert code == 2 and out == ""
    assert len(err.strip().splitlines()) == 1 and needle in err, err
