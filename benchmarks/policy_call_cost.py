"""What a policy call costs inside a kernel, by the way its arguments are passed.

    python benchmarks/policy_call_cost.py

A loop of 20M decisions of a greedy-like L.A.M.A. policy, timed by thread CPU time, called:
through the first-class function tuple with the four arrays of ``registry.POLICY_SIG`` ("4
arrays"), with the observation plus the legal set as one integer ("obs+int"), inlined ("inlined");
and with per-seat arrays picked per decision, as 2-D row views ("views") or tuple elements
("tuple"), which cost atomic reference-count updates. Figures are printed, never asserted.
"""
import warnings

from numba.core.errors import NumbaExperimentalFeatureWarning

warnings.filterwarnings("ignore", category=NumbaExperimentalFeatureWarning)
import time, numpy as np
from numba import njit, types
RO = lambda t: types.Array(t, 1, "C", readonly=True)
SIG4 = types.int64(RO(types.int64), RO(types.uint8), RO(types.float64), types.uint64[::1])
SIG2 = types.int64(RO(types.int64), types.int64)   # obs + legal bitmask
def g4(obs, legal, params, rng):
    t = obs[2]
    if legal[t]: return t
    n = t + 1 if t < 6 else 0
    if legal[n]: return n
    return 7 if legal[7] else 8
def g2(obs, legal):
    t = obs[2]
    if legal >> t & 1: return t
    n = t + 1 if t < 6 else 0
    if legal >> n & 1: return n
    return 7 if legal >> 7 & 1 else 8
p4 = njit(SIG4, cache=False)(g4)
p2 = njit(SIG2, cache=False)(g2)
T4 = types.UniTuple(types.FunctionType(SIG4), 6)
T2 = types.UniTuple(types.FunctionType(SIG2), 6)
@njit(types.int64(T4, types.int64), cache=False)
def loop4(pols, N):
    obs = np.zeros(38, np.int64); legal = np.zeros(9, np.uint8); params = np.zeros(8); rng = np.zeros(2, np.uint64)
    acc = 0
    for i in range(N):
        obs[2] = i % 7
        legal[(i * 5) % 9] ^= 1
        acc += pols[i & 3](obs, legal, params, rng)
    return acc
@njit(types.int64(T2, types.int64), cache=False)
def loop2(pols, N):
    obs = np.zeros(38, np.int64); legal = 0
    acc = 0
    for i in range(N):
        obs[2] = i % 7
        legal ^= 1 << ((i * 5) % 9)
        acc += pols[i & 3](obs, legal)
    return acc
g4j = njit(inline="always")(g4)
@njit(cache=False)
def loopdirect(N):
    obs = np.zeros(38, np.int64); legal = np.zeros(9, np.uint8); params = np.zeros(8); rng = np.zeros(2, np.uint64)
    acc = 0
    for i in range(N):
        obs[2] = i % 7
        legal[(i * 5) % 9] ^= 1
        acc += g4j(obs, legal, params, rng)
    return acc
@njit(types.int64(T4, types.int64), cache=False, nogil=True)
def flat(pols, N):
    obs = np.zeros(38, np.int64); legal = np.zeros(9, np.uint8); params = np.zeros(8); rng = np.zeros(2, np.uint64)
    acc = 0
    for i in range(N):
        s = i & 3
        obs[2] = i % 7
        legal[(i * 5) % 9] ^= 1
        acc += pols[s](obs, legal, params, rng)
    return acc
@njit(types.int64(T4, types.int64), cache=False, nogil=True)
def views(pols, N):
    obs = np.zeros((4, 38), np.int64); legal = np.zeros((4, 9), np.uint8); params = np.zeros((4, 8)); rng = np.zeros(2, np.uint64)
    acc = 0
    for i in range(N):
        s = i & 3
        obs[s, 2] = i % 7
        legal[s, (i * 5) % 9] ^= 1
        acc += pols[s](obs[s], legal[s], params[s], rng)
    return acc
@njit(types.int64(T4, types.int64), cache=False, nogil=True)
def tuples(pols, N):
    o = (np.zeros(38, np.int64), np.zeros(38, np.int64), np.zeros(38, np.int64), np.zeros(38, np.int64))
    l = (np.zeros(9, np.uint8), np.zeros(9, np.uint8), np.zeros(9, np.uint8), np.zeros(9, np.uint8))
    params = np.zeros(8); rng = np.zeros(2, np.uint64)
    acc = 0
    for i in range(N):
        s = i & 3
        ob = o[s]; lg = l[s]
        ob[2] = i % 7
        lg[(i * 5) % 9] ^= 1
        acc += pols[s](ob, lg, params, rng)
    return acc
N = 20_000_000
if __name__ == "__main__":
    t4 = (p4,) * 6
    t2 = (p2,) * 6
    runs = [("4 arrays", lambda: loop4(t4, N)), ("obs+int", lambda: loop2(t2, N)), ("inlined", lambda: loopdirect(N)),
            ("4 arrays, flat", lambda: flat(t4, N)), ("views", lambda: views(t4, N)), ("tuple", lambda: tuples(t4, N))]
    loop4(t4, 10); loop2(t2, 10); loopdirect(10); flat(t4, 10); views(t4, 10); tuples(t4, 10)
    for rep in range(3):
        for name, f in runs:
            t0 = time.thread_time()
            f()
            print(f"{name}: {(time.thread_time() - t0) / N * 1e9:.2f} ns/call")
