"""``advise`` on L.A.M.A.: the shedding games' advisor on L.A.M.A.'s rules; roll-outs play ``smart``
unless told otherwise."""
from llama_sim.rulesets.lama import ADVICE_EXAMPLE, RULES
from llama_sim.rulesets.shedding.advise import SheddingAdvice

ADVICE = SheddingAdvice(RULES, default_policy="smart", card_aliases={"llama": "l"}, example=ADVICE_EXAMPLE)
