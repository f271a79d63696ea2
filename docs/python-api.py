# md: # The Python API
# md:
# md: Every command is a function of `llama_sim` with the same arguments, returning a result whose
# md: attributes are tidy pandas DataFrames and whose `plot()` is a matplotlib Figure. Built into
# md: `python-api.ipynb` by `scripts/build_docs.py`, outputs included; run as a script
# md: (`python docs/python-api.py`) it prints the same, and writes its one plot into the working folder.
# %%
import llama_sim

r = llama_sim.compare("lama", ["climber", "smart", "greedy"], players=4, games=4000, seed=1, quiet=True)
print(r.paired[["metric", "strategy_a", "strategy_b", "diff", "ci_low", "ci_high", "p_holm"]].to_string())
# %%
# md: The same numbers as `llamasim compare --game lama --players 4 climber smart greedy --games 4000 --seed 1`.
# md: Every table is long and tidy: one row per strategy and metric.
# %%
print(r.ranking[["metric", "rank", "strategy", "value", "ci_low", "ci_high"]].to_string())
# %%
# md: ## When should I quit?
# md:
# md: One position (`advise`); `table_line()` is the table it assumed, `played()` who played the roll-outs.
# %%
a = llama_sim.advise("lama", hand="2 2 6 L", top="4", hand_sizes="3,5,1", pile=20, scores="0,12,5,30", seed=1)
print(a.table_line())
print(a.played())
print(a.sentence)
print(a.table[["action", "metric", "value", "ci_low", "ci_high"]].to_string())
# %%
# md: A rule to carry to the table (`card`; the shipped cards are in `reports/cards/`). A small search
# md: here (2,000 games per candidate rule), so its figures are rough.
# %%
c = llama_sim.card("lama", players=4, games=2000, seed=1)
print(c.text())
# %%
# md: ## A sweep, and its plot
# %%
s = llama_sim.sweep("lama", "threshold", "quit_at=0:12:2", vs=["greedy"], players=4, rounds=40_000, seed=1,
                    quiet=True)
s.plot().savefig("llamasim-sweep.png")  # into the working folder
print("wrote llamasim-sweep.png")
print(s.best.to_string())
# %%
# md: ## How far from good play
# %%
g = llama_sim.grade("lama", ["greedy", "climber"], players=4, decisions=300, rollouts=60, seed=1)
print(g.table[g.table.decision == ""][["strategy", "metric", "value", "ci_low", "ci_high"]].to_string())
