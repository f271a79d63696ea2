"""The Dask backend on a 2-worker LocalCluster: the same seed gives the same numbers as threads,
workers are configured and warmed once per plan, user strategy files travel to the workers."""
import json

import pytest

pytest.importorskip("distributed")

from llama_sim.core import registry, stats  # noqa: E402
from llama_sim.run.backends import DaskBackend, plan_data  # noqa: E402
from llama_sim.core.ruleset import get_game  # noqa: E402
from llama_sim.run.backends import run, run_to_precision  # noqa: E402
from llama_sim.run.designs import comparison_design, seat_effects_plan, with_kernel  # noqa: E402
from llama_sim.run.tables import comparison_half_width  # noqa: E402
from cli_helpers import call  # noqa: E402

LAMA = get_game("lama")


@pytest.fixture(scope="module")
def dask2():
    backend = DaskBackend(workers=2, threads_per_worker=1)
    yield backend
    backend.close()


def lineup(*specs):
    return [registry.parse_spec("lama", s) for s in specs]


def test_cluster_has_two_single_threaded_workers_with_numba_threads_set(dask2):
    def probe():
        import os

        return os.environ.get("NUMBA_NUM_THREADS")

    assert dask2.client.run(probe) and set(dask2.client.run(probe).values()) == {"1"}
    assert "2 workers, 2 threads" in dask2.describe()


def test_same_seed_same_tallies_as_threads(dask2):
    d = comparison_design(LAMA, 4, lineup("greedy", "threshold", "random"), False, LAMA.config())
    local1 = run(d, 21, 0, 2000, threads=1)
    local2 = run(d, 21, 0, 2000, threads=2, chunk=300)
    remote = run(d, 21, 0, 2000, backend=dask2, chunk=250)
    assert remote == local1 == local2
    g = comparison_design(LAMA, 3, lineup("greedy", "smart"), True, LAMA.config())
    assert run(g, 4, 0, 40, backend=dask2, chunk=7) == run(g, 4, 0, 40, threads=1)
    plan = seat_effects_plan(LAMA, lineup("greedy")[0], 5, False, LAMA.config())
    assert run(plan, 4, 0, 5000, backend=dask2, chunk=999) == run(plan, 4, 0, 5000, threads=2)


def test_precision_run_identical_on_dask(dask2):
    d = comparison_design(LAMA, 4, lineup("greedy", "threshold"), False, LAMA.config())
    rule = comparison_half_width(("penalty_per_round",))
    a = run_to_precision(d, 3, 0.08, rule, 100, 10**6, backend=dask2)
    b = run_to_precision(d, 3, 0.08, rule, 100, 10**6, threads=2)
    assert a.tally == b.tally and a.batches == b.batches and a.reached


def test_workers_are_warmed_once_per_plan(dask2, monkeypatch):
    monkeypatch.setenv("LLAMA_SIM_KERNEL", "generic")  # the plan as ``run`` plays it: its kernel is part of the key
    d = comparison_design(LAMA, 3, lineup("threshold", "random"), False, LAMA.config())
    key = plan_data(with_kernel(d, "generic"))["key"]
    calls = []
    real = dask2.client.run

    def counting_run(*args, **kwargs):
        calls.append(args[0].__name__)
        return real(*args, **kwargs)

    dask2.client.run = counting_run
    try:
        run(d, 1, 0, 100, backend=dask2)
        run(d, 1, 100, 100, backend=dask2)
    finally:
        dask2.client.run = real
    assert calls == ["configure_worker"]

    def cached():
        from llama_sim.run import backends

        return sorted(backends._WORKER_PLANS)

    assert all(key in keys for keys in dask2.client.run(cached).values())


def test_user_strategy_file_reaches_the_workers(dask2, tmp_path):
    src = tmp_path / "dask_user_strats.py"
    src.write_text(
        "from llama_sim.core.registry import strategy\n"
        "from llama_sim.rulesets.lama import QUIT\n"
        "from llama_sim.strategies.lama import greedy_play\n"
        "@strategy('lama', 'play_or_quit_dask_test', 'plays when it can, else quits')\n"
        "def play_or_quit_dask_test(obs, hand, legal, params, rng):\n"
        "    a = greedy_play(obs, legal)\n"
        "    return a if a >= 0 else QUIT\n")
    registry.load_file(src)
    d = comparison_design(LAMA, 3, lineup("greedy", "play_or_quit_dask_test"), False, LAMA.config())
    assert run(d, 2, 0, 500, backend=dask2, chunk=100) == run(d, 2, 0, 500, threads=1)


def test_cli_same_tables_on_threads_and_a_local_cluster(capsys, dask2):
    """The acceptance check: threads 1, threads 2 and a Dask LocalCluster print identical tables. The
    cluster is the module's, reached through ``--scheduler`` (the README test starts the CLI's own)."""
    dask = ["--backend", "dask", "--scheduler", dask2.cluster.scheduler_address]
    base = ["compare", "-g", "lama", "-p", "3", "greedy", "threshold", "smart", "--rounds", "6000",
            "--seed", "7", "--format", "json", "--view", "all", "-q"]
    docs = []
    for extra in (["--threads", "1"], ["--threads", "2"], dask):
        code, out, _ = call(capsys, *base, *extra)
        assert code == 0
        doc = json.loads(out)
        docs.append({k: doc[k] for k in ("results", "paired", "ranking")})
    assert docs[0] == docs[1] == docs[2]
    assert "Dask" in json.loads(out)["run"]["backend"]
    seat = ["compare", "-g", "lama", "--seat-table", "greedy", "-p", "4", "--rounds", "2000", "--format", "csv",
            "--view", "seats", "-q"]
    assert call(capsys, *seat, "--threads", "1")[1] == call(capsys, *seat, *dask)[1]


def test_cli_scheduler_unreachable_is_one_line(capsys, monkeypatch):
    from llama_sim.run import backends

    monkeypatch.setattr(backends, "CONNECT_TIMEOUT", "1s")
    code, out, err = call(capsys, "compare", "-g", "lama", "greedy", "threshold", "--backend", "dask",
                          "--scheduler", "tcp://127.0.0.1:9", "--rounds", "100")
    assert code == 2 and "cannot reach the Dask scheduler" in err and err.count("\n") == 1 and out == ""


def test_stats_of_dask_run_match(dask2):
    d = comparison_design(LAMA, 4, lineup("greedy", "threshold"), False, LAMA.config())
    a, b = run(d, 9, 0, 1500, backend=dask2), run(d, 9, 0, 1500, threads=2)
    assert stats.paired(a, "penalty_per_round").equals(stats.paired(b, "penalty_per_round"))


def test_illegal_action_on_a_worker_is_the_same_one_line_error(dask2, tmp_path):
    """The worker maps the kernel's error (``errors.ILLEGAL_ACTION``) to the
    UsageError naming strategy, seat and action, and the client re-raises it."""
    from llama_sim.core.errors import UsageError
    from llama_sim.run.chunks import tasks_for
    from llama_sim.run.designs import seat_plan

    src = tmp_path / "dask_cheat.py"
    src.write_text(
        "from llama_sim.core.registry import strategy\n"
        "@strategy('lama', 'draw_alone_dask_test', 'draws when it may not, else quits')\n"
        "def draw_alone_dask_test(obs, hand, legal, params, rng):\n"
        "    return 7 if (legal >> 7) & 1 == 0 else 8\n")
    registry.load_file(src)
    plan = seat_plan(LAMA, lineup("always_quit", "draw_alone_dask_test"), False, LAMA.config())
    line = "strategy 'draw_alone_dask_test' (seat 1) chose an illegal action: draw"
    line += ", having seen seat 1 of 2, turn 1: "
    with pytest.raises(UsageError, match=f"^{line}".replace("(", r"\(").replace(")", r"\)") + r".*; legal: [^;]*quit$"):
        run(plan, 3, 0, 100, backend=dask2)  # raised while the workers warm up (client.run)
    with pytest.raises(UsageError, match=r"chose an illegal action: draw, having seen .*; legal: [^;]*quit$"):
        list(dask2.map(plan, tasks_for(plan, 3, 0, 100)))  # raised by a chunk (client.map)
