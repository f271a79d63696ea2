"""The package's shape: imports only go down the layers, no import cycle, no private name taken from
another module, and no generic module names a rule set or one of its options.

Imports inside functions count like any other: a deferred import is not a way out of a cycle.
"""
from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "llama_sim"
# Lowest first. A module may import from its own layer (without a cycle) or from a lower one.
LAYERS = ("core", "rulesets", "strategies", "run", "analysis", "present", "api", "cli", "top")


def rule_set_words() -> dict[str, str]:
    """Every registered rule set's name, and each of its options' names and flags -> what it is."""
    from llama_sim.core.ruleset import all_games, option_flag

    words = {}
    for rule_set in all_games().values():
        words[rule_set.name] = "the rule set"
        for option in rule_set.options:
            words[option] = words[option_flag(option)] = f"an option of {rule_set.name}"
    return words


def modules() -> dict[str, Path]:
    found = {}
    for path in PACKAGE.rglob("*.py"):
        parts = list(path.relative_to(ROOT).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        found[".".join(parts)] = path
    for path in (ROOT / "strategies").glob("*.py"):
        name = "llama_sim.strategies" if path.stem == "__init__" else f"llama_sim.strategies.{path.stem}"
        found[name] = path
    return found


def layer(module: str) -> int:
    parts = module.split(".")
    if len(parts) == 1 or parts[1] in ("__main__",):
        return LAYERS.index("top")
    return LAYERS.index(parts[1]) if parts[1] in LAYERS else LAYERS.index("top")


def imports(module: str, path: Path, known: dict[str, Path]) -> list[tuple[str, list[str], int]]:
    """(imported module, names taken from it, line) for every import of a package module."""
    is_package = path.name == "__init__.py"
    package = module if is_package else module.rpartition(".")[0]
    out = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                source = ".".join(base + ([node.module] if node.module else []))
            else:
                source = node.module or ""
            if not source.startswith("llama_sim"):
                continue
            plain = []
            for alias in node.names:
                if f"{source}.{alias.name}" in known:
                    out.append((f"{source}.{alias.name}", [], node.lineno))
                else:
                    plain.append(alias.name)
            if plain:
                out.append((source, plain, node.lineno))
        elif isinstance(node, ast.Import):
            out += [(a.name, [], node.lineno) for a in node.names if a.name.startswith("llama_sim")]
    return out


def graph() -> dict[str, list[tuple[str, list[str], int]]]:
    known = modules()
    return {m: [(t, names, line) for t, names, line in imports(m, p, known) if t in known and t != m]
            for m, p in known.items()}


def test_imports_go_down_the_layers():
    wrong = [f"{m}:{line} imports {t}" for m, edges in graph().items() for t, _, line in edges
             if layer(t) > layer(m) and not t.startswith(m + ".")]
    assert not wrong, "\n".join(wrong)


def test_no_import_cycle():
    edges = {m: sorted({t for t, _, _ in e if not t.startswith(m + ".")}) for m, e in graph().items()}
    state: dict[str, int] = {}
    cycles = []

    def visit(node: str, stack: list[str]) -> None:
        state[node] = 1
        for nxt in edges.get(node, []):
            if state.get(nxt) == 1:
                cycles.append(" -> ".join(stack[stack.index(nxt):] + [nxt]))
            elif nxt not in state:
                visit(nxt, stack + [nxt])
        state[node] = 2

    for node in sorted(edges):
        if node not in state:
            visit(node, [node])
    assert not cycles, "\n".join(cycles)


def test_no_private_name_of_another_module():
    taken = [f"{m}:{line} takes {', '.join(n for n in names if n.startswith('_'))} from {t}"
             for m, edges in graph().items() for t, names, line in edges if any(n.startswith("_") for n in names)]
    assert not taken, "\n".join(taken)


def _docstrings(tree: ast.AST) -> set[int]:
    ids = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                ids.add(id(first.value))
    return ids


def test_generic_code_never_names_a_rule_set_or_its_options():
    """Outside ``llama_sim/rulesets/`` and the strategy library, no string literal is a registered rule set's
    name or the name or flag of one of its options: generic code asks the rule set instead."""
    words = rule_set_words()
    assert {"lama", "dice_layout", "--dice-layout"} <= set(words)  # (read from the registry)
    named = []
    for module, path in modules().items():
        if module.startswith(("llama_sim.rulesets", "llama_sim.strategies")):
            continue
        tree = ast.parse(path.read_text())
        docs = _docstrings(tree)
        for node in ast.walk(tree):
            if isinstance(node, ast.Constant) and node.value in words and id(node) not in docs:
                named.append(f"{module}:{node.lineno} names {node.value!r}, {words[node.value]}")
    assert not named, f"{len(named)} rule-set words in generic code:\n" + "\n".join(named)


def test_generic_code_never_imports_a_rule_set():
    """Outside ``llama_sim/rulesets/`` and the strategy library, nothing imports a rule set's package:
    what generic code needs of a rule set is a field of its ``RuleSet``."""
    importing = [f"{m}:{line} imports {t}" for m, edges in graph().items() for t, _, line in edges
                 if t.startswith("llama_sim.rulesets.") and not m.startswith(("llama_sim.rulesets", "llama_sim.strategies"))]
    assert not importing, "\n".join(importing)
