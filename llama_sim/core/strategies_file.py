"""What a strategies file (``--strategies-file``) may use: nothing that prints or writes.

Why: a policy's compiled code prints to the terminal with no prefix, so its text could pass for
llamasim's own messages (and it would print at every one of millions of decisions), and anything it
writes to stdout breaks ``--format json``, which is one JSON document. Errors a policy raises are
reported as the strategy's own (``registry.failed_while_playing``); every other way out is refused when
the file is loaded, with one line naming the file and the line, before any of it runs.

The rule, checked on the file's syntax tree (the very tree that then runs):

- it imports from ``IMPORTS`` only (what a strategy is written with), never from ``REFUSED`` (their
  parts that write files or reach the compiler's internals), never ``*``; a module it reaches through
  another (``from llama_sim.core.registry import sys``, ``np.lib``) counts as imported, and a module is
  only used for its attributes, never passed on or changed;
- it uses no built-in that prints, reads, runs text as code or looks a name up as text, ends the
  process or poses as Ctrl-C (``REFUSED_BUILTINS``), no name of the interpreter's own (``__import__``,
  ``__builtins__``), no private attribute (``._x``, ``.__class__``) and no attribute that prints, writes
  or raises the engine's own reports (``REFUSED_ATTRIBUTES``: ``.write``, ``.stdout``, NumPy's ``savetxt``,
  Numba's ``objmode``, ...).
"""
from __future__ import annotations

import ast
import importlib
import inspect
from pathlib import Path

from llama_sim.core.errors import UsageError
from llama_sim.core.moved import new_name

IMPORTS = ("__future__", "math", "numpy", "numba", "llama_sim.core.registry", "llama_sim.core.rng",
           "llama_sim.core.scoring", "llama_sim.core.views", "llama_sim.core.kit", "llama_sim.core.expert", "llama_sim.core.chart_data",
           "llama_sim.rulesets", "llama_sim.strategies")
REFUSED = ("numpy.ctypeslib", "numpy.lib", "numpy.testing", "numpy.distutils", "numpy.f2py", "numba.core",
           "numba.extending", "numba.experimental", "numba.misc", "numba.cuda", "numba.pycc", "numba.tests")
ALSO = ("numba.core.types",)  # (``from numba import types``: Numba's types live in numba.core)
REFUSED_BUILTINS = {"print", "open", "input", "help", "breakpoint", "exec", "eval", "compile", "getattr", "setattr",
                    "delattr", "globals", "locals", "vars", "SystemExit", "KeyboardInterrupt", "BaseException",
                    "GeneratorExit"}
REFUSED_ATTRIBUTES = {"print", "printf", "debug_print", "write", "writelines", "write_text", "write_bytes", "open",
                      "stdout", "stderr", "tofile", "dump", "savetxt", "save", "savez", "savez_compressed",
                      "show_config", "show_runtime", "info", "disp", "source", "lookfor", "memmap", "seterr",
                      "seterrcall", "errstate", "objmode", "gdb", "gdb_init", "gdb_breakpoint", "inspect_types",
                      "parallel_diagnostics", "ctypes", "ctypeslib", "cffi", "ffi", "system", "popen",
                      "raise_stop", "check_stop"}  # (the last two: the engine's reports, which a policy
# raising them would forge)
RANDOM = ("random", "secrets", "numpy.random", "numba.np.random")  # random numbers outside the policy's rng
RNG_HELPERS = ("draw from the policy's own rng argument with the rng helpers instead (uniform, randint, below, "
               "pick_legal from llama_sim.rulesets.<game>.kit), so one --seed gives one result")
NAMES = {"llama_sim": {"strategy"}}  # names a package gives that are not modules of it
DUNDER_NAMES = {"__name__", "__doc__", "__file__", "__all__"}  # harmless ones a module may use
WHY = ("a strategy may not print or write, nor reach what does (its text could pass for llamasim's output): "
       "return actions, or call the policy from Python to inspect it")
ONLY = f"a strategies file imports only from {', '.join(IMPORTS[1:])}"


def _within(module: str, roots) -> bool:
    return any(module == r or module.startswith(r + ".") for r in roots)


def _importable(module: str) -> bool:
    return _within(module, ALSO) or _within(module, IMPORTS) and not _within(module, REFUSED)


def _on_the_way(module: str) -> bool:
    """A package above an importable module (``llama_sim.core``): passed through, never taken from."""
    return any(r.startswith(module + ".") for r in IMPORTS)


def _module(name: str):
    try:
        return importlib.import_module(name)
    except Exception:  # (the file's own import fails the same way when it runs, and says so)
        return None


def check_source(path: Path, source: bytes) -> ast.Module:
    """The syntax tree of ``source`` (the file ``path``), or ``UsageError`` naming the first line that
    breaks the rule (a SyntaxError as Python's ``compile`` raises it)."""
    tree = ast.parse(source, filename=str(path))
    modules: dict[str, str] = {}  # a name the file binds to a module -> that module's name

    def refuse(node, what: str):
        raise UsageError(f"strategies file {path}: line {node.lineno} {what}; {WHY}")

    def not_random(node, module: str):
        if _within(module, RANDOM):
            raise UsageError(f"strategies file {path}: line {node.lineno} uses {module}, whose numbers do not "
                             f"follow --seed (two runs with one seed would differ); {RNG_HELPERS}")

    def take(node, module: str, name: str) -> str | None:
        """``module.name`` as the file takes it, by an import or an attribute: refused unless ``module``
        may be used; the module it is, if one (which must be importable too), else None."""
        full = f"{module}.{name}"
        if new_name(full):  # an old path (``llama_sim.registry``): the module it now is
            module, _, name = new_name(full).rpartition(".")
            full = f"{module}.{name}"
        not_random(node, full)
        if name in NAMES.get(module, ()):
            return None
        if name.startswith("_") or name in REFUSED_ATTRIBUTES or name in REFUSED_BUILTINS:
            refuse(node, f"uses {full}")
        if _importable(module):
            value = getattr(_module(module), name, None)
            if value is None and _importable(full):  # (a submodule not imported yet)
                value = _module(full)
        elif _on_the_way(module) and (_importable(full) or _on_the_way(full)):
            value = _module(full)
        else:
            refuse(node, f"uses {full}")
        if not inspect.ismodule(value):
            return None
        if not (_importable(value.__name__) or _on_the_way(value.__name__)):
            refuse(node, f"uses {full}" + (f", the module {value.__name__}" if value.__name__ != full else "")
                   + f" ({ONLY})")
        return value.__name__

    for node in ast.walk(tree):  # imports first: a module may be used above its import (in a function)
        if isinstance(node, ast.Import):
            for alias in node.names:
                name = new_name(alias.name) or alias.name  # (an old path: checked as the module it is)
                not_random(node, name)
                if not (_importable(name) or _on_the_way(name)):
                    refuse(node, f"imports {alias.name} ({ONLY})")
                bound = alias.asname or alias.name.split(".")[0]
                modules[bound] = name if alias.asname else bound
        elif isinstance(node, ast.ImportFrom):
            module = "." * node.level + (new_name(node.module or "") or node.module or "")
            not_random(node, module)
            if node.level or not (_importable(module) or _on_the_way(module)):
                refuse(node, f"imports from {module} ({ONLY})")
            for alias in node.names:
                if alias.name == "*":
                    refuse(node, f"imports * from {module}")
                target = take(node, module, alias.name)
                if target is not None:
                    modules[alias.asname or alias.name] = target
    parents = {child: node for node in ast.walk(tree) for child in ast.iter_child_nodes(node)}
    for node in ast.walk(tree):
        if isinstance(node, ast.Name):
            if node.id in REFUSED_BUILTINS or node.id.startswith("__") and node.id not in DUNDER_NAMES:
                refuse(node, f"uses {node.id}")
            parent = parents.get(node)
            if node.id in modules and not (isinstance(parent, ast.Attribute) and parent.value is node):
                refuse(node, f"uses the module {modules[node.id]} as a value")
        elif isinstance(node, ast.Attribute):
            if node.attr.startswith("_") or node.attr in REFUSED_ATTRIBUTES:
                refuse(node, f"uses {ast.unparse(node)[:80]}")
            chain, root = [], node
            while isinstance(root, ast.Attribute):
                chain.insert(0, root.attr)
                root = root.value
            if isinstance(root, ast.Name) and root.id in modules:  # a module's attributes: as if imported
                if not isinstance(node.ctx, ast.Load):
                    refuse(node, f"changes {ast.unparse(node)[:80]}")
                module = modules[root.id]
                for name in chain:
                    module = take(node, module, name)
                    if module is None:
                        break
    return tree
