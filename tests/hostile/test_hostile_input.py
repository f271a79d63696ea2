"""Hostile input on the command line: every count, score and size is range-checked before use,
and every bad file or number is one line with exit status 2, never a traceback or a wrong answer."""
import pytest

from cli_helpers import call

LAMA_POSITION = ["advise", "-g", "lama", "--hand", "2 2 6 L", "--top", "4", "--hand-sizes", "3,5,1", "--pile", "20"]
KADABRA_POSITION = ["advise", "-g", "kadabra", "--hand", "L L 3", "--top", "L", "--pile", "20"]
QUICK = ["--rollouts", "100", "-q"]


def one_line_error(code, err, needle=""):
    assert code == 2, err
    assert "Traceback" not in err and err.strip().count("\n") == 0, err
    assert needle in err, err


@pytest.mark.parametrize("extra,needle", [
    (["--scores", "0,12,5,9223372036854775807"], "from 0 to 39"),  # gave advice: int64 wrapped
    (["--scores", "0,12,5,40"], "a game is over once a score reaches 40"),
    (["--scores", "45,0,0,0"], "from 0 to 39"),
    (["--scores", "0,0,50,0", "--horizon", "game"], "from 0 to 39"),
    (["--scores", "0,0,-1,0"], "from 0 to 39"),
    (["--scores", "0," + "9" * 400 + ",0,0"], "from 0 to 39"),
])
def test_scores_outside_a_game_are_refused(capsys, extra, needle):
    one_line_error(*call(capsys, *LAMA_POSITION, *extra, *QUICK)[::2], needle)


def test_the_last_score_before_the_end_is_accepted(capsys):
    code, out, err = call(capsys, *LAMA_POSITION, "--scores", "0,12,5,39", *QUICK)
    assert code == 0, err


@pytest.mark.parametrize("extra,needle", [
    (["--ones", "9" * 30 + ",1,1"], "--ones"),  # OverflowError before
    (["--ones", "9223372036854775807,1,1"], "--ones"),
    (["--tens", "4,0,0"], "--tens"),
    (["--ones", "35,1,1", "--tens", "1,0,0"], "ends the game"),
    (["--stage", "1000000000000,5"], "--stage"),
])
def test_kadabra_tokens_and_stage_are_range_checked(capsys, extra, needle):
    one_line_error(*call(capsys, *KADABRA_POSITION, "--hand-sizes", "3,5", *extra, *QUICK)[::2], needle)


def test_hand_sizes_are_range_checked(capsys):
    one_line_error(*call(capsys, *KADABRA_POSITION, "--hand-sizes", "3,100000000000000000000", *QUICK)[::2],
                   "--hand-sizes")


def test_position_files_with_huge_or_deep_values(capsys, tmp_path):
    cases = {
        "pile.toml": ('hand = "2 2 6 L"\ntop = 4\nhand_sizes = [3, 5, 1]\npile = 1e400\n', "--pile"),
        "big.toml": ('hand = "2 2 6 L"\ntop = 4\nhand_sizes = [3, 5, 1]\npile = 99999999999999999999999\n', "--pile"),
        "deep.toml": ("hand = " + "[" * 50000 + "]" * 50000 + "\n", "nested too deeply"),
        "deep.json": ('{"hand": ' + "[" * 50000 + "]" * 50000 + "}", "nested too deeply"),
    }
    for name, (text, needle) in cases.items():
        (tmp_path / name).write_text(text)
        one_line_error(*call(capsys, "advise", "-g", "lama", "--position", str(tmp_path / name), *QUICK)[::2], needle)


@pytest.mark.parametrize("value", ["10" + "0" * 30, "9223372036854775807", "201"])
def test_kadabra_deck_counts_are_capped(capsys, tmp_path, value):
    deck = tmp_path / "deck.toml"
    deck.write_text(f'[cards]\nllama = {value}\n"1" = {value}\n')  # the sum overflowed int64 and crashed
    one_line_error(*call(capsys, "simulate", "-g", "kadabra", "-s", "greedy", "-s", "greedy", "--deck-file",
                         str(deck), "--rounds", "100", "-q")[::2], "from 0 to 200")


def test_deep_deck_file(capsys, tmp_path):
    deck = tmp_path / "deep.toml"
    deck.write_text("x = " + "[" * 50000 + "]" * 50000 + "\n")
    one_line_error(*call(capsys, "simulate", "-g", "kadabra", "-s", "greedy", "-s", "greedy", "--deck-file",
                         str(deck), "--rounds", "100", "-q")[::2], "nested too deeply")


def test_rollout_counts_are_capped(capsys):
    for option in ("--rollouts", "--max-rollouts"):
        one_line_error(*call(capsys, *LAMA_POSITION, option, "10000000000000", "-q")[::2],
                       "must be at most 1,000,000,000, not 10000000000000")


def test_sweep_step_so_small_the_count_overflows(capsys):
    one_line_error(*call(capsys, "sweep", "-g", "lama", "--strategy", "threshold", "--param", "quit_at=0:10:1e-320",
                         "--rounds", "100", "-q")[::2], "at most 200")


@pytest.mark.parametrize("args,needle", [
    (["compare", "-g", "lama", "greedy", "threshold", "--players", "1" + "0" * 30], "2 to 6 players"),
    (["compare", "-g", "lama", "greedy", "threshold", "--rounds", "-1"], "rounds: must be at least 1, not -1"),
    (["compare", "-g", "lama", "greedy", "threshold", "--games", "0"], "games: must be at least 1, not 0"),
    (["simulate", "-g", "lama", "-s", "greedy", "-s", "greedy", "--rounds", "1" + "0" * 30], "at most"),
])
def test_counts_of_runs(capsys, args, needle):
    one_line_error(*call(capsys, *args, "-q")[::2], needle)


SPEC_HEAD = 'question = "q"\ngame = "lama"\n'
STEP = '[[steps]]\nkind = "compare"\nstrategies = ["greedy", "threshold"]\nrounds = {}\n'


def test_spec_checks_every_step_before_running_any(capsys, tmp_path, monkeypatch):
    import llama_sim.api  # noqa: F401  (every module that binds ``run`` imported before the patch: one
    # imported under it would keep the stand-in after the test)
    import llama_sim.run.backends as backends

    monkeypatch.setattr(backends, "run", lambda *a, **k: pytest.fail("a step ran before the spec was checked"))
    for module in ("llama_sim.analysis.runs", "llama_sim.analysis.sweep"):  # (each binds ``run``)
        monkeypatch.setattr(f"{module}.run", lambda *a, **k: pytest.fail("a step ran"))
    spec = tmp_path / "s.toml"
    spec.write_text(SPEC_HEAD + STEP.format(10**9) + STEP.format(10**12))
    one_line_error(*call(capsys, "run", str(spec), "--out", str(tmp_path / "out"))[::2], "steps[1].rounds")
    deep = tmp_path / "deep.toml"
    deep.write_text("x = " + "[" * 50000 + "]" * 50000 + "\n")
    one_line_error(*call(capsys, "run", str(deep), "--out", str(tmp_path / "out2"))[::2], "nested too deeply")
    assert not (tmp_path / "out").exists() and not (tmp_path / "out2").exists()


def test_spec_advise_rollouts_capped(capsys, tmp_path):
    spec = tmp_path / "a.toml"
    spec.write_text(SPEC_HEAD + '[[steps]]\nkind = "advise"\nhand = "2 2 6 L"\ntop = 4\nhand_sizes = [3, 5, 1]\n'
                    'pile = 20\nrollouts = 10000000000000\n')
    one_line_error(*call(capsys, "run", str(spec), "--out", str(tmp_path / "out"))[::2], "rollouts")


@pytest.mark.parametrize("precision", ["1e-320", "1e-160", "1e-7"])
def test_a_precision_too_fine_to_reach_is_refused_at_once(capsys, precision):
    """1e-320 made the next batch's size infinite (an OverflowError); a half-width below 1e-6 would need
    far more rounds than a run plays, so it is refused before any play."""
    one_line_error(*call(capsys, "compare", "-g", "lama", "greedy", "threshold", "--precision", precision,
                         "--max-rounds", "4000", "-q")[::2], "precision: must be at least 1e-06")


@pytest.mark.parametrize("args,needle", [
    (["bench", "-g", "lama", "--reference-rounds", "1" + "0" * 24], "reference_rounds: must be at most 1,000,000"),
    (["chart", "-g", "lama", "--games", "1" + "0" * 24], "games: must be at most 100,000,000,000"),
])
def test_more_counts_are_capped(capsys, args, needle):
    one_line_error(*call(capsys, *args, "-q")[::2], needle)
