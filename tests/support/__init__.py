"""Shared builders and harnesses of the test suite: the only test modules that other test
folders and the benchmarks may import (``tests/product/layout/test_test_layout.py`` holds it)."""
