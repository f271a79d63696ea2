"""The variants step: the same strategies on the same deals under the rulebook and under each rule
variant; its answer, table and rankings come from ``llama_sim.analysis.variants``."""
from __future__ import annotations

from llama_sim.analysis.variants import BASELINE, compare_variants, conclude_variants, display_variants, ranking_table
from llama_sim.core.words import metric_words
from llama_sim.present.spec import Spec
from llama_sim.present.steps.common import StepKind, headline, metric_keys, size
from llama_sim.present.terms import metric_terms


def _run_variants(spec: Spec, args: dict, quiet: bool) -> list:
    rest = {k: v for k, v in args.items() if k not in ("strategies", "variants", "players")}
    return [compare_variants(spec.game, args["strategies"], args["variants"], players=args["players"],
                             seed=spec.seed, quiet=quiet, strategies_file=spec.strategies_file, **rest,
                             **spec.options)]


def _method_variants(args: dict, results: list) -> str:
    return (f"The same strategies on the same deals under the rulebook and under each variant, {size(args, results)} per "
            f"player count.")


def _terms_variants(results: list) -> list[str]:
    return ["interval", "rulebook", "effect", "tied", "games"] + metric_terms(metric_keys(results[0].effects))


def _sections_variants(results: list) -> list:
    text = (f"The strategies in order under the {BASELINE} and under each variant, best first by "
            f"{metric_words(headline(results[0].ranking.metric))}: a > b means a is clearly ahead, a ~ b that "
            f"the data do not separate them.")
    return [("Rankings", text, ranking_table(results[0]))]


KIND = StepKind(run=_run_variants, tables=("results", "effects", "ranking"),
                conclude=lambda results: conclude_variants(results[0]),
                display=lambda results: display_variants(results[0]), method=_method_variants,
                answers_on=lambda results: {"penalty_per_round", "win_rate"}, terms=_terms_variants,
                sections=_sections_variants)
