"""``advise`` on the Party Edition: the shedding games' advisor on the rulebook's cards (variants
are not advised); roll-outs play the strongest strategy at the table's player count unless told
otherwise. ``P`` or ``pink`` is the pink llama."""
from llama_sim.rulesets.party import ADVICE_EXAMPLE, RULES
from llama_sim.rulesets.shedding.advise import SheddingAdvice

# The strongest strategy by win rate at each count, from the league (``llamasim report --game party``,
# reports/party-league/tables/league_strongest.csv): chart at 2 players (0.011 [0.008, 0.013] ahead of
# threshold), climber at 3 (tied with chain) and 4-6 (0.011 to 0.020 ahead of chain).
ADVICE = SheddingAdvice(RULES, default_policy="chain", card_aliases={"llama": "l", "pink": "p"},
                        example=ADVICE_EXAMPLE,
                        default_policies={2: "chart", 3: "climber", 4: "climber", 5: "climber", 6: "climber"})
