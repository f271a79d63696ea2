"""The shedding-game engine shared by L.A.M.A. (``lama``) and the Party Edition (``party``).

Both rule sets are the same round loop: on your turn play a card that fits on the top of the
discard pile, draw (while the pile has cards and someone else is still in) or quit; the round ends
at once when someone plays their last card or everyone has quit; what is left in a hand scores,
each distinct value once; the game runs to 40. Everything in which the two rule sets differ is
*data*, held in one ``SheddingRules`` per rule set (see ``lama.RULES`` and ``party.RULES``):

=====================  =======================================================================
table / flag           meaning
=====================  =======================================================================
``deck``               the 56 card codes (int8)
``playable``           a readable rule ``playable(top, card) -> bool`` (the reference engine uses it)
``can_play``           ``can_play[top, card]``: the same rule as a C x C uint8 table
``can_play_bits``      ``can_play_bits[top]``: row ``top`` of ``can_play`` as a bit mask (the kernel's)
``extra_turn``         ``extra_turn[card] == 1``: playing it gives its player another turn at once
``value_group``        ``value_group[card]``: the distinct-value class a card scores as (1..6, llama)
``group_penalty``      points of each class, counted once per hand
``pink_code``          a card that adds ``pink_bonus`` to its class when held (-1: none)
``score``              a readable ``score(cards) -> int`` (the reference engine uses it)
``tokens20``           whether 20-point tokens exist (a player who goes out may return one)
``starter_last_card``  next round's starter: True = last player to play a card (the last to act
                       if nobody played), False = the last player to act
=====================  =======================================================================

Statistics: a round's ``penalty`` is the net change of the player's score over the round: the
card points, minus the token returned by the player who went out. Over a game the penalties add up
to the final score (round mode starts everyone at 0, where the penalty is just the card points).

The reference engine (``Round``, ``reference_game``, ``reference_blocks``) is plain Python that
reads like the rulebooks and uses the readable ``playable`` and ``score``. The Numba kernel
(``play_round``, ``play_game``, ``run_blocks``) takes the tables as array arguments: ``can_play_bits``,
``extra_turn``, the scoring tables derived from the classes (``code_penalty``, ``twins``, see
``SheddingRules``) and ``flags`` (``tokens20``, ``starter_last_card``). A rule set's module binds them to
its own tables, held as module globals, in thin wrappers (``lama.play_round``, ``lama.play_game``,
``lama.kernel_loop``). The shared functions are inlined into each wrapper, where
the tables are frozen constants, so every rule set gets its own specialised kernel from one source
(called out-of-line with the tables as runtime arguments, it was slower: ``benchmarks/MEASUREMENTS.md``,
where the figures of this docstring's other choices are too). The round (``round_loop``) is inlined by LLVM
(``forceinline``), the rest by Numba (``inline="always"``): Numba copies an inlined function's code
with its whole variable scope once per block, at each level of nesting, which made it half of a
first compile; the round is compiled once per process (and cached) and LLVM puts it into each
caller with the tables' constants.

What the loop avoids, each measured (``benchmarks/MEASUREMENTS.md``):

- data-dependent branches where "is this code held?" is a coin flip: the legal-move mask is
  ``can_play_bits[top] & held[seat]``, and scoring is branch-free (``hand_penalty``);
- any per-decision copy: the policy gets the seat's own row of
  ``hands`` as ``hand`` (``views.readonly_row``) and the legal set as one int64 built from two bit
  masks, ``can_play_bits[top] & held[seat]`` (``held``: the codes each seat holds, kept up to date on
  every draw and play), with the draw and quit bits (a copy of the hand into ``obs`` and the legal
  set as C + 2 bytes at every decision measured slower);
- a fresh ``params[e]`` view per policy call: a view costs two atomic reference-count updates;
  the policy gets ``views.readonly_row(params, e)``, a view without a meminfo (no copy, no
  reference counts; a reused buffer refilled on every change of entry was slower too);
- an integer division per turn for the next seat;
- per round: allocations and row views (``round_loop``/``game_loop`` take their scratch
  from the block loop; the seating is ``entry_of_seat[row]`` read in place), a full 56-card shuffle
  (see *Dealing*), and half of the squares of the block statistics (``accumulate_upper``);
- reference counting and aliasing: the whole block loop (``kernel_loop``, around ``core.blocks.block_loop``)
  is compiled on its own without Numba's reference counting (``lama.run_blocks``, a ``blocks.BlockKernel``,
  or a line-up kernel's ``core``), and
  keeps its scratch on its own stack (``views.stack_zeros``). Inlined into a function with reference
  counting, each array handed to an inlined helper cost atomic count updates at every round; scratch
  handed in as arguments may alias, as far as the compiler knows, so each write reloaded the rest.
  ``BlockKernel.run``, plain Python, allocates what outlives the loop and raises what it reports (``ILLEGAL``,
  ``ENDLESS``: without reference counting Numba raises exceptions with constant values only).

A ``greedy`` decision costs a few tens of nanoseconds, and selecting a per-seat array (a view or a
tuple element) per decision costs about as much again (atomic reference counts), so the observation
stays one array updated in place; a per-seat observation kept up to date measured slower.
The own hand is not part of ``obs`` at all (it is the ``hand`` argument), so the
one shared observation holds only public fields.

The policy call: the generic kernel (``decide`` None) asks through the first-class function tuple,
which is opaque to the optimiser; a line-up kernel (``llama_sim.run.lineup``, same source, ``decide`` its
own) has the policies compiled in. ``benchmarks/ceiling.py`` plays this kernel's work in loops that
differ only in that call and in the contract (``python benchmarks/ceiling.py --game lama``).

Dealing: ``deal_lazy_round`` draws only the 6n + 1 dealt cards, each uniformly from
the cards not yet dealt (forward Fisher-Yates steps with the integer ``rng.below``), and each draw
takes the next such step (``round_loop``'s ``lazy`` draw). The reference engine does the same
(``deal_lazy``, ``LazyPile``), consuming the deal stream identically, so kernel = reference still
holds on every seed. ``play_round`` (positions typed by callers, fixed-deck tests) keeps its
arguments and plays the draw pile ``deck[pos:]`` in the given order.

Numba's disk cache only checks the file of the cached function, so the kernel cache folder is keyed
by a hash of the package's source (``llama_sim/__init__.py``): an edit here recompiles the rule sets'
kernels.

Observation layout for C card codes (L.A.M.A.: C = 7, Party: C = 14), all int64:

====================  ===============  ======================================================
field                 index            meaning
====================  ===============  ======================================================
OBS_SEAT              0                acting seat
OBS_PLAYERS           1                number of players n
OBS_TOP               2                code of the top discard
OBS_DRAW_PILE         3                cards left in the draw pile
OBS_ACTIVE            4                players still in the round (acting player included)
OBS_TURN              5                actions taken so far this round
hand sizes            6 .. 11          hand size of each seat 0..5 (0 for absent seats)
quit                  12 .. 17         1 if that seat has quit this round
scores                18 .. 23         each seat's score (tokens) at the start of the round
discard               24 .. 23+C       count of each code in the discard pile (public history)
====================  ===============  ======================================================

The own hand is not in ``obs``: it is the policy's ``hand`` argument, a count of each code.

Actions: ``0..C-1`` play a card of that code, ``C`` draw, ``C+1`` quit; ``legal`` has bit a set for
each legal action a.
"""
from llama_sim.rulesets.shedding.rules import (  # noqa: F401 (the engine's public names)
    F_STARTER_LAST_CARD, F_TOKENS20, HAND_SIZE, LOG_CAPACITY, Layout, MAX_CODES, MAX_DECK, MAX_SEATS,
    OBS_ACTIVE, OBS_DRAW_PILE, OBS_HAND_SIZES, OBS_PLAYERS, OBS_SEAT, OBS_TOP, OBS_TURN, SheddingRules,
    play_bits,
)
from llama_sim.rulesets.shedding.reference import (  # noqa: F401 (the engine's public names)
    GameResult, LazyPile, Round, RoundResult, deal, deal_lazy, reference_blocks, reference_game,
)
from llama_sim.rulesets.shedding.kernel import (  # noqa: F401 (the engine's public names)
    HANDS_CAPACITY, LUCK_SIZES, OBS_CAPACITY, PLAY_GAME_SIG, PLAY_ROUND_SIG, card_luck, kernel_loop, deal_counts, luck_shape,
    deal_lazy_round, deal_round, game_loop, hand_penalty, obs_len, own_types, play_bits_jit, play_game, play_round,
    play_seating, round_loop, seat_penalty,
)
