"""Behaviour fingerprints: the JSON of a fixed list of commands, to prove a refactoring changed no number.

    python scripts/fingerprints.py record DIR     # run every command, write DIR/<name>.json
    python scripts/fingerprints.py check DIR      # run them again, compare with DIR (exit 1 on a difference)
    python scripts/fingerprints.py check DIR --only compare-lama advise-dice

Each command is run as ``llamasim ... --format json`` in a subprocess. Fields that measure the machine
rather than the game (timings, versions, paths of temporary folders) are dropped before comparing;
every other value must be identical.
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

# name -> llamasim arguments. Small sizes: the point is every code path with fixed seeds, not precision.
COMMANDS: dict[str, list[str]] = {
    "games": ["games"],
    "strategies": ["strategies"],
    "compare-lama": ["compare", "--game", "lama", "--players", "4", "smart", "greedy", "threshold",
                     "--rounds", "20000", "--seed", "3", "--view", "all"],
    "compare-lama-games": ["compare", "--game", "lama", "--players", "3", "climber", "greedy",
                           "--games", "600", "--seed", "4", "--view", "all"],
    "compare-party": ["compare", "--game", "party", "--players", "5", "chain", "greedy",
                      "--rounds", "15000", "--seed", "5", "--view", "all"],
    "compare-party-variant": ["compare", "--game", "party", "chain", "greedy", "--rounds", "8000", "--seed", "6",
                              "--pink-llama", "plain", "--plus-cards", "plain", "--view", "all"],
    "compare-kadabra": ["compare", "--game", "kadabra", "--players", "4", "showman", "greedy",
                        "--games", "400", "--seed", "7", "--view", "all"],
    "compare-kadabra-deck": ["compare", "--game", "kadabra", "showman", "greedy", "--rounds", "8000", "--seed", "8",
                             "--deck-file", "examples/kadabra_more_symbols.toml", "--magic-show", "off",
                             "--view", "all"],
    "compare-dice": ["compare", "--game", "dice", "--players", "4", "chart", "threshold", "keep_llama",
                     "--rounds", "20000", "--seed", "9", "--view", "all"],
    "compare-dice-layout": ["compare", "--game", "dice", "threshold", "keep_llama", "--games", "400",
                            "--seed", "10", "--dice-layout", "13-25-46", "--view", "all"],
    "simulate-lama": ["simulate", "--game", "lama", "-s", "smart", "-s", "greedy", "-s", "threshold:quit_at=6",
                      "--rounds", "10000", "--seed", "11"],
    "seat-table": ["compare", "--game", "lama", "greedy", "--seat-table", "--rounds", "4000", "--seed", "12",
                   "--view", "all"],
    "league": ["compare", "--game", "dice", "threshold", "keep_llama", "chart", "--league", "--players", "2",
               "--players", "3", "--games", "300", "--seed", "13", "--view", "all"],
    "sweep": ["sweep", "--game", "lama", "--strategy", "threshold", "--param", "quit_at=2:10:4", "--vs", "greedy",
              "--rounds", "6000", "--seed", "14"],
    "tune": ["tune", "--game", "lama", "--strategy", "threshold", "--players", "3", "--vs", "greedy",
             "--budget", "60000", "--metric", "penalty_per_round", "--seed", "15"],
    "advise-lama": ["advise", "--game", "lama", "--hand", "2 2 6 L", "--top", "4", "--hand-sizes", "3,5,1",
                    "--pile", "20", "--scores", "0,12,5,30", "--rollouts", "300", "--seed", "16"],
    "advise-lama-game": ["advise", "--game", "lama", "--hand", "3 5", "--top", "2", "--hand-sizes", "2,4",
                         "--pile", "10", "--scores", "20,12,30", "--horizon", "game", "--rollouts", "100",
                         "--seed", "17"],
    "advise-party": ["advise", "--game", "party", "--hand", "+3 P 5 6", "--top", "2", "--hand-sizes", "4,4",
                     "--pile", "25", "--rollouts", "300", "--seed", "18"],
    "advise-kadabra": ["advise", "--game", "kadabra", "--hand", "L L 3", "--top", "L", "--hand-sizes", "3,5",
                       "--pile", "20", "--stage", "4,1", "--show", "--magic", "me", "--rollouts", "300",
                       "--seed", "19"],
    "advise-kadabra-plain": ["advise", "--game", "kadabra", "--hand", "2/3 1 6", "--top", "1", "--hand-sizes",
                             "4,2,3", "--pile", "15", "--ones", "3,2,5,1", "--tens", "0,1,0,0", "--rollouts", "200",
                             "--seed", "20"],
    "advise-dice": ["advise", "--game", "dice", "--row", "2 5 L", "--rows", "1 2 3;4 4 L", "--rollouts", "300",
                    "--seed", "21"],
    "advise-dice-game": ["advise", "--game", "dice", "--row", "2 5 L", "--rows", "1 2 3;4 4 L", "--horizon", "game",
                         "--rollouts", "100", "--seed", "22"],
    "advise-dice-lone": ["advise", "--game", "dice", "--row", "1 3 L", "--rows", "1 2", "--quit", "1"],
    "chart-lama": ["chart", "--game", "lama", "--players", "3", "--games", "150", "--seed", "23"],
    "chart-dice": ["chart", "--game", "dice", "--players", "3", "--games", "150", "--seed", "24"],
    "chart-kadabra": ["chart", "--game", "kadabra", "--players", "3", "--games", "100", "--seed", "25"],
    "chart-party-win": ["chart", "--game", "party", "--players", "3", "--games", "80", "--measure", "win",
                        "--seed", "26"],
    "solve": ["solve", "dice", "--row", "2 5 L", "--llama-row", "1 2 3 4 5 6 L"],
    "solve-table": ["solve", "dice", "--row", "1 4 L", "--llama-row", "2 3 L", "--table"],
    "spec-run": ["run", "experiments/lama-quit-threshold.toml", "--scale", "0.002", "--out", "{tmp}/spec"],
}

# Keys whose values measure the machine or the moment, not the game.
VOLATILE = {"seconds", "elapsed", "elapsed_s", "time", "timings", "wall_s", "rounds_per_s", "rounds_per_second",
            "decisions_per_s", "started", "finished", "date", "version", "versions", "python", "numba", "numpy",
            "pandas", "platform", "host", "threads", "git_commit", "command", "out", "path", "kernel", "rollouts_per_s"}


def _volatile(key: str) -> bool:
    return key in VOLATILE or key.endswith(("seconds", "_s")) or "per_s" in key


def _clean(value):
    if isinstance(value, dict):
        return {k: _clean(v) for k, v in value.items() if not _volatile(k)}
    if isinstance(value, list):
        return [_clean(v) for v in value]
    return value


def _report_files(folder: Path) -> dict:
    """A report folder's tables and report text, by file name (plots are left out: they carry dates)."""
    out = {}
    for path in sorted(folder.rglob("*")):
        rel = path.relative_to(folder).as_posix()
        if path.suffix == ".csv":
            out[rel] = path.read_text()
        elif path.name == "report.md":  # less the lines naming the command, commit and timings
            out[rel] = "".join(line for line in path.read_text().splitlines(keepends=True)
                               if not line.startswith(("- Command:", "- llama_sim ")))
        elif path.name == "run.json":
            out[rel] = _clean(json.loads(path.read_text()))
    return out


def run(name: str) -> object:
    with tempfile.TemporaryDirectory() as tmp:
        args = [a.replace("{tmp}", tmp) for a in COMMANDS[name]]
        env = dict(os.environ, LLAMA_SIM_KERNEL="generic")
        cmd = [shutil.which("llamasim") or "llamasim", *args, "--format", "json", "--quiet"]
        if args[0] in ("games", "strategies", "solve"):
            cmd.remove("--quiet")
        done = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True)
        if done.returncode != 0:
            raise SystemExit(f"{name}: exit {done.returncode}\n{done.stderr}")
        result = {"stdout": _clean(json.loads(done.stdout)) if done.stdout.strip() else None}
        if args[0] == "run":
            result["files"] = _report_files(Path(tmp) / "spec")
        return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("mode", choices=("record", "check"))
    parser.add_argument("folder", type=Path)
    parser.add_argument("--only", nargs="*", help="Only these fingerprints.")
    args = parser.parse_args()
    names = args.only or list(COMMANDS)
    unknown = sorted(set(names) - set(COMMANDS))
    if unknown:
        raise SystemExit(f"unknown fingerprints: {', '.join(unknown)}")
    args.folder.mkdir(parents=True, exist_ok=True)
    different = []
    for name in names:
        got = run(name)
        path = args.folder / f"{name}.json"
        text = json.dumps(got, indent=1, sort_keys=True) + "\n"
        if args.mode == "record":
            path.write_text(text)
            print(f"recorded {name}", flush=True)
        else:
            same = path.exists() and path.read_text() == text
            print(f"{'same' if same else 'DIFFERENT'} {name}", flush=True)
            if not same:
                different.append(name)
                (args.folder / f"{name}.new.json").write_text(text)
    if different:
        raise SystemExit(f"{len(different)} fingerprints differ: {', '.join(different)} (see *.new.json)")


if __name__ == "__main__":
    main()
