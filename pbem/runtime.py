"""Process settings shared by the long-running processes (gunicorn web workers, the worker)."""
from __future__ import annotations

import gc

# A request or a sweep makes many short-lived objects that reference counting frees anyway;
# Python's cyclic collector would scan every live object often. The objects loaded at start
# (modules, templates, compiled SQL) live as long as the process: they are frozen out of
# those scans, and the young generation is collected less often.
GC_THRESHOLD = (20_000, 20, 20)


def tune_gc() -> None:
    """Call once the app is loaded (gunicorn's post_worker_init, the worker's start)."""
    gc.collect()
    gc.freeze()
    gc.set_threshold(*GC_THRESHOLD)
