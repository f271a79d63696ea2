"""The strategy library: one module per rule set (``lama.py``, ``party.py``, ...).

Each module registers plain policy functions with ``llama_sim.core.registry.strategy``; the registry
compiles them lazily. Shared building blocks for policies live in ``_helpers.py``.
"""
