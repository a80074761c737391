"""I/O edges that read backend input files and hand their bytes to the pure ``core`` code."""
