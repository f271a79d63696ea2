"""``advise`` on L.A.M.A.: the shedding games' advisor on L.A.M.A.'s rules; roll-outs play the
strongest strategy at the table's player count unless told otherwise."""
from llama_sim.rulesets.lama import ADVICE_EXAMPLE, RULES
from llama_sim.rulesets.shedding.advise import SheddingAdvice

# The strongest strategy by win rate at each count, from the league (``llamasim report --game lama``,
# reports/lama-league/tables/league_strongest.csv): threshold at 2 players (0.013 [0.011, 0.015] ahead of
# chart), climber at 3 (tied with smart) and 4-6 (0.013 to 0.025 ahead).
ADVICE = SheddingAdvice(RULES, default_policy="smart", card_aliases={"llama": "l"}, example=ADVICE_EXAMPLE,
                        default_policies={2: "threshold", 3: "climber", 4: "climber", 5: "climber", 6: "climber"})
