"""``advise`` on L.A.M.A.: the shedding games' advisor on L.A.M.A.'s rules; roll-outs play ``smart``
unless told otherwise."""
from llama_sim.rulesets.lama import RULES
from llama_sim.rulesets.shedding.advise import SheddingAdvice

ADVICE = SheddingAdvice(RULES, default_policy="smart", card_aliases={"llama": "l"},
                        example={"hand": "2 2 6 L", "top": "4", "hand_sizes": "3,5,1", "pile": 20})
