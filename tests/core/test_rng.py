"""The generator: uniformity, determinism, and that a policy's state does not reveal the deal."""
import numpy as np

from llama_sim.core import rng

MASK = (1 << 64) - 1


def _unsplitmix(z: int) -> int:
    """Inverse of SplitMix64 (the constants' modular inverses): what a cheating policy would use."""
    def unxorshift(y, k):
        x = y
        for _ in range(64 // k + 1):
            x = y ^ (x >> k)
        return x & MASK
    z = unxorshift(z, 31)
    z = (z * pow(0x94D049BB133111EB, -1, 1 << 64)) & MASK
    z = unxorshift(z, 27)
    z = (z * pow(0xBF58476D1CE4E5B9, -1, 1 << 64)) & MASK
    z = unxorshift(z, 30)
    return (z - 0x9E3779B97F4A7C15) & MASK


def test_unsplitmix_inverts_splitmix():
    for x in [0, 1, 12345, MASK, 0x0123456789ABCDEF]:
        assert _unsplitmix(int(rng.splitmix64(np.uint64(x)))) == x


def test_policy_state_does_not_lead_back_to_the_deal_stream():
    """Running the seeding backwards from the policy state must not give the deal state: the
    streams are split by a one-way step (with a plain SplitMix chain, stream = sm(sm(key ^ tag)),
    a strategy could undo it and read the deck order)."""
    sm = lambda x: int(rng.splitmix64(np.uint64(x & MASK)))  # noqa: E731
    golden = 0x9E3779B97F4A7C15
    for seed, block in [(12345, 77), (1, 0), (2**63 + 5, 10**9)]:
        policy = rng.new_state(seed, block, rng.POLICY_STREAM)
        deal = rng.new_state(seed, block, rng.DEAL_STREAM)
        inner = _unsplitmix(_unsplitmix(int(policy[0])))  # key combined with the stream tag
        for key in (inner ^ rng.POLICY_STREAM, inner - rng.POLICY_STREAM * golden):
            for retag in (key ^ rng.DEAL_STREAM, key + rng.DEAL_STREAM * golden):
                assert sm(sm(retag)) != int(deal[0])


def test_streams_are_deterministic_and_distinct():
    a = rng.new_state(7, 3, rng.DEAL_STREAM)
    assert np.array_equal(a, rng.new_state(7, 3, rng.DEAL_STREAM))
    states = {tuple(rng.new_state(7, b, s)) for b in range(50) for s in range(3)}
    assert len(states) == 150


def test_uniform_and_randint_are_uniform():
    state = rng.new_state(99)
    draws = np.array([rng.randint(state, 6) for _ in range(60_000)])
    counts = np.bincount(draws, minlength=6)
    chi2 = ((counts - 10_000) ** 2 / 10_000).sum()
    assert chi2 < 20.5  # 99.9% point of chi-square with 5 degrees of freedom
    u = np.array([rng.uniform(state) for _ in range(20_000)])
    assert 0 <= u.min() and u.max() < 1 and abs(u.mean() - 0.5) < 0.01


def test_shuffle_is_a_permutation_with_uniform_positions():
    state = rng.new_state(5)
    first = np.zeros(8, int)
    for _ in range(8000):
        a = np.arange(8)
        rng.shuffle(a, state)
        assert sorted(a) == list(range(8))
        first[a[0]] += 1
    assert ((first - 1000) ** 2 / 1000).sum() < 24.3  # 99.9% point, 7 degrees of freedom


def test_randint_beyond_the_exact_range_draws_through_a_double():
    """Above ``MAX_EXACT`` (where (x >> 11) * n would overflow 64 bits) randint is floor(uniform * n), one draw."""
    a = rng.new_state(5, 1, rng.POLICY_STREAM)
    b = a.copy()
    for n in (rng.MAX_EXACT + 1, 10**6, 2**40):
        value = rng.randint(a, n)
        assert value == int(rng.uniform(b) * n) and 0 <= value < n
    assert np.array_equal(a, b)
