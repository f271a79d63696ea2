"""``advise`` on the Party Edition: the shedding games' advisor on the rulebook's cards (variants
are not advised); roll-outs play ``chain`` unless told otherwise. ``P`` or ``pink`` is the pink llama."""
from llama_sim.rulesets.party import ADVICE_EXAMPLE, RULES
from llama_sim.rulesets.shedding.advise import SheddingAdvice

ADVICE = SheddingAdvice(RULES, default_policy="chain", card_aliases={"llama": "l", "pink": "p"},
                        example=ADVICE_EXAMPLE)
