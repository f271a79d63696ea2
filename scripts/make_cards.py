"""Make the quit rule cards shipped in reports/cards/ (``llamasim card`` for every rule set with a quit
chart and every player count), and their index, reports/cards/README.md.

    nice -n 10 python scripts/make_cards.py            # every card (about an hour on one core), then the index
    python scripts/make_cards.py --index-only          # the index from the cards there

Each card: <game>-<N>p.txt (what the command prints), .png (one page), .html, and -candidates.csv
(every rule tried). Sizes: 50,000 games per candidate rule (dice, whose games take several times as
long: 20,000; compare rounds up to whole deal blocks), the card's figures from four times as many
fresh games.
"""
from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
FOLDER = ROOT / "reports" / "cards"
GAMES = ("lama", "party", "kadabra", "dice")
COUNTS = (2, 3, 4, 5, 6)
GAMES_PER_RULE = {"dice": 20_000}  # else 50,000
TITLES = {"lama": "L.A.M.A.", "party": "L.A.M.A. Party", "kadabra": "Llama Kadabra", "dice": "LAMA Dice"}


def make(game: str, players: int) -> None:
    stem = FOLDER / f"{game}-{players}p"
    cmd = [sys.executable, "-m", "llama_sim", "card", "--game", game, "--players", str(players), "--games",
           str(GAMES_PER_RULE.get(game, 50_000)),
           "--seed", "1", "--threads", "1", "-q", "--plot", f"{stem}.png", "--html", f"{stem}.html",
           "--out", f"{stem}-candidates.csv", "--force"]
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    stem.with_suffix(".txt").write_text("".join(x + "\n" for x in out.splitlines() if not x.startswith("wrote ")))


def index() -> str:
    rows = ["# Quit rule cards", "",
            "One rule per table that a player can carry: the simplest rule found that wins (about) as often as the "
            "full win-valued quit chart, with its measured cost against the chart and against the strongest "
            "strategy at that player count. Made by `python scripts/make_cards.py` (`llamasim card --game G "
            "--players N`); how a card is found: `llama_sim/analysis/card.py`.", "",
            "| game | players | rule | against the chart (win rate, percentage points) | card |", "|---|---|---|---|---|"]
    for game in GAMES:
        for n in COUNTS:
            path = FOLDER / f"{game}-{n}p.txt"
            if not path.exists():
                continue
            text = path.read_text()
            rule = " ".join(x.strip() for x in text.split("\n\n")[1].splitlines())
            against = re.search(r"Against the chart: .*?: ([+-][\d.]+ percentage points \[[^\]]+\])", text).group(1)
            rows.append(f"| {TITLES[game]} | {n} | {rule} | {against.replace(' percentage points', '')} | "
                        f"[text]({path.name}), [page]({game}-{n}p.png), [html]({game}-{n}p.html) |")
    return "\n".join(rows) + "\n"


if __name__ == "__main__":
    if "--index-only" not in sys.argv[1:]:
        FOLDER.mkdir(parents=True, exist_ok=True)
        for g in GAMES:
            for n in COUNTS:
                make(g, n)
    (FOLDER / "README.md").write_text(index())
