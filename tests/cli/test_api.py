"""The Python API (llama_sim.simulate, compare, seat_table, sweep, solve) against the CLI's JSON for
the same arguments, and the plots of each result."""
import json
import subprocess
import sys
import xml.etree.ElementTree as ET

import pandas as pd
import pytest

import llama_sim
from llama_sim.cli import main
from llama_sim.core.output import to_json

PNG = b"\x89PNG\r\n\x1a\n"


def cli_json(capsys, *args):
    try:
        main(list(args) + ["--format", "json"] + ([] if args[0] == "solve" else ["-q"]))
        code = 0
    except SystemExit as exc:
        code = exc.code or 0
    out, err = capsys.readouterr()
    assert code == 0, err
    return json.loads(out)


def same(df: pd.DataFrame, rows) -> None:
    """Identical values: the API's table serialised like the CLI's equals the CLI's document."""
    assert json.loads(to_json(df)) == rows


def test_import_is_lazy():
    code = ("import sys, llama_sim; assert 'pandas' not in sys.modules, 'pandas'; "
            "assert 'llama_sim.api' not in sys.modules; f = llama_sim.compare; assert 'llama_sim.api' in sys.modules")
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert res.returncode == 0, res.stderr


def test_simulate_matches_cli(capsys):
    rows = cli_json(capsys, "simulate", "-g", "lama", "-s", "smart", "-s", "greedy", "-s", "greedy",
                    "--rounds", "3000", "--seed", "3")
    r = llama_sim.simulate("lama", ["smart", "greedy", "greedy"], rounds=3000, seed=3, quiet=True)
    same(r.results, rows)
    assert type(r.plot()).__name__ == "Figure"


def test_compare_matches_cli(capsys):
    doc = cli_json(capsys, "compare", "-g", "lama", "-p", "3", "smart", "greedy", "--rounds", "3000",
                   "--seed", "2", "--view", "all")
    r = llama_sim.compare("lama", ["smart", "greedy"], players=3, rounds=3000, seed=2, quiet=True)
    for name in ("results", "paired", "ranking"):
        same(getattr(r, name), doc[name])
    assert {k: v for k, v in r.run.items() if k != "tables"} == {k: v for k, v in doc["run"].items() if k != "tables"}


def test_compare_games_mode_matches_cli(capsys):
    doc = cli_json(capsys, "compare", "-g", "party", "chain", "greedy", "-p", "2", "--games", "40",
                   "--seed", "5", "--view", "all", "--metric", "win_rate")
    r = llama_sim.compare("party", ["chain", "greedy"], players=2, games=40, seed=5, metrics=["win_rate"], quiet=True)
    for name in ("results", "paired", "ranking"):
        same(getattr(r, name), doc[name])


def test_seat_table_matches_cli(capsys):
    doc = cli_json(capsys, "compare", "-g", "lama", "--seat-table", "greedy", "-p", "3", "--rounds", "2000",
                   "--view", "all")
    r = llama_sim.seat_table("lama", "greedy", players=3, rounds=2000, quiet=True)
    same(r.results, doc["results"])
    same(r.seats, doc["seats"])


def test_sweep_matches_cli(capsys):
    rows = cli_json(capsys, "sweep", "-g", "lama", "--strategy", "threshold", "--param", "quit_at=2:8:3",
                    "--vs", "greedy", "--rounds", "3000")
    r = llama_sim.sweep("lama", "threshold", "quit_at=2:8:3", vs=["greedy"], rounds=3000, quiet=True)
    same(r.results, rows)
    assert list(r.summary.param_value) == [2.0, 5.0, 8.0]
    pen = r.results[r.results.metric == "penalty_per_round"].value.to_numpy()
    assert list(r.summary.value) == list(pen)
    assert r.summary.best.sum() == 1 and r.best.value == pen.min()


def test_two_parameter_sweep_is_the_grid_of_one_parameter_sweeps(capsys):
    """Point (quit_at=a, ten_quit_at=b) of a 2-D sweep plays exactly what the 1-D sweep of quit_at
    does with ten_quit_at fixed to b (same seed, same design): identical numbers."""
    rows = cli_json(capsys, "sweep", "-g", "lama", "--strategy", "smart", "--param", "quit_at=3:6:3",
                    "--param", "ten_quit_at=0:4:4", "--vs", "greedy", "--rounds", "2000")
    grid = pd.DataFrame(rows)
    assert list(grid.columns)[-4:] == ["param", "param_value", "param2", "param2_value"]
    assert len(grid.groupby(["param_value", "param2_value"])) == 4
    for b in (0.0, 4.0):
        one = llama_sim.sweep("lama", f"smart:ten_quit_at={b:g}", "quit_at=3:6:3", vs=["greedy"], rounds=2000,
                              quiet=True).results
        part = grid[grid.param2_value == b].drop(columns=["param2", "param2_value", "strategy"])
        one = pd.DataFrame(json.loads(to_json(one))).drop(columns=["strategy"])
        pd.testing.assert_frame_equal(part.reset_index(drop=True), one, check_dtype=False)


def test_solve_matches_cli(capsys):
    rows = cli_json(capsys, "solve", "dice", "--row", "2 5 L")
    r = llama_sim.solve("dice", row="2 5 L")
    same(r.policy, rows)
    assert r.policy.best.iloc[0] == "roll"


def test_api_names_are_the_api_functions():
    """Every name of ``llama_sim.__all__`` is the function of ``llama_sim.api`` (no module of the package
    shares an API function's name, so importing a module never rebinds one)."""
    import inspect

    from llama_sim import api

    for name in llama_sim.__all__:
        assert getattr(llama_sim, name) is getattr(api, name), name
        assert inspect.isfunction(getattr(llama_sim, name)), name


@pytest.mark.parametrize("args", [
    ["compare", "-g", "lama", "smart", "greedy", "--rounds", "2000"],
    ["compare", "-g", "lama", "greedy", "--seat-table", "-p", "3", "--rounds", "2000"],
    ["sweep", "-g", "lama", "--strategy", "threshold", "--param", "quit_at=4:8:2", "--rounds", "2000"],
    ["sweep", "-g", "lama", "--strategy", "smart", "--param", "quit_at=4:8:4", "--param", "ten_quit_at=0:2:2",
     "--rounds", "2000"],
    ["solve", "dice", "--row", "3 L"],
])
@pytest.mark.parametrize("suffix", [".png", ".svg"])
def test_plot_option_writes_a_valid_image(capsys, tmp_path, args, suffix):
    path = tmp_path / f"plot{suffix}"
    try:
        main(args + ["--plot", str(path), "-q"] if args[0] != "solve" else args + ["--plot", str(path)])
    except SystemExit as exc:
        assert not exc.code
    out, _ = capsys.readouterr()
    assert f"wrote {path}" in out
    data = path.read_bytes()
    if suffix == ".png":
        assert data.startswith(PNG)
    else:
        assert ET.fromstring(data).tag.endswith("svg")


def test_the_same_result_gives_byte_identical_plot_files(capsys, tmp_path):
    """Regenerated reports change only where results changed: no timestamps, no random SVG ids."""
    for name in ("a.svg", "b.svg", "a.png", "b.png"):
        main(["compare", "-g", "lama", "smart", "greedy", "--rounds", "500", "-q", "--plot", str(tmp_path / name)])
    capsys.readouterr()
    assert (tmp_path / "a.svg").read_bytes() == (tmp_path / "b.svg").read_bytes()
    assert (tmp_path / "a.png").read_bytes() == (tmp_path / "b.png").read_bytes()


@pytest.mark.parametrize("name,needle", [("x.pdf", "use a .png or .svg"), ("nofolder/x.png", "does not exist"),
                                         ("exists.png", "exists; pass --force")])
def test_bad_plot_path_exits_2_before_running(capsys, tmp_path, monkeypatch, name, needle):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "exists.png").write_bytes(b"mine")
    try:
        main(["compare", "-g", "lama", "smart", "greedy", "--rounds", "2000", "--plot", name])
        code = 0
    except SystemExit as exc:
        code = exc.code
    out, err = capsys.readouterr()
    assert code == 2 and needle in err and out == ""
    assert (tmp_path / "exists.png").read_bytes() == b"mine"


def test_solve_policy_table_plot():
    fig = llama_sim.solve("dice", row="2 5 L", table=True).plot()
    assert fig.axes and "optimal policy" in fig.axes[0].get_title()


def test_sweep_difference_to_the_best_is_zero_for_the_best_and_paired_for_the_rest():
    """vs_best is the paired difference of each value to the best value on the same deals: exactly 0
    for the best itself, and near_best marks the values whose interval to it covers 0."""
    s = llama_sim.sweep("lama", "threshold", "quit_at=4:6:1", vs=["greedy"], players=2, rounds=20000, quiet=True)
    best = s.summary[s.summary.best].iloc[0]
    assert (best.vs_best, best.vs_best_ci_low, best.vs_best_ci_high) == (0.0, 0.0, 0.0) and not best.near_best
    rest = s.summary[~s.summary.best]
    assert (rest.vs_best > 0).all()  # lower penalty is better: every other value is worse on average
    assert (rest.near_best == ((rest.vs_best_ci_low <= 0) & (rest.vs_best_ci_high >= 0))).all()
