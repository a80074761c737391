"""Pure analysis: the standardized-output model, validation, post-processing,
rendering, format identities and backends. No I/O beyond decoding bytes given
to it, no clock, no globals."""
