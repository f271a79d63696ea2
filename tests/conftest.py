"""Set-up of every test process: hypothesis profiles sized for a 2-core CI machine, no second compile
process, and a collection frozen once it is done."""
import gc
import os

import pytest
from _pytest import python
from hypothesis import HealthCheck, settings

from llama_sim.core.jit import with_stack_headroom

settings.register_profile("ci", max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("dev", max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("ci" if os.environ.get("CI") else "dev")

# A cold first run hands its strategies to a second compile process (core.aside) to use an idle core.
# Under ``-n auto`` no core is idle, so here that process would only add its start-up to every cold
# run; tests/core/test_aside.py runs it on its own.
os.environ.setdefault("LLAMA_SIM_ASIDE", "0")


def pytest_collection_finish(session):
    """The modules and test items imported so far live to the end: keep them out of every later full
    garbage collection, which then walks only what the tests make."""
    gc.freeze()


@pytest.hookimpl(tryfirst=True)
def pytest_pyfunc_call(pyfuncitem):
    """Each test body runs with stack headroom (``core.jit.with_stack_headroom``), like a kernel's compile:
    the Numba functions a test calls directly (its own, a solver's) compile on their first call there."""
    return with_stack_headroom(python.pytest_pyfunc_call, pyfuncitem)
