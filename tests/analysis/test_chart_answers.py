"""Quit charts give one answer per question: a points-valued chart says to use the win-valued one for
winning, a win-valued one says what is unresolved and how many games would resolve it; the heatmap
colours resolved cells by effect and mutes ``?`` cells."""
import numpy as np
import pytest
from matplotlib.colors import to_rgba

from llama_sim.analysis import chart as C


@pytest.fixture(scope="module")
def win_chart():
    return C.chart("lama", 3, "smart", games=400, seed=2, measure="win", threads=1)


def test_points_chart_says_which_to_use_for_winning():
    res = C.chart("lama", 3, "smart", games=100, seed=2, threads=1)
    text = C.readable(res, "opponent").splitlines()
    assert text[1].startswith("For winning, use the win-valued chart (--measure win) or its rule card "
                              "(llamasim card --game lama --players 3)")


def test_win_chart_counts_unresolved_common_cells(win_chart):
    line = C.readable(win_chart, "opponent").splitlines()[1]
    cells = win_chart.cells
    common = cells[(cells.chart == "opponent") & (cells.share >= C.COMMON_SHARE)]
    assert line.startswith(f"{(common.answer == '?').sum()} of the {len(common)} cells holding 1% or more")


def test_heatmap_mutes_unsure_cells_and_colours_resolved_ones(win_chart):
    fig = C.chart_figure(win_chart, "opponent")
    ax = fig.axes[0]
    muted_layer, effect_layer = ax.images[0], ax.images[1]
    unsure = [t for t in ax.texts if t.get_text() == "?" and to_rgba(t.get_color()) == to_rgba(C.MUTED_TEXT)]
    sure = [t for t in ax.texts if t.get_text() in ("Q", "D")]
    assert unsure and sure
    effect = np.ma.getmaskarray(effect_layer.get_array())
    muted = muted_layer.get_array()
    for t in unsure:  # no effect colour, the pale layer
        j, i = (int(round(v)) for v in t.get_position())
        assert effect[i, j] and muted[i, j] == 0.0
        assert to_rgba(muted_layer.cmap(0.0)) == to_rgba(C.UNRESOLVED)
    for t in sure:
        j, i = (int(round(v)) for v in t.get_position())
        assert not effect[i, j]
