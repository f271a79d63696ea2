"""Quit charts (``llama_sim.chart``, ``llamasim chart``) and the strategies that play them."""
import itertools
import json
import math
import subprocess
import sys
from math import comb

import numpy as np
import pandas as pd
import pytest

from llama_sim.analysis import chart as C
from llama_sim.core import registry
from llama_sim.core.chart_data import (
    FEATURE_OPPONENT, FEATURE_PILE, MAX_HAND, MAX_PILE, TOKENS, bins, bundled_document, tables_from_document,
)
from llama_sim.rulesets import lama
from cli_helpers import call

SMALL = dict(games=600, seed=3)


def _fresh_hand_exact():
    """Two always_quit players: the only stuck decisions are the first actions of rounds, on the
    dealt hand h with top t and 43 cards in the pile. Quitting scores points(h); drawing, then both
    quit, scores points(h + the drawn card), the drawn card uniform over the 49 cards seat 0 does not
    see. So quit - draw = -sum over codes c not in h of (8 - [t == c]) * penalty(c) / 49. Returns,
    per hand points, (P(stuck, points), E[sample | stuck, points], E[sample^2 | stuck, points]), where a
    sample is one decision's quit - draw, -penalty(drawn card) or 0."""
    pen = lama.PENALTY
    out = {}
    for h in itertools.product(range(7), repeat=7):
        if sum(h) != 6:
            continue
        p_hand = math.prod(comb(8, k) for k in h) / comb(56, 6)
        pts = int(sum(pen[c] for c in range(7) if h[c]))
        for t in range(7):
            if h[t] == 8:
                continue
            if h[t] > 0 or h[(t + 1) % 7] > 0:  # a card fits: not stuck
                continue
            p = p_hand * (8 - h[t]) / 50
            diff = -sum((8 - (t == c)) * pen[c] for c in range(7) if h[c] == 0) / 49
            diff2 = sum((8 - (t == c)) * pen[c] ** 2 for c in range(7) if h[c] == 0) / 49  # E[sample^2]
            w, m1, m2 = out.get(pts, (0.0, 0.0, 0.0))
            out[pts] = (w + p, m1 + p * diff, m2 + p * diff2)
    return {k: (w, m1 / w, m2 / w) for k, (w, m1, m2) in out.items()}


def test_always_quit_cells_match_the_exact_draw_value():
    res = C.chart("lama", 2, "always_quit", games=20000, seed=5, threads=2, pile_edges=(0, 43))
    cells = res.cells[res.cells["chart"] == "pile"]
    assert set(cells["bin_low"]) == {43}  # every decision is a round's first action
    assert (cells["policy_quit_rate"] == 1.0).all()
    exact = _fresh_hand_exact()
    by_pts = cells.groupby("hand_points").apply(
        lambda g: pd.Series({"n": g["decisions"].sum(),
                             "mean": (g["decisions"] * g["mean_quit_minus_draw"]).sum() / g["decisions"].sum()}),
        include_groups=False)
    total_n = by_pts["n"].sum()
    pooled = (by_pts["n"] * by_pts["mean"]).sum() / total_n
    w = sum(v[0] for v in exact.values())
    e_mean = sum(v[0] * v[1] for v in exact.values()) / w
    e_var = sum(v[0] * v[2] for v in exact.values()) / w - e_mean ** 2
    assert abs(pooled - e_mean) < 4.5 * math.sqrt(e_var / total_n), (pooled, e_mean)
    checked = 0
    for pts, row in by_pts.iterrows():
        if row["n"] < 250:
            continue
        _, m, m2 = exact[pts]
        assert abs(row["mean"] - m) < 4.5 * math.sqrt((m2 - m * m) / row["n"]), (pts, row, m)
        checked += 1
    assert checked >= 5
    # Drawing can only add a new value here: every cell says quit (or cannot tell).
    assert set(cells["answer"]) <= {"Q", "?"} and (cells["mean_quit_minus_draw"] <= 0).all()


def test_relative_measure_equals_own_when_the_others_outcome_cannot_change():
    # Two always_quit players: the opponent quits at once in both branches, so its change is the same
    # and "own - the other's change" differs between the branches exactly as "own" does.
    own = C.chart("lama", 2, "always_quit", games=500, seed=8)
    rel = C.chart("lama", 2, "always_quit", games=500, seed=8, measure="relative")
    cols = ["chart", "token", "hand_points", "bin_low", "decisions", "mean_quit_minus_draw", "ci_low", "ci_high"]
    pd.testing.assert_frame_equal(own.cells[cols], rel.cells[cols])
    assert set(rel.cells["measure"]) == {"relative"}


def test_win_measure_is_a_probability_difference():
    res = C.chart("lama", 3, "smart", games=300, seed=2, measure="win")
    assert set(res.cells["measure"]) == {"win"}
    assert res.cells["mean_quit_minus_draw"].between(-1, 1).all()
    assert (res.cells["ci_low"] <= res.cells["ci_high"]).all()


def test_table_shape_columns_and_summary():
    res = C.chart("lama", 4, "smart", **SMALL)
    assert list(res.cells.columns) == C.CELL_COLUMNS
    assert set(res.cells["chart"]) == {"pile", "opponent"}
    assert set(res.cells["answer"]) <= {"Q", "D", "?"}
    assert (res.cells["ci_low"] <= res.cells["mean_quit_minus_draw"]).all()
    assert (res.cells["mean_quit_minus_draw"] <= res.cells["ci_high"]).all()
    for name in ("pile", "opponent"):
        part = res.cells[res.cells["chart"] == name]
        assert part["share"].sum() == pytest.approx(1.0)
        assert part["decisions"].sum() == res.summary["decisions"].sum()
        # a cell is Q/D only when its interval excludes 0
        q = part[part["answer"] == "Q"]
        d = part[part["answer"] == "D"]
        assert (q["ci_high"] < 0).all() and (d["ci_low"] > 0).all()
    assert set(res.cells["token"]) <= {0, 1, 10}  # L.A.M.A. has no 20-point tokens
    assert res.cells["hand_points"].between(1, 31).all()
    # smart quits when stuck at hand points <= 4 under 10 points, never from 10 points on
    pile = res.cells[res.cells["chart"] == "pile"]
    low = pile[pile["token"] < 10]
    assert (low.loc[low["hand_points"] <= 4, "policy_quit_rate"] == 1).all()
    assert (low.loc[low["hand_points"] > 4, "policy_quit_rate"] == 0).all()
    assert (pile.loc[pile["token"] == 10, "policy_quit_rate"] == 0).all()


def test_same_seed_same_tables_for_any_thread_count():
    a = C.chart("lama", 3, "smart", games=1200, seed=9, threads=1)
    b = C.chart("lama", 3, "smart", games=1200, seed=9, threads=2)
    pd.testing.assert_frame_equal(a.cells, b.cells)
    c = C.chart("lama", 3, "smart", games=1200, seed=10, threads=2)
    assert not a.cells.equals(c.cells)


def test_party_chart_has_twenty_point_tokens_and_no_pink_when_stuck():
    res = C.chart("party", 4, None, games=800, seed=2)
    assert res.policy == "chain"
    assert {20} <= set(res.cells["token"])
    # the pink llama fits on any card, so a stuck hand never holds it: at most 1+...+6 + 10 points
    assert res.cells["hand_points"].between(1, 31).all()


def test_quit_table_follows_cell_means_and_fills_gaps():
    res = C.chart("lama", 4, "smart", **SMALL)
    for feature, edges in (("pile", res.pile_edges), ("opponent", res.opp_edges)):
        table = C.quit_table(res, feature)
        assert table.shape == (len(TOKENS), 42, len(edges))
        part = res.cells[res.cells["chart"] == feature]
        for row in part.itertuples():
            want = 1 if row.mean_quit_minus_draw < 0 else 0
            assert table[TOKENS.index(row.token), row.hand_points, edges.index(row.bin_low)] == want
        # hand points the policy never met take the nearest met value's answer
        b_low = part["bin_low"].iloc[0]
        seen = sorted(part[(part["token"] == 0) & (part["bin_low"] == b_low)]["hand_points"])
        b = edges.index(b_low)
        assert table[0, 41, b] == table[0, seen[-1], b] and table[0, 0, b] == table[0, seen[0], b]


def _stuck_obs(hand_codes, top, pile, score, players=4, opponent_sizes=(6, 6, 6, 6, 6)):
    obs = np.zeros(lama.OBS_LEN, np.int64)
    obs[lama.OBS_PLAYERS] = players
    obs[lama.OBS_TOP] = top
    obs[lama.OBS_DRAW_PILE] = pile
    obs[lama.OBS_ACTIVE] = players
    hand = np.zeros(lama.N_CODES, np.int64)
    for c in hand_codes:
        hand[c] += 1
    obs[lama.OBS_HAND_SIZES] = len(hand_codes)
    for s in range(1, players):
        obs[lama.OBS_HAND_SIZES + s] = opponent_sizes[s - 1]
    obs[lama.OBS_SCORES] = score
    legal = (1 << lama.DRAW) | (1 << lama.QUIT)
    return obs, hand, legal


# (hand, own score, cards in the pile, players, the opponents' hand sizes); the top card is a 1, on
# which none of these hands fits
CASES = [([3, 3], 0, 20, 4, (5, 2, 7)), ([2, 4], 12, 5, 4, (1, 9, 9)), ([6, 5], 3, 30, 2, (4,)),
         ([4], 0, 1, 6, (3, 3, 8, 2, 6)), ([2, 3, 4, 5], 25, 12, 3, (12, 14))]


def _expected(table, bin_of, feature, hand, score, pile, sizes):
    pts = sum(int(lama.PENALTY[c]) for c in set(hand))
    t = 2 if score >= 10 else (1 if score >= 1 else 0)
    value = pile if feature == FEATURE_PILE else min(sizes)
    return lama.QUIT if table[t, pts, bin_of[value]] else lama.DRAW


def test_bundled_chart_strategy_plays_its_table():
    table, bin_of, feature = tables_from_document(bundled_document("lama"), 2, 6)
    policy = registry.get("lama", "chart").policy
    rng = np.zeros(2, np.uint64)
    params = np.zeros(registry.MAX_PARAMS)
    for hand, score, pile, players, sizes in CASES:
        obs, own, legal = _stuck_obs(hand, 0, pile, score, players, sizes)
        want = _expected(table[players - 2], bin_of, feature, hand, score, pile, sizes)
        assert policy(obs, own, legal, params, rng) == want
    if feature == FEATURE_OPPONENT:  # an opponent who has quit is not the smallest hand
        obs, own, legal = _stuck_obs([3, 3], 0, 20, 0, 4, (1, 6, 6))
        obs[lama.OBS_QUIT + 1] = 1
        assert policy(obs, own, legal, params, rng) == _expected(table[2], bin_of, feature, [3, 3], 0, 20, (6, 6))
    obs, own, legal = _stuck_obs([0, 1], 0, 20, 0)  # a card that fits is played, the equal card first
    legal |= (1 << 0) | (1 << 1)
    assert policy(obs, own, legal, params, rng) == 0
    obs, own, legal = _stuck_obs([5, 6], 0, 0, 0)  # no drawing allowed: quit
    legal &= ~(1 << lama.DRAW)
    assert policy(obs, own, legal, params, rng) == lama.QUIT


@pytest.mark.parametrize("game", ["lama", "party"])
def test_bundled_chart_documents_are_complete(game):
    doc = bundled_document(game)
    assert doc["game"] == game and doc["tokens"] == list(TOKENS)
    assert sorted(int(k) for k in doc["tables"]) == [2, 3, 4, 5, 6]
    assert doc["feature"] in C.FEATURES
    bins(tuple(doc["edges"]), MAX_PILE if doc["feature"] == "pile" else MAX_HAND, "edges")  # valid edges
    for t in doc["tables"].values():
        assert np.array(t).shape == (len(TOKENS), 42, len(doc["edges"]))
    assert registry.get(game, "chart").policy is not None  # compiles with its table


def test_the_opponent_chart_is_drawn_when_asked_for(tmp_path, capsys):
    code, _, err = call(capsys, "chart", "--game", "lama", "--players", "3", "--games", "50", "--seed", "4",
                        "--opponent-plot", str(tmp_path / "opp.png"), "-q")
    assert code == 0, err
    assert [p.name for p in tmp_path.iterdir()] == ["opp.png"]
    code, _, err = call(capsys, "chart", "--game", "lama", "--games", "50", "--plot", str(tmp_path / "x.png"),
                        "--opponent-plot", str(tmp_path / "x.png"), "-q")
    assert code == 2 and "the same file" in err


def test_cli_chart_json_plot_and_emitted_strategy(tmp_path, capsys):
    plot = tmp_path / "c.png"
    strat = tmp_path / "my_chart.py"
    out = tmp_path / "cells.csv"
    code, stdout, err = call(capsys, "chart", "--game", "lama", "--players", "4", "--games", "400", "--seed", "4",
                             "--format", "json", "--plot", str(plot), "--emit-strategy", str(strat),
                             "--out", str(out), "-q")
    assert code == 0, err
    rows = json.loads(stdout)  # one document, nothing else
    assert rows and set(rows[0]) == set(C.CELL_COLUMNS)
    assert plot.stat().st_size > 10_000  # the file asked for, and nothing else
    assert sorted(p.name for p in tmp_path.iterdir()) == ["c.png", "cells.csv", "my_chart.py"]
    assert len(pd.read_csv(out)) == len(rows)
    # The emitted file loads and plays, in a separate process as a user would run it.
    res = subprocess.run([sys.executable, "-m", "llama_sim", "compare", "--game", "lama", "--players", "4",
                          "--strategies-file", str(strat), "my_chart", "smart", "--rounds", "400", "-q",
                          "--format", "json"], capture_output=True, text=True)
    assert res.returncode == 0, res.stderr
    assert {r["strategy"] for r in json.loads(res.stdout)} == {"my_chart", "smart"}
    # ... and decides as the run's opponent chart says
    registry.load_file(strat)
    policy = registry.get("lama", "my_chart").policy
    result = C.ChartResult("lama", 4, "smart", 400, 4, pd.DataFrame(rows), pd.DataFrame())
    table = C.quit_table(result, "opponent")
    bin_of, _ = bins(result.opp_edges, MAX_HAND, "opponent")
    for hand, score, pile, _, sizes in CASES:
        sizes = (sizes + (6, 6, 6))[:3]
        obs, own, legal = _stuck_obs(hand, 0, pile, score, 4, sizes)
        want = _expected(table, bin_of, FEATURE_OPPONENT, hand, score, pile, sizes)
        assert policy(obs, own, legal, np.zeros(registry.MAX_PARAMS), np.zeros(2, np.uint64)) == want


def test_cli_chart_readable_output(capsys):
    code, stdout, err = call(capsys, "chart", "-g", "lama", "--games", "300", "-q")
    assert code == 0, err
    assert "policy smart" in stdout and "token returned on going out: 0" in stdout
    assert "cards left in the draw pile" in stdout and "smallest opponent hand" in stdout


@pytest.mark.parametrize("args,needle", [
    (["chart", "-g", "lama", "--policy", "nosuch"], "unknown lama strategy 'nosuch'"),
    (["chart", "-g", "lama", "--players", "7"], "2 to 6 players"),
    (["chart", "-g", "lama", "--players", "1"], "2 to 6 players"),
    (["chart", "-g", "solo"], "unknown"),
    (["chart", "-g", "lama", "--games", "1"], "at least 2"),
    (["chart", "-g", "lama", "--measure", "luck"], "measure: must be one of own, relative, win, not 'luck'"),
    (["chart", "-g", "lama", "--pile-bins", "0,5,3"], "increasing"),
    (["chart", "-g", "lama", "--pile-bins", "a,b"], "pile_edges: must be whole numbers separated by commas"),
    (["chart", "-g", "lama", "--plot", "x.txt"], ".png"),
    (["chart", "-g", "lama", "--emit-strategy", "my-chart.py"], "Python name"),
    (["chart", "-g", "lama", "--emit-feature", "moon"], "unknown --emit-feature 'moon'"),
])
def test_chart_bad_input_exits_2_with_one_line(capsys, args, needle):
    extra = [] if "--games" in args else ["--games", "50"]
    code, out, err = call(capsys, *args, *extra)
    assert code == 2, (code, err)
    assert needle in err and err.strip().count("\n") == 0 and out == ""


def test_chart_refuses_a_rule_set_without_a_chart(monkeypatch):
    import dataclasses

    from llama_sim.core import ruleset
    from llama_sim.core.errors import UsageError

    toy = dataclasses.replace(ruleset.get_game("lama"), name="toy", chart=None)
    monkeypatch.setitem(ruleset.RULE_SETS, "toy", "tests.toy")
    monkeypatch.setitem(ruleset._LOADED, "toy", toy)
    with pytest.raises(UsageError, match=r"^chart supports .*lama.*, not toy$"):
        C.chart("toy", 2, "smart", games=10)
    assert "toy" not in C.chart_games() and "dice" in C.chart_games()


def test_chart_refuses_to_overwrite_without_force(tmp_path, capsys):
    for option, name in (("--out", "t.csv"), ("--plot", "c.png"), ("--emit-strategy", "mine.py")):
        path = tmp_path / name
        path.write_text("keep me")
        code, out, err = call(capsys, "chart", "-g", "lama", "--games", "50", option, str(path))
        assert code == 2 and "exists; pass --force" in err and path.read_text() == "keep me"


# --------------------------------------------------------------------------------------------
# dice: the roll-or-quit chart of the multi-player phase
# --------------------------------------------------------------------------------------------


def _dice_first_round_exact():
    """Two always_quit players: the token class 0 decisions are exactly the first decision of each
    game (seat 0, score 0, a freshly dealt row h, the full llama row): afterwards every score is at
    least 1. Quitting scores points(h). Rolling (forced), then both quit: three llamas change nothing
    (no token held); a die matching the row makes always_quit discard one card by the lowest legal
    mask (die A, else B, else C), going out scores 0; otherwise it takes the lowest rolled value from
    the full llama row. So per row a sample is points(h) - points(h after the roll), the roll uniform
    over the 216 outcomes. Returns per row points (P(points), E[sample], E[sample^2])."""
    from llama_sim.rulesets import dice as D

    cfg = D.config()
    faces = cfg[1:19].reshape(3, 6)

    def points(row):
        return int(sum(D.PENALTY[c] for c in range(7) if row[c]))

    out = {}
    for h in itertools.product(range(7), repeat=7):
        if sum(h) != 6 or any(h[c] > 5 for c in range(6)):
            continue
        p_row = math.prod(comb(5, h[c]) for c in range(6)) * comb(6, h[6]) / comb(36, 6)
        q = points(h)
        m1 = m2 = 0.0
        for o in range(216):
            f = (faces[0, o // 36], faces[1, (o // 6) % 6], faces[2, o % 6])
            row = list(h)
            if f == (D.LLAMA,) * 3:
                pass
            elif any(row[x] for x in f):
                row[next(x for x in f if row[x])] -= 1
            else:
                row[min(f)] += 1
            sample = q - (0 if sum(row) == 0 else points(row))
            m1 += sample / 216
            m2 += sample * sample / 216
        w, a1, a2 = out.get(q, (0.0, 0.0, 0.0))
        out[q] = (w + p_row, a1 + p_row * m1, a2 + p_row * m2)
    return {k: (w, a1 / w, a2 / w) for k, (w, a1, a2) in out.items()}


def test_dice_always_quit_first_decisions_match_the_exact_roll_value():
    games = 6000
    res = C.chart("dice", 2, "always_quit", games=games, seed=5, threads=2)
    cells = res.cells[(res.cells["chart"] == "pile") & (res.cells["token"] == 0)]
    assert cells["decisions"].sum() == games  # one per game: its first decision
    assert set(cells["bin_low"]) == {7} and (cells["policy_quit_rate"] == 1.0).all()
    exact = _dice_first_round_exact()
    checked = 0
    for row in cells.itertuples():
        w, m, m2 = exact[row.hand_points]
        assert abs(row.decisions / games - w) < 4.5 * math.sqrt(w * (1 - w) / games) + 1e-9, (row, w)
        if row.decisions >= 150:
            assert abs(row.mean_quit_minus_draw - m) < 4.5 * math.sqrt((m2 - m * m) / row.decisions), (row, m)
            checked += 1
    assert checked >= 6


@pytest.mark.parametrize("quit_at", [4, 10, 17])
def test_dice_chart_replays_the_true_state(quit_at):
    # threshold quits exactly when its row points are <= quit_at: the replayed rows (and the decisions
    # found) are the ones the policy saw, or the policy's own choice would not follow the row points.
    res = C.chart("dice", 3, f"threshold:quit_at={quit_at}", games=150, seed=quit_at, threads=1)
    cells = res.cells
    assert len(cells) > 20 and set(cells["answer"]) <= {"Q", "R", "?"}
    low = cells["hand_points"] <= quit_at
    assert (cells.loc[low, "policy_quit_rate"] == 1.0).all()
    assert (cells.loc[~low, "policy_quit_rate"] == 0.0).all()
    assert set(cells["token"]) <= {0, 1, 10}
    pile = cells[cells["chart"] == "pile"]
    assert pile["bin_low"].between(1, 7).all() and (pile["bin_high"] <= 7).all()


def test_dice_chart_same_seed_same_tables_any_threads_and_measures_bounded():
    a = C.chart("dice", 4, games=1200, seed=9, threads=1, measure="win")
    b = C.chart("dice", 4, games=1200, seed=9, threads=2, measure="win")
    pd.testing.assert_frame_equal(a.cells, b.cells)
    assert a.cells["mean_quit_minus_draw"].between(-1, 1).all()
    assert a.policy == "solo_optimal:quit_at=1"


def test_dice_bundled_chart_and_strategy():
    from llama_sim.rulesets import dice as D

    doc = bundled_document("dice")
    assert doc["game"] == "dice" and sorted(int(k) for k in doc["tables"]) == [2, 3, 4, 5, 6]
    table, bin_of, feature = tables_from_document(doc, 2, 6)
    policy = registry.get("dice", "chart").policy
    rng = np.zeros(2, np.uint64)
    params = np.zeros(registry.MAX_PARAMS)
    checked = 0
    for row, others, score in [([0, 1, 0, 0, 2, 0, 1], [3, 6], 0), ([1, 0, 0, 0, 0, 0, 0], [2, 5], 12),
                               ([0, 0, 0, 1, 1, 1, 2], [1, 9], 4), ([1, 1, 1, 1, 1, 1, 1], [6, 6], 23)]:
        obs = np.zeros(D.OBS_LEN, np.int64)
        hand = np.array(row, np.int64)
        legal = (1 << D.ROLL) | (1 << D.QUIT)
        obs[D.OBS_PLAYERS] = 3
        obs[D.OBS_ACTIVE] = 3
        obs[D.OBS_PHASE] = D.PHASE_TURN
        obs[D.OBS_SCORES] = score
        for c in range(7):
            obs[D.OBS_ROWS + c] = row[c]
            obs[D.OBS_LLAMA_ROW + c] = 1 if c < 5 else 0
        for s, size in enumerate(others, start=1):
            obs[D.OBS_ROWS + 7 * s] = size  # that many 1s
        pts = sum(D.PENALTY[c] for c in range(7) if row[c])
        value = min(others) if feature == FEATURE_OPPONENT else 5
        t = TOKENS.index(10 if score >= 10 else (1 if score >= 1 else 0))
        want = D.QUIT if table[1, t, pts, bin_of[value]] else D.ROLL
        assert policy(obs, hand, legal, params, rng) == want
        checked += 1
    assert checked == 4


def test_dice_cli_chart_emits_a_strategy_that_plays(tmp_path, capsys):
    strat = tmp_path / "dice_chart_mine.py"
    plot = tmp_path / "d.png"
    code, stdout, err = call(capsys, "chart", "--game", "dice", "--players", "3", "--games", "300", "--seed", "2",
                             "--emit-strategy", str(strat), "--plot", str(plot), "-q")
    assert code == 0, err
    assert "roll-or-quit decisions" in stdout and "cards left in the llama row" in stdout
    assert "R roll better" in stdout and plot.stat().st_size > 10_000
    res = subprocess.run([sys.executable, "-m", "llama_sim", "compare", "--game", "dice", "--players", "3",
                          "--strategies-file", str(strat), "dice_chart_mine", "keep_llama", "--rounds", "300", "-q",
                          "--format", "json"], capture_output=True, text=True)
    assert res.returncode == 0, res.stderr
    assert {r["strategy"] for r in json.loads(res.stdout)} == {"dice_chart_mine", "keep_llama"}


@pytest.mark.parametrize("args,needle", [
    (["chart", "-g", "dice", "--players", "7"], "2 to 6 players"),
    (["chart", "-g", "dice", "--policy", "nosuch"], "unknown dice strategy 'nosuch'"),
    (["chart", "-g", "dice", "--pile-bins", "3,2"], "increasing"),
])
def test_dice_chart_bad_input_exits_2_with_one_line(capsys, args, needle):
    code, out, err = call(capsys, *args, "--games", "50")
    assert code == 2, (code, err)
    assert needle in err and err.strip().count("\n") == 0 and out == ""


# --------------------------------------------------------------------------------------------
# kadabra: the quit chart (stuck decisions found by stopping the kernel at them)
# --------------------------------------------------------------------------------------------


def _kadabra_fresh_hand_exact():
    """Two always_quit players: nobody ever plays a card, so every round is a fresh deal and the only
    stuck decisions are the round's first actions (the second player is alone: no drawing). On hand h
    (6 of the 60 cards) and top kind t, quitting scores points(h); drawing, then both quit, scores
    points(h + the drawn card), that card uniform over the 53 cards the seat does not see. Computed
    over card kinds (symbols change neither points nor what fits). Returns per hand points (P, E[sample],
    E[sample^2]), a sample being quit - draw."""
    from llama_sim.core.ruleset import get_game
    from llama_sim.rulesets.kadabra import tables as KT

    counts = get_game("kadabra").config()
    kinds = KT.N_KINDS
    per_kind = [int(sum(counts[c] for c in range(KT.N_CODES) if KT.CODE_KIND[c] == k)) for k in range(kinds)]
    rep = [next(c for c in range(KT.N_CODES) if KT.CODE_KIND[c] == k) for k in range(kinds)]

    def points(h):
        values = 0
        for k in range(kinds):
            if h[k]:
                values |= int(KT.KIND_VALUES[k])
        return int(KT.VALUESET_POINTS[values])

    def hands(k, left):  # every multiset of `left` cards over kinds k.. as count tuples
        if k == kinds - 1:
            yield (left,)
            return
        for m in range(left + 1):
            for rest in hands(k + 1, left - m):
                yield (m,) + rest

    out = {}
    for h in hands(0, 6):
        if any(h[k] > per_kind[k] for k in range(kinds)):
            continue
        p_hand = math.prod(comb(per_kind[k], h[k]) for k in range(kinds)) / comb(60, 6)
        pts = points(h)
        for t in range(kinds):
            if per_kind[t] == h[t] or any(h[k] and KT.PLAYABLE[t, rep[k]] for k in range(kinds)):
                continue
            p = p_hand * (per_kind[t] - h[t]) / 54
            m1 = m2 = 0.0
            for k in range(kinds):
                w = (per_kind[k] - h[k] - (t == k)) / 53
                if w:
                    drawn = list(h)
                    drawn[k] += 1
                    sample = pts - points(drawn)
                    m1 += w * sample
                    m2 += w * sample * sample
            a, b1, b2 = out.get(pts, (0.0, 0.0, 0.0))
            out[pts] = (a + p, b1 + p * m1, b2 + p * m2)
    return {k: (w, m1 / w, m2 / w) for k, (w, m1, m2) in out.items()}


def test_kadabra_always_quit_cells_match_the_exact_draw_value():
    res = C.chart("kadabra", 2, "always_quit", games=20000, seed=5, threads=2, pile_edges=(0, 47))
    cells = res.cells[res.cells["chart"] == "pile"]
    assert set(cells["bin_low"]) == {47}  # every decision is a round's first action, 47 cards in the pile
    assert (cells["policy_quit_rate"] == 1.0).all()
    exact = _kadabra_fresh_hand_exact()
    by_pts = cells.groupby("hand_points").apply(
        lambda g: pd.Series({"n": g["decisions"].sum(),
                             "mean": (g["decisions"] * g["mean_quit_minus_draw"]).sum() / g["decisions"].sum()}),
        include_groups=False)
    total_n = by_pts["n"].sum()
    w = sum(v[0] for v in exact.values())
    pooled = (by_pts["n"] * by_pts["mean"]).sum() / total_n
    e_mean = sum(v[0] * v[1] for v in exact.values()) / w
    e_var = sum(v[0] * v[2] for v in exact.values()) / w - e_mean ** 2
    assert abs(pooled - e_mean) < 4.5 * math.sqrt(e_var / total_n), (pooled, e_mean)
    checked = 0
    for pts, row in by_pts.iterrows():
        if row["n"] < 200:
            continue
        wp, m, m2 = exact[pts]
        assert abs(row["n"] / total_n - wp / w) < 4.5 * math.sqrt(wp / w * (1 - wp / w) / total_n)
        assert abs(row["mean"] - m) < 4.5 * math.sqrt((m2 - m * m) / row["n"]), (pts, row, m)
        checked += 1
    assert checked >= 5
    assert set(cells["answer"]) <= {"Q", "?"} and (cells["mean_quit_minus_draw"] <= 0).all()


def test_kadabra_chart_stops_at_the_true_state():
    # threshold quits when stuck only if hand points (+10 with the magic token) <= quit_at: above that it
    # never quits, so a replayed state with other hand points would show up as quits there.
    res = C.chart("kadabra", 3, "threshold:quit_at=9", games=200, seed=3, threads=1)
    cells = res.cells
    high = cells["hand_points"] > 9
    assert high.any() and (cells.loc[high, "policy_quit_rate"] == 0.0).all()
    low = cells[~high]
    assert (low["decisions"] * low["policy_quit_rate"]).sum() > 0.5 * low["decisions"].sum()
    assert set(cells["token"]) <= {0, 1, 10}


def test_kadabra_chart_reproducible_and_bundled_strategy_plays():
    a = C.chart("kadabra", 4, games=300, seed=9, threads=1, measure="win")
    b = C.chart("kadabra", 4, games=300, seed=9, threads=2, measure="win")
    pd.testing.assert_frame_equal(a.cells, b.cells)
    assert a.policy == "showman" and a.cells["mean_quit_minus_draw"].between(-1, 1).all()
    doc = bundled_document("kadabra")
    assert doc["game"] == "kadabra" and sorted(int(k) for k in doc["tables"]) == [2, 3, 4, 5, 6]
    res = subprocess.run([sys.executable, "-m", "llama_sim", "compare", "--game", "kadabra", "--players", "3",
                          "chart", "showman", "--rounds", "300", "-q", "--format", "json"],
                         capture_output=True, text=True)
    assert res.returncode == 0, res.stderr


def test_kadabra_chart_strategy_decides_by_its_table():
    from llama_sim.rulesets.kadabra import tables as KT

    table, bin_of, feature = tables_from_document(bundled_document("kadabra"), 2, 6)
    policy = registry.get("kadabra", "chart").policy
    showman = registry.get("kadabra", "showman").policy
    params = np.zeros(registry.MAX_PARAMS)
    defaults = [p.default for p in registry.get("kadabra", "showman").params]
    params[:len(defaults)] = defaults
    rng = np.zeros(2, np.uint64)
    llama = next(c for c in range(KT.N_CODES) if KT.CODE_KIND[c] == 6)
    six = next(c for c in range(KT.N_CODES) if KT.CODE_KIND[c] == 5)
    for ones, tens, sizes in [(3, 0, (2, 5)), (0, 1, (4, 4)), (0, 0, (1, 7)), (2, 3, (6, 3))]:
        obs = np.zeros(KT.OBS_LEN, np.int64)
        hand = np.zeros(KT.N_CODES, np.int64)
        legal = np.int64((1 << KT.DRAW) | (1 << KT.QUIT))
        obs[KT.OBS_PLAYERS] = 3
        obs[KT.OBS_ACTIVE] = 3
        obs[KT.OBS_PHASE] = KT.PHASE_TURN
        obs[KT.OBS_MAGIC] = KT.MAGIC_POOL
        obs[KT.OBS_DRAW_PILE] = 20
        hand[six] = 1
        hand[llama] = 1  # 6 + 10 = 16 points, nothing fits on a 2
        obs[KT.OBS_HAND_SIZES] = 2
        obs[KT.OBS_HAND_SIZES + 1], obs[KT.OBS_HAND_SIZES + 2] = sizes
        obs[KT.OBS_ONES], obs[KT.OBS_TENS] = ones, tens
        t = 2 if tens else (1 if ones else 0)
        value = min(sizes) if feature == FEATURE_OPPONENT else 20
        want = KT.QUIT if table[1, t, 16, bin_of[value]] else KT.DRAW
        assert policy(obs, hand, legal, params, rng) == want
        legal |= np.int64(1 << six)  # a card fits: showman's play
        assert policy(obs, hand, legal, params, rng) == showman(obs, hand, legal, params, rng)


def test_kadabra_cli_chart_emits_a_strategy_that_plays(tmp_path, capsys):
    strat = tmp_path / "kd_chart_mine.py"
    code, stdout, err = call(capsys, "chart", "--game", "kadabra", "--players", "3", "--games", "200", "--seed", "2",
                             "--format", "json", "--emit-strategy", str(strat), "-q")
    assert code == 0, err
    rows = json.loads(stdout)
    assert rows and {r["game"] for r in rows} == {"kadabra"} and {r["token"] for r in rows} <= {0, 1, 10}
    res = subprocess.run([sys.executable, "-m", "llama_sim", "compare", "--game", "kadabra", "--players", "3",
                          "--strategies-file", str(strat), "kd_chart_mine", "showman", "--rounds", "300", "-q",
                          "--format", "json"], capture_output=True, text=True)
    assert res.returncode == 0, res.stderr
    assert {r["strategy"] for r in json.loads(res.stdout)} == {"kd_chart_mine", "showman"}
