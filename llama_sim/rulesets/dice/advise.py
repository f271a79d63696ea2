"""``advise`` on LAMA Dice: reading a position (every row, the llama row, the discarded cards), its
actions (roll or quit), the roll-out kernel and the exact answer for a player left alone.

Dice has no hidden cards (every row is public, the set-aside cards never come back into play), so a
roll-out only draws dice: the policy stream (seed, i, POLICY) and the dice stream (seed, i, DICE).
Alone (every other player has quit), with the round horizon, the exact solo solver of
``llamasim solve dice`` answers instead, at the acting player's score (the tokens returned after
three llamas and on going out count, as they do in the roll-outs' net score change). The roll-out
kernel calls the game kernel only through ``dice_round``.
"""
from __future__ import annotations

import numpy as np
from numba import njit, types

from llama_sim.core import rng as R
from llama_sim.core.advice import FIRST_SEAT, GAME_STREAM, ExactAnswer, action_phrase, horizon_kernels
from llama_sim.core.scoring import GAME_END_SCORE, MAX_ROUNDS_PER_GAME, accumulate, win_units
from llama_sim.core.errors import UsageError
from llama_sim.core.position import LAST_SCORE, Position, int_list, quit_flags
from llama_sim.core.registry import POLICIES_TYPE
from llama_sim.core.views import copy_into
from llama_sim.rulesets import dice as D
from llama_sim.rulesets.dice.kernel import score_dice_round
from llama_sim.rulesets.dice.solver import parse_cards, solve_solo


@njit(cache=True, nogil=True, inline="always")
def dice_round(n, rows, llama_row, discarded, quit, start, scores, returned, cfg,
               policies, slot_of_entry, params, entry_of_seat, prng, dice_rng, obs, log):
    """-> (end, last_actor)"""
    end, last_actor, _ = D.play_round(n, rows, llama_row, discarded, quit, start, scores, returned, cfg,
                                      policies, slot_of_entry, params, entry_of_seat, prng, dice_rng,
                                      obs, log)
    return end, last_actor


_DICE_DECK = D.DECK  # a plain global: Numba cannot inline through module.ARRAY.method


def _dice_rollouts(cfg, seed, first, count, n, rows0, llama0, discarded0, quit0, scores0,
                   actions, policies, slot_of_entry, params0, first_entries, rest_entries, game_horizon, s1, s2):
    """Roll-outs of a dice position (all public: only the dice are random), every action on each; to the
    game's end unless ``game_horizon`` is None (``horizon_kernels``)."""
    k_actions = actions.shape[0]
    params = params0.copy()
    prng = np.zeros(2, np.uint64)
    dice_rng = np.zeros(2, np.uint64)
    grng = np.zeros(2, np.uint64)
    rows = np.zeros((n, D.N_CODES), np.int64)
    llama_row = np.zeros(D.N_CODES, np.int64)
    discarded = np.zeros(D.N_CODES, np.int64)
    quit = np.zeros(n, np.int64)
    scores = np.zeros(n, np.int64)
    returned = np.zeros(n, np.int64)
    deck = _DICE_DECK.copy()
    obs = np.zeros(D.OBS_LEN, np.int64)
    log = np.zeros((0, 3), np.int64)
    v = np.zeros(3 * k_actions, np.int64)
    forced_entry = first_entries[0]
    for b in range(first, first + count):
        v[:] = 0
        for k in range(k_actions):
            copy_into(rows, rows0)
            copy_into(llama_row, llama0)
            copy_into(discarded, discarded0)
            copy_into(quit, quit0)
            copy_into(scores, scores0)
            returned[:] = 0
            params[forced_entry, params.shape[1] - 1] = actions[k]
            R.seed_state(prng, seed, b, R.POLICY_STREAM)
            R.seed_state(dice_rng, seed, b, R.DICE_STREAM)
            R.seed_state(grng, seed, b, GAME_STREAM)
            start = FIRST_SEAT
            entries = first_entries
            for r in range(MAX_ROUNDS_PER_GAME + 1):  # the position's round, then (game horizon) the game's
                if r > 0:  # (one call of the round: each call site is another copy of it in the compiled code)
                    if game_horizon is None:  # (the round's kernel: the rest is not compiled into it)
                        break
                    top_score = 0
                    for s in range(n):
                        top_score = max(top_score, scores[s])
                    if top_score >= GAME_END_SCORE:
                        break
                    D.deal_round(n, deck, rows, llama_row, discarded, quit, grng)
                    entries = rest_entries
                end, last_actor = dice_round(n, rows, llama_row, discarded, quit, start, scores, returned, cfg,
                                             policies, slot_of_entry, params, entries, prng, dice_rng, obs, log)
                score_dice_round(n, rows, end, last_actor, scores)
                start = last_actor
                if r == 0:
                    v[k] = scores[0] - scores0[0]
                    v[k_actions + k] = 1 if (end == D.END_OUT and last_actor == 0) else 0
                    if game_horizon is None:
                        break
            if game_horizon is not None:
                v[2 * k_actions + k] = win_units(scores, n)[0]
        accumulate(v, s1, s2)


_I64, _I64A, _I64M = types.int64, types.int64[::1], types.int64[:, ::1]
def rollouts_sig(horizon_type):
    """``_dice_rollouts``' signature, its ``game_horizon`` of type ``horizon_type``."""
    return types.void(
        _I64A, types.uint64, _I64, _I64, _I64, _I64M, _I64A, _I64A, _I64A, _I64A,
        _I64A, POLICIES_TYPE, _I64A, types.float64[:, ::1], _I64A, _I64A, horizon_type, _I64A, _I64M)


dice_rollouts = horizon_kernels(_dice_rollouts, rollouts_sig, "advise dice roll-outs")


class DiceAdvice:
    """``advise`` on LAMA Dice (``core.advice.AdviceHooks``)."""

    default_policy = "solo_optimal"
    # The strongest by win rate at each count, from the league (``llamasim report --game dice``,
    # reports/dice-league/tables/league_strongest.csv): chart at 2-5 (0.011 and 0.021 ahead of
    # solo_optimal at 3 and 4, tied with the runner-up at 2 and 5), watcher at 6 (tied with threshold).
    default_policies = {2: "chart", 3: "chart", 4: "chart", 5: "chart", 6: "watcher"}
    rollout_kernel = dice_rollouts
    turn_index = D.OBS_TURN
    position_help = D.POSITION_HELP
    position_keys = tuple(position_help)
    position_flags = D.POSITION_FLAGS
    example = {"row": "2 5 L", "rows": "1 2 3;4 4 L"}

    def deck_counts(self, cfg) -> np.ndarray:
        return D.TOTAL_OF_CODE.copy()

    def make_position(self, deck_counts=None, *, row=None, llama_row=None, rows=None, quit=None, scores=None,
                      discard=None, alone=False) -> Position:
        if row is None:
            raise UsageError('a dice position needs --row (your row, e.g. "2 5 L")')
        try:
            own = parse_cards(str(row))
            lrow = parse_cards(str(llama_row if llama_row is not None else "1 2 3 4 5 6 L"))
            others = [parse_cards(r) for r in str(rows).split(";")] if rows else []
            disc = parse_cards(str(discard)) if discard is not None else np.zeros(D.N_CODES, np.int64)
        except ValueError as exc:
            raise UsageError(str(exc)) from None
        if alone and quit is not None:
            raise UsageError("--alone already says every other player has quit: leave out --quit")
        if alone and not others:
            others = self._quit_rows(own, lrow, disc, scores)
        if not others:
            raise UsageError('--rows: the other players\' rows in turn order after you, ";"-separated (e.g. "1 2;L 4"); '
                             "or --alone when everyone else has quit")
        all_rows = np.array([own] + others, np.int64)
        n = len(all_rows)
        flags = np.array([0] + [1] * (n - 1), np.int64) if alone else quit_flags(quit, n)
        sc = np.array(int_list(scores, "--scores", n, high=LAST_SCORE) if scores is not None else [0] * n, np.int64)
        if own.sum() == 0:
            raise UsageError("the row is empty: that player has gone out, there is nothing to decide")
        if not 2 <= n <= 6:
            raise UsageError(f"{n} players: dice takes 2 to 6 (--rows lists the others)")
        rows_, lrow_, disc_, quit_, _, sc_ = D.check_position(all_rows, lrow, disc, flags, 0, sc)
        return Position(game="dice", n=n, hand=own, quit=quit_, scores=sc_, rows=rows_, llama_row=lrow_,
                        discard=disc_)

    @staticmethod
    def _quit_rows(own, lrow, disc, scores) -> list[np.ndarray]:
        """Rows for the players who quit when ``--alone`` leaves them out: one card each, of the value
        with the most copies left (quit rows never act or score for the acting player, but every seat
        needs a row). As many as ``--scores`` names besides the acting player, else one."""
        n = len(int_list(scores, "--scores", high=LAST_SCORE)) if scores is not None else 2
        if not 2 <= n <= 6:
            raise UsageError(f"{n} players: dice takes 2 to 6 (--scores names everyone, yours first)")
        left = D.TOTAL_OF_CODE - own - lrow - disc
        rows = []
        for _ in range(n - 1):
            code = int(np.argmax(left))
            card = np.zeros(D.N_CODES, np.int64)
            card[code] = 1
            left[code] -= 1
            rows.append(card)
        return rows

    def root_actions(self, pos: Position) -> list[int]:
        return [D.ROLL, D.QUIT]

    def why_illegal(self, pos: Position, name: str) -> str:
        return f"{name} is not allowed in this position"

    def action_key(self, pos: Position, text: str) -> str:
        return text

    def chance_free(self, pos: Position, name: str) -> bool:
        return name == "quit"  # the own row is final; nobody can change it

    def exact_answer(self, pos: Position, names: list[str], cfg, horizon: str) -> ExactAnswer | None:
        """Alone with the round horizon: ``solve dice``'s exact values at the player's score (the rest
        of the round's points less the tokens returned after three llamas and on going out)."""
        if horizon != "round" or pos.players_in != 1:
            return None
        layout = D.LAYOUT_NAMES[int(cfg[0])]
        score = int(pos.scores[0])
        v = solve_solo(pos.hand, pos.llama_row, layout, score=score)
        values = {"roll": float(v.roll_value), "quit": float(v.quit_value)}
        summary = (f"Alone, solved exactly (as `llamasim solve dice --score {score}`, token returns counted): "
                   f"quit {values['quit']:.4f}, roll on {values['roll']:.4f}")
        return ExactAnswer({a: values[a] for a in names}, v.best_action, summary, ["optimal"],
                           [f"dice layout {layout}"])

    def options_text(self, obs, hand) -> str:
        """The ``advise`` options of what the acting seat of ``obs`` sees, at the start of a turn (roll or
        quit: what advise answers); "" for a decision after a roll (which dice to discard, which card to
        take), which advise does not take."""
        if obs[D.OBS_PHASE] != D.PHASE_TURN:
            return ""
        n, me = int(obs[D.OBS_PLAYERS]), int(obs[D.OBS_SEAT])
        others = [(me + k) % n for k in range(1, n)]
        cards = lambda counts: " ".join(("L" if c == D.LLAMA else str(c + 1)) for c in range(D.N_CODES)
                                        for _ in range(int(counts[c])))
        row_of = lambda s: obs[D.OBS_ROWS + D.N_CODES * s: D.OBS_ROWS + D.N_CODES * (s + 1)]
        llama_row = obs[D.OBS_LLAMA_ROW: D.OBS_LLAMA_ROW + D.N_CODES]
        discarded = obs[D.OBS_DISCARDED: D.OBS_DISCARDED + D.N_CODES]
        parts = [f'--row "{cards(hand)}"', f'--llama-row "{cards(llama_row)}"',
                 '--rows "' + ";".join(cards(row_of(s)) for s in others) + '"']
        quit = [str(k + 1) for k, s in enumerate(others) if obs[D.OBS_QUIT + s]]
        if quit:
            parts.append("--quit " + ",".join(quit))
        if discarded.sum():
            parts.append(f'--discard "{cards(discarded)}"')
        scores = [int(obs[D.OBS_SCORES + s]) for s in [me] + others]
        if any(scores):
            parts.append("--scores " + ",".join(map(str, scores)))
        return "--game dice " + " ".join(parts)

    def rollout_runner(self, pos, actions, line, game_horizon, seed, cfg):
        kernel, game = dice_rollouts.compiled(game_horizon)
        n = pos.n

        def run(first, count, s1, s2):
            kernel(cfg, seed, first, count, n, pos.rows, pos.llama_row, pos.discard, pos.quit, pos.scores,
                   actions, line.policies, line.slot_of_entry, line.params, line.first_entries,
                   line.rest_entries, game, s1, s2)
        return run

    def phrase(self, name: str) -> str:
        return action_phrase(name, {"roll": "rolling", "quit": "quitting"})


ADVICE = DiceAdvice()
