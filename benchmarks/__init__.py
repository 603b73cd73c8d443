"""Benchmarks (`make bench`): figures come from these, never from timed unit tests."""
