"""Canonical source_operator identities and code-stack provenance, one module per model format."""
