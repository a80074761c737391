"""The pins of the LSP shell's private pygls overrides: an upgrade of pygls or lsprotocol
fails here, loudly, before it can change what the daemon writes.

``server/lsp/wire.py`` (the wire fast path) overrides ``JsonRPCProtocol._send_data`` and
``_serialize_message``; ``server/lsp/protocol.py`` overrides ``_handle_request``,
``_send_handler_result`` and ``_check_handler_result`` and uses the protocol's private
``_request_futures``, ``_result_types``, ``_converter``, ``_send_response``, ``writer``
and ``_include_headers``; ``server/lsp/connection.py`` sets the server's ``_stop_event``
for stdio. These tests pin the releases (``pyproject.toml``), the source of every
overridden method (a digest of ``inspect.getsource``) and the attributes and signatures
the overrides rely on. When one fails: read the new pygls source of the method, adapt
the override, then update the pin here.
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import inspect
import threading
import tomllib

import pytest
from pygls.protocol import JsonRPCProtocol
from pygls.server import JsonRPCServer

from perfline.server.host import EngineHost
from perfline.server.lsp import PerflineServer
from perfline.server.lsp.protocol import PerflineProtocol
from perfline.server.lsp.wire import PYGLS_VERSION, FastWire
from tests.support.locations import REPO

#: sha256 (first 16 hex digits) of the pinned pygls' source of each overridden method, with
#: its parameters.
OVERRIDDEN = {
    "_send_data": ("40e0a5bb70951777", ["self", "data"]),
    "_serialize_message": ("075c32e9ae36b6e8", ["self", "data"]),
    "_handle_request": ("74d28ad48dd25dbf", ["self", "msg_id", "method_name", "params"]),
    "_send_handler_result": ("38d95833f8826cde", ["self", "future", "msg_id"]),
    "_check_handler_result": ("424c15d110d5a21d", ["self", "future"]),
}
#: Private methods the overrides call, with their parameters.
CALLED = {"_send_response": ["self", "msg_id", "result", "error"]}
#: Private (or undocumented) attributes of a protocol instance the overrides read or write.
PROTOCOL_ATTRIBUTES = ("_request_futures", "_result_types", "_converter", "_include_headers")


def _pinned_release(name: str) -> str:
    project = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
    for requirement in project["project"]["dependencies"]:
        if requirement.startswith(f"{name}=="):
            return str(requirement.split("==", 1)[1])
    raise AssertionError(f"{name} is not pinned with == in pyproject.toml")


@pytest.mark.parametrize("name", ["pygls", "lsprotocol"])
def test_the_installed_release_is_the_pinned_one(name: str) -> None:
    installed = importlib.metadata.version(name)
    assert installed == _pinned_release(name), (
        f"{name} {installed} is installed; the LSP shell's overrides were checked against "
        f"{_pinned_release(name)}"
    )


def test_the_wire_module_names_the_pinned_pygls() -> None:
    assert _pinned_release("pygls") == PYGLS_VERSION


@pytest.mark.parametrize("name", sorted(OVERRIDDEN))
def test_each_overridden_method_is_unchanged_in_pygls(name: str) -> None:
    digest, parameters = OVERRIDDEN[name]
    method = getattr(JsonRPCProtocol, name)
    assert list(inspect.signature(method).parameters) == parameters, name
    source = hashlib.sha256(inspect.getsource(method).encode()).hexdigest()[:16]
    assert source == digest, f"pygls changed JsonRPCProtocol.{name}: re-check the override"
    # and the override is the one the protocol class resolves, before pygls'
    assert getattr(PerflineProtocol, name) is not method


@pytest.mark.parametrize("name", sorted(CALLED))
def test_the_private_methods_called_keep_their_parameters(name: str) -> None:
    assert list(inspect.signature(getattr(JsonRPCProtocol, name)).parameters) == CALLED[name]


def test_the_private_attributes_used_exist_on_a_connection() -> None:
    server = PerflineServer(EngineHost())
    protocol = server.protocol
    for name in (*PROTOCOL_ATTRIBUTES, "writer", "fm"):
        assert hasattr(protocol, name), f"pygls' protocol has no {name} any more"
    assert isinstance(protocol._request_futures, dict)
    assert isinstance(protocol._result_types, dict)
    assert hasattr(protocol.fm, "builtin_features") and hasattr(protocol.fm, "features")
    # stdio: the stop event pygls' ``shutdown`` sets is the one the transport waits on
    assert "self._stop_event" in inspect.getsource(JsonRPCServer)
    stop = threading.Event()
    server.write_to_stdout(stop)
    assert server._stop_event is stop


def test_the_fast_path_comes_before_pygls_in_the_protocol_class() -> None:
    mro = PerflineProtocol.__mro__
    assert mro.index(FastWire) < mro.index(JsonRPCProtocol)
    assert PerflineProtocol._send_data is FastWire._send_data
