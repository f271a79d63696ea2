# md: # The Python API
# md:
# md: Every command is a function of `llama_sim` with the same arguments, returning a result whose
# md: attributes are tidy pandas DataFrames and whose `plot()` is a matplotlib Figure. Built into
# md: `python-api.ipynb` by `scripts/build_docs.py`, outputs included.
# %%
import llama_sim

r = llama_sim.compare("lama", ["climber", "smart", "greedy"], players=4, games=4000, seed=1, quiet=True)
r.paired[["metric", "strategy_a", "strategy_b", "diff", "ci_low", "ci_high", "p_holm"]]
# %%
# md: The same numbers as `llamasim compare --game lama --players 4 climber smart greedy --games 4000 --seed 1`.
# md: Every table is long and tidy: one row per strategy and metric.
# %%
r.ranking[["metric", "rank", "strategy", "value", "ci_low", "ci_high"]]
# %%
# md: ## When should I quit?
# %%
a = llama_sim.advise("lama", hand="2 2 6 L", top="4", hand_sizes="3,5,1", pile=20, scores="0,12,5,30", seed=1)
print(a.sentence)
a.table[["action", "metric", "value", "ci_low", "ci_high"]]
# %%
# md: ## A sweep, and its plot
# %%
s = llama_sim.sweep("lama", "threshold", "quit_at=0:12:2", vs=["greedy"], players=4, rounds=40_000, seed=1,
                    quiet=True)
fig = s.plot()
fig.savefig("/tmp/llamasim-sweep.png")
s.best
# %%
# md: ## How far from good play
# %%
g = llama_sim.grade("lama", ["greedy", "climber"], players=4, decisions=300, rollouts=60, seed=1)
g.table[g.table.decision == ""][["strategy", "metric", "value", "ci_low", "ci_high"]]
