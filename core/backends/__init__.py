"""Backends: pure functions from input bytes to authoritative standardized results."""
