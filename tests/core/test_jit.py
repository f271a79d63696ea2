"""``core.jit.with_stack_headroom``: deep Python recursion under it maps no new frame-stack memory."""
import resource
import sys
import threading

import pytest

from llama_sim.core.jit import with_stack_headroom


def dive(depth: int) -> int:
    return 0 if depth == 0 else 1 + dive(depth - 1)


def faults_while_diving(times: int, depth: int) -> int:
    before = resource.getrusage(resource.RUSAGE_THREAD).ru_minflt
    for _ in range(times):
        dive(depth)
    return resource.getrusage(resource.RUSAGE_THREAD).ru_minflt - before


def in_a_new_thread(function, *args):
    """``function(*args)`` from the bottom of a fresh thread's frame stack (a test body itself runs with
    headroom, see conftest)."""
    out = []
    thread = threading.Thread(target=lambda: out.append(function(*args)))
    thread.start()
    thread.join()
    return out[0]


@pytest.mark.skipif(sys.version_info < (3, 11) or not hasattr(resource, "RUSAGE_THREAD"),
                    reason="frames live on chunked stacks from Python 3.11; per-thread counts are Linux's")
def test_a_dive_deeper_than_a_stack_chunk_maps_memory_each_time_except_with_headroom():
    """400 frames span more than one 16 KiB chunk, so each dive maps a fresh chunk and unmaps it on the
    way back (a fresh zeroed page, a page fault); under the headroom frame they fit in its own chunk."""
    assert dive(400) == 400
    plain = in_a_new_thread(faults_while_diving, 2000, 400)
    within = in_a_new_thread(with_stack_headroom, faults_while_diving, 2000, 400)
    assert plain >= 2000 and within < 100, (plain, within)


def test_the_function_gets_its_arguments_and_its_result_comes_back():
    assert with_stack_headroom(divmod, 17, 5) == (3, 2)
    with pytest.raises(ZeroDivisionError):
        with_stack_headroom(divmod, 1, 0)
