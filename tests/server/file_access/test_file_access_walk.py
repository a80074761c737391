"""The file-access rule (issue 38 item 1): every read and write of files by ``core/``,
``server/`` and ``clients/`` goes through ``perfline.server.file_access``.

The test reads every module's syntax tree and fails on any direct file operation outside
that package: ``open``, ``os.open``/``io.open``/``Path.open``/``gzip.open``,
``os.fdopen``, ``read_text``, ``read_bytes``, ``write_text``, ``write_bytes``, ``mkdir``,
``makedirs``, ``touch``, ``unlink``/``remove``/``rmdir``, ``rename``/``replace`` of files,
``symlink``, ``shutil`` copies, moves and ``rmtree``, ``tempfile`` files and folders, and
the logging file handlers. ``ALLOWED`` is the short, reviewed list of the rest, each with
its reason; an entry that no longer matches anything fails too, so the list stays short.
"""

from __future__ import annotations

import ast
from pathlib import Path

from tests.support.locations import REPO

WALKED = ("core", "server", "clients")
GUARDED = "server/file_access/"

#: Methods that read or write files whatever their receiver (``Path`` and ``os`` alike).
_FILE_METHODS = frozenset(
    {
        "read_text",
        "read_bytes",
        "write_text",
        "write_bytes",
        "mkdir",
        "makedirs",
        "touch",
        "unlink",
        "rmdir",
        "symlink_to",
        "hardlink_to",
        "fdopen",
        "open",
    }
)
#: ``module.function`` calls that read or write files.
_MODULE_FUNCTIONS = {
    "os": {"open", "replace", "rename", "renames", "remove", "unlink", "rmdir", "mkdir"}
    | {"makedirs", "symlink", "link", "truncate", "mkfifo", "removedirs", "fdopen"},
    "io": {"open", "FileIO"},
    "shutil": {"copy", "copy2", "copyfile", "copytree", "move", "rmtree", "copyfileobj"},
    "tempfile": {"mkdtemp", "mkstemp", "NamedTemporaryFile", "TemporaryFile"}
    | {"TemporaryDirectory", "SpooledTemporaryFile"},
    "gzip": {"open", "GzipFile"},
    "bz2": {"open", "BZ2File"},
    "lzma": {"open", "LZMAFile"},
    "tarfile": {"open"},
    "codecs": {"open"},
    "sqlite3": {"connect"},
}
#: Classes whose instances open files.
_OPENING_CLASSES = frozenset({"FileHandler", "RotatingFileHandler", "TimedRotatingFileHandler"})

#: Folders of programs that do not run in perfline's process -> why their I/O is their own.
ALLOWED_FOLDERS: dict[str, str] = {
    "clients/torch_capture/": (
        "the capture helper runs as a script in the user's own Python (torch and the standard "
        "library only: perfline is not importable there); it writes only into the --out "
        "folder perfline gives it, and perfline reads what it wrote through file_access"
    ),
}

#: (file, call as ``ast.unparse`` writes it) -> why it may stay.
ALLOWED: dict[tuple[str, str], str] = {
    ("server/lsp/text_sync.py", "ls.view.open(path, params.text_document.text)"): (
        "an editor's document opened in the view: text in memory, no file"
    ),
    ("clients/cli/output.py", "os.open(os.devnull, os.O_WRONLY)"): (
        "/dev/null put in place of a closed stdout pipe, so the echo stops quietly; "
        "nothing is read or written"
    ),
}


def direct_file_calls(tree: ast.AST) -> list[tuple[int, str]]:
    """(line, call) of every direct file operation in ``tree``."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and _is_file_call(node):
            found.append((node.lineno, ast.unparse(node)))
    return found


def _is_file_call(call: ast.Call) -> bool:
    function = call.func
    if isinstance(function, ast.Name):
        return function.id == "open" or function.id in _OPENING_CLASSES
    if not isinstance(function, ast.Attribute):
        return False
    name = function.attr
    owner = function.value.id if isinstance(function.value, ast.Name) else None
    if owner in _MODULE_FUNCTIONS:
        return name in _MODULE_FUNCTIONS[owner]
    if name in _FILE_METHODS or name in _OPENING_CLASSES:
        return True
    # Path.replace(target) / Path.rename(target): one argument (str.replace takes two,
    # dataclasses.replace and datetime.replace take keywords)
    return name in ("replace", "rename") and len(call.args) == 1 and not call.keywords


def _modules() -> list[Path]:
    return [p for folder in WALKED for p in sorted((REPO / folder).rglob("*.py"))]


def test_no_direct_file_operation_outside_file_access() -> None:
    offenders = []
    used = set()
    for path in _modules():
        relative = path.relative_to(REPO).as_posix()
        if relative.startswith((GUARDED, *ALLOWED_FOLDERS)):
            continue
        for line, call in direct_file_calls(ast.parse(path.read_text(encoding="utf-8"))):
            if (relative, call) in ALLOWED:
                used.add((relative, call))
            else:
                offenders.append(f"{relative}:{line}: {call}")
    assert offenders == [], "file I/O outside perfline.server.file_access:\n" + "\n".join(offenders)
    assert set(ALLOWED) == used, f"allow-list entries that match nothing: {set(ALLOWED) - used}"


def test_the_walk_finds_every_form_it_forbids() -> None:
    source = """
open(p)
os.open(p, 0)
io.open(p)
path.open("rb")
gzip.open(p)
os.fdopen(3)
path.read_text()
path.read_bytes()
path.write_text(t)
path.write_bytes(b)
path.mkdir(parents=True)
os.makedirs(p)
path.touch()
path.unlink()
os.remove(p)
os.rmdir(p)
os.replace(a, b)
path.replace(target)
os.rename(a, b)
path.rename(target)
os.symlink(a, b)
shutil.rmtree(p)
shutil.copyfile(a, b)
tempfile.mkdtemp()
tempfile.NamedTemporaryFile()
logging.handlers.RotatingFileHandler(p)
sqlite3.connect(p)
"""
    expected = [number for number, line in enumerate(source.splitlines(), 1) if line]
    assert sorted(line for line, _ in direct_file_calls(ast.parse(source))) == expected


def test_what_only_looks_like_file_io_is_not_flagged() -> None:
    source = """
text.replace("a", "b")
dataclasses.replace(record, value=1)
moment.replace(microsecond=0)
items.remove(x)
json.loads(data)
"""
    assert direct_file_calls(ast.parse(source)) == []
