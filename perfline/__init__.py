"""perfline: performance figures on the lines of your model source.

This root package only names the distribution; the code lives in
``perfline.core`` (pure analysis), ``perfline.server`` (the daemon) and
``perfline.clients`` (CLI and client library).
"""

__version__ = "0.1.0"
