"""L.A.M.A.'s quit chart: the shedding family's collector (``rulesets/shedding/chart.py``) on its deck
and tables."""
from __future__ import annotations

from llama_sim.rulesets.lama.engine import CAN_PLAY, CODE_PENALTY, DECK, EXTRA_TURN, FLAGS, TWINS
from llama_sim.rulesets.shedding.chart import chart_rules, collect_games


def _collect(seed, first_game, n_games, n, policies, params, measure, pile_bin, opp_bin, acc_pile, acc_opp):
    collect_games(DECK, CAN_PLAY, EXTRA_TURN, CODE_PENALTY, TWINS, FLAGS,
                  seed, first_game, n_games, n, policies, params, measure, pile_bin, opp_bin, acc_pile, acc_opp)


CHART = chart_rules(_collect, "lama", "L.A.M.A.", default_policy="smart")
