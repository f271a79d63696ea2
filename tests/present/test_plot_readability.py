"""Every plot reads at 100% zoom: no text under 10 points at the saved size, no figure wider than
plots.MAX_WIDTH inches, no legend entry for something not drawn, and cells without data in a muted
grey. Small runs: what is checked is the drawing, not the numbers."""
import io

import matplotlib
import pytest

import llama_sim
from llama_sim.analysis import plots
from llama_sim.present import across
from solved import TWO_LAYOUTS, full_table


def texts(fig):
    """Every visible, non-empty text of ``fig`` after a full draw (tick labels exist only then)."""
    fig.savefig(io.BytesIO(), format="png", dpi=plots.DPI)
    return [t for t in fig.findobj(matplotlib.text.Text) if t.get_visible() and t.get_text().strip()]


def assert_readable(fig):
    small = [(t.get_text()[:40], round(t.get_fontsize(), 1)) for t in texts(fig) if t.get_fontsize() < plots.FONT_PT]
    assert not small, small
    width, height = fig.get_size_inches()
    assert width <= plots.MAX_WIDTH + 0.01, width


FIGURES = {
    "compare": lambda: llama_sim.compare("lama", ["smart", "greedy", "threshold"], rounds=2000, seed=1).plot(),
    "seat table": lambda: llama_sim.seat_table("lama", ["greedy"], games=40, seed=1).plot(),
    "league": lambda: llama_sim.league("dice", ["threshold", "keep_llama", "random"], players=[2, 3], games=120,
                                       seed=1).plot(),
    "sweep": lambda: llama_sim.sweep("lama", "threshold", "quit_at=2:10:4", vs=["greedy"], rounds=2000).plot(),
    "sweep 2-D": lambda: llama_sim.sweep("lama", "smart", ["quit_at=0:12:3", "ten_quit_at=0:8:4"], rounds=1000).plot(),
    "solve": lambda: llama_sim.solve("dice", row="2 5 L").plot(),
    "solve table": lambda: llama_sim.solve("dice", row="1 4 L", table=True).plot(),
    "simulate, games": lambda: llama_sim.simulate("lama", ["smart", "greedy", "greedy"], games=40).plot(),
    "advise": lambda: llama_sim.advise("lama", hand="2 2 6 L", top="4", hand_sizes="3,5,1", pile=20,
                                       rollouts=200).plot(),
    "advise, one action": lambda: llama_sim.advise("lama", hand="1 2", top="3", hand_sizes="3", pile=0).plot(),
    "variants": lambda: llama_sim.compare_variants("party", ["chain", "greedy"], {"plain": {"pink_llama": "plain"}},
                                                   rounds=2000).plot(),
    "solve across layouts": lambda: across.summarise(
        "solve", [full_table(x) for x in TWO_LAYOUTS], [{"dice_layout": x} for x in TWO_LAYOUTS]).plot(),
}


@pytest.mark.parametrize("name", FIGURES)
def test_every_text_is_10_points_or_more_and_the_figure_fits_a_screen(name):
    assert_readable(FIGURES[name]())


def test_chart_heatmaps_read_and_grey_out_cells_without_data():
    result = llama_sim.chart("lama", players=4, games=200, seed=1, pile_edges=(0, 1, 2, 3, 4, 6, 8, 11, 15, 20,
                                                                               26, 32, 40))
    for name in ("pile", "opponent"):
        fig = result.plot(name)
        assert_readable(fig)
        image = fig.axes[0].images[0]
        assert matplotlib.colors.to_hex(image.cmap.get_bad()) == "#d9d9d9"  # not a colour of the scale


def test_the_race_stars_the_pick_once_and_its_legend_names_only_what_is_drawn():
    t = llama_sim.tune("lama", "threshold", 4, vs="greedy", budget=40_000, seed=3)
    fig = t.plot()
    assert_readable(fig)
    ax = fig.axes[0]
    stars = [line for line in ax.lines if line.get_marker() == "*" and len(line.get_xdata())]
    assert len(stars) == 1
    labels = [x.get_text() for x in ax.get_legend().get_texts()]
    drawn = {"kept": "alive", "dropped: worse": "worse", "dropped: halving": "halved"}
    assert all(t.race["status"].eq(drawn[x]).any() for x in labels if x in drawn)
    assert all(x.strip() for x in labels)
