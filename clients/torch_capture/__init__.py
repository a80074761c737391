"""The capture side of ``perfline profile`` and ``perfline.torch``: code that runs inside the
user's Python, needing only torch and the standard library (never perfline's dependencies).

``helper.py`` is run by path with the user's interpreter; ``session.py`` drives torch.profiler
and writes the trace and its sidecar; ``event_tree.py`` is the one module that uses torch's
private profiler API; ``sidecar_writer.py`` writes the sidecar. Importing this package imports
nothing (perfline's CLI only needs the folder's path).
"""
