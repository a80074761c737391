"""``perfline.toml``: the text of a workspace configuration -> a typed, frozen config.

Pure: takes the file's text, returns ``WorkspaceConfig`` or raises
``WorkspaceConfigError`` whose problems each carry the 1-based line (and the
dotted key path) of the offending entry, so the daemon can put a diagnostic on
that line and ``perfline report`` can print it.

The file (every table optional)::

    float_sums = "exact"              # top level, before any table: "exact" | "reference"

    [workspace]
    source_roots = ["."]              # folders where relative stack paths are looked up
    ignore = ["build/**"]             # extra globs the watcher ignores

    [[path_map]]                      # absolute paths recorded elsewhere -> workspace paths
    from = "/home/dev/kws/"
    to = "."

    [[jobs]]
    name = "dscnn-measured"           # unique; defaults to the first input's stem
    backend = "executorch"            # a job type of the daemon's registry
    inputs = ["model.etrecord", "run.etdump"]   # paths or globs, relative to the workspace
    options = { method = "forward" }  # passed to the backend unchanged
    baseline = "main/mlia-output.json"  # optional: the result the editor compares with

    [filtering]                       # the same shape as MLIA's [filtering] table
    collapse = [{ kind = "code_stack", attribute = "file", globs = ["**/site-packages/**"] }]
    use_backend_defaults = true

    [display]
    metric = "op_cycles"              # the figure shown in inlay hints (default: chosen per result)

    [onnxruntime]                     # and [static], [static.target]: the backends' settings,
    warmup_runs = 1                   # parsed by perfline.core.backends.settings

Every problem names its line and column (the key, or the value when the value is wrong);
an unknown name close to a known one says which was meant, and a misspelled required key
is one problem (the unknown name), not two.

Cost: one ``tomllib`` parse plus one linear scan of the text to find lines.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from perfline.core.backends.settings import TABLES, BackendSettings, parse_backend_settings
from perfline.core.collapse_rules import CollapseRule
from perfline.core.errors import InputError, Problem

CONFIG_FILE_NAME = "perfline.toml"

_TOP_KEYS = ("workspace", "path_map", "jobs", "filtering", "display", "float_sums", *TABLES)

FLOAT_SUMS_MODES = ("exact", "reference")
"""``float_sums``: correctly rounded sums (deviation D6, the default) or mlia 0.12.3's."""


@dataclass(frozen=True)
class PathMap:
    """Paths starting with ``source`` (as recorded in a trace) live under ``target``."""

    source: str
    target: str
    line: int = 0


@dataclass(frozen=True)
class JobSpec:
    """One analysis job: a backend applied to input paths or globs."""

    name: str
    backend: str
    inputs: tuple[str, ...]
    options: Mapping[str, Any] = field(default_factory=dict)
    line: int = 0
    #: A standardized document (workspace-relative path) the editor compares the job with.
    baseline: str | None = None
    baseline_line: int = 0


@dataclass(frozen=True)
class DisplaySettings:
    """What the editor shows: which metric (``None`` = chosen per result)."""

    metric: str | None = None


@dataclass(frozen=True)
class WorkspaceConfig:
    """A parsed ``perfline.toml`` (the empty default when the file is absent)."""

    jobs: tuple[JobSpec, ...] = ()
    path_maps: tuple[PathMap, ...] = ()
    source_roots: tuple[str, ...] = (".",)
    ignore: tuple[str, ...] = ()
    collapse_rules: tuple[CollapseRule, ...] = ()
    use_backend_defaults: bool = True
    display: DisplaySettings = DisplaySettings()
    #: ``[onnxruntime]`` and ``[static]`` (parsed by ``core.backends.settings``).
    backends: BackendSettings = field(default_factory=BackendSettings)
    float_sums: str = "exact"


@dataclass(frozen=True)
class ConfigProblem:
    """A problem at a 1-based ``line`` (and ``column``, 1-based, 0 = whole line)."""

    line: int
    key: str
    message: str
    column: int = 0


class WorkspaceConfigError(InputError):
    """``perfline.toml`` is invalid; ``config_problems`` say where, line by line."""

    def __init__(self, source: str | None, problems: Sequence[ConfigProblem]) -> None:
        self.config_problems = tuple(problems)
        super().__init__(
            source,
            [
                Problem(
                    f"line {p.line}"
                    + (f", column {p.column}" if p.column else "")
                    + (f" ({p.key})" if p.key else ""),
                    p.message,
                )
                for p in problems
            ],
        )


def parse_workspace_config(
    text: str,
    *,
    source: str = CONFIG_FILE_NAME,
    known_backends: Sequence[str] | None = None,
) -> WorkspaceConfig:
    """Parse ``perfline.toml`` text; ``known_backends`` (if given) checks ``jobs[].backend``."""
    import tomllib  # here: a command without a perfline.toml never pays for it

    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        line, column = _toml_error_position(str(error), text)
        message = re.sub(r"\s*\(at (line \d+, column \d+|end of document)\)\s*$", "", str(error))
        raise WorkspaceConfigError(
            source, [ConfigProblem(line, "", f"invalid TOML: {message}", column)]
        ) from None
    except (RecursionError, ValueError):  # nesting too deep, an integer of too many digits
        raise _limit_error(text, source) from None
    parser = _Parser(_Locator(text), known_backends)
    config = parser.config(data)
    if parser.problems:
        raise WorkspaceConfigError(source, parser.problems)
    return config


def parse_collapse_rules(text: str, *, source: str = CONFIG_FILE_NAME) -> tuple[CollapseRule, ...]:
    """Only the ``[filtering] collapse`` rules of a ``perfline.toml`` (for ``perfline report``)."""
    return parse_workspace_config(text, source=source).collapse_rules


def _limit_error(text: str, source: str) -> WorkspaceConfigError:
    from perfline.core import text_limits

    found = text_limits.toml_problem(text)
    if found is None:
        return WorkspaceConfigError(source, [ConfigProblem(1, "", "the TOML cannot be read")])
    line, column = text_limits.position(text, found[0])
    return WorkspaceConfigError(source, [ConfigProblem(line, "", found[1], column)])


def _toml_error_position(message: str, text: str) -> tuple[int, int]:
    match = re.search(r"at line (\d+), column (\d+)", message)
    if match:
        return int(match.group(1)), int(match.group(2))
    lines = text.splitlines() or [""]  # "at end of document": just after its last character
    return len(lines), len(lines[-1]) + 1


class _Locator:
    """Finds the line of a table, an array-of-tables entry or a key in TOML text.

    A heuristic scan (tomllib keeps no positions): headers ``[t]`` / ``[[t]]`` are
    counted in order; a key is looked up inside its table's span, then anywhere.
    Falls back to the table's line, then to line 1.
    """

    _HEADER = re.compile(r"^\s*(\[\[?)\s*([A-Za-z0-9_.\- \"']+?)\s*\]\]?\s*(#.*)?$")

    def __init__(self, text: str) -> None:
        self.lines = text.splitlines()
        # (header name, is array, line number) in order
        self.headers: list[tuple[str, bool, int]] = []
        for number, line in enumerate(self.lines, start=1):
            match = self._HEADER.match(line)
            if match:
                name = match.group(2).replace(" ", "").replace('"', "").replace("'", "")
                self.headers.append((name, match.group(1) == "[[", number))

    def table(self, name: str, index: int | None = None) -> int:
        if index is None:
            for header, _, number in self.headers:
                if header == name:
                    return number
            for header, _, number in self.headers:
                if header.startswith(name + "."):  # only sub-tables: [name.sub]
                    return number
            return self.key((), name)
        count = -1
        for header, is_array, number in self.headers:
            if header == name and is_array:
                count += 1
                if count == index:
                    return number
        return self.key((), name) or 1

    def _span(self, start: int) -> tuple[int, int]:
        end = len(self.lines)
        for _, _, number in self.headers:
            if number > start:
                end = number - 1
                break
        return start, end

    def key(self, table: tuple[str, int | None] | tuple[()], key: str) -> int:
        pattern = re.compile(rf"^\s*(\"{re.escape(key)}\"|'{re.escape(key)}'|{re.escape(key)})\s*=")
        inline = re.compile(rf"[{{,]\s*{re.escape(key)}\s*=")
        if table:
            start = self.table(table[0], table[1])
            first, last = self._span(start)
        else:
            first, last = 1, (self.headers[0][2] - 1) if self.headers else len(self.lines)
        for number in range(first, last + 1):
            line = self.lines[number - 1]
            if pattern.match(line) or inline.search(line):
                return number
        if table:
            return self.table(table[0], table[1])
        return 1

    def column(self, line: int, key: str, *, value: bool = False) -> int:
        """The 1-based column of ``key`` (or of its value) on ``line``; a header's ``[``;
        else the line's first character (0 for a line that is not there)."""
        if not 1 <= line <= len(self.lines):
            return 0
        text = self.lines[line - 1]
        name = re.escape(key.rsplit(".", 1)[-1].split("[", 1)[0])
        found = re.search(rf"(^|[{{,]|\s)\s*(?P<key>\"{name}\"|'{name}'|{name})\s*=\s*", text)
        if found is not None:
            return (found.end() if value else found.start("key")) + 1
        stripped = len(text) - len(text.lstrip())
        return stripped + 1 if text.strip() else 0


def _describe(value: object) -> str:
    return type(value).__name__ if not isinstance(value, bool) else "boolean"


def _shown(value: object) -> str:
    """A bad value as the message quotes it (strings quoted, long ones cut)."""
    if isinstance(value, bool):
        text = "true" if value else "false"
    elif isinstance(value, Mapping):
        text = "a table"
    else:
        text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


class _Parser:
    def __init__(self, locator: _Locator, known_backends: Sequence[str] | None) -> None:
        self.at = locator
        self.known_backends = known_backends
        self.problems: list[ConfigProblem] = []

    def fail(self, line: int, key: str, message: str, *, value: bool = False) -> None:
        """A problem at ``line``; the column is the key's, or with ``value`` its value's."""
        value = value or message.startswith("expected")
        column = self.at.column(line, key, value=value) if key else 0
        self.problems.append(ConfigProblem(line, key, message, column))

    def config(self, data: Mapping[str, Any]) -> WorkspaceConfig:
        for key, value in data.items():
            if key not in _TOP_KEYS:
                what = "table" if isinstance(value, Mapping | list) else "key"
                self.fail(
                    self.at.table(key) or self.at.key((), key),
                    key,
                    f"unknown {what} {key!r}; {_expected(key, _TOP_KEYS)}",
                )
        source_roots, ignore = self.workspace(data.get("workspace", {}))
        path_maps = self.path_maps(data.get("path_map", []))
        rules, use_defaults = self.filtering(data.get("filtering", {}))
        display = self.display(data.get("display", {}))
        jobs = self.jobs(data.get("jobs", []))
        backends = parse_backend_settings(
            data,
            self.fail,
            lambda table, key: self.at.key((table, None), key) if key else self.at.table(table),
        )
        float_sums = self.float_sums(data.get("float_sums", FLOAT_SUMS_MODES[0]))
        return WorkspaceConfig(
            jobs=jobs,
            path_maps=path_maps,
            source_roots=source_roots,
            ignore=ignore,
            collapse_rules=rules,
            use_backend_defaults=use_defaults,
            display=display,
            backends=backends,
            float_sums=float_sums,
        )

    def float_sums(self, value: object) -> str:
        if isinstance(value, str) and value in FLOAT_SUMS_MODES:
            return value
        self.fail(
            self.at.key((), "float_sums"),
            "float_sums",
            f"expected {' or '.join(repr(m) for m in FLOAT_SUMS_MODES)}, got {_shown(value)}",
        )
        return FLOAT_SUMS_MODES[0]

    def _table(self, value: object, name: str) -> Mapping[str, Any] | None:
        if isinstance(value, Mapping):
            return value
        self.fail(self.at.key((), name), name, f"expected a table, got {_describe(value)}")
        return None

    def _strings(
        self, value: object, line: int, key: str, *, non_empty: bool = False
    ) -> tuple[str, ...]:
        if not isinstance(value, list) or not all(isinstance(v, str) and v for v in value):
            self.fail(line, key, f"expected an array of non-empty strings, got {_shown(value)}")
            return ()
        if non_empty and not value:
            self.fail(line, key, "expected at least one entry")
        return tuple(value)

    def _unknown_keys(
        self,
        table: Mapping[str, Any],
        allowed: Sequence[str],
        where: tuple[str, int | None],
        prefix: str,
    ) -> None:
        for key in table:
            if key not in allowed:
                self.fail(
                    self.at.key(where, key),
                    f"{prefix}.{key}",
                    f"unknown key {key!r}; {_expected(key, allowed)}",
                )

    def workspace(self, value: object) -> tuple[tuple[str, ...], tuple[str, ...]]:
        table = self._table(value, "workspace")
        if table is None:
            return (".",), ()
        where = ("workspace", None)
        self._unknown_keys(table, ("source_roots", "ignore"), where, "workspace")
        roots: tuple[str, ...] = (".",)
        if "source_roots" in table:
            roots = self._strings(
                table["source_roots"], self.at.key(where, "source_roots"), "workspace.source_roots"
            )
        ignore: tuple[str, ...] = ()
        if "ignore" in table:
            ignore = self._strings(
                table["ignore"], self.at.key(where, "ignore"), "workspace.ignore"
            )
        return roots, ignore

    def path_maps(self, value: object) -> tuple[PathMap, ...]:
        if not isinstance(value, list):
            self.fail(
                self.at.key((), "path_map"), "path_map", "expected an array of tables [[path_map]]"
            )
            return ()
        maps: list[PathMap] = []
        for index, entry in enumerate(value):
            line = self.at.table("path_map", index)
            key = f"path_map[{index}]"
            if not isinstance(entry, Mapping):
                self.fail(line, key, "expected a table with 'from' and 'to'")
                continue
            self._unknown_keys(entry, ("from", "to"), ("path_map", index), key)
            source, target = entry.get("from"), entry.get("to")
            ok = True
            for name, item in (("from", source), ("to", target)):
                if not isinstance(item, str) or not item:
                    where_line = self.at.key(("path_map", index), name) if name in entry else line
                    self.fail(
                        where_line, f"{key}.{name}", f"expected a non-empty string for {name!r}"
                    )
                    ok = False
            if ok:
                assert isinstance(source, str) and isinstance(target, str)
                maps.append(PathMap(source.replace("\\", "/"), target, line))
        return tuple(maps)

    def filtering(self, value: object) -> tuple[tuple[CollapseRule, ...], bool]:
        table = self._table(value, "filtering")
        if table is None:
            return (), True
        where = ("filtering", None)
        self._unknown_keys(table, ("collapse", "use_backend_defaults"), where, "filtering")
        use_defaults = table.get("use_backend_defaults", True)
        if not isinstance(use_defaults, bool):
            self.fail(
                self.at.key(where, "use_backend_defaults"),
                "filtering.use_backend_defaults",
                f"expected true or false, got {_shown(use_defaults)}",
            )
            use_defaults = True
        rules: list[CollapseRule] = []
        collapse = table.get("collapse", [])
        if not isinstance(collapse, list):
            self.fail(
                self.at.key(where, "collapse"), "filtering.collapse", "expected an array of tables"
            )
            return (), use_defaults
        for index, entry in enumerate(collapse):
            line = self._rule_line(index)
            key = f"filtering.collapse[{index}]"
            if not isinstance(entry, Mapping):
                self.fail(line, key, "expected a table with kind, attribute and globs")
                continue
            extra = sorted(set(entry) - {"kind", "attribute", "globs"})
            missing = [k for k in ("kind", "attribute", "globs") if k not in entry]
            if extra:
                self.fail(
                    line, key, f"unknown key(s) {', '.join(extra)}; expected kind, attribute, globs"
                )
            if missing:
                self.fail(line, key, f"missing key(s) {', '.join(missing)}")
            if extra or missing:
                continue
            kind, attribute, globs = entry["kind"], entry["attribute"], entry["globs"]
            bad = False
            for name, item in (("kind", kind), ("attribute", attribute)):
                if not isinstance(item, str) or not item.strip():
                    self.fail(line, f"{key}.{name}", f"expected a non-empty string for {name!r}")
                    bad = True
            if (
                not isinstance(globs, list)
                or not globs
                or not all(isinstance(g, str) and g for g in globs)
            ):
                self.fail(line, f"{key}.globs", "expected a non-empty array of non-empty strings")
                bad = True
            if not bad:
                rules.append(CollapseRule(kind, attribute, tuple(globs)))
        return tuple(rules), use_defaults

    def _rule_line(self, index: int) -> int:
        # Either [[filtering.collapse]] tables or an inline array under [filtering].
        if any(name == "filtering.collapse" and arr for name, arr, _ in self.at.headers):
            return self.at.table("filtering.collapse", index)
        start = self.at.key(("filtering", None), "collapse")
        seen = -1
        for number in range(start, len(self.at.lines) + 1):
            seen += self.at.lines[number - 1].count("kind")
            if seen >= index:
                return number
        return start

    def display(self, value: object) -> DisplaySettings:
        table = self._table(value, "display")
        if table is None:
            return DisplaySettings()
        where = ("display", None)
        self._unknown_keys(table, ("metric",), where, "display")
        metric = table.get("metric")
        if metric is not None and (not isinstance(metric, str) or not metric):
            self.fail(
                self.at.key(where, "metric"),
                "display.metric",
                f"expected a non-empty string, got {_shown(metric)}",
            )
            metric = None
        return DisplaySettings(metric=metric)

    def jobs(self, value: object) -> tuple[JobSpec, ...]:
        if not isinstance(value, list):
            self.fail(self.at.key((), "jobs"), "jobs", "expected an array of tables [[jobs]]")
            return ()
        jobs: list[JobSpec] = []
        names: set[str] = set()
        for index, entry in enumerate(value):
            line = self.at.table("jobs", index)
            key = f"jobs[{index}]"
            where = ("jobs", index)
            if not isinstance(entry, Mapping):
                self.fail(line, key, "expected a table")
                continue
            self._unknown_keys(
                entry, ("name", "backend", "inputs", "options", "baseline"), where, key
            )
            backend = entry.get("backend")
            if not isinstance(backend, str) or not backend:
                at = self.at.key(where, "backend") if "backend" in entry else line
                self.fail(
                    at,
                    f"{key}.backend",
                    "expected a non-empty string naming the job's backend"
                    + (f", got {_shown(backend)}" if "backend" in entry else ""),
                )
                backend = None
            elif self.known_backends is not None and backend not in self.known_backends:
                self.fail(
                    self.at.key(where, "backend"),
                    f"{key}.backend",
                    f"unknown backend {backend!r}; {_expected(backend, self.known_backends)}",
                    value=True,
                )
                backend = None
            if "inputs" not in entry:
                if not _misspelled("inputs", entry):  # else the unknown key is the problem
                    self.fail(line, f"{key}.inputs", "missing key 'inputs' (paths or globs)")
                inputs: tuple[str, ...] = ()
            else:
                inputs = self._strings(
                    entry["inputs"], self.at.key(where, "inputs"), f"{key}.inputs", non_empty=True
                )
            options = entry.get("options", {})
            if not isinstance(options, Mapping):
                self.fail(self.at.key(where, "options"), f"{key}.options", "expected a table")
                options = {}
            name = entry.get("name")
            if name is None:
                if not inputs:
                    continue  # the inputs problem is already reported
                name = _stem(inputs[0])
            if not isinstance(name, str) or not name:
                self.fail(
                    self.at.key(where, "name") if "name" in entry else line,
                    f"{key}.name",
                    "expected a non-empty string",
                )
                continue
            if name in names:
                self.fail(
                    self.at.key(where, "name") if "name" in entry else line,
                    f"{key}.name",
                    f"duplicate job name {name!r}",
                )
                continue
            names.add(name)
            baseline = entry.get("baseline")
            baseline_line = self.at.key(where, "baseline") if "baseline" in entry else 0
            if baseline is not None and (not isinstance(baseline, str) or not baseline.strip()):
                self.fail(
                    baseline_line,
                    f"{key}.baseline",
                    "expected a non-empty string: the path of a standardized document "
                    "(mlia-output.json) relative to the workspace",
                )
                baseline = None
            if backend is not None and inputs:
                jobs.append(
                    JobSpec(name, backend, inputs, dict(options), line, baseline, baseline_line)
                )
        return tuple(jobs)


def _expected(given: str, allowed: Sequence[str]) -> str:
    """ "did you mean 'x'? expected one of ..." (the suggestion only for a close name)."""
    import difflib

    close = difflib.get_close_matches(given, allowed, n=1, cutoff=0.6)
    hint = f"did you mean {close[0]!r}? " if close else ""
    return f"{hint}expected one of {', '.join(allowed)}"


def _misspelled(required: str, table: Mapping[str, Any]) -> bool:
    """Whether ``table`` has an unknown key that is a close misspelling of ``required``."""
    import difflib

    return bool(difflib.get_close_matches(required, list(table), n=1, cutoff=0.6))


def _stem(path: str) -> str:
    base = path.replace("\\", "/").rsplit("/", 1)[-1]
    return base.split(".", 1)[0] or base
