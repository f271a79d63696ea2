"""llama_sim: Monte Carlo strategy analyser for the L.A.M.A. family of games."""
