"""Dice layouts and roll-outcome tables for LAMA Dice / Don't L.L.A.M.A. Dice.

Face codes follow the package-wide card encoding: 0..5 are the values 1..6, 6 is a llama.

The three dice are all different; each has two llama faces and four number faces, and every
number 1..6 is on exactly two dice (see ``RULES.md``).  If ``n_AB``, ``n_AC``, ``n_BC`` are the
numbers shared by each pair of dice, every die carries 4 numbers, so ``n_AB + n_AC = 4`` and so
on, which forces ``n_AB = n_AC = n_BC = 2``.  A layout is therefore exactly a split of
{1..6} into three pairs (the pair each pair of dice shares), and each die is the union of two of
those pairs.  With interchangeable dice the pairs are unordered: there are
6! / (2!^3 * 3!) = 15 layouts (the perfect matchings of six numbers).  ``LAYOUTS`` builds them from
the names the rule set declares (``llama_sim.rulesets.dice.LAYOUT_NAMES``: a name is its three shared
pairs), and the tests check them against ``enumerate_layouts``, a brute-force search over the faces
(too slow, at 20-30 ms, for every start of a dice command).

Layout names list the three shared pairs, each pair ascending, pairs sorted: the default layout
(die A = 1 2 3 4 L L, B = 1 2 5 6 L L, C = 3 4 5 6 L L; A and B share 1 2, A and C share 3 4,
B and C share 5 6) is ``"12-34-56"``.

A layout array is a canonical (3, 6) int64 array of face codes: faces of each die ascending
(llamas last), dice in lexicographic order, so equal layouts compare equal with
``np.array_equal``.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from llama_sim.rulesets.dice import DEFAULT_LAYOUT_NAME, LAYOUT_NAMES  # noqa: F401  (declared there)

__all__ = [
    "N_CODES",
    "LLAMA",
    "N_DICE",
    "N_FACES",
    "N_OUTCOMES",
    "DEFAULT_LAYOUT_NAME",
    "LAYOUTS",
    "all_layouts",
    "layout_names",
    "default_layout",
    "validate_layout",
    "as_layout",
    "parse_layout",
    "layout_name",
    "format_layout",
    "OutcomeTable",
    "outcome_table",
    "rolled_count_table",
    "p_three_llamas",
    "number_face_counts",
]

N_CODES = 7  # codes 0..5 = values 1..6, 6 = llama
LLAMA = 6
N_DICE = 3
N_FACES = 6
N_OUTCOMES = N_FACES**N_DICE  # 216 equally likely ordered outcomes



def _face_char(code: int) -> str:
    return "L" if code == LLAMA else str(code + 1)


def _canonical(dice: np.ndarray) -> np.ndarray:
    """Sort the faces of each die, then the dice lexicographically."""
    rows = sorted(tuple(sorted(int(f) for f in die)) for die in dice)
    out = np.array(rows, dtype=np.int64)
    out.setflags(write=False)
    return out


def _shared_pairs(layout: np.ndarray) -> list[tuple[int, int]]:
    """The numbers (1..6) shared by each pair of dice, as sorted pairs of values."""
    sets = [set(int(f) for f in die if f != LLAMA) for die in layout]
    pairs = []
    for i, j in itertools.combinations(range(N_DICE), 2):
        shared = sorted(c + 1 for c in sets[i] & sets[j])
        pairs.append(tuple(shared))
    return sorted(pairs)


def _name_of_valid(layout: np.ndarray) -> str:
    return "-".join(f"{a}{b}" for a, b in _shared_pairs(layout))


def validate_layout(dice) -> np.ndarray:
    """Check a layout given as three dice of six face codes; return it canonicalised.

    Raises ``ValueError`` with a one-line message naming the first problem found.
    """
    arr = np.asarray(dice)
    if arr.ndim != 2 or arr.shape[0] != N_DICE:
        raise ValueError(f"a layout needs exactly {N_DICE} dice, got shape {arr.shape}")
    if arr.shape[1] != N_FACES:
        raise ValueError(f"each die needs exactly {N_FACES} faces, got {arr.shape[1]}")
    if not np.issubdtype(arr.dtype, np.integer):
        raise ValueError(f"face codes must be integers, got dtype {arr.dtype}")
    arr = arr.astype(np.int64)
    if arr.min() < 0 or arr.max() >= N_CODES:
        raise ValueError(f"face codes must be 0..{N_CODES - 1} (6 = llama)")
    for k, die in enumerate(arr):
        label = "ABC"[k]
        text = "".join(_face_char(int(f)) for f in die)
        n_llamas = int(np.count_nonzero(die == LLAMA))
        if n_llamas != 2:
            raise ValueError(f"die {label} ({text}) has {n_llamas} llama faces; each die needs exactly 2")
        numbers = die[die != LLAMA]
        if len(set(numbers.tolist())) != len(numbers):
            raise ValueError(f"die {label} ({text}) shows the same number on two faces")
    canon = _canonical(arr)
    if len({tuple(d) for d in canon.tolist()}) != N_DICE:
        raise ValueError("the three dice must all be different (a die is duplicated)")
    for code in range(LLAMA):
        on = int(np.count_nonzero((arr == code).any(axis=1)))
        if on != 2:
            raise ValueError(f"number {code + 1} is on {on} dice; each number 1..6 must be on exactly 2")
    return canon


def enumerate_layouts() -> dict[str, np.ndarray]:
    """Every valid layout, found by brute force over candidate dice (not from the formula)."""
    numbers = range(LLAMA)
    candidate_dice = [tuple(c) + (LLAMA, LLAMA) for c in itertools.combinations(numbers, 4)]
    found: dict[tuple, np.ndarray] = {}
    for trio in itertools.combinations(candidate_dice, 3):  # unordered, distinct dice
        try:
            canon = validate_layout(np.array(trio, dtype=np.int64))
        except ValueError:
            continue
        found[tuple(map(tuple, canon.tolist()))] = canon
    layouts = {_name_of_valid(a): a for a in found.values()}
    if len(layouts) != len(found):  # names must be a bijection
        raise AssertionError("layout names are not unique")
    return dict(sorted(layouts.items()))


def layout_of_name(name: str) -> np.ndarray:
    """The layout a name lists: with p, q, r its three shared pairs, the dice are p+q, p+r and q+r,
    each with two llamas (checked, canonical)."""
    p, q, r = ([int(c) - 1 for c in pair] for pair in name.split("-"))
    layout = validate_layout(np.array([p + q + [LLAMA] * 2, p + r + [LLAMA] * 2, q + r + [LLAMA] * 2]))
    if _name_of_valid(layout) != name:
        raise ValueError(f"{name!r} is not a layout name")
    return layout


LAYOUTS: dict[str, np.ndarray] = {name: layout_of_name(name) for name in LAYOUT_NAMES}
_BY_KEY = {a.tobytes(): name for name, a in LAYOUTS.items()}


def all_layouts() -> dict[str, np.ndarray]:
    """All valid layouts, name -> canonical (3, 6) int64 face-code array (a fresh dict)."""
    return dict(LAYOUTS)


def layout_names() -> list[str]:
    return list(LAYOUTS)


def default_layout() -> np.ndarray:
    return LAYOUTS[DEFAULT_LAYOUT_NAME]


def layout_name(layout) -> str:
    """Name of a layout (given as an array or any text ``parse_layout`` accepts)."""
    arr = parse_layout(layout) if isinstance(layout, str) else validate_layout(layout)
    return _BY_KEY[arr.tobytes()]


def format_layout(layout) -> str:
    """Explicit spec of a layout, e.g. ``"1234LL/1256LL/3456LL"``."""
    arr = parse_layout(layout) if isinstance(layout, str) else validate_layout(layout)
    return "/".join("".join(_face_char(int(f)) for f in die) for die in arr)


def parse_layout(text: str) -> np.ndarray:
    """Parse a layout name (``"12-34-56"``, or ``"default"``) or an explicit spec.

    A spec is three dice separated by ``/``, each six faces from ``1``..``6`` and ``L``/``l``
    (spaces and commas ignored), e.g. ``"1234LL/1256LL/3456LL"``.  Returns the canonical
    (3, 6) int64 array.  Raises ``ValueError`` with a one-line message when invalid.
    """
    if not isinstance(text, str):
        raise ValueError(f"layout must be given as text, got {type(text).__name__}")
    compact = "".join(text.split()).lower()
    if not compact:
        raise ValueError("empty layout; give a layout name such as '12-34-56' or a spec like '1234LL/1256LL/3456LL'")
    if compact == "default":
        return LAYOUTS[DEFAULT_LAYOUT_NAME]
    if compact in LAYOUTS:
        return LAYOUTS[compact]
    if "/" not in compact:
        raise ValueError(
            f"unknown layout {text.strip()!r}: not a layout name ({', '.join(LAYOUTS)}) "
            "and not a spec like '1234LL/1256LL/3456LL'"
        )
    parts = compact.split("/")
    if len(parts) != N_DICE:
        raise ValueError(f"layout spec {text.strip()!r} has {len(parts)} dice separated by '/'; need exactly {N_DICE}")
    dice = []
    for k, part in enumerate(parts):
        label = "ABC"[k]
        part = part.replace(",", "")
        faces = []
        for ch in part:
            if ch == "l":
                faces.append(LLAMA)
            elif ch in "123456":
                faces.append(int(ch) - 1)
            else:
                raise ValueError(f"die {label} ({part.upper()}) has invalid face {ch!r}; faces are 1-6 and L")
        if len(faces) != N_FACES:
            raise ValueError(f"die {label} ({part.upper()}) has {len(faces)} faces; each die needs exactly {N_FACES}")
        dice.append(faces)
    return validate_layout(np.array(dice, dtype=np.int64))


def _as_layout(layout) -> np.ndarray:
    if layout is None:
        return LAYOUTS[DEFAULT_LAYOUT_NAME]
    if isinstance(layout, str):
        return parse_layout(layout)
    return validate_layout(layout)


def as_layout(layout) -> np.ndarray:
    """Canonical layout array from an array, a name/spec string, or None (the default)."""
    return _as_layout(layout)


def number_face_counts(layout) -> np.ndarray:
    """How many faces (over all three dice) show each code; length 7 int64."""
    arr = _as_layout(layout)
    return np.bincount(arr.ravel(), minlength=N_CODES).astype(np.int64)


@dataclass(frozen=True)
class OutcomeTable:
    """Distinct roll outcomes with exact probabilities ``counts / total``.

    ``faces``: (n, 3) int64 face code per die (for ``outcome_table``) or the sorted face
    multiset (for ``rolled_count_table``); ``rolled``: (n, 7) int64, how many dice show each
    code; ``counts``: (n,) int64 number of the 216 equally likely ordered outcomes that give it;
    ``total``: 216.
    """

    faces: np.ndarray
    rolled: np.ndarray
    counts: np.ndarray
    total: int

    @property
    def probs(self) -> np.ndarray:
        return self.counts / self.total

    def fractions(self) -> list[Fraction]:
        return [Fraction(int(c), self.total) for c in self.counts]

    @property
    def lll_index(self) -> int:
        """Row index of the three-llama outcome."""
        hits = np.flatnonzero(self.rolled[:, LLAMA] == N_DICE)
        return int(hits[0])

    def __len__(self) -> int:
        return len(self.counts)


def _freeze(*arrays: np.ndarray) -> None:
    for a in arrays:
        a.setflags(write=False)


_OUTCOME_CACHE: dict[tuple[bytes, bool], OutcomeTable] = {}


def _build_table(layout: np.ndarray, by_values: bool) -> OutcomeTable:
    key = (layout.tobytes(), by_values)
    cached = _OUTCOME_CACHE.get(key)
    if cached is not None:
        return cached
    tally: dict[tuple[int, ...], int] = {}
    for faces in itertools.product(*(range(N_FACES) for _ in range(N_DICE))):
        shown = tuple(int(layout[d, f]) for d, f in enumerate(faces))
        k = tuple(sorted(shown)) if by_values else shown
        tally[k] = tally.get(k, 0) + 1
    keys = sorted(tally)
    faces_arr = np.array(keys, dtype=np.int64).reshape(len(keys), N_DICE)
    counts = np.array([tally[k] for k in keys], dtype=np.int64)
    rolled = np.zeros((len(keys), N_CODES), dtype=np.int64)
    for i, k in enumerate(keys):
        for c in k:
            rolled[i, c] += 1
    assert int(counts.sum()) == N_OUTCOMES
    _freeze(faces_arr, counts, rolled)
    table = OutcomeTable(faces=faces_arr, rolled=rolled, counts=counts, total=N_OUTCOMES)
    _OUTCOME_CACHE[key] = table
    return table


def outcome_table(layout=None) -> OutcomeTable:
    """All 216 ordered outcomes grouped by the face each die shows (A, B, C in canonical order).

    Each die has 5 distinct faces (4 numbers and the llama, which is on 2 faces), so there are
    125 distinct outcomes.  ``layout`` is an array, a name/spec string, or None (default).
    """
    return _build_table(_as_layout(layout), by_values=False)


def rolled_count_table(layout=None) -> OutcomeTable:
    """Outcomes grouped by the multiset of faces shown (which die shows what is irrelevant to
    the game).  ``faces`` rows are sorted ascending."""
    return _build_table(_as_layout(layout), by_values=True)


def p_three_llamas(layout=None) -> Fraction:
    """Exact probability that all three dice show a llama (1/27 for every valid layout)."""
    arr = _as_layout(layout)
    n = 1
    for die in arr:
        n *= int(np.count_nonzero(die == LLAMA))
    return Fraction(n, N_OUTCOMES)
