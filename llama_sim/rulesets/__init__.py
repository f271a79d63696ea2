"""The rule sets, one folder each (plus ``shedding``, the engine the card games share). Generic code
reaches a rule set only through ``llama_sim.core.ruleset``."""
