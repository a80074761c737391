"""``workspace/didChangeConfiguration`` and ``workspace/configuration`` pulls.

On a change the ``perfline`` section is pulled when the client supports pulls; the view
applies the pulled answer if it holds the section, else the pushed ``settings`` (a client
whose store has nothing for perfline still gets what it pushes), then the client is asked
to re-request hints and lenses, and the diagnostics are published again (the compare
settings decide which lines get a regression warning). Invalid values are logged
(``window/logMessage``).
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

from lsprotocol import types

from perfline.server.lsp import convert
from perfline.server.lsp.features import Feature
from perfline.server.view.hint_settings import SECTION

if TYPE_CHECKING:
    from perfline.server.lsp.connection import PerflineServer

log = logging.getLogger(__name__)


async def did_change_configuration(
    ls: PerflineServer, params: types.DidChangeConfigurationParams
) -> None:
    change = ls.view.apply_settings(await pull(ls), params.settings)
    ls.log_problems(change.problems)
    if change.changed:
        ls.refresh()
        ls.publish_diagnostics()  # the regression threshold decides which lines warn


async def pull(ls: PerflineServer) -> Any:
    """The client's answer for the ``perfline`` section, or None (no pulls, or failed)."""
    workspace = ls.client_capabilities.workspace
    if workspace is None or not workspace.configuration:
        return None
    scope = convert.uri_of(str(ls.engine().root))
    item = types.ConfigurationItem(section=SECTION, scope_uri=scope)
    try:
        answers = await ls.workspace_configuration_async(types.ConfigurationParams([item]))
    except Exception as error:
        log.warning("workspace/configuration failed: %s", error)
        return None
    return answers[0] if answers else None


FEATURES = (Feature(types.WORKSPACE_DID_CHANGE_CONFIGURATION, did_change_configuration),)
