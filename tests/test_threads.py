"""BLAS on one thread for small fits, unchanged for large ones."""

from threadpoolctl import threadpool_info

from cvxpb.threads import SMALL, blas_threads_for


def _blas_threads():
    return max(i["num_threads"] for i in threadpool_info() if i["user_api"] == "blas")


def test_one_thread_below_small_and_unchanged_above():
    before = _blas_threads()
    with blas_threads_for(SMALL - 1):
        assert _blas_threads() == 1
    assert _blas_threads() == before
    with blas_threads_for(SMALL):
        assert _blas_threads() == before
